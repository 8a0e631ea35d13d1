//! Cell values in JSON: one member naming the Tablestore type
//! (`{"INTEGER": 5}`, `{"DOUBLE": 1.5}`, `{"BOOLEAN": true}`,
//! `{"STRING": "a"}`, `{"BINARY": "<base64>"}`), and the bare strings
//! `"INF_MIN"` / `"INF_MAX"` in range bounds ("Tablestore: Naming
//! conventions and data types").
//!
//! The engine stores DynamoDB attribute values: INTEGER and DOUBLE are
//! Numbers (a DOUBLE always keeps a fraction or exponent, `1.0`, so it
//! reads back as DOUBLE), BOOLEAN is BOOL, STRING is S, BINARY is B.

use super::error::OtsError;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use ttlstream_engine::tablestore::KeyBound;
use ttlstream_engine::{AttributeValue, Item, ScalarAttributeType};

/// A cell value, or an infinite range bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum CellValue {
    Integer(i64),
    Double(f64),
    Boolean(bool),
    String(String),
    /// Base64 (standard alphabet, padded).
    Binary(String),
    InfMin,
    InfMax,
}

/// A primary-key column as JSON: `{"name": "pk", "value": {"STRING": "a"}}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PrimaryKeyColumn {
    pub name: String,
    pub value: CellValue,
}

/// An attribute column version as JSON:
/// `{"name": "c", "value": {...}, "timestamp": 1700000000000}` (epoch ms;
/// omitted on a write: the server's clock).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttributeColumn {
    pub name: String,
    pub value: CellValue,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
}

/// The primary-key type names of `table_meta.primary_key[].type`.
pub(crate) fn key_type(name: &str) -> Result<ScalarAttributeType, OtsError> {
    match name {
        "INTEGER" => Ok(ScalarAttributeType::N),
        "STRING" => Ok(ScalarAttributeType::S),
        "BINARY" => Ok(ScalarAttributeType::B),
        other => Err(OtsError::invalid(format!(
            "primary key type {other:?} is not one of INTEGER, STRING, BINARY"
        ))),
    }
}

/// The type name of a primary-key schema column.
pub(crate) fn key_type_name(t: ScalarAttributeType) -> &'static str {
    match t {
        ScalarAttributeType::N => "INTEGER",
        ScalarAttributeType::B => "BINARY",
        _ => "STRING",
    }
}

/// A value to store; `where_` names the column for the error.
pub(crate) fn to_attribute(value: &CellValue, where_: &str) -> Result<AttributeValue, OtsError> {
    Ok(match value {
        CellValue::Integer(i) => AttributeValue::N(i.to_string()),
        CellValue::Double(d) if d.is_finite() => AttributeValue::N(format!("{d:?}")),
        CellValue::Double(d) => {
            return Err(OtsError::invalid(format!(
                "{where_}: DOUBLE {d} is not a finite number"
            )));
        }
        CellValue::Boolean(b) => AttributeValue::Bool(*b),
        CellValue::String(s) => AttributeValue::S(s.clone()),
        CellValue::Binary(b) => AttributeValue::B(
            STANDARD
                .decode(b)
                .map_err(|e| OtsError::invalid(format!("{where_}: BINARY is not base64: {e}")))?,
        ),
        CellValue::InfMin | CellValue::InfMax => {
            return Err(OtsError::invalid(format!(
                "{where_}: INF_MIN and INF_MAX are only allowed in GetRange bounds"
            )));
        }
    })
}

/// A stored value as JSON.
pub(crate) fn from_attribute(value: &AttributeValue) -> CellValue {
    match value {
        AttributeValue::N(n) => match n.parse::<i64>() {
            Ok(i) => CellValue::Integer(i),
            Err(_) => n
                .parse::<f64>()
                .map_or_else(|_| CellValue::String(n.clone()), CellValue::Double),
        },
        AttributeValue::Bool(b) => CellValue::Boolean(*b),
        AttributeValue::B(b) => CellValue::Binary(STANDARD.encode(b)),
        AttributeValue::S(s) => CellValue::String(s.clone()),
        // Only the types above are ever written through this API.
        other => CellValue::String(format!("{other:?}")),
    }
}

/// A full primary key (no infinite bounds) as an engine item.
pub(crate) fn to_key(columns: &[PrimaryKeyColumn], member: &str) -> Result<Item, OtsError> {
    let mut map = std::collections::HashMap::new();
    for c in columns {
        let where_ = format!("{member}: primary key column `{}`", c.name);
        if map
            .insert(c.name.clone(), to_attribute(&c.value, &where_)?)
            .is_some()
        {
            return Err(OtsError::invalid(format!(
                "{member}: primary key column `{}` is given twice",
                c.name
            )));
        }
    }
    Ok(map.into())
}

/// A range bound as the engine's.
pub(crate) fn to_bound(
    columns: &[PrimaryKeyColumn],
    member: &str,
) -> Result<Vec<(String, KeyBound)>, OtsError> {
    columns
        .iter()
        .map(|c| {
            let bound = match &c.value {
                CellValue::InfMin => KeyBound::InfMin,
                CellValue::InfMax => KeyBound::InfMax,
                v => KeyBound::Value(to_attribute(
                    v,
                    &format!("{member}: primary key column `{}`", c.name),
                )?),
            };
            Ok((c.name.clone(), bound))
        })
        .collect()
}

/// An engine primary key as JSON columns, in the table's key order.
pub(crate) fn from_key(key: &Item, order: &[String]) -> Vec<PrimaryKeyColumn> {
    let map: &std::collections::HashMap<String, AttributeValue> = key;
    order
        .iter()
        .filter_map(|name| {
            map.get(name).map(|v| PrimaryKeyColumn {
                name: name.clone(),
                value: from_attribute(v),
            })
        })
        .collect()
}
