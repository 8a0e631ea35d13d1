//! Retention: removing records older than [`StreamOptions::retention`](super::StreamOptions::retention),
//! then closed shards and DISABLED streams left empty ("Change data capture
//! for DynamoDB Streams": stream records are kept up to 24 hours).
//!
//! Records of a table are removed oldest first (sequence order), stopping at
//! the first record young enough to keep, so what is trimmed is always a
//! prefix and one number per table, the trimmed-through mark, says where
//! reads must fail with TrimmedDataAccess. The mark is written in the same
//! batch as the removals, so a crash never leaves removed records unmarked.

use super::meta::{
    StreamKind, load_shards, load_streams, shard_key, stream_key as stream_entry_key, trim_key,
    trimmed_through,
};
use crate::error::StorageError;
use crate::storage::{STREAM, Store, corrupt};
use crate::stream::keys::{decode_stream_key, stream_key};
use crate::stream::record::SequenceNumber;
use fjall::Readable;
use std::collections::BTreeSet;

/// Records removed per atomic batch.
const TRIM_CHUNK: usize = 10_000;

/// What one trim pass removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrimReport {
    /// Stream records removed for being older than the retention.
    pub records_trimmed: u64,
    /// Closed shards removed (closed longer than the retention, no records left).
    pub shards_removed: u64,
    /// DISABLED streams removed (no shard left).
    pub streams_removed: u64,
}

/// One trim pass removing at most about `max_records` records older than
/// `horizon` (epoch ms), of every table with a stream (every model's; each
/// stream's kind says, through `record_time`, how to read a stored record's
/// time), then closed shards and DISABLED streams left empty.
pub(crate) fn trim(
    store: &Store,
    horizon: i64,
    record_time: impl Fn(&StreamKind) -> RecordTimeMillis,
    max_records: usize,
) -> Result<TrimReport, StorageError> {
    let mut report = TrimReport::default();
    let snapshot = store.db.snapshot();
    let streams = load_streams(&snapshot, &store.shards)?;
    // One entry per table id (a table's streams are all of one kind).
    let mut tables: Vec<(u32, RecordTimeMillis)> = Vec::new();
    for s in &streams {
        if tables.last().is_none_or(|(id, _)| *id != s.table_id) {
            tables.push((s.table_id, record_time(&s.entry.kind)));
        }
    }
    let table_ids: BTreeSet<u32> = tables.iter().map(|(id, _)| *id).collect();
    for (id, time_millis) in tables {
        let left = max_records.saturating_sub(report.records_trimmed as usize);
        report.records_trimmed += trim_records(store, id, time_millis, horizon, left)?;
    }
    let snapshot = store.db.snapshot();
    let mut batch = store.db.batch();
    for &id in &table_ids {
        for shard in load_shards(&snapshot, &store.shards, id, 0, None)? {
            let (Some(end), Some(closed)) = (shard.entry.ending, shard.entry.closed_millis) else {
                continue;
            };
            let lo = stream_key(id, SequenceNumber(shard.start));
            let hi = stream_key(id, SequenceNumber(end));
            if closed < horizon && snapshot.range(&store.stream, lo..=hi).next().is_none() {
                batch.remove(&store.shards, shard_key(id, shard.start));
                report.shards_removed += 1;
            }
        }
    }
    if !batch.is_empty() {
        batch.commit()?;
    }
    let snapshot = store.db.snapshot();
    let streams = load_streams(&snapshot, &store.shards)?;
    let mut batch = store.db.batch();
    for (i, s) in streams.iter().enumerate() {
        if s.entry.disabled_millis.is_none() {
            continue;
        }
        let end = streams
            .get(i + 1)
            .filter(|n| n.table_id == s.table_id)
            .map(|n| n.start);
        if load_shards(&snapshot, &store.shards, s.table_id, s.start, end)?.is_empty() {
            batch.remove(&store.shards, stream_entry_key(s.table_id, s.start));
            report.streams_removed += 1;
        }
    }
    if !batch.is_empty() {
        batch.commit()?;
    }
    if report != TrimReport::default() {
        tracing::debug!(?report, "stream retention pass");
    }
    Ok(report)
}

/// Removes up to `max` records of table `id` older than `horizon`
/// (epoch ms), oldest first, in batches with the trimmed-through mark.
fn trim_records(
    store: &Store,
    id: u32,
    time_millis: RecordTimeMillis,
    horizon: i64,
    max: usize,
) -> Result<u64, StorageError> {
    let mut removed = 0u64;
    let mut mark = trimmed_through(&store.db.snapshot(), &store.shards, id)?;
    // Each batch starts after the last key removed (starting at the
    // prefix again would rescan the tombstones).
    let mut from = 0u64;
    loop {
        let mut batch = store.db.batch();
        let mut last = None;
        let mut young = false;
        let room = max.saturating_sub(removed as usize).min(TRIM_CHUNK);
        if room == 0 {
            return Ok(removed);
        }
        let range = stream_key(id, SequenceNumber(from))..=stream_key(id, SequenceNumber(u64::MAX));
        for guard in store.stream.range(range).take(room) {
            let (key, value) = guard.into_inner()?;
            let millis = time_millis(&value)?;
            if millis >= horizon {
                young = true;
                break;
            }
            last = Some(decode_stream_key(&key)?.0);
            batch.remove(&store.stream, key);
        }
        let Some(last) = last else {
            return Ok(removed);
        };
        let through = mark.map_or(last, |m| m.max(last));
        batch.insert(&store.shards, trim_key(id), through.to_be_bytes());
        let n = batch.len() as u64 - 1;
        batch.commit()?;
        mark = Some(through);
        from = last.saturating_add(1);
        removed += n;
        if young {
            return Ok(removed);
        }
    }
}

/// Reads a stored record's time (epoch ms): ApproximateCreationDateTime, or
/// a Spanner data change record's `commit_timestamp` (`models.rs` says
/// which, by the stream's kind).
pub(crate) type RecordTimeMillis = fn(&[u8]) -> Result<i64, StorageError>;

/// The ApproximateCreationDateTime (epoch ms) of a stored
/// [`ChangeRecord`](crate::ChangeRecord) (the DynamoDB and Tablestore models').
///
/// # Errors
///
/// [`StorageError::Corrupt`] for bytes without a record header.
pub(crate) fn change_record_time_millis(value: &[u8]) -> Result<i64, StorageError> {
    crate::stream::codec::record_time_millis(value)
        .ok_or_else(|| corrupt(STREAM, "change record", "no binary record header"))
}
