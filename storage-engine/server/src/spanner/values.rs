//! Column values in the REST API's JSON encoding ("Spanner REST reference:
//! TypeCode"): INT64 as a decimal string, FLOAT64 as a number (or
//! `"NaN"`, `"Infinity"`, `"-Infinity"`), BOOL as a boolean, STRING as a
//! string, BYTES as base64, TIMESTAMP as RFC 3339 (kept to the millisecond),
//! NULL as `null`.

use serde_json::Value;
use ttlstream_engine::spanner::{SpannerType, SpannerValue};

/// The value of `json` for a column of type `ty`; `what` names it in the
/// error (`column Title`, `keySet.keys[0][1]`).
///
/// # Errors
///
/// A message naming `what`, the type and the value.
pub(crate) fn from_json(json: &Value, ty: SpannerType, what: &str) -> Result<SpannerValue, String> {
    use SpannerType as T;
    let bad = || {
        format!(
            "{what}: {json} is not a valid {} value in the REST encoding",
            ty.as_str()
        )
    };
    Ok(match (ty, json) {
        (_, Value::Null) => SpannerValue::Null,
        (T::Bool, Value::Bool(b)) => SpannerValue::Bool(*b),
        (T::Int64, Value::String(s)) => SpannerValue::Int64(s.parse().map_err(|_| bad())?),
        (T::Int64, Value::Number(n)) => SpannerValue::Int64(n.as_i64().ok_or_else(bad)?),
        (T::Float64, Value::Number(n)) => SpannerValue::Float64(n.as_f64().ok_or_else(bad)?),
        (T::Float64, Value::String(s)) => SpannerValue::Float64(match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            _ => return Err(bad()),
        }),
        (T::String, Value::String(s)) => SpannerValue::String(s.clone()),
        (T::Bytes, Value::String(s)) => {
            use base64::Engine as _;
            SpannerValue::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|_| bad())?,
            )
        }
        (T::Timestamp, Value::String(s)) => SpannerValue::Timestamp(
            chrono::DateTime::parse_from_rfc3339(s)
                .map_err(|_| bad())?
                .timestamp_millis(),
        ),
        _ => return Err(bad()),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rest_encoding_round_trips() {
        let cases = [
            (SpannerType::Int64, json!("42"), SpannerValue::Int64(42)),
            (SpannerType::Bool, json!(true), SpannerValue::Bool(true)),
            (
                SpannerType::String,
                json!("x"),
                SpannerValue::String("x".into()),
            ),
            (
                SpannerType::Bytes,
                json!("aGkh"),
                SpannerValue::Bytes(b"hi!".to_vec()),
            ),
            (
                SpannerType::Timestamp,
                json!("2023-11-14T22:13:20.123Z"),
                SpannerValue::Timestamp(1_700_000_000_123),
            ),
        ];
        for (ty, j, v) in cases {
            assert_eq!(from_json(&j, ty, "c").unwrap(), v);
            assert_eq!(v.to_json(), j);
        }
        assert_eq!(
            from_json(&json!(null), SpannerType::Int64, "c").unwrap(),
            SpannerValue::Null
        );
        let e = from_json(&json!("x"), SpannerType::Int64, "column Id").unwrap_err();
        assert!(
            e.starts_with("column Id: \"x\" is not a valid INT64"),
            "{e}"
        );
    }
}
