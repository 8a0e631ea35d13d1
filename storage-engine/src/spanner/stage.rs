//! Staging row changes into an atomic batch: the row, its secondary-index
//! and policy entries, interleaved children (on delete), and the data change
//! records of the transaction (INSERT, UPDATE, DELETE mods) ("Spanner: Change streams overview").

use super::Spanner;
use super::SpannerMeta;
use super::record::{ColumnType, DataChangeRecord, Mod, ModType, TypeCode};
use super::schema::{SpannerRow, SpannerTableDefinition};
use super::value::{SpannerValue, rfc3339_millis};
use crate::error::StorageError;
use crate::storage::{ITEMS, decode_json, encode_json, expiry_key, item_key};
use crate::stream::keys::stream_key;
use crate::stream::shards::alloc::SeqAlloc;
use fjall::OwnedWriteBatch;
use serde_json::Map;

/// Changes of one transaction, grouped per table and mod type (one data
/// change record per group, in order of first appearance).
#[derive(Default)]
pub(crate) struct Txn {
    groups: Vec<(u32, SpannerTableDefinition, ModType, Vec<Mod>)>,
}

impl Txn {
    fn push(&mut self, meta: &SpannerMeta, mod_type: ModType, m: Mod) {
        if meta.definition.value_capture_type.is_none() {
            return;
        }
        match self
            .groups
            .iter_mut()
            .find(|g| g.0 == meta.id && g.2 == mod_type)
        {
            Some(g) => g.3.push(m),
            None => self
                .groups
                .push((meta.id, meta.definition.clone(), mod_type, vec![m])),
        }
    }
}

impl Spanner<'_> {
    /// Stages a row, its index entries and its policy entry.
    pub(crate) fn stage_spanner_insert(
        &self,
        batch: &mut OwnedWriteBatch,
        meta: &SpannerMeta,
        key: &[u8],
        row: &SpannerRow,
        txn: &mut Txn,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        batch.insert(
            &store.items,
            item_key(meta.id, key),
            encode_json("Spanner row", row)?,
        );
        for entry in index_entries(meta, key, row) {
            batch.insert(&store.items, entry, Vec::<u8>::new());
        }
        if let Some(ms) = meta.definition.policy_timestamp(row) {
            batch.insert(
                &store.expiry,
                expiry_key(meta.id, ms, key),
                Vec::<u8>::new(),
            );
        }
        txn.push(
            meta,
            ModType::Insert,
            build_mod(&meta.definition, row, true),
        );
        Ok(())
    }

    /// Stages the deletion of a row, its index and policy entries, and
    /// (recursively) its interleaved child rows. `all` is every table's metadata.
    pub(crate) fn stage_spanner_delete(
        &self,
        batch: &mut OwnedWriteBatch,
        all: &[SpannerMeta],
        meta: &SpannerMeta,
        key: &[u8],
        row: &SpannerRow,
        txn: &mut Txn,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        for child in all.iter().filter(|c| {
            c.definition.interleave_in_parent.as_deref() == Some(&meta.definition.table_name)
        }) {
            for guard in store.items.prefix(item_key(child.id, key)) {
                let (ckey, value) = guard.into_inner()?;
                let crow: SpannerRow = decode_json(ITEMS, "Spanner row", &value)?;
                if let Some(cenc) = ckey.get(4..) {
                    self.stage_spanner_delete(batch, all, child, cenc, &crow, txn)?;
                }
            }
        }
        batch.remove(&store.items, item_key(meta.id, key));
        for entry in index_entries(meta, key, row) {
            batch.remove(&store.items, entry);
        }
        if let Some(ms) = meta.definition.policy_timestamp(row) {
            batch.remove(&store.expiry, expiry_key(meta.id, ms, key));
        }
        txn.push(
            meta,
            ModType::Delete,
            build_mod(&meta.definition, row, false),
        );
        Ok(())
    }

    /// Stages an update of `old` to `new` (`written`: the columns the
    /// mutation gave): row, index and policy entries, an UPDATE mod.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stage_spanner_update(
        &self,
        batch: &mut OwnedWriteBatch,
        meta: &SpannerMeta,
        key: &[u8],
        old: &SpannerRow,
        new: &SpannerRow,
        written: &SpannerRow,
        txn: &mut Txn,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        for entry in index_entries(meta, key, old) {
            batch.remove(&store.items, entry);
        }
        if let Some(ms) = meta.definition.policy_timestamp(old) {
            batch.remove(&store.expiry, expiry_key(meta.id, ms, key));
        }
        batch.insert(
            &store.items,
            item_key(meta.id, key),
            encode_json("Spanner row", new)?,
        );
        for entry in index_entries(meta, key, new) {
            batch.insert(&store.items, entry, Vec::<u8>::new());
        }
        if let Some(ms) = meta.definition.policy_timestamp(new) {
            batch.insert(
                &store.expiry,
                expiry_key(meta.id, ms, key),
                Vec::<u8>::new(),
            );
        }
        let def = &meta.definition;
        let value = |r: &SpannerRow, c: &str| r.get(c).unwrap_or(&SpannerValue::Null).to_json();
        let keys: Map<_, _> = def
            .primary_key
            .iter()
            .map(|k| (k.clone(), value(new, k)))
            .collect();
        let changed: Vec<&String> = written
            .keys()
            .filter(|c| !def.primary_key.contains(c))
            .collect();
        let keep_old = def
            .value_capture_type
            .is_some_and(|v| v.includes_old_values());
        txn.push(
            meta,
            ModType::Update,
            Mod {
                keys,
                new_values: changed
                    .iter()
                    .map(|c| ((*c).clone(), value(new, c)))
                    .collect(),
                old_values: if keep_old {
                    changed
                        .iter()
                        .map(|c| ((*c).clone(), value(old, c)))
                        .collect()
                } else {
                    Map::new()
                },
            },
        );
        Ok(())
    }

    /// Stages one data change record per group of `txn`, each numbered (and
    /// its table's shard rotated) by `alloc`. The `server_transaction_id`
    /// is the transaction's first sequence number.
    pub(crate) fn stage_spanner_records(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        txn: Txn,
        is_system_transaction: bool,
        transaction_tag: &str,
    ) -> Result<(), StorageError> {
        let count = txn.groups.len();
        let transaction_id = alloc.next.to_string();
        let now_millis = self.inner.clock.now_millis();
        let commit_timestamp = rfc3339_millis(now_millis);
        let (store, options) = (&self.inner.store, &self.inner.stream_options);
        for (i, (id, def, mod_type, mods)) in txn.groups.into_iter().enumerate() {
            let record = DataChangeRecord {
                commit_timestamp: commit_timestamp.clone(),
                record_sequence: format!("{i:08}"),
                server_transaction_id: transaction_id.clone(),
                is_last_record_in_transaction_in_partition: i + 1 == count,
                column_types: column_types(&def),
                table_name: def.table_name,
                mods,
                mod_type,
                value_capture_type: def
                    .value_capture_type
                    .unwrap_or(super::ValueCaptureType::OldAndNewValues),
                number_of_records_in_transaction: count as u32,
                number_of_partitions_in_transaction: 1,
                transaction_tag: transaction_tag.to_string(),
                is_system_transaction,
            };
            let seq = alloc.record(store, batch, options, id, now_millis)?;
            let seq = crate::stream::record::SequenceNumber(seq);
            batch.insert(
                &self.inner.store.stream,
                stream_key(id, seq),
                encode_json("data change record", &record)?,
            );
        }
        Ok(())
    }
}

/// `items` keys of a row's secondary-index entries:
/// index id ++ encoded indexed values ++ encoded primary key.
pub(crate) fn index_entries(meta: &SpannerMeta, key: &[u8], row: &SpannerRow) -> Vec<Vec<u8>> {
    meta.definition
        .indexes
        .iter()
        .zip(&meta.index_ids)
        .map(|(ix, id)| {
            let mut k = id.to_be_bytes().to_vec();
            for c in &ix.columns {
                row.get(c).unwrap_or(&SpannerValue::Null).encode_key(&mut k);
            }
            k.extend_from_slice(key);
            k
        })
        .collect()
}

fn column_types(def: &SpannerTableDefinition) -> Vec<ColumnType> {
    def.columns
        .iter()
        .enumerate()
        .map(|(i, c)| ColumnType {
            name: c.name.clone(),
            r#type: TypeCode {
                code: c.spanner_type.as_str().to_string(),
            },
            is_primary_key: def.primary_key.contains(&c.name),
            ordinal_position: i as u32 + 1,
        })
        .collect()
}

/// A mod for an insert (`new_values` = every non-key column) or a delete
/// (`old_values` = every non-key column if the capture type keeps them).
fn build_mod(def: &SpannerTableDefinition, row: &SpannerRow, insert: bool) -> Mod {
    let value = |c: &str| row.get(c).unwrap_or(&SpannerValue::Null).to_json();
    let keys: Map<_, _> = def
        .primary_key
        .iter()
        .map(|k| (k.clone(), value(k)))
        .collect();
    let others: Map<_, _> = def
        .columns
        .iter()
        .filter(|c| !def.primary_key.contains(&c.name))
        .map(|c| (c.name.clone(), value(&c.name)))
        .collect();
    let keep_old = def
        .value_capture_type
        .is_some_and(|v| v.includes_old_values());
    Mod {
        keys,
        new_values: if insert { others.clone() } else { Map::new() },
        old_values: if !insert && keep_old {
            others
        } else {
            Map::new()
        },
    }
}
