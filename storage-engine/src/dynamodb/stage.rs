//! Staging one item change into a write batch: the item, its expiry-index
//! entry, its secondary-index entries and its change record, so that a write
//! (`write.rs`, `write_with.rs`) or a TTL deletion (`sweep.rs`) commits them
//! together.

use super::DynamoDb;
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::ttl::item_expiry_epoch_secs;
use crate::error::StorageError;
use crate::storage::{expiry_key, item_key};
use crate::stream::codec::{RecordParts, encode_item, encode_record, encode_record_encoded_keys};
use crate::stream::keys::stream_key;
use crate::stream::record::{EventName, SequenceNumber, UserIdentity};
use crate::stream::shards::alloc::SeqAlloc;
use fjall::OwnedWriteBatch;
use serde_dynamo::{AttributeValue, Item};

impl DynamoDb<'_> {
    /// Stages a TTL deletion from the stored item's bytes alone, without
    /// decoding it: the same entries, byte for byte, as [`DynamoDb::stage_change`](crate::DynamoDb::stage_change)
    /// with the decoded item (`dynamodb/sweep_tests.rs`, test
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
