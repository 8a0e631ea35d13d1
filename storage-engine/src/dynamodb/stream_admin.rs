//! Enabling and disabling a table's stream, and recovering the open shards
//! when the engine opens.

use super::DynamoDb;
use crate::dynamodb::meta::{TableMeta, table_meta_key};
use crate::dynamodb::table::TableDefinition;
use crate::error::{StorageError, TableError};
use crate::storage::{Store, corrupt};
use crate::stream::keys::decode_stream_key;
use crate::stream::record::SequenceNumber;
use crate::stream::record::StreamViewType;
use crate::stream::shards::alloc::{OpenShard, SeqAlloc};
use crate::stream::shards::meta::{
    SHARDS, ShardEntry, StreamEntry, encode, highest_sequence_number, load_shards, load_streams,
    shard_id, shard_key, stream_key,
};
use fjall::{OwnedWriteBatch, Readable};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

impl DynamoDb<'_> {
    /// Enables or disables `table`'s stream (DynamoDB `UpdateTable` with a
    /// `StreamSpecification`; "Change data capture for DynamoDB Streams",
    /// Enabling a stream). `Some(view)` creates a new stream with a new
    /// StreamLabel and an open first shard; `None` closes the open shard
    /// (its EndingSequenceNumber is its last record) and marks the stream
    /// DISABLED, still readable until retention removes it. Takes effect at
    /// once and atomically (table setting, stream and shard entries in one
    /// batch).
    ///
    /// Returns the table's new definition.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] when enabling a
    /// table whose stream is enabled ("Table already has an enabled stream",
    /// as DynamoDB; disable first to change the view type) or disabling one
    /// without an enabled stream; [`TableError::Storage`].
    pub fn update_stream(
        &self,
        table: &str,
        view: Option<StreamViewType>,
    ) -> Result<TableDefinition, TableError> {
        let mut state = self.inner.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let invalid = |message: &str| TableError::Invalid {
            table: table.to_string(),
            message: message.to_string(),
        };
        match (meta.definition.stream_view_type, view) {
            (Some(_), Some(_)) => return Err(invalid("Table already has an enabled stream")),
            (None, None) => return Err(invalid("Table does not have an enabled stream")),
            _ => {}
        }
        let mut new_meta = (*meta).clone();
        new_meta.definition.stream_view_type = view;
        let store = &self.inner.store;
        let now = self.inner.clock.now_millis();
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.insert(
            &store.meta,
            table_meta_key(table),
            crate::storage::encode_json("table metadata", &new_meta)?,
        );
        match view {
            Some(_) => self.stage_stream_enable(
                &mut batch,
                &mut alloc,
                meta.id,
                &new_meta.definition,
                now,
            )?,
            None => self.stage_stream_disable(&mut batch, &mut alloc, meta.id, now)?,
        }
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        let definition = new_meta.definition.clone();
        self.cache_meta(new_meta);
        Ok(definition)
    }

    /// Stages a new ENABLED stream of `definition`'s table (id `table_id`)
    /// with an open first shard, both starting at a reserved sequence number.
    pub(crate) fn stage_stream_enable(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        table_id: u32,
        definition: &TableDefinition,
        now_millis: i64,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        let Some(view) = definition.stream_view_type else {
            return Ok(());
        };
        // StreamLabels are unique per table name: a later stream gets a
        // later millisecond even if the clock has not moved.
        let snapshot = store.db.snapshot();
        let previous = load_streams(&snapshot, &store.shards)?
            .into_iter()
            .filter(|s| s.entry.table_name == definition.table_name)
            .map(|s| s.entry.created_millis)
            .max();
        let created = previous.map_or(now_millis, |p| now_millis.max(p.saturating_add(1)));
        let start = alloc.reserve();
        let stream = StreamEntry {
            table_name: definition.table_name.clone(),
            partition_key: definition.partition_key.clone(),
            sort_key: definition.sort_key.clone(),
            view,
            created_millis: created,
            disabled_millis: None,
        };
        let shard = ShardEntry {
            shard_id: shard_id(created, table_id, start),
            parent_shard_id: None,
            created_millis: created,
            ending: None,
            closed_millis: None,
        };
        batch.insert(
            &store.shards,
            stream_key(table_id, start),
            encode("stream entry", &stream)?,
        );
        batch.insert(
            &store.shards,
            shard_key(table_id, start),
            encode("shard entry", &shard)?,
        );
        alloc.set_open(
            table_id,
            Some(OpenShard {
                start,
                entry: Arc::new(shard),
                records: 0,
                last: None,
            }),
        );
        Ok(())
    }

    /// Stages closing the open shard of `table_id` and marking its stream
    /// DISABLED.
    pub(crate) fn stage_stream_disable(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        table_id: u32,
        now_millis: i64,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        if let Some(open) = alloc.open_shard(table_id) {
            let closed = ShardEntry {
                ending: Some(open.last.unwrap_or(open.start)),
                closed_millis: Some(now_millis),
                ..(*open.entry).clone()
            };
            batch.insert(
                &store.shards,
                shard_key(table_id, open.start),
                encode("shard entry", &closed)?,
            );
        }
        let snapshot = store.db.snapshot();
        if let Some(latest) = load_streams(&snapshot, &store.shards)?
            .into_iter()
            .rfind(|s| s.table_id == table_id)
        {
            let entry = StreamEntry {
                disabled_millis: Some(now_millis),
                ..latest.entry
            };
            batch.insert(
                &store.shards,
                stream_key(table_id, latest.start),
                encode("stream entry", &entry)?,
            );
        }
        alloc.set_open(table_id, None);
        Ok(())
    }
}

/// What [`recover`] found.
pub(crate) struct Recovered {
    pub next_sequence_number: u64,
    /// The highest table id any stream names (a deleted table's stream
    /// keeps its id from being reused while it is kept).
    pub max_table_id: u32,
    pub open_shards: HashMap<u32, OpenShard>,
}

/// Recovers the next sequence number and the open shard of every table with
/// an enabled stream. `max_record_seq` is the highest sequence number in the
/// `stream` keyspace.
///
/// # Errors
///
/// I/O failure, an undecodable entry, or a table with a stream setting and
/// no open shard ([`StorageError::Corrupt`]: enabling a stream writes both in
/// one batch).
pub(crate) fn recover(
    store: &Store,
    tables: &BTreeMap<String, Arc<TableMeta>>,
    max_record_seq: u64,
) -> Result<Recovered, StorageError> {
    let snapshot = store.db.snapshot();
    let floor = highest_sequence_number(&snapshot, &store.shards)?;
    let next = max_record_seq.max(floor).saturating_add(1);
    let streams = load_streams(&snapshot, &store.shards)?;
    let mut open_shards = HashMap::new();
    for meta in tables.values() {
        let Some(view) = meta.definition.stream_view_type else {
            continue;
        };
        let latest = streams.iter().rfind(|s| s.table_id == meta.id);
        let open = match latest {
            Some(stream) if stream.entry.disabled_millis.is_none() => {
                let shards = load_shards(&snapshot, &store.shards, meta.id, stream.start, None)?;
                match shards.into_iter().next_back() {
                    Some(s) if s.entry.ending.is_none() => Some((s.start, s.entry)),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((start, entry)) = open else {
            let message = format!(
                "table `{}` has a stream setting ({}) and no open shard",
                meta.definition.table_name, view
            );
            return Err(corrupt(SHARDS, "stream entry", message));
        };
        let (records, last) = count_records(&snapshot, store, meta.id, start)?;
        open_shards.insert(
            meta.id,
            OpenShard {
                start,
                entry: Arc::new(entry),
                records,
                last,
            },
        );
    }
    Ok(Recovered {
        max_table_id: streams.iter().map(|s| s.table_id).max().unwrap_or(0),
        next_sequence_number: next,
        open_shards,
    })
}

/// (records, last record) of table `table_id`'s stream from `start` on.
fn count_records(
    snapshot: &fjall::Snapshot,
    store: &Store,
    table_id: u32,
    start: u64,
) -> Result<(u64, Option<u64>), StorageError> {
    let lo = crate::stream::keys::stream_key(table_id, SequenceNumber(start));
    let hi = crate::stream::keys::stream_key(table_id, SequenceNumber(u64::MAX));
    let mut n = 0u64;
    let mut last = None;
    for guard in snapshot.range(&store.stream, lo..=hi) {
        last = Some(decode_stream_key(&guard.key()?)?.0);
        n += 1;
    }
    Ok((n, last))
}
