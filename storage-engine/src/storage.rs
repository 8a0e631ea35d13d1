//! Keyspaces and the byte encodings of their keys and values.
//!
//! See `FORMAT.md` beside `Cargo.toml` for the full layout. Summary:
//!
//! | keyspace | key | value |
//! |---|---|---|
//! | `meta` | `"format"` / `"table/" ++ name` | `"3"` / JSON [`TableMeta`] |
//! | `items` | table id (u32 BE) ++ primary key | the item, binary (`codec`) |
//! | `expiry` | short table id ++ expiry secs (`expiry_key.rs`) ++ primary key | empty |
//! | `stream` | table id ++ sequence number (u64 BE) | the [`ChangeRecord`], binary (`codec`) |

use crate::error::StorageError;
use crate::stream::{ChangeRecord, SequenceNumber};
use crate::table::{TableDefinition, TableProperties, TimeToLiveSpecification};
use fjall::{Database, Keyspace, KeyspaceCreateOptions};
use serde::{Deserialize, Serialize};
use serde_dynamo::Item;
use std::path::Path;

pub(crate) use crate::expiry_key::{
    decode_expiry_key, expiry_bound, expiry_key, expiry_table_prefix,
};

/// On-disk format version this build writes and reads.
pub(crate) const FORMAT_VERSION: &str = "3";
/// Key of the format version in `meta`.
pub(crate) const FORMAT_KEY: &[u8] = b"format";
const TABLE_PREFIX: &[u8] = b"table/";

/// Keyspace names (also used in error messages).
pub(crate) const META: &str = "meta";
pub(crate) const ITEMS: &str = "items";
pub(crate) const EXPIRY: &str = "expiry";
pub(crate) const STREAM: &str = "stream";
/// Secondary-index entries (see `index.rs`).
pub(crate) const INDEXES: &str = "index";

/// Persistent per-table metadata (the `meta` keyspace value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TableMeta {
    /// Short numeric id used as the key prefix in the other keyspaces.
    pub id: u32,
    /// What the user created.
    pub definition: TableDefinition,
    /// The TTL setting; `None` = never configured.
    pub time_to_live: Option<TimeToLiveSpecification>,
    /// When TTL was last enabled or disabled (engine clock, epoch ms);
    /// `None` while TTL was never configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live_updated_at_millis: Option<i64>,
    /// When the table was created (engine clock, epoch ms).
    pub created_millis: i64,
    /// Billing mode, throughput and tags, kept for DescribeTable and the
    /// tag operations; the engine does not act on them.
    pub properties: TableProperties,
    /// While TTL is enabled and the items already in the table are not all
    /// in the expiry index yet: how far the background build has come (see
    /// `ttl_index.rs`). Absent once the build is done and while TTL is
    /// disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live_index_build: Option<TtlIndexBuild>,
    /// After TTL was disabled, until the table's expiry entries that match
    /// no item under the current setting are removed: how far the
    /// background purge has come (see `ttl_index.rs`). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live_index_purge: Option<TtlIndexPurge>,
}

/// Progress of a table's expiry-index build (the `meta` value's
/// `time_to_live_index_build`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TtlIndexBuild {
    /// The encoded primary key of the last item indexed (every item at or
    /// before it in key order has its entry); `None` before the first.
    pub indexed_through_key: Option<Vec<u8>>,
}

/// Progress of a table's expiry-index purge (the `meta` value's
/// `time_to_live_index_purge`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TtlIndexPurge {
    /// The last expiry key examined (every entry at or before it that
    /// matched no item is gone); `None` before the first.
    pub purged_through_key: Option<Vec<u8>>,
}

impl TableMeta {
    /// The TTL setting if it is enabled.
    pub fn ttl_enabled(&self) -> Option<&TimeToLiveSpecification> {
        self.time_to_live.as_ref().filter(|s| s.enabled)
    }
}

/// The fjall database and its four keyspaces.
pub(crate) struct Store {
    pub db: Database,
    pub meta: Keyspace,
    pub items: Keyspace,
    pub expiry: Keyspace,
    pub stream: Keyspace,
    /// Secondary-index entries.
    pub indexes: Keyspace,
    /// Streams, shards and trim marks (see `shards::meta`).
    pub shards: Keyspace,
}

impl Store {
    /// Opens or creates the database at `path`.
    ///
    /// # Errors
    ///
    /// fjall I/O or recovery failures.
    /// Writes one table-metadata record (`key` in the `meta` keyspace, `value`
    /// as JSON) durably to the OS as its own batch; `what` names the value in
    /// an encoding error. The one way every TTL model stores its table settings.
    ///
    /// # Errors
    ///
    /// [`StorageError::Encode`]; [`StorageError::Io`].
    pub fn put_meta<T: Serialize>(
        &self,
        what: &'static str,
        key: Vec<u8>,
        value: &T,
    ) -> Result<(), StorageError> {
        let mut batch = self.db.batch();
        batch.insert(&self.meta, key, encode_json(what, value)?);
        batch.commit().map_err(StorageError::Io)
    }

    pub fn open(path: &Path) -> Result<Self, fjall::Error> {
        let db = Database::builder(path).open()?;
        let meta = db.keyspace(META, KeyspaceCreateOptions::default)?;
        let items = db.keyspace(ITEMS, KeyspaceCreateOptions::default)?;
        let expiry = db.keyspace(EXPIRY, KeyspaceCreateOptions::default)?;
        let stream = db.keyspace(STREAM, KeyspaceCreateOptions::default)?;
        let indexes = db.keyspace(INDEXES, KeyspaceCreateOptions::default)?;
        let shards = db.keyspace(crate::shards::meta::SHARDS, KeyspaceCreateOptions::default)?;
        Ok(Self {
            db,
            meta,
            items,
            expiry,
            stream,
            indexes,
            shards,
        })
    }

    /// All table metadata, in name order.
    ///
    /// # Errors
    ///
    /// I/O failure or undecodable metadata.
    pub fn load_tables(&self) -> Result<Vec<TableMeta>, StorageError> {
        let mut out = Vec::new();
        for guard in self.meta.prefix(TABLE_PREFIX) {
            let value = guard.value()?;
            out.push(decode_json(META, "table metadata", &value)?);
        }
        Ok(out)
    }

    /// The highest sequence number stored for table `id`, if any.
    ///
    /// # Errors
    ///
    /// I/O failure or a malformed stream key.
    pub fn last_sequence_number(&self, id: u32) -> Result<Option<SequenceNumber>, StorageError> {
        let Some(guard) = self.stream.prefix(id.to_be_bytes()).next_back() else {
            return Ok(None);
        };
        let key = guard.key()?;
        decode_stream_key(&key).map(Some)
    }
}

/// `meta` key of a table.
pub(crate) fn table_meta_key(name: &str) -> Vec<u8> {
    [TABLE_PREFIX, name.as_bytes()].concat()
}

/// `items` key: table id ++ encoded primary key.
pub(crate) fn item_key(id: u32, pk: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + pk.len());
    k.extend_from_slice(&id.to_be_bytes());
    k.extend_from_slice(pk);
    k
}

/// `stream` key: table id ++ sequence number.
pub(crate) fn stream_key(id: u32, seq: SequenceNumber) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&id.to_be_bytes());
    k[4..].copy_from_slice(&seq.0.to_be_bytes());
    k
}

/// The sequence number in a `stream` key.
///
/// # Errors
///
/// [`StorageError::Corrupt`] if the key is not 12 bytes.
pub(crate) fn decode_stream_key(key: &[u8]) -> Result<SequenceNumber, StorageError> {
    key.get(4..12)
        .filter(|_| key.len() == 12)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(|b| SequenceNumber(u64::from_be_bytes(b)))
        .ok_or_else(|| corrupt(STREAM, "stream key", "not 12 bytes"))
}

pub(crate) fn corrupt(
    keyspace: &'static str,
    what: &'static str,
    message: impl Into<String>,
) -> StorageError {
    StorageError::Corrupt {
        keyspace,
        what,
        message: message.into(),
    }
}

/// Decodes a JSON value read from `keyspace`.
///
/// # Errors
///
/// [`StorageError::Corrupt`] naming the keyspace and what was decoded.
pub(crate) fn decode_json<T: for<'de> Deserialize<'de>>(
    keyspace: &'static str,
    what: &'static str,
    bytes: &[u8],
) -> Result<T, StorageError> {
    serde_json::from_slice(bytes).map_err(|e| corrupt(keyspace, what, e.to_string()))
}

/// Encodes a value as JSON for storage.
///
/// # Errors
///
/// [`StorageError::Encode`] (not expected for the engine's own types).
pub(crate) fn encode_json<T: Serialize>(
    what: &'static str,
    value: &T,
) -> Result<Vec<u8>, StorageError> {
    serde_json::to_vec(value).map_err(|e| StorageError::Encode {
        what,
        message: e.to_string(),
    })
}

/// Decodes an item value (`codec`).
///
/// # Errors
///
/// [`StorageError::Corrupt`].
pub(crate) fn decode_item(bytes: &[u8]) -> Result<Item, StorageError> {
    crate::codec::decode_item(bytes).map_err(|m| corrupt(ITEMS, "item", m))
}

/// Decodes a change record value (`codec`).
///
/// # Errors
///
/// [`StorageError::Corrupt`].
pub(crate) fn decode_record(bytes: &[u8]) -> Result<ChangeRecord, StorageError> {
    crate::codec::decode_record(bytes).map_err(|m| corrupt(STREAM, "change record", m))
}

/// A stored change record, checked, for reading in place.
///
/// # Errors
///
/// [`StorageError::Corrupt`] naming the keyspace.
pub(crate) fn stored_record(bytes: fjall::Slice) -> Result<crate::StoredRecord, StorageError> {
    crate::StoredRecord::parse(bytes).map_err(|m| corrupt(STREAM, "change record", m))
}

/// A stored change record as [`crate::Engine::get_stored_records_of`] hands
/// it out, with what it counts towards a read's 1 MB limit: a record whose
/// kind `full` rejects as its header only (its stored length), any other
/// record whole ([`stored_record`]; its `SizeBytes`).
///
/// # Errors
///
/// [`StorageError::Corrupt`] naming the keyspace.
pub(crate) fn stored_entry(
    bytes: fjall::Slice,
    full: impl Fn(crate::EventName) -> bool,
) -> Result<(u64, crate::StoredEntry), StorageError> {
    if crate::codec::stored_event_name(&bytes).is_some_and(|kind| !full(kind))
        && let Some(header) = crate::StoredHeader::parse(bytes.clone())
            .map_err(|m| corrupt(STREAM, "change record", m))?
    {
        let len = u64::try_from(header.stored_len()).unwrap_or(u64::MAX);
        return Ok((len, crate::StoredEntry::Header(header)));
    }
    let record = stored_record(bytes)?;
    Ok((record.size_bytes(), crate::StoredEntry::Record(record)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_keys_round_trip() {
        let k = stream_key(3, SequenceNumber(99));
        assert_eq!(decode_stream_key(&k).expect("decode"), SequenceNumber(99));
        assert!(decode_stream_key(b"bad").is_err());
    }
}
