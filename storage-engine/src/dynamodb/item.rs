//! Item validation and key extraction (the attribute rules themselves are in
//! `storage/attribute.rs`).
//!
//! Rules follow "Supported data types and naming rules in Amazon DynamoDB" and
//! "Item sizes and formats" in the DynamoDB Developer Guide.

use crate::dynamodb::table::TableDefinition;
use crate::error::ItemError;
use crate::error::StorageError;
use crate::storage::attribute::{
    MAX_ATTRIBUTE_NAME_BYTES, MAX_ITEM_SIZE_BYTES, NAME_TOO_LARGE, checked_value_size,
};
use crate::storage::key::{KeyRole, KeyValueError, encode_key_part};
use crate::storage::{ITEMS, corrupt};
use serde_dynamo::Item;

/// Encodes the primary key of `item` (which may hold other attributes too).
///
/// # Errors
///
/// DynamoDB's message for a key attribute that is missing, of the wrong
/// type, empty or over its size limit.
pub(crate) fn primary_key_bytes(def: &TableDefinition, item: &Item) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(32);
    for (k, role) in key_roles(def) {
        let v = item.get(&k.attribute_name).ok_or_else(|| {
            format!(
                "One or more parameter values were invalid: Missing the key {} in the item",
                k.attribute_name
            )
        })?;
        encode_key_part(k.attribute_type, role, v, &mut out)
            .map_err(|e| e.message(&k.attribute_name))?;
    }
    Ok(out)
}

/// The key attributes of `def` with their roles.
fn key_roles(
    def: &TableDefinition,
) -> impl Iterator<Item = (&crate::storage::key::KeyAttribute, KeyRole)> {
    std::iter::once((&def.partition_key, KeyRole::Partition))
        .chain(def.sort_key.iter().map(|k| (k, KeyRole::Sort)))
}

/// Encodes a key given as a key-only item (GetItem/DeleteItem/UpdateItem
/// `Key`): exactly the key attributes, nothing else.
///
/// # Errors
///
/// "The provided key element does not match the schema" (DynamoDB's
/// message) for a missing, mistyped or extra attribute; DynamoDB's message
/// for an empty or oversized key value.
pub(crate) fn key_only_bytes(def: &TableDefinition, key: &Item) -> Result<Vec<u8>, String> {
    const MISMATCH: &str = "The provided key element does not match the schema";
    if key.len() != def.key_attributes().count()
        || key
            .keys()
            .any(|name| !def.key_attributes().any(|k| &k.attribute_name == name))
    {
        return Err(MISMATCH.to_string());
    }
    let mut out = Vec::with_capacity(32);
    for (k, role) in key_roles(def) {
        let v = key.get(&k.attribute_name).ok_or(MISMATCH)?;
        encode_key_part(k.attribute_type, role, v, &mut out).map_err(|e| match e {
            KeyValueError::Type { .. } => MISMATCH.to_string(),
            other => other.message(&k.attribute_name),
        })?;
    }
    Ok(out)
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

/// Validates a whole item for a put and brings its Numbers to DynamoDB's
/// canonical text (`1e3` -> `1000`, so keys compare and images print as
/// DynamoDB's do): key attributes, the types of secondary index key
/// attributes, every attribute name and value, and the 400 KB size limit.
/// Returns the encoded primary key.
///
/// # Errors
///
/// DynamoDB's message for the first problem found.
pub(crate) fn validate_item(def: &TableDefinition, item: &mut Item) -> Result<Vec<u8>, String> {
    let key = primary_key_bytes(def, item)?;
    crate::dynamodb::index::validate_item(def, item)?;
    // One pass: each Number is parsed once, for its validity, its canonical
    // text and its size.
    let mut size = 0u64;
    for (name, value) in item.iter_mut() {
        if name.is_empty() {
            return Err(
                "One or more parameter values were invalid: An AttributeName cannot be empty"
                    .to_string(),
            );
        }
        if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
            return Err(NAME_TOO_LARGE.to_string());
        }
        size += name.len() as u64 + checked_value_size(value, 1)?;
    }
    if size > MAX_ITEM_SIZE_BYTES {
        return Err("Item size has exceeded the maximum allowed size".to_string());
    }
    Ok(key)
}

/// Decodes an item value (`stream/codec`).
///
/// # Errors
///
/// [`StorageError::Corrupt`].
pub(crate) fn decode_item(bytes: &[u8]) -> Result<Item, StorageError> {
    crate::stream::codec::decode_item(bytes).map_err(|m| corrupt(ITEMS, "item", m))
}

/// A table's primary key as the engine compares keys: two `ItemKey`s of one
/// table are equal exactly when they name the same item (Numbers by value,
/// so `1` and `1.0` are one key, as in DynamoDB). Opaque; made by
/// [`TableDefinition::validate_item`] and [`TableDefinition::validate_key`],
/// for instance to find a key twice in one BatchWriteItem or BatchGetItem
/// request, which DynamoDB refuses ("BatchWriteItem" in the DynamoDB API
/// Reference).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemKey(Vec<u8>);

impl TableDefinition {
    /// Checks `item` as PutItem does before anything is written, and brings
    /// its Numbers to DynamoDB's canonical text (`1e3` becomes `1000`): the
    /// key attributes (present, of the declared type, not empty, within
    /// [`MAX_PARTITION_KEY_BYTES`](crate::MAX_PARTITION_KEY_BYTES) /
    /// [`MAX_SORT_KEY_BYTES`](crate::MAX_SORT_KEY_BYTES)), the types of
    /// secondary index key attributes, every attribute name (not empty, at
    /// most [`MAX_ATTRIBUTE_NAME_BYTES`](crate::MAX_ATTRIBUTE_NAME_BYTES)) and value (valid Numbers, no empty
    /// or duplicate set, at most [`MAX_NESTING_LEVELS`](crate::MAX_NESTING_LEVELS)), and the item's
    /// size (at most [`MAX_ITEM_SIZE_BYTES`](crate::MAX_ITEM_SIZE_BYTES)). Rules from "Supported data
    /// types and naming rules in Amazon DynamoDB", "Constraints in Amazon
    /// DynamoDB" and "Item sizes and formats". Returns the item's key.
    ///
    /// [`DynamoDb::put_item`](crate::DynamoDb::put_item) makes the same checks;
    /// call this to check a whole batch before writing any of it.
    ///
    /// # Errors
    ///
    /// [`ItemError::Invalid`] with DynamoDB's `ValidationException` message
    /// for the first problem found.
    pub fn validate_item(&self, item: &mut Item) -> Result<ItemKey, ItemError> {
        validate_item(self, item)
            .map(ItemKey)
            .map_err(|message| self.invalid(message))
    }

    /// Checks `key` as GetItem and DeleteItem check their `Key`: exactly the
    /// table's key attributes, each of the declared type, not empty and
    /// within its size limit. Returns the key.
    ///
    /// # Errors
    ///
    /// [`ItemError::Invalid`] with DynamoDB's message: "The provided key
    /// element does not match the schema" for a missing, extra or mistyped
    /// attribute; the size or emptiness message otherwise.
    pub fn validate_key(&self, key: &Item) -> Result<ItemKey, ItemError> {
        key_only_bytes(self, key)
            .map(ItemKey)
            .map_err(|message| self.invalid(message))
    }

    fn invalid(&self, message: String) -> ItemError {
        ItemError::Invalid {
            table: self.table_name.clone(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::attribute::{
        item_size_bytes, validate_attribute, validate_value, value_size_bytes,
    };
    use crate::storage::key::ScalarAttributeType;
    use serde_dynamo::AttributeValue;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect::<std::collections::HashMap<_, _>>()
            .into()
    }

    #[test]
    fn key_validation_uses_dynamodb_messages() {
        let def = TableDefinition::new("Sessions", "pk", ScalarAttributeType::S)
            .with_sort_key("sk", ScalarAttributeType::N);
        let missing = item(&[("pk", AttributeValue::S("a".into()))]);
        assert_eq!(
            primary_key_bytes(&def, &missing),
            Err("One or more parameter values were invalid: Missing the key sk in the item".into())
        );
        let wrong = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("sk", AttributeValue::S("1".into())),
        ]);
        assert_eq!(
            primary_key_bytes(&def, &wrong),
            Err("One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S".into())
        );
        let extra = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("sk", AttributeValue::N("1".into())),
            ("x", AttributeValue::N("1".into())),
        ]);
        assert_eq!(
            key_only_bytes(&def, &extra),
            Err("The provided key element does not match the schema".into())
        );
        assert!(validate_item(&def, &mut extra.clone()).is_ok());
    }

    #[test]
    fn values_are_validated() {
        assert!(validate_attribute("a", &AttributeValue::N("1x".into())).is_err());
        assert!(validate_attribute("a", &AttributeValue::Ns(vec![])).is_err());
        assert!(validate_attribute("", &AttributeValue::S("x".into())).is_err());
        let nested = AttributeValue::L(vec![AttributeValue::N("nope".into())]);
        assert_eq!(
            validate_attribute("a", &nested),
            Err("The parameter cannot be converted to a numeric value: nope".into())
        );
    }

    #[test]
    fn sets_refuse_duplicates_numbers_by_value() {
        let ns = AttributeValue::Ns(vec!["1".into(), "1.0".into()]);
        assert_eq!(
            validate_value(&ns),
            Err("Input collection contains duplicates".into())
        );
        let ss = AttributeValue::Ss(vec!["a".into(), "a".into()]);
        assert_eq!(
            validate_value(&ss),
            Err("One or more parameter values were invalid: Input collection [a, a] contains duplicates.".into())
        );
        assert!(validate_value(&AttributeValue::Ns(vec!["1".into(), "2".into()])).is_ok());
    }

    #[test]
    fn nesting_stops_at_32_levels() {
        let nest = |wraps: usize| {
            let mut v = AttributeValue::S("leaf".into());
            for _ in 0..wraps {
                v = AttributeValue::M(std::collections::HashMap::from([("n".to_string(), v)]));
            }
            v
        };
        assert!(validate_value(&nest(31)).is_ok());
        assert!(validate_value(&nest(32)).is_err_and(|m| m.contains("Nesting Levels")));
    }

    #[test]
    fn numbers_are_stored_canonically() {
        let def = TableDefinition::new("Sessions", "pk", ScalarAttributeType::N);
        let mut i = item(&[
            ("pk", AttributeValue::N("007".into())),
            ("n", AttributeValue::N("1e3".into())),
            ("ns", AttributeValue::Ns(vec!["+3".into(), "1.0".into()])),
            ("l", AttributeValue::L(vec![AttributeValue::N("-0".into())])),
        ]);
        validate_item(&def, &mut i).expect("valid");
        assert_eq!(i.get("pk"), Some(&AttributeValue::N("7".into())));
        assert_eq!(i.get("n"), Some(&AttributeValue::N("1000".into())));
        assert_eq!(
            i.get("ns"),
            Some(&AttributeValue::Ns(vec!["3".into(), "1".into()]))
        );
        assert_eq!(
            i.get("l"),
            Some(&AttributeValue::L(vec![AttributeValue::N("0".into())]))
        );
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
