//! A table's stream starting and ending, and the open shards recovered when
//! the engine opens: the one mechanism behind a DynamoDB table's
//! `StreamSpecification` and the streams Tablestore and Spanner tables are
//! created with (each model says only which [`StreamKind`] it writes).

use super::alloc::{OpenShard, SeqAlloc};
use super::meta::{
    SHARDS, ShardEntry, StreamEntry, StreamKind, encode, highest_sequence_number, load_shards,
    load_streams, shard_id, shard_key, stream_key,
};
use crate::error::StorageError;
use crate::storage::{Store, corrupt};
use crate::stream::keys::decode_stream_key;
use crate::stream::record::SequenceNumber;
use fjall::{OwnedWriteBatch, Readable};
use std::collections::HashMap;
use std::sync::Arc;

/// Stages a new ENABLED stream of table `table_name` (id `table_id`) with
/// an open first shard, both starting at a reserved sequence number (no
/// record has it). The StreamLabel is `now_millis`, or one millisecond past
/// the table name's previous stream, so labels are unique per table name.
///
/// # Errors
///
/// [`StorageError`] reading the previous streams or encoding the entries.
pub(crate) fn stage_stream_start(
    store: &Store,
    batch: &mut OwnedWriteBatch,
    alloc: &mut SeqAlloc<'_>,
    table_id: u32,
    table_name: &str,
    kind: StreamKind,
    now_millis: i64,
) -> Result<(), StorageError> {
    let snapshot = store.db.snapshot();
    let previous = load_streams(&snapshot, &store.shards)?
        .into_iter()
        .filter(|s| s.entry.table_name == table_name)
        .map(|s| s.entry.created_millis)
        .max();
    let created = previous.map_or(now_millis, |p| now_millis.max(p.saturating_add(1)));
    let start = alloc.reserve();
    let stream = StreamEntry {
        table_name: table_name.to_string(),
        kind,
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

/// Stages closing the open shard of `table_id` (its EndingSequenceNumber is
/// its last record, or its start if it has none) and marking the table's
/// newest stream DISABLED: readable until retention removes it.
///
/// # Errors
///
/// [`StorageError`] reading the streams or encoding the entries.
pub(crate) fn stage_stream_end(
    store: &Store,
    batch: &mut OwnedWriteBatch,
    alloc: &mut SeqAlloc<'_>,
    table_id: u32,
    now_millis: i64,
) -> Result<(), StorageError> {
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

/// A table whose definition says it has a stream, of any model: at open it
/// must have an open shard.
pub(crate) struct StreamedTable {
    /// The table id.
    pub id: u32,
    /// Its name, for the error.
    pub name: String,
}

/// What [`recover`] found.
pub(crate) struct Recovered {
    pub next_sequence_number: u64,
    /// The highest table id any stream names (a deleted table's stream
    /// keeps its id from being reused while it is kept).
    pub max_table_id: u32,
    pub open_shards: HashMap<u32, OpenShard>,
}

/// Recovers the next sequence number and the open shard of every table of
/// `tables` (every model's tables with a stream). `max_record_seq` is the
/// highest sequence number in the `stream` keyspace.
///
/// # Errors
///
/// I/O failure, an undecodable entry, or a table with a stream and no open
/// shard ([`StorageError::Corrupt`] naming the table: a stream and its first
/// shard are written in one batch with the table's setting).
pub(crate) fn recover(
    store: &Store,
    tables: &[StreamedTable],
    max_record_seq: u64,
) -> Result<Recovered, StorageError> {
    let snapshot = store.db.snapshot();
    let floor = highest_sequence_number(&snapshot, &store.shards)?;
    let next = max_record_seq.max(floor).saturating_add(1);
    let streams = load_streams(&snapshot, &store.shards)?;
    let mut open_shards = HashMap::new();
    for table in tables {
        let latest = streams.iter().rfind(|s| s.table_id == table.id);
        let open = match latest {
            Some(stream) if stream.entry.disabled_millis.is_none() => {
                let shards = load_shards(&snapshot, &store.shards, table.id, stream.start, None)?;
                match shards.into_iter().next_back() {
                    Some(s) if s.entry.ending.is_none() => Some((s.start, s.entry)),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((start, entry)) = open else {
            let message = format!("table `{}` has a stream and no open shard", table.name);
            return Err(corrupt(SHARDS, "stream entry", message));
        };
        let (records, last) = count_records(&snapshot, store, table.id, start)?;
        open_shards.insert(
            table.id,
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
