//! Writes: PutItem, bulk put, UpdateItem and DeleteItem.
//!
//! Every write runs under the engine's write lock: read the current item,
//! then commit the new item, the expiry-index change and the change record in
//! ONE fjall batch (durability `PersistMode::Buffer`: survives a process kill
//! once the call returns; [`Engine::persist`](crate::Engine::persist) adds an fsync for power loss).
//! A write that leaves the item unchanged writes nothing and appends no
//! record, as in DynamoDB ("Change data capture for DynamoDB Streams").

use super::DynamoDb;
use crate::dynamodb::item::decode_item;
use crate::dynamodb::item::{key_only_bytes, validate_item};
use crate::dynamodb::meta::TableMeta;
use crate::error::{StorageError, WriteError};
use crate::storage::attribute::validate_attribute;
use crate::storage::{ITEMS, corrupt, item_key};
use crate::stream::shards::alloc::WriteState;
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;
use std::sync::Arc;

/// Items per fjall batch in [`DynamoDb::put_items`](crate::DynamoDb::put_items).
const BULK_CHUNK: usize = 1_000;

/// An UpdateItem action on top-level attributes (DynamoDB `SET a = :v` and
/// `REMOVE a`). Key attributes cannot be set or removed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Update {
    /// Attributes to set (added or replaced), in order.
    pub set: Vec<(String, AttributeValue)>,
    /// Attributes to remove; removing an absent attribute is not an error.
    pub remove: Vec<String>,
}

impl Update {
    /// Builder-style: adds `SET name = value`.
    #[must_use]
    pub fn set(mut self, name: impl Into<String>, value: AttributeValue) -> Self {
        self.set.push((name.into(), value));
        self
    }

    /// Builder-style: adds `REMOVE name`.
    #[must_use]
    pub fn remove(mut self, name: impl Into<String>) -> Self {
        self.remove.push(name.into());
        self
    }
}

impl DynamoDb<'_> {
    /// Writes `item`, replacing any item with the same key (DynamoDB
    /// `PutItem`); returns the replaced item. Appends INSERT or MODIFY.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] with
    /// DynamoDB's message (missing, mistyped or oversized key, invalid
    /// Number, empty set or a set with duplicates, nesting over 32 levels,
    /// an attribute name over 64 KB, item over 400 KB); [`WriteError::Storage`].
    /// Numbers are stored in DynamoDB's canonical text (`1e3` as `1000`).
    pub fn put_item(&self, table: &str, mut item: Item) -> Result<Option<Item>, WriteError> {
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = validate_item(&meta.definition, &mut item).map_err(|m| validation(table, m))?;
        let old = self.load_item(&meta, &pk)?;
        if old.as_ref() == Some(&item) {
            return Ok(old);
        }
        self.commit_change(&mut state, &meta, &pk, old.as_ref(), Some(&item))?;
        Ok(old)
    }

    /// Writes many items (bulk load): validates all first (an invalid item
    /// writes nothing), then commits fewer, larger batches of up to 1,000
    /// items. Each item is atomic with its index entry and change record; a
    /// storage failure may leave earlier batches written.
    ///
    /// # Errors
    ///
    /// As [`DynamoDb::put_item`](crate::DynamoDb::put_item); the validation message names the item index.
    pub fn put_items(&self, table: &str, items: Vec<Item>) -> Result<(), WriteError> {
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let mut keyed = Vec::with_capacity(items.len());
        for (i, mut item) in items.into_iter().enumerate() {
            let pk = validate_item(&meta.definition, &mut item)
                .map_err(|m| validation(table, format!("item {i}: {m}")))?;
            keyed.push((pk, item));
        }
        for chunk in keyed.chunks(BULK_CHUNK) {
            let mut batch = self.inner.store.db.batch();
            let mut seq = state.alloc();
            // Items written earlier in this batch are not yet visible to reads.
            let mut pending: HashMap<&[u8], &Item> = HashMap::with_capacity(chunk.len());
            for (pk, item) in chunk {
                // One hash per item: the insert returns what it replaces.
                let old = match pending.insert(pk.as_slice(), item) {
                    Some(prev) => Some(prev.clone()),
                    None => self.load_item(&meta, pk)?,
                };
                if old.as_ref() != Some(item) {
                    self.stage(
                        &mut batch,
                        &mut seq,
                        &meta,
                        pk,
                        old.as_ref(),
                        Some(item),
                        None,
                    )?;
                }
            }
            batch.commit()?;
            let done = seq.finish();
            state.apply(done);
        }
        Ok(())
    }

    /// Applies `update` to the item with `key`, creating it if absent
    /// (DynamoDB `UpdateItem` with `SET` / `REMOVE` on top-level attributes);
    /// returns the new item. Setting or removing the TTL attribute moves or
    /// drops the item's expiry-index entry in the same batch, so an update
    /// can rescue an expired, not yet swept item.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad
    /// key, an update touching a key attribute, the same attribute in both
    /// `set` and `remove`, an invalid value or a result over 400 KB;
    /// [`WriteError::Storage`].
    pub fn update_item(&self, table: &str, key: &Item, update: Update) -> Result<Item, WriteError> {
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = key_only_bytes(&meta.definition, key).map_err(|m| validation(table, m))?;
        let is_key = |name: &str| {
            meta.definition
                .key_attributes()
                .any(|k| k.attribute_name == name)
        };
        for (name, value) in &update.set {
            if is_key(name) {
                return Err(validation(
                    table,
                    format!("cannot update attribute `{name}`: it is part of the key"),
                ));
            }
            validate_attribute(name, value).map_err(|m| validation(table, m))?;
        }
        for name in &update.remove {
            if is_key(name) {
                return Err(validation(
                    table,
                    format!("cannot remove attribute `{name}`: it is part of the key"),
                ));
            }
            if update.set.iter().any(|(n, _)| n == name) {
                return Err(validation(
                    table,
                    format!("attribute `{name}` is both set and removed in one update"),
                ));
            }
        }
        let old = self.load_item(&meta, &pk)?;
        let mut new = old.clone().unwrap_or_else(|| key.clone());
        for (name, value) in update.set {
            new.insert(name, value);
        }
        for name in &update.remove {
            new.remove(name);
        }
        validate_item(&meta.definition, &mut new).map_err(|m| validation(table, m))?;
        if old.as_ref() == Some(&new) {
            return Ok(new);
        }
        self.commit_change(&mut state, &meta, &pk, old.as_ref(), Some(&new))?;
        Ok(new)
    }

    /// Deletes the item with `key` (DynamoDB `DeleteItem`); returns it. A user
    /// delete appends a REMOVE record without `user_identity`; deleting a
    /// missing item writes nothing and appends no record.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad key;
    /// [`WriteError::Storage`].
    pub fn delete_item(&self, table: &str, key: &Item) -> Result<Option<Item>, WriteError> {
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = key_only_bytes(&meta.definition, key).map_err(|m| validation(table, m))?;
        let Some(old) = self.load_item(&meta, &pk)? else {
            return Ok(None);
        };
        self.commit_change(&mut state, &meta, &pk, Some(&old), None)?;
        Ok(Some(old))
    }

    /// Commits one user change (no `user_identity`) as its own atomic batch and
    /// advances the sequence counter only once the batch is committed.
    pub(crate) fn commit_change(
        &self,
        state: &mut WriteState,
        meta: &TableMeta,
        pk: &[u8],
        old: Option<&Item>,
        new: Option<&Item>,
    ) -> Result<(), StorageError> {
        let mut batch = self.inner.store.db.batch();
        let mut seq = state.alloc();
        self.stage(&mut batch, &mut seq, meta, pk, old, new, None)?;
        batch.commit()?;
        let done = seq.finish();
        state.apply(done);
        Ok(())
    }

    /// Table metadata, read under the write lock so a concurrent TTL change
    /// cannot slip between reading the setting and committing.
    pub(crate) fn write_meta(&self, table: &str) -> Result<Arc<TableMeta>, WriteError> {
        self.table_meta(table)
            .ok_or_else(|| WriteError::TableNotFound {
                table: table.to_string(),
            })
    }

    /// The stored item with encoded key `pk`.
    pub(crate) fn load_item(
        &self,
        meta: &TableMeta,
        pk: &[u8],
    ) -> Result<Option<Item>, StorageError> {
        match self.inner.store.items.get(item_key(meta.id, pk))? {
            Some(v) => Ok(Some(decode_item(&v)?)),
            None => Ok(None),
        }
    }
}

/// A stored item value decoded: with `only`, just those top-level
/// attributes.
///
/// # Errors
///
/// [`StorageError::Corrupt`].
pub(crate) fn decode_stored_item(v: &[u8], only: Option<&[&str]>) -> Result<Item, StorageError> {
    match only {
        Some(names) => {
            crate::stream::codec::decode_attributes(v, names).map_err(|m| corrupt(ITEMS, "item", m))
        }
        None => decode_item(v),
    }
}

pub(crate) fn validation(table: &str, message: String) -> WriteError {
    WriteError::Validation {
        table: table.to_string(),
        message,
    }
}
