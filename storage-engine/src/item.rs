//! Item validation, key extraction and size accounting.
//!
//! Rules follow "Supported data types and naming rules in Amazon DynamoDB" and
//! "Item sizes and formats" in the DynamoDB Developer Guide.

use crate::key::encode_key_value;
use crate::number::Decimal;
use crate::table::TableDefinition;
use serde_dynamo::{AttributeValue, Item};

/// DynamoDB's maximum item size: 400 KB.
pub const MAX_ITEM_SIZE_BYTES: u64 = 400 * 1024;

/// Encodes the primary key of `item` (which may hold other attributes too).
///
/// # Errors
///
/// A message naming the key attribute that is missing or of the wrong type.
pub(crate) fn primary_key_bytes(def: &TableDefinition, item: &Item) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(32);
    for k in def.key_attributes() {
        let v = item.get(&k.attribute_name).ok_or_else(|| {
            format!(
                "key attribute `{}` ({}) is missing",
                k.attribute_name,
                k.attribute_type.as_str()
            )
        })?;
        encode_key_value(k.attribute_type, v, &mut out)
            .map_err(|m| format!("key attribute `{}` {m}", k.attribute_name))?;
    }
    Ok(out)
}

/// Encodes a key given as a key-only item (GetItem/DeleteItem/UpdateItem
/// `Key`): exactly the key attributes, nothing else.
///
/// # Errors
///
/// A message for a missing, mistyped or extra attribute.
pub(crate) fn key_only_bytes(def: &TableDefinition, key: &Item) -> Result<Vec<u8>, String> {
    if let Some(extra) = key
        .keys()
        .find(|name| !def.key_attributes().any(|k| &k.attribute_name == *name))
    {
        return Err(format!(
            "the provided key element does not match the schema: `{extra}` is not a key attribute"
        ));
    }
    primary_key_bytes(def, key)
}

/// The key attributes of `item`, as an item (a change record's `Keys`).
pub(crate) fn key_item(def: &TableDefinition, item: &Item) -> Item {
    let mut keys = Item::default();
    for k in def.key_attributes() {
        if let Some(v) = item.get(&k.attribute_name) {
            keys.insert(k.attribute_name.clone(), v.clone());
        }
    }
    keys
}

/// Validates a whole item for a put: key attributes, the types of secondary
/// index key attributes, every attribute name and value, and the 400 KB size limit.
///
/// # Errors
///
/// A message naming the offending attribute.
pub(crate) fn validate_item(def: &TableDefinition, item: &Item) -> Result<Vec<u8>, String> {
    let key = primary_key_bytes(def, item)?;
    crate::index::validate_item(def, item)?;
    // One pass: each Number is parsed once, for its validity and its size.
    let mut size = 0u64;
    for (name, value) in item.iter() {
        if name.is_empty() {
            return Err("attribute names must not be empty".to_string());
        }
        size += name.len() as u64
            + checked_value_size(value).map_err(|m| format!("attribute `{name}`: {m}"))?;
    }
    if size > MAX_ITEM_SIZE_BYTES {
        return Err(format!(
            "item size {size} bytes exceeds the maximum of {MAX_ITEM_SIZE_BYTES} bytes"
        ));
    }
    Ok(key)
}

/// Validates one top-level attribute (name and value, recursively).
///
/// # Errors
///
/// A message naming the attribute: empty name, invalid Number, empty set.
pub(crate) fn validate_attribute(name: &str, value: &AttributeValue) -> Result<(), String> {
    if name.is_empty() {
        return Err("attribute names must not be empty".to_string());
    }
    validate_value(value).map_err(|m| format!("attribute `{name}`: {m}"))
}

fn validate_value(value: &AttributeValue) -> Result<(), String> {
    match value {
        AttributeValue::N(n) => Decimal::parse_dynamodb(n).map(|_| ()),
        AttributeValue::Ns(ns) => {
            if ns.is_empty() {
                return Err("an NS set must not be empty".to_string());
            }
            ns.iter()
                .try_for_each(|n| Decimal::parse_dynamodb(n).map(|_| ()))
        }
        AttributeValue::Ss(v) if v.is_empty() => Err("an SS set must not be empty".to_string()),
        AttributeValue::Bs(v) if v.is_empty() => Err("a BS set must not be empty".to_string()),
        AttributeValue::L(l) => l.iter().try_for_each(validate_value),
        AttributeValue::M(m) => m.values().try_for_each(validate_value),
        _ => Ok(()),
    }
}

/// Approximate DynamoDB size of an item: for each attribute, the UTF-8 length
/// of its name plus the size of its value ("Item sizes and formats").
pub fn item_size_bytes(item: &Item) -> u64 {
    item.iter()
        .map(|(name, v)| name.len() as u64 + value_size_bytes(v))
        .sum()
}

/// Size of one value: String = UTF-8 bytes; Number = 1 + ceil(significant
/// digits / 2); Binary = raw bytes; Boolean and Null = 1; List and Map = 3 +
/// per element 1 + element size (+ key length for maps); sets = sum of
/// their elements.
pub fn value_size_bytes(v: &AttributeValue) -> u64 {
    match v {
        AttributeValue::S(s) => s.len() as u64,
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.len() as u64,
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(|e| 1 + value_size_bytes(e)).sum::<u64>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, e)| 1 + k.len() as u64 + value_size_bytes(e))
                .sum::<u64>()
        }
        AttributeValue::Ss(s) => s.iter().map(|e| e.len() as u64).sum(),
        AttributeValue::Ns(s) => s.iter().map(|e| number_size(e)).sum(),
        AttributeValue::Bs(s) => s.iter().map(|e| e.len() as u64).sum(),
    }
}

/// [`value_size_bytes`] of a value that is also validated as
/// [`validate_value`] does (each Number parsed once).
fn checked_value_size(v: &AttributeValue) -> Result<u64, String> {
    Ok(match v {
        AttributeValue::N(n) => decimal_size(&Decimal::parse_dynamodb(n)?),
        AttributeValue::Ns(ns) => {
            if ns.is_empty() {
                return Err("an NS set must not be empty".to_string());
            }
            let mut size = 0;
            for n in ns {
                size += decimal_size(&Decimal::parse_dynamodb(n)?);
            }
            size
        }
        AttributeValue::L(l) => {
            let mut size = 3;
            for e in l {
                size += 1 + checked_value_size(e)?;
            }
            size
        }
        AttributeValue::M(m) => {
            let mut size = 3;
            for (k, e) in m {
                size += 1 + k.len() as u64 + checked_value_size(e)?;
            }
            size
        }
        other => {
            validate_value(other)?;
            value_size_bytes(other)
        }
    })
}

fn decimal_size(d: &Decimal) -> u64 {
    1 + (d.digits.len() as u64).div_ceil(2)
}

pub(crate) fn number_size(n: &str) -> u64 {
    let digits = Decimal::parse(n).map_or(n.len(), |d| d.digits.len()) as u64;
    1 + digits.div_ceil(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::ScalarAttributeType;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect::<std::collections::HashMap<_, _>>()
            .into()
    }

    #[test]
    fn key_validation_names_attribute() {
        let def = TableDefinition::new("Sessions", "pk", ScalarAttributeType::S)
            .with_sort_key("sk", ScalarAttributeType::N);
        let missing = item(&[("pk", AttributeValue::S("a".into()))]);
        assert!(primary_key_bytes(&def, &missing).is_err_and(|m| m.contains("`sk`")));
        let wrong = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("sk", AttributeValue::S("1".into())),
        ]);
        assert!(primary_key_bytes(&def, &wrong).is_err_and(|m| m.contains("`sk`")));
        let extra = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("sk", AttributeValue::N("1".into())),
            ("x", AttributeValue::N("1".into())),
        ]);
        assert!(key_only_bytes(&def, &extra).is_err_and(|m| m.contains("`x`")));
        assert!(validate_item(&def, &extra).is_ok());
    }

    #[test]
    fn values_are_validated() {
        assert!(validate_attribute("a", &AttributeValue::N("1x".into())).is_err());
        assert!(validate_attribute("a", &AttributeValue::Ns(vec![])).is_err());
        assert!(validate_attribute("", &AttributeValue::S("x".into())).is_err());
        let nested = AttributeValue::L(vec![AttributeValue::N("nope".into())]);
        assert!(validate_attribute("a", &nested).is_err_and(|m| m.contains("`a`")));
    }

    #[test]
    fn sizes_follow_dynamodb_rules() {
        let i = item(&[
            ("name", AttributeValue::S("héllo".into())), // 4 + 6
            ("n", AttributeValue::N("123.45".into())),   // 1 + (1 + 3)
            ("flag", AttributeValue::Bool(true)),        // 4 + 1
        ]);
        assert_eq!(item_size_bytes(&i), 10 + 5 + 5);
        let l = AttributeValue::L(vec![AttributeValue::S("ab".into())]);
        assert_eq!(value_size_bytes(&l), 3 + 1 + 2);
    }
}
