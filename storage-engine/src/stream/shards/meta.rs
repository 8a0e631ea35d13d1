//! What the `shards` keyspace stores, its keys, and the names built from it
//! (StreamArn, StreamLabel, ShardId).
//!
//! | key | value |
//! |---|---|
//! | `b'S'` ++ table id (u32 BE) ++ stream start (u64 BE) | JSON [`StreamEntry`] |
//! | `b'H'` ++ table id ++ shard start (u64 BE) | JSON [`ShardEntry`] |
//! | `b'T'` ++ table id | trimmed-through sequence number (u64 BE) |
//!
//! A stream of a table covers the sequence numbers from its start up to the
//! next stream's start of the same table id; its shards are the shard entries
//! in that range. Sequence numbers are engine-wide, so ranges never overlap.

use crate::error::StorageError;
pub(crate) use crate::storage::SHARDS;
use crate::storage::key::KeyAttribute;
use crate::storage::{corrupt, decode_json, encode_json};
use crate::stream::record::StreamViewType;
use fjall::{Keyspace, Readable};
use serde::{Deserialize, Serialize};
const STREAM_TAG: u8 = b'S';
const SHARD_TAG: u8 = b'H';
const TRIM_TAG: u8 = b'T';

/// DynamoDB Local's region and account, used in every StreamArn this engine
/// makes (`arn:aws:dynamodb:ddblocal:000000000000:table/NAME/stream/LABEL`).
pub const STREAM_ARN_REGION: &str = "ddblocal";
/// The account id in StreamArns (DynamoDB Local's).
pub const STREAM_ARN_ACCOUNT: &str = "000000000000";

/// One stream of a table: an enable of a DynamoDB table's
/// StreamSpecification, or the stream a Tablestore or Spanner table is
/// created with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StreamEntry {
    /// The table's name when the stream was enabled.
    pub table_name: String,
    /// The model of the table, with what DescribeStream reports of a
    /// DynamoDB table's stream.
    pub kind: StreamKind,
    /// Creation time, epoch ms; the StreamLabel is this instant. Unique per
    /// table name (a later stream gets at least one more millisecond).
    pub created_millis: i64,
    /// When the stream was disabled (epoch ms); `None` while ENABLED.
    pub disabled_millis: Option<i64>,
}

impl StreamEntry {
    /// `YYYY-MM-DDTHH:MM:SS.mmm` (UTC) of the creation instant.
    pub fn label(&self) -> String {
        stream_label(self.created_millis)
    }

    /// The StreamArn.
    pub fn arn(&self) -> String {
        format!(
            "arn:aws:dynamodb:{STREAM_ARN_REGION}:{STREAM_ARN_ACCOUNT}:table/{}/stream/{}",
            self.table_name,
            self.label()
        )
    }
}

/// Which TTL model's table a stream belongs to. Only DynamoDB-model streams
/// are seen through the DynamoDB Streams API ([`crate::Streams`]); the
/// others through their model's own stream API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum StreamKind {
    /// A DynamoDB-model table's stream.
    DynamoDb {
        /// The table's partition key (StreamDescription `KeySchema`).
        partition_key: KeyAttribute,
        /// Its sort key, if any.
        sort_key: Option<KeyAttribute>,
        /// `StreamViewType` of every record of this stream.
        view: StreamViewType,
    },
    /// A Tablestore-model table's stream (Tablestore Stream): records are
    /// [`ChangeRecord`](crate::ChangeRecord)s, as DynamoDB's.
    Tablestore,
    /// A Spanner-model table's change stream: records are JSON
    /// `DataChangeRecord`s.
    Spanner,
}

/// One shard: a run of sequence numbers of one stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardEntry {
    /// `shardId-<20-digit creation ms>-<8 hex>`.
    pub shard_id: String,
    /// The shard this one follows; `None` for a stream's first shard.
    pub parent_shard_id: Option<String>,
    /// When the shard was opened, epoch ms.
    pub created_millis: i64,
    /// EndingSequenceNumber once closed (the last record it holds, or its
    /// start if it never held one); `None` while open.
    pub ending: Option<u64>,
    /// When it was closed, epoch ms.
    pub closed_millis: Option<i64>,
}

/// A stream entry with its position.
#[derive(Clone, Debug)]
pub(crate) struct StoredStream {
    pub table_id: u32,
    pub start: u64,
    pub entry: StreamEntry,
}

/// A shard entry with its position.
#[derive(Clone, Debug)]
pub(crate) struct StoredShard {
    pub start: u64,
    pub entry: ShardEntry,
}

pub(crate) fn stream_key(table_id: u32, start: u64) -> Vec<u8> {
    tagged(STREAM_TAG, table_id, Some(start))
}

pub(crate) fn shard_key(table_id: u32, start: u64) -> Vec<u8> {
    tagged(SHARD_TAG, table_id, Some(start))
}

pub(crate) fn trim_key(table_id: u32) -> Vec<u8> {
    tagged(TRIM_TAG, table_id, None)
}

fn tagged(tag: u8, table_id: u32, seq: Option<u64>) -> Vec<u8> {
    let mut k = Vec::with_capacity(13);
    k.push(tag);
    k.extend_from_slice(&table_id.to_be_bytes());
    if let Some(seq) = seq {
        k.extend_from_slice(&seq.to_be_bytes());
    }
    k
}

/// (table id, sequence number) of a stream or shard key.
fn split_key(key: &[u8]) -> Result<(u32, u64), StorageError> {
    let id = key.get(1..5).and_then(|b| <[u8; 4]>::try_from(b).ok());
    let seq = key.get(5..13).and_then(|b| <[u8; 8]>::try_from(b).ok());
    match (id, seq, key.len()) {
        (Some(id), Some(seq), 13) => Ok((u32::from_be_bytes(id), u64::from_be_bytes(seq))),
        _ => Err(corrupt(SHARDS, "stream or shard key", "not 13 bytes")),
    }
}

pub(crate) fn encode<T: Serialize>(what: &'static str, v: &T) -> Result<Vec<u8>, StorageError> {
    encode_json(what, v)
}

/// Every stream of every table, by table id then start.
///
/// # Errors
///
/// I/O failure or an undecodable entry.
pub(crate) fn load_streams(
    r: &impl Readable,
    ks: &Keyspace,
) -> Result<Vec<StoredStream>, StorageError> {
    let mut out = Vec::new();
    for guard in r.prefix(ks, [STREAM_TAG]) {
        let (key, value) = guard.into_inner()?;
        let (table_id, start) = split_key(&key)?;
        let entry = decode_json(SHARDS, "stream entry", &value)?;
        out.push(StoredStream {
            table_id,
            start,
            entry,
        });
    }
    Ok(out)
}

/// The shards of table `table_id` with start in `[from, to)`, by start.
///
/// # Errors
///
/// I/O failure or an undecodable entry.
pub(crate) fn load_shards(
    r: &impl Readable,
    ks: &Keyspace,
    table_id: u32,
    from: u64,
    to: Option<u64>,
) -> Result<Vec<StoredShard>, StorageError> {
    let lo = shard_key(table_id, from);
    let hi = match to {
        Some(to) => shard_key(table_id, to),
        None => tagged(SHARD_TAG, table_id.saturating_add(1), Some(0)),
    };
    let mut out = Vec::new();
    for guard in r.range(ks, lo..hi) {
        let (key, value) = guard.into_inner()?;
        let (id, start) = split_key(&key)?;
        if id != table_id {
            break;
        }
        let entry = decode_json(SHARDS, "shard entry", &value)?;
        out.push(StoredShard { start, entry });
    }
    Ok(out)
}

/// The highest sequence number trimmed from table `table_id`'s stream.
///
/// # Errors
///
/// I/O failure or a value that is not 8 bytes.
pub(crate) fn trimmed_through(
    r: &impl Readable,
    ks: &Keyspace,
    table_id: u32,
) -> Result<Option<u64>, StorageError> {
    let Some(v) = r.get(ks, trim_key(table_id))? else {
        return Ok(None);
    };
    <[u8; 8]>::try_from(v.as_ref())
        .map(|b| Some(u64::from_be_bytes(b)))
        .map_err(|_| corrupt(SHARDS, "trimmed-through mark", "not 8 bytes"))
}

/// The highest sequence number any entry of the keyspace names (stream and
/// shard starts, shard endings, trim marks): a floor for the next one.
///
/// # Errors
///
/// As [`load_streams`].
pub(crate) fn highest_sequence_number(
    r: &impl Readable,
    ks: &Keyspace,
) -> Result<u64, StorageError> {
    let mut max = 0u64;
    for guard in r.iter(ks) {
        let (key, value) = guard.into_inner()?;
        match key.first() {
            Some(&TRIM_TAG) => {
                if let Ok(b) = <[u8; 8]>::try_from(value.as_ref()) {
                    max = max.max(u64::from_be_bytes(b));
                }
            }
            Some(&SHARD_TAG) => {
                let (_, start) = split_key(&key)?;
                let entry: ShardEntry = decode_json(SHARDS, "shard entry", &value)?;
                max = max.max(start).max(entry.ending.unwrap_or(0));
            }
            _ => {
                let (_, start) = split_key(&key)?;
                max = max.max(start);
            }
        }
    }
    Ok(max)
}

/// `shardId-` ++ 20-digit creation ms ++ `-` ++ 8 hex digits (FNV-1a of the
/// table id and start), the shape of DynamoDB's ShardIds
/// (`shardId-00000001414562045508-2bac9cd2`).
pub(crate) fn shard_id(created_millis: i64, table_id: u32, start: u64) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in table_id.to_be_bytes().iter().chain(&start.to_be_bytes()) {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("shardId-{:020}-{h:08x}", created_millis.max(0))
}

/// ISO 8601 UTC with milliseconds, no zone (`2026-11-21T01:02:03.456`), as
/// DynamoDB's StreamLabel. `millis` is the engine clock's, well inside
/// chrono's range; outside it the label is the decimal milliseconds.
pub(crate) fn stream_label(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis).map_or_else(
        || millis.to_string(),
        |t| t.format("%Y-%m-%dT%H:%M:%S%.3f").to_string(),
    )
}

/// Inverse of [`stream_label`]: only a label in exactly that shape.
pub(crate) fn parse_stream_label(label: &str) -> Option<i64> {
    let t = chrono::NaiveDateTime::parse_from_str(label, "%Y-%m-%dT%H:%M:%S%.3f").ok()?;
    let millis = t.and_utc().timestamp_millis();
    (stream_label(millis) == label).then_some(millis)
}

/// (table name, StreamLabel) of a StreamArn
/// `arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL` (any region and
/// account are accepted).
pub(crate) fn parse_stream_arn(arn: &str) -> Result<(&str, i64), String> {
    let rest = arn
        .strip_prefix("arn:aws:dynamodb:")
        .ok_or("does not start with `arn:aws:dynamodb:`")?;
    let mut parts = rest.splitn(3, ':');
    let (_region, _account, resource) = (parts.next(), parts.next(), parts.next());
    let resource = resource.ok_or("has no `REGION:ACCOUNT:` part")?;
    let resource = resource
        .strip_prefix("table/")
        .ok_or("resource does not start with `table/`")?;
    let (table, label) = resource
        .rsplit_once("/stream/")
        .ok_or("has no `/stream/LABEL` part")?;
    let millis = parse_stream_label(label)
        .ok_or("StreamLabel is not YYYY-MM-DDTHH:MM:SS.mmm (UTC, as DynamoDB writes it)")?;
    Ok((table, millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_match_known_instants() {
        assert_eq!(stream_label(0), "1970-01-01T00:00:00.000");
        // 2026-11-21T01:02:03.456Z
        let t = 1_795_222_923_456;
        assert_eq!(stream_label(t), "2026-11-21T01:02:03.456");
        assert_eq!(parse_stream_label("2026-11-21T01:02:03.456"), Some(t));
        assert_eq!(
            parse_stream_label("2024-02-29T23:59:59.999")
                .map(stream_label)
                .as_deref(),
            Some("2024-02-29T23:59:59.999")
        );
        assert_eq!(parse_stream_label("2023-02-29T00:00:00.000"), None);
        assert_eq!(parse_stream_label("2026-11-21 01:02:03.456"), None);
    }

    #[test]
    fn arns_parse() {
        let arn =
            "arn:aws:dynamodb:ddblocal:000000000000:table/Sess.ions/stream/2026-11-21T01:02:03.456";
        assert_eq!(parse_stream_arn(arn), Ok(("Sess.ions", 1_795_222_923_456)));
        assert!(parse_stream_arn("arn:aws:s3:::bucket").is_err());
        assert!(parse_stream_arn("arn:aws:dynamodb:r:a:table/T/stream/yesterday").is_err());
    }

    #[test]
    fn shard_ids_have_dynamodbs_shape() {
        let id = shard_id(1_700_000_000_000, 1, 42);
        assert_eq!(id.len(), "shardId-00000001700000000000-1a2b3c4d".len());
        assert!(id.starts_with("shardId-00000001700000000000-"));
        assert_ne!(id, shard_id(1_700_000_000_000, 1, 43));
    }
}
