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
use crate::dynamodb::ttl::item_expiry_epoch_secs;
use crate::error::{StorageError, WriteError};
use crate::storage::attribute::validate_attribute;
use crate::storage::{ITEMS, corrupt, expiry_key, item_key};
use crate::stream::codec::{RecordParts, encode_item, encode_record, encode_record_encoded_keys};
use crate::stream::keys::stream_key;
use crate::stream::record::{EventName, SequenceNumber, UserIdentity};
use crate::stream::shards::alloc::SeqAlloc;
use crate::stream::shards::alloc::WriteState;
use fjall::OwnedWriteBatch;
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

    /// Stages a TTL deletion from the stored item's bytes alone, without
    /// decoding it: the same entries, byte for byte, as [`DynamoDb::stage_change`](crate::DynamoDb::stage_change)
    /// with the decoded item (`dynamodb/sweep.rs`, test
    /// `stored_removals_match_decoded_removals`). Only for a table without
    /// secondary indexes (their entries' keys come from the decoded item).
    pub(crate) fn stage_stored_removal(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        meta: &TableMeta,
        removal: StoredRemoval<'_>,
    ) -> Result<(), StorageError> {
        let StoredRemoval {
            pk,
            item_key,
            expiry_secs,
            bytes,
            keys,
            user_identity,
        } = removal;
        let store = &self.inner.store;
        batch.remove(&store.expiry, expiry_key(meta.id, expiry_secs, pk));
        if let Some(view) = meta.definition.stream_view_type {
            let now_millis = self.inner.clock.now_millis();
            let options = &self.inner.stream_options;
            let seq = SequenceNumber(alloc.record(store, batch, options, meta.id, now_millis)?);
            let parts = RecordParts {
                table_name: &meta.definition.table_name,
                sequence_number: seq,
                event_name: EventName::Remove,
                now_millis,
                view,
                keys: &[],
                new_image: None,
                old_image: bytes.get(1..).filter(|_| view.includes_old_image()),
                user_identity: Some(user_identity),
            };
            let record = encode_record_encoded_keys(&parts, keys);
            batch.insert(&store.stream, stream_key(meta.id, seq), record);
        }
        batch.remove(&store.items, item_key);
        Ok(())
    }

    /// Stages one item change from `old` to `new` (either may be absent) into
    /// `batch`: the item, its expiry-index entry, its secondary-index entries
    /// (`index::stage`; also on TTL deletions, which come through here) and, if the table has a
    /// stream, a change record numbered by `alloc` (which stages a shard
    /// rotation into the same batch when one is due).
    /// Caller holds the write lock, commits, then applies `alloc`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn stage(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        meta: &TableMeta,
        pk: &[u8],
        old: Option<&Item>,
        new: Option<&Item>,
        user_identity: Option<UserIdentity>,
    ) -> Result<(), StorageError> {
        let change = Change {
            pk,
            old,
            old_bytes: None,
            new,
            user_identity: user_identity.as_ref(),
        };
        self.stage_change(batch, alloc, meta, change)
    }

    /// [`DynamoDb::stage`](crate::DynamoDb::stage) with the change in one value; `old_bytes`, when
    /// given, is `old` as stored ([`encode_item`] output), copied into the
    /// record's OldImage instead of encoding `old` again.
    pub(crate) fn stage_change(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        meta: &TableMeta,
        change: Change<'_>,
    ) -> Result<(), StorageError> {
        let Change {
            pk,
            old,
            old_bytes,
            new,
            user_identity,
        } = change;
        let store = &self.inner.store;
        let key = item_key(meta.id, pk);
        // Encoded once: the item value, and the record's NewImage.
        let new_bytes = new.map(encode_item);
        let ttl = meta.ttl_enabled();
        let old_exp = old.and_then(|i| item_expiry_epoch_secs(i, ttl));
        let new_exp = new.and_then(|i| item_expiry_epoch_secs(i, ttl));
        if let Some(secs) = old_exp
            && old_exp != new_exp
        {
            batch.remove(&store.expiry, expiry_key(meta.id, secs, pk));
        }
        if let Some(secs) = new_exp {
            let key = expiry_key(meta.id, secs, pk);
            self.cache.swept_floors.lower(meta.id, &key);
            batch.insert(&store.expiry, key, Vec::<u8>::new());
        }
        crate::dynamodb::index::stage(store, batch, meta, pk, old, new)?;
        if let (Some(view), Some(any)) = (meta.definition.stream_view_type, new.or(old)) {
            let now_millis = self.inner.clock.now_millis();
            let options = &self.inner.stream_options;
            let seq = SequenceNumber(alloc.record(store, batch, options, meta.id, now_millis)?);
            let keys: Vec<(&String, &AttributeValue)> = meta
                .definition
                .key_attributes()
                .filter_map(|k| any.get_key_value(&k.attribute_name))
                .collect();
            let old_image: Option<std::borrow::Cow<'_, [u8]>> = match (old, old_bytes) {
                _ if !view.includes_old_image() => None,
                (Some(_), Some(b)) => Some(b.into()),
                (Some(o), _) => Some(encode_item(o).into()),
                (None, _) => None,
            };
            let record = encode_record(&RecordParts {
                table_name: &meta.definition.table_name,
                sequence_number: seq,
                event_name: match (old, new) {
                    (None, Some(_)) => EventName::Insert,
                    (Some(_), Some(_)) => EventName::Modify,
                    (_, None) => EventName::Remove,
                },
                now_millis,
                view,
                keys: &keys,
                new_image: new_bytes
                    .as_deref()
                    .filter(|_| view.includes_new_image())
                    .and_then(|b| b.get(1..)),
                old_image: old_image.as_deref().and_then(|b| b.get(1..)),
                user_identity,
            });
            batch.insert(&store.stream, stream_key(meta.id, seq), record);
        }
        match new_bytes {
            Some(bytes) => batch.insert(&store.items, key, bytes),
            None => batch.remove(&store.items, key),
        }
        Ok(())
    }
}

/// One item change for [`DynamoDb::stage_change`](crate::DynamoDb::stage_change).
pub(crate) struct Change<'a> {
    /// The encoded primary key.
    pub pk: &'a [u8],
    /// The item before (absent for an insert).
    pub old: Option<&'a Item>,
    /// `old` as stored, if the caller has the bytes.
    pub old_bytes: Option<&'a [u8]>,
    /// The item after (absent for a delete).
    pub new: Option<&'a Item>,
    /// Who made the change (`None` for a user write).
    pub user_identity: Option<&'a UserIdentity>,
}

/// A TTL deletion for [`DynamoDb::stage_stored_removal`](crate::DynamoDb::stage_stored_removal).
pub(crate) struct StoredRemoval<'a> {
    /// The encoded primary key.
    pub pk: &'a [u8],
    /// Its `items` key (`item_key(meta.id, pk)`, built once for the read).
    pub item_key: Vec<u8>,
    /// The item's expiry (epoch seconds), as its expiry-index entry holds it.
    pub expiry_secs: i64,
    /// The item as stored, binary ([`encode_item`] output).
    pub bytes: &'a [u8],
    /// The key attributes in [`TableDefinition::key_attributes`](crate::TableDefinition::key_attributes)
    /// order, each with its stored bytes ([`crate::stream::codec::encoded_attributes`]).
    pub keys: &'a [(&'a str, &'a [u8])],
    /// Who deleted it (the TTL service identity).
    pub user_identity: &'a UserIdentity,
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
