//! Shared storage: the fjall keyspaces every model writes to, the format
//! version, and the byte encodings of keys (key attributes, numbers, expiry
//! instants) and of attribute values' rules and sizes.
//!
//! See `FORMAT.md` beside `Cargo.toml` for the full layout. Summary:
//!
//! | keyspace | key | value |
//! |---|---|---|
//! | `meta` | `"format"` / `"table/" ++ name` (and each model's prefix) | `"4"` / JSON table metadata |
//! | `items` | table id (u32 BE) ++ primary key | the item, binary (`stream/codec`) |
//! | `expiry` | short table id ++ expiry secs (`expiry_key.rs`) ++ primary key | empty |
//! | `stream` | table id ++ sequence number (u64 BE) | the change record, binary (`stream/codec`) |

use crate::error::StorageError;
use fjall::{Database, Keyspace, KeyspaceCreateOptions};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub(crate) mod attribute;
pub(crate) mod expiry_key;
pub(crate) mod key;
pub(crate) mod number;

pub(crate) use expiry_key::{decode_expiry_key, expiry_bound, expiry_key, expiry_table_prefix};

/// On-disk format version this build writes and reads.
pub(crate) const FORMAT_VERSION: &str = "4";
/// Key of the format version in `meta`.
pub(crate) const FORMAT_KEY: &[u8] = b"format";

/// Keyspace names (also used in error messages).
pub(crate) const META: &str = "meta";
pub(crate) const ITEMS: &str = "items";
pub(crate) const EXPIRY: &str = "expiry";
pub(crate) const STREAM: &str = "stream";
/// Secondary-index entries (see `dynamodb/index.rs`).
pub(crate) const INDEXES: &str = "index";
/// Streams, shards and trim marks (see `stream/shards/meta.rs`).
pub(crate) const SHARDS: &str = "shards";

/// The fjall database and its six keyspaces.
pub(crate) struct Store {
    pub db: Database,
    pub meta: Keyspace,
    pub items: Keyspace,
    pub expiry: Keyspace,
    pub stream: Keyspace,
    /// Secondary-index entries.
    pub indexes: Keyspace,
    /// Streams, shards and trim marks (see `stream/shards/meta.rs`).
    pub shards: Keyspace,
}

impl Store {
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

    /// Opens or creates the database at `path`, with a block cache of
    /// `cache_size_bytes`.
    ///
    /// # Errors
    ///
    /// fjall I/O or recovery failures.
    pub fn open(path: &Path, cache_size_bytes: u64) -> Result<Self, fjall::Error> {
        let db = Database::builder(path)
            .cache_size(cache_size_bytes)
            .open()?;
        let meta = db.keyspace(META, KeyspaceCreateOptions::default)?;
        let items = db.keyspace(ITEMS, KeyspaceCreateOptions::default)?;
        let expiry = db.keyspace(EXPIRY, KeyspaceCreateOptions::default)?;
        let stream = db.keyspace(STREAM, KeyspaceCreateOptions::default)?;
        let indexes = db.keyspace(INDEXES, KeyspaceCreateOptions::default)?;
        let shards = db.keyspace(SHARDS, KeyspaceCreateOptions::default)?;
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
}

/// `items` key: table id ++ encoded primary key.
pub(crate) fn item_key(id: u32, pk: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + pk.len());
    k.extend_from_slice(&id.to_be_bytes());
    k.extend_from_slice(pk);
    k
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
