//! Global and local secondary indexes ("Improving data access with
//! secondary indexes in DynamoDB", "Global secondary indexes", "Local
//! secondary indexes"): definitions, validation and the entries staged into
//! the same fjall batch as the item they index.
//!
//! Indexes are sparse: an item lacking an index key attribute (or holding
//! it with another type than declared) has no entry in that index. An entry's
//! key is `table_id ++ enc(index_name) ++ index_pk_enc ++ index_sk_enc? ++
//! table_pk_enc ++ table_sk_enc?` in the `index` keyspace; its value is the
//! projected item (DynamoDB JSON), so a Query on an index reads only the
//! index. See `FORMAT.md`.

use crate::dynamodb::item::primary_key_bytes;
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::table::TableDefinition;
use crate::error::StorageError;
use crate::storage::Store;
use crate::storage::key::{KeyAttribute, ScalarAttributeType};
use crate::storage::key::{KeyRole, KeyValueError, encode_key_part, encode_key_value};
use fjall::OwnedWriteBatch;
use serde::{Deserialize, Serialize};
use serde_dynamo::{AttributeValue, Item};

/// Which attributes an index copies (DynamoDB `Projection`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Projection {
    /// `ALL`: every attribute.
    All,
    /// `KEYS_ONLY`: the table's and the index's key attributes.
    KeysOnly,
    /// `INCLUDE`: the key attributes plus these (at most 100) non-key attributes.
    Include(Vec<String>),
}

/// A global secondary index: any partition key and optional sort key
/// (DynamoDB `GlobalSecondaryIndex`). Maintained synchronously here (DynamoDB
/// updates GSIs eventually).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalSecondaryIndex {
    /// Index name, 3 to 255 characters from `a-z A-Z 0-9 _ - .`.
    pub index_name: String,
    /// The index partition key.
    pub partition_key: KeyAttribute,
    /// The index sort key, if any.
    pub sort_key: Option<KeyAttribute>,
    /// Attributes copied into the index.
    pub projection: Projection,
}

/// A local secondary index: the table's partition key with another sort key
/// (DynamoDB `LocalSecondaryIndex`); the table must have a sort key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalSecondaryIndex {
    /// Index name, unique across the table's indexes.
    pub index_name: String,
    /// The alternative sort key.
    pub sort_key: KeyAttribute,
    /// Attributes copied into the index.
    pub projection: Projection,
}

impl GlobalSecondaryIndex {
    /// A GSI on `partition_key` of type `attribute_type`, projecting `ALL`.
    pub fn new(
        index_name: impl Into<String>,
        partition_key: impl Into<String>,
        attribute_type: ScalarAttributeType,
    ) -> Self {
        Self {
            index_name: index_name.into(),
            partition_key: KeyAttribute::new(partition_key, attribute_type),
            sort_key: None,
            projection: Projection::All,
        }
    }

    /// Builder-style: adds a sort key.
    #[must_use]
    pub fn with_sort_key(mut self, name: impl Into<String>, ty: ScalarAttributeType) -> Self {
        self.sort_key = Some(KeyAttribute::new(name, ty));
        self
    }

    /// Builder-style: sets the projection.
    #[must_use]
    pub fn with_projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }
}

/// Uniform view of a GSI or an LSI.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexView<'a> {
    pub name: &'a str,
    pub partition_key: &'a KeyAttribute,
    pub sort_key: Option<&'a KeyAttribute>,
    pub projection: &'a Projection,
}

impl IndexView<'_> {
    /// The index key attributes, partition key first.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(self.partition_key).chain(self.sort_key)
    }
}

/// All indexes of `def`, GSIs first.
pub(crate) fn indexes(def: &TableDefinition) -> Vec<IndexView<'_>> {
    let g = def.global_secondary_indexes.iter().map(|g| IndexView {
        name: &g.index_name,
        partition_key: &g.partition_key,
        sort_key: g.sort_key.as_ref(),
        projection: &g.projection,
    });
    let l = def.local_secondary_indexes.iter().map(|l| IndexView {
        name: &l.index_name,
        partition_key: &def.partition_key,
        sort_key: Some(&l.sort_key),
        projection: &l.projection,
    });
    g.chain(l).collect()
}

/// The index named `name` of `def`.
pub(crate) fn find<'a>(def: &'a TableDefinition, name: &str) -> Option<IndexView<'a>> {
    indexes(def).into_iter().find(|i| i.name == name)
}

/// Checks the index definitions of `def` (CreateTable rules).
///
/// # Errors
///
/// A message naming the index: bad or duplicate name, LSI on a table
/// without a sort key, a key attribute declared with two types, an INCLUDE
/// list over 100 attributes, more than 20 GSIs or 5 LSIs.
pub(crate) fn validate(def: &TableDefinition) -> Result<(), String> {
    if def.global_secondary_indexes.len() > 20 || def.local_secondary_indexes.len() > 5 {
        return Err("at most 20 global and 5 local secondary indexes are supported".into());
    }
    if !def.local_secondary_indexes.is_empty() && def.sort_key.is_none() {
        return Err("local secondary indexes require a table with a sort key".into());
    }
    let all = indexes(def);
    let mut declared: Vec<&KeyAttribute> = def.key_attributes().collect();
    for (i, ix) in all.iter().enumerate() {
        let name = ix.name;
        if !(3..=255).contains(&name.len())
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(format!(
                "index name `{name}` must be 3 to 255 characters from a-z A-Z 0-9 _ - ."
            ));
        }
        if all.iter().take(i).any(|o| o.name == name) {
            return Err(format!("index name `{name}` is used twice"));
        }
        for k in ix.key_attributes() {
            if k.attribute_name.is_empty() {
                return Err(format!(
                    "index `{name}`: key attribute names must not be empty"
                ));
            }
            if let Some(d) = declared
                .iter()
                .find(|d| d.attribute_name == k.attribute_name)
            {
                if d.attribute_type != k.attribute_type {
                    return Err(format!(
                        "index `{name}`: attribute `{}` is declared as both {} and {}",
                        k.attribute_name,
                        d.attribute_type.as_str(),
                        k.attribute_type.as_str()
                    ));
                }
            } else {
                declared.push(k);
            }
        }
        if let (Some(sk), true) = (
            ix.sort_key,
            ix.partition_key.attribute_name == ix.sort_key.map_or("", |s| &s.attribute_name),
        ) {
            return Err(format!(
                "index `{name}`: partition and sort key are both `{}`",
                sk.attribute_name
            ));
        }
        if let Projection::Include(attrs) = ix.projection
            && attrs.len() > 100
        {
            return Err(format!(
                "index `{name}`: INCLUDE lists more than 100 attributes"
            ));
        }
    }
    Ok(())
}

/// Checks that `item`'s index key attributes, where present, have the
/// declared types (DynamoDB rejects the write otherwise).
///
/// # Errors
///
/// A message naming the index and attribute.
pub(crate) fn validate_item(def: &TableDefinition, item: &Item) -> Result<(), String> {
    for ix in indexes(def) {
        let roles = std::iter::once((ix.partition_key, KeyRole::Partition))
            .chain(ix.sort_key.map(|k| (k, KeyRole::Sort)));
        for (k, role) in roles {
            if let Some(v) = item.get(&k.attribute_name) {
                encode_key_part(k.attribute_type, role, v, &mut Vec::new()).map_err(|e| {
                    let (name, index) = (&k.attribute_name, ix.name);
                    match e {
                        KeyValueError::Type { expected, actual } => format!(
                            "One or more parameter values were invalid: Type mismatch for Index Key {name} Expected: {expected} Actual: {actual} IndexName: {index}"
                        ),
                        KeyValueError::Empty { binary } => format!(
                            "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {} value. IndexName: {index}, IndexKey: {name}",
                            if binary { "binary" } else { "string" }
                        ),
                        other => other.message(name),
                    }
                })?;
            }
        }
    }
    Ok(())
}

/// `table_id ++ enc(index_name)`: the prefix of all entries of an index.
pub(crate) fn index_prefix(table_id: u32, name: &str) -> Vec<u8> {
    let mut k = table_id.to_be_bytes().to_vec();
    // An index name is a non-empty String, so this cannot fail.
    let _ = encode_key_value(
        ScalarAttributeType::S,
        &AttributeValue::S(name.to_string()),
        &mut k,
    );
    k
}

/// The index entry key of `item` (with encoded table key `pk`), or `None`
/// if the item lacks an index key attribute (sparse index).
pub(crate) fn entry_key(
    table_id: u32,
    ix: &IndexView<'_>,
    item: &Item,
    pk: &[u8],
) -> Option<Vec<u8>> {
    let mut k = index_prefix(table_id, ix.name);
    for attr in ix.key_attributes() {
        encode_key_value(attr.attribute_type, item.get(&attr.attribute_name)?, &mut k).ok()?;
    }
    k.extend_from_slice(pk);
    Some(k)
}

/// The entry key for an `ExclusiveStartKey` given as an item holding the
/// index and table key attributes.
pub(crate) fn start_key(meta: &TableMeta, ix: &IndexView<'_>, key: &Item) -> Option<Vec<u8>> {
    let pk = primary_key_bytes(&meta.definition, key).ok()?;
    entry_key(meta.id, ix, key, &pk)
}

/// The projected copy of `item` stored in index `ix`.
pub(crate) fn project(def: &TableDefinition, ix: &IndexView<'_>, item: &Item) -> Item {
    let keep = |name: &str| {
        def.key_attributes().any(|k| k.attribute_name == name)
            || ix.key_attributes().any(|k| k.attribute_name == name)
            || match ix.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(list) => list.iter().any(|n| n == name),
            }
    };
    item.iter()
        .filter(|(n, _)| keep(n))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect::<std::collections::HashMap<_, _>>()
        .into()
}

/// Stages the index changes of one item change (`old` -> `new`, encoded
/// table key `pk`) into `batch`, for every index of the table.
///
/// # Errors
///
/// [`StorageError::Encode`] if a projected item cannot be encoded.
pub(crate) fn stage(
    store: &Store,
    batch: &mut OwnedWriteBatch,
    meta: &TableMeta,
    pk: &[u8],
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<(), StorageError> {
    for ix in indexes(&meta.definition) {
        let old_key = old.and_then(|o| entry_key(meta.id, &ix, o, pk));
        let new_entry = new.and_then(|n| entry_key(meta.id, &ix, n, pk).map(|k| (k, n)));
        if let Some(ok) = &old_key
            && new_entry.as_ref().is_none_or(|(nk, _)| nk != ok)
        {
            batch.remove(&store.indexes, ok.clone());
        }
        if let Some((nk, n)) = new_entry {
            let projected = project(&meta.definition, &ix, n);
            let unchanged = old_key.as_ref() == Some(&nk)
                && old.is_some_and(|o| project(&meta.definition, &ix, o) == projected);
            if !unchanged {
                batch.insert(
                    &store.indexes,
                    nk,
                    crate::stream::codec::encode_item(&projected),
                );
            }
        }
    }
    Ok(())
}
