//! Reading one table's change records from a position, past what retention
//! removed: the one read behind the DynamoDB, Tablestore and Spanner models'
//! stream reads (`DynamoDb::read_stream`, `Tablestore::read_stream`,
//! `Spanner::read_change_stream`).

use crate::storage::Store;
use crate::stream::error::StreamError;
use crate::stream::keys::stream_key;
use crate::stream::record::{SequenceNumber, StreamPosition};
use fjall::Readable;

/// Up to `limit` records of table `table` (id `id`) from position `from`, in
/// sequence-number order, each made by `decode` from its stream key and
/// stored value. `Latest` reads nothing (no record is newer than the newest).
///
/// # Errors
///
/// [`StreamError::TrimmedDataAccess`] for an `AtSequenceNumber` /
/// `AfterSequenceNumber` position retention has removed; what `decode`
/// returns; [`StreamError::Storage`].
pub(crate) fn read_table_records<R>(
    store: &Store,
    table: &str,
    id: u32,
    from: StreamPosition,
    limit: usize,
    mut decode: impl FnMut(&[u8], &[u8]) -> Result<R, StreamError>,
) -> Result<Vec<R>, StreamError> {
    let start = match from {
        StreamPosition::TrimHorizon => 0,
        StreamPosition::Latest => return Ok(Vec::new()),
        StreamPosition::AtSequenceNumber(s) => s.0,
        StreamPosition::AfterSequenceNumber(s) => match s.0.checked_add(1) {
            Some(n) => n,
            None => return Ok(Vec::new()),
        },
    };
    let snapshot = store.db.snapshot();
    let start = untrimmed_start(store, &snapshot, table, id, from, start)?;
    let lo = stream_key(id, SequenceNumber(start));
    let hi = stream_key(id, SequenceNumber(u64::MAX));
    let mut out = Vec::new();
    for guard in snapshot.range(&store.stream, lo..=hi).take(limit) {
        let (key, value) = guard.into_inner()?;
        out.push(decode(&key, &value)?);
    }
    Ok(out)
}

/// Where a read of table `id`'s records from position `from` (the
/// first wanted sequence number `start`) begins once retention is taken
/// into account: past the trimmed-through mark for `TrimHorizon`, and
/// [`StreamError::TrimmedDataAccess`] for a position at or below it. The
/// one check for the stream readers of all three TTL models.
fn untrimmed_start(
    store: &Store,
    snapshot: &fjall::Snapshot,
    table: &str,
    id: u32,
    from: StreamPosition,
    start: u64,
) -> Result<u64, StreamError> {
    let trimmed = crate::stream::shards::meta::trimmed_through(snapshot, &store.shards, id)?;
    if let Some(t) = trimmed
        && from != StreamPosition::TrimHorizon
        && start <= t
    {
        return Err(StreamError::TrimmedDataAccess {
            table: table.to_string(),
            position: match from {
                StreamPosition::AtSequenceNumber(s) => format!("AT_SEQUENCE_NUMBER {s}"),
                _ => format!("AFTER_SEQUENCE_NUMBER {}", SequenceNumber(start - 1)),
            },
            trimmed_through: SequenceNumber(t),
        });
    }
    Ok(start.max(trimmed.map_or(0, |t| t.saturating_add(1))))
}
