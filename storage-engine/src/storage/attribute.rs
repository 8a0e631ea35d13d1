//! DynamoDB's rules for attribute names and values, and their sizes: shared
//! by the models (a Tablestore column is validated as a DynamoDB attribute)
//! and the change stream (a record's `SizeBytes`).
//!
//! Rules follow "Supported data types and naming rules in Amazon DynamoDB" and
//! "Item sizes and formats" in the DynamoDB Developer Guide.

use crate::storage::number::Decimal;
use serde_dynamo::{AttributeValue, Item};

/// DynamoDB's maximum item size: 400 KB.
pub const MAX_ITEM_SIZE_BYTES: u64 = 400 * 1024;

/// Longest attribute name, in bytes, at any depth: DynamoDB accepts 65,535
/// and refuses 65,536 ("Constraints in Amazon DynamoDB", "Attribute names":
/// "no greater than 64 KB long").
pub const MAX_ATTRIBUTE_NAME_BYTES: usize = 65_535;

/// Deepest nesting of List and Map values: DynamoDB "supports nested
/// attributes up to 32 levels deep" ("Constraints in Amazon DynamoDB"),
/// the attribute itself being level 1, so a leaf may sit inside at most 31
/// Lists or Maps.
pub const MAX_NESTING_LEVELS: usize = 32;

/// DynamoDB's message for a too deeply nested value.
pub(crate) const NESTING_MESSAGE: &str = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit";

/// DynamoDB's message for an attribute name over [`MAX_ATTRIBUTE_NAME_BYTES`].
pub(crate) const NAME_TOO_LARGE: &str =
    "1 validation error detected: Attribute name is too large, must be less than 65536 bytes";

/// Validates one top-level attribute (name and value, recursively).
///
/// # Errors
///
/// As `validate_item` (DynamoDB model) for one attribute.
pub(crate) fn validate_attribute(name: &str, value: &AttributeValue) -> Result<(), String> {
    if name.is_empty() {
        return Err(
            "One or more parameter values were invalid: An AttributeName cannot be empty"
                .to_string(),
        );
    }
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(NAME_TOO_LARGE.to_string());
    }
    validate_value(value)
}

/// Validates a value as an item's attribute value would be (Numbers,
/// sets, nesting, map keys), without changing it: an
/// `ExpressionAttributeValues` entry.
///
/// # Errors
///
/// DynamoDB's message (without the `1 validation error detected: `
/// envelope of a nesting error).
pub(crate) fn validate_value(value: &AttributeValue) -> Result<(), String> {
    checked_value_size(&mut value.clone(), 1).map(|_| ())
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

/// [`value_size_bytes`] of a value at nesting `level` (1 for an
/// attribute), validated and with its Numbers made canonical in place:
/// Numbers, non-empty sets without duplicates (Numbers compared by value),
/// at most [`MAX_NESTING_LEVELS`], map keys within
/// [`MAX_ATTRIBUTE_NAME_BYTES`]. Recursion is bounded by the nesting limit,
/// checked before each descent.
pub(crate) fn checked_value_size(v: &mut AttributeValue, level: usize) -> Result<u64, String> {
    Ok(match v {
        AttributeValue::N(n) => {
            let d = Decimal::parse_dynamodb(n)?;
            canonicalize(n, &d);
            decimal_size(&d)
        }
        AttributeValue::Ns(ns) => {
            if ns.is_empty() {
                return Err(
                    "One or more parameter values were invalid: An number set  may not be empty"
                        .to_string(),
                );
            }
            let mut size = 0;
            for n in ns.iter_mut() {
                let d = Decimal::parse_dynamodb(n)?;
                canonicalize(n, &d);
                size += decimal_size(&d);
            }
            if has_duplicates(ns) {
                return Err("Input collection contains duplicates".to_string());
            }
            size
        }
        AttributeValue::Ss(ss) => {
            if ss.is_empty() {
                return Err(
                    "One or more parameter values were invalid: An string set  may not be empty"
                        .to_string(),
                );
            }
            if has_duplicates(ss) {
                return Err(format!(
                    "One or more parameter values were invalid: Input collection [{}] contains duplicates.",
                    ss.join(", ")
                ));
            }
            ss.iter().map(|e| e.len() as u64).sum()
        }
        AttributeValue::Bs(bs) => {
            if bs.is_empty() {
                return Err(
                    "One or more parameter values were invalid: Binary sets should not be empty"
                        .to_string(),
                );
            }
            if has_duplicates(bs) {
                use base64::Engine as _;
                let shown: Vec<String> = bs
                    .iter()
                    .map(|b| base64::engine::general_purpose::STANDARD.encode(b))
                    .collect();
                return Err(format!(
                    "One or more parameter values were invalid: Input collection [{}]of type BS contains duplicates.",
                    shown.join(", ")
                ));
            }
            bs.iter().map(|e| e.len() as u64).sum()
        }
        AttributeValue::L(l) => {
            if level >= MAX_NESTING_LEVELS {
                return Err(format!("1 validation error detected: {NESTING_MESSAGE}"));
            }
            let mut size = 3;
            for e in l.iter_mut() {
                size += 1 + checked_value_size(e, level + 1)?;
            }
            size
        }
        AttributeValue::M(m) => {
            if level >= MAX_NESTING_LEVELS {
                return Err(format!("1 validation error detected: {NESTING_MESSAGE}"));
            }
            let mut size = 3;
            for (k, e) in m.iter_mut() {
                if k.len() > MAX_ATTRIBUTE_NAME_BYTES {
                    return Err(NAME_TOO_LARGE.to_string());
                }
                size += 1 + k.len() as u64 + checked_value_size(e, level + 1)?;
            }
            size
        }
        AttributeValue::Null(false) => {
            return Err("One or more parameter values were invalid: Null attribute value types must have the value of true".to_string());
        }
        other => value_size_bytes(other),
    })
}

/// Replaces `text` with the canonical text of `d` when they differ.
fn canonicalize(text: &mut String, d: &Decimal) {
    let canonical = d.canonical();
    if *text != canonical {
        *text = canonical;
    }
}

fn has_duplicates<T: Ord>(values: &[T]) -> bool {
    let mut sorted: Vec<&T> = values.iter().collect();
    sorted.sort_unstable();
    sorted.windows(2).any(|w| w[0] == w[1])
}

fn decimal_size(d: &Decimal) -> u64 {
    1 + (d.digits.len() as u64).div_ceil(2)
}

pub(crate) fn number_size(n: &str) -> u64 {
    let digits = Decimal::parse(n).map_or(n.len(), |d| d.digits.len()) as u64;
    1 + digits.div_ceil(2)
}
