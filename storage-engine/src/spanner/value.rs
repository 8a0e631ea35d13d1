//! Spanner column types and values, their key encoding, and their JSON form
//! in data change records ("Spanner: Change streams overview", data change
//! records: INT64 as a decimal string, BYTES as base64, TIMESTAMP as RFC 3339).

use serde::{Deserialize, Serialize};

/// A column type (GoogleSQL names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SpannerType {
    /// `BOOL`.
    Bool,
    /// `INT64`.
    Int64,
    /// `FLOAT64` (not allowed in keys).
    Float64,
    /// `STRING`.
    String,
    /// `BYTES`.
    Bytes,
    /// `TIMESTAMP`: stored as epoch **milliseconds** (UTC).
    Timestamp,
}

impl SpannerType {
    /// The type name as change records carry it (`"INT64"`, `"TIMESTAMP"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bool => "BOOL",
            Self::Int64 => "INT64",
            Self::Float64 => "FLOAT64",
            Self::String => "STRING",
            Self::Bytes => "BYTES",
            Self::Timestamp => "TIMESTAMP",
        }
    }
}

/// A column value. `Null` is allowed in any non-key column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SpannerValue {
    /// SQL NULL.
    Null,
    /// A `BOOL`.
    Bool(bool),
    /// An `INT64`.
    Int64(i64),
    /// A `FLOAT64`.
    Float64(f64),
    /// A `STRING`.
    String(String),
    /// A `BYTES`.
    Bytes(Vec<u8>),
    /// A `TIMESTAMP`, epoch milliseconds UTC.
    Timestamp(i64),
}

impl SpannerValue {
    /// Whether the value fits a column of type `ty` (NULL fits every type).
    pub fn fits(&self, ty: SpannerType) -> bool {
        matches!(
            (self, ty),
            (Self::Null, _)
                | (Self::Bool(_), SpannerType::Bool)
                | (Self::Int64(_), SpannerType::Int64)
                | (Self::Float64(_), SpannerType::Float64)
                | (Self::String(_), SpannerType::String)
                | (Self::Bytes(_), SpannerType::Bytes)
                | (Self::Timestamp(_), SpannerType::Timestamp)
        )
    }

    /// The JSON form used in change records (`mods` keys and values).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Int64(i) => Value::String(i.to_string()),
            Self::Float64(f) => serde_json::Number::from_f64(*f)
                .map_or_else(|| Value::String(f.to_string()), Value::Number),
            Self::String(s) => Value::String(s.clone()),
            Self::Bytes(b) => Value::String(base64(b)),
            Self::Timestamp(ms) => Value::String(rfc3339_millis(*ms)),
        }
    }

    /// Appends an order-preserving, self-delimiting encoding (keys and
    /// index entries): a tag byte (NULL sorts first), then the value.
    pub(crate) fn encode_key(&self, out: &mut Vec<u8>) {
        match self {
            Self::Null => out.push(0x00),
            Self::Bool(b) => out.extend_from_slice(&[0x01, u8::from(*b)]),
            Self::Int64(i) | Self::Timestamp(i) => {
                out.push(0x02);
                out.extend_from_slice(&((*i as u64) ^ (1 << 63)).to_be_bytes());
            }
            Self::Float64(f) => {
                out.push(0x03);
                let bits = f.to_bits();
                let ordered = if bits >> 63 == 1 {
                    !bits
                } else {
                    bits ^ (1 << 63)
                };
                out.extend_from_slice(&ordered.to_be_bytes());
            }
            Self::String(s) => escape(0x04, s.as_bytes(), out),
            Self::Bytes(b) => escape(0x05, b, out),
        }
    }
}

fn escape(tag: u8, bytes: &[u8], out: &mut Vec<u8>) {
    out.push(tag);
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Epoch milliseconds as RFC 3339 UTC with milliseconds
/// (`2024-01-02T03:04:05.678Z`), proleptic Gregorian. Outside chrono's range
/// (about ±262,000 years, far beyond Spanner's 0001 to 9999) the
/// milliseconds are written as a decimal string instead.
pub fn rfc3339_millis(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map_or_else(
        || ms.to_string(),
        |t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
    )
}

/// The inverse of [`rfc3339_millis`]: epoch milliseconds of a timestamp in
/// exactly that shape (`YYYY-MM-DDTHH:MM:SS.mmmZ`); `None` otherwise.
pub(crate) fn parse_rfc3339_millis(text: &str) -> Option<i64> {
    let t = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.3fZ").ok()?;
    let ms = t.and_utc().timestamp_millis();
    (rfc3339_millis(ms) == text).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_parses_back() {
        for ms in [
            0,
            -1,
            1_700_000_000_123,
            951_782_400_000,
            -62_135_596_800_001,
            253_402_300_799_999,
        ] {
            assert_eq!(parse_rfc3339_millis(&rfc3339_millis(ms)), Some(ms), "{ms}");
        }
        assert_eq!(parse_rfc3339_millis("2023-11-14T22:13:20Z"), None);
        assert_eq!(parse_rfc3339_millis("2023-13-14T22:13:20.000Z"), None);
        assert_eq!(parse_rfc3339_millis("not a time"), None);
    }

    #[test]
    fn rfc3339_and_base64() {
        assert_eq!(rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339_millis(1_700_000_000_123),
            "2023-11-14T22:13:20.123Z"
        );
        assert_eq!(rfc3339_millis(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        let _ = rfc3339_millis(i64::MIN);
        let _ = rfc3339_millis(i64::MAX);
        assert_eq!(base64(b"hi!"), "aGkh");
        assert_eq!(base64(b"hi"), "aGk=");
        assert_eq!(base64(b"h"), "aA==");
    }

    #[test]
    fn key_encoding_orders_values() {
        let enc = |v: SpannerValue| {
            let mut o = Vec::new();
            v.encode_key(&mut o);
            o
        };
        assert!(enc(SpannerValue::Int64(-5)) < enc(SpannerValue::Int64(3)));
        assert!(enc(SpannerValue::Null) < enc(SpannerValue::Int64(i64::MIN)));
        assert!(enc(SpannerValue::String("a".into())) < enc(SpannerValue::String("ab".into())));
        assert!(enc(SpannerValue::Float64(-1.5)) < enc(SpannerValue::Float64(0.5)));
    }
}
