//! The Tablestore TTL model: table TTL and max versions over versioned cells
//! ("Tablestore: Data versions and TTL", "Tablestore: TableOptions").
//!
//! * A table has a primary key of 1 to 4 columns (S, N or B) and
//!   [`TablestoreOptions`]: `time_to_live_secs` (-1 or at least 86,400),
//!   `max_versions` (at least 1), `max_time_deviation_secs` (default 86,400).
//! * Each attribute column keeps versions, epoch-ms timestamps given by the
//!   writer or taken from the engine's clock. A version outside
//!   `[max(now - max_time_deviation, now - time_to_live), now + max_time_deviation)`
//!   is rejected ([`WriteError::Validation`](crate::WriteError::Validation)
//!   naming the column and the range in ms).
//! * Reads apply the *current* options to the stored versions: expired
//!   versions and those beyond `max_versions` are invisible at once, and
//!   become visible again if the options are relaxed before the sweeper
//!   removed them.
//! * The sweeper removes invisible versions; a row whose cells are all gone is
//!   deleted with a REMOVE record tagged [`UserIdentity::dynamodb_ttl`](crate::UserIdentity::dynamodb_ttl)
//!   (the same system tag as DynamoDB TTL), atomically with the row.

mod catalog;
mod change;
mod options;
mod range;
mod read;
mod row;
mod stream;
mod sweep;
mod write;

pub use change::{ColumnChange, RowExistence};
pub use options::{
    DEFAULT_MAX_TIME_DEVIATION_SECS, MIN_TIME_TO_LIVE_SECS, TablestoreOptions,
    TablestoreOptionsError,
};
pub use range::{Direction, KeyBound, MAX_RANGE_ROWS, RangePage, RangeRequest};
pub use row::{Cell, ReadOptions, Row, TimeRange};
pub use stream::StreamShard;
pub use write::PutColumn;

/// The Tablestore model of an [`Engine`](crate::Engine), from
/// [`Engine::tablestore`](crate::Engine::tablestore): CreateTable,
/// UpdateTable's options, ListTable, DeleteTable, PutRow / UpdateRow /
/// DeleteRow (with `row_existence` conditions and UpdateRow's DELETE /
/// DELETE_ALL column actions), GetRow, GetRange, a full scan and the change
/// records ("Tablestore: Data versions and TTL").
/// Borrows the engine; cheap to copy.
#[derive(Clone, Copy)]
pub struct Tablestore<'a> {
    pub(crate) inner: &'a crate::state::Inner,
}

impl std::fmt::Debug for Tablestore<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablestore").finish_non_exhaustive()
    }
}

use crate::error::StorageError;
use crate::storage::key::encode_key_value;
use crate::storage::key::{KeyAttribute, ScalarAttributeType};
use crate::storage::{META, Store, decode_json};
use crate::stream::record::StreamViewType;
use serde::{Deserialize, Serialize};
use serde_dynamo::Item;
use std::collections::HashMap;

/// `meta` key prefix of Tablestore table metadata.
const META_PREFIX: &[u8] = b"tablestore/";

/// A Tablestore-model table (Tablestore `CreateTable`: `TableMeta` plus
/// `TableOptions`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablestoreTableDefinition {
    /// Table name: 1 to 255 bytes of `a-z A-Z 0-9 _ - .`.
    pub table_name: String,
    /// Primary key columns, in key order (1 to 4).
    pub primary_key: Vec<KeyAttribute>,
    /// TTL, max versions and max version offset.
    pub options: TablestoreOptions,
    /// `None`: no change stream; `Some(v)`: writes and sweeper deletions
    /// append [`ChangeRecord`](crate::ChangeRecord)s whose images (primary
    /// key plus the newest stored version of each column) follow `v`.
    pub stream_view_type: Option<StreamViewType>,
}

impl TablestoreTableDefinition {
    /// A table with one primary key column, default options and no stream.
    pub fn new(
        table_name: impl Into<String>,
        primary_key: impl Into<String>,
        attribute_type: ScalarAttributeType,
    ) -> Self {
        Self {
            table_name: table_name.into(),
            primary_key: vec![KeyAttribute::new(primary_key, attribute_type)],
            options: TablestoreOptions::default(),
            stream_view_type: None,
        }
    }

    /// Builder-style: appends a primary key column.
    #[must_use]
    pub fn with_primary_key_column(
        mut self,
        name: impl Into<String>,
        attribute_type: ScalarAttributeType,
    ) -> Self {
        self.primary_key
            .push(KeyAttribute::new(name, attribute_type));
        self
    }

    /// Builder-style: sets the options.
    #[must_use]
    pub fn with_options(mut self, options: TablestoreOptions) -> Self {
        self.options = options;
        self
    }

    /// Builder-style: enables the change stream.
    #[must_use]
    pub fn with_stream(mut self, view: StreamViewType) -> Self {
        self.stream_view_type = Some(view);
        self
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        validate_table_name(&self.table_name)?;
        if self.primary_key.is_empty() || self.primary_key.len() > 4 {
            return Err("a Tablestore primary key has 1 to 4 columns".to_string());
        }
        for (i, k) in self.primary_key.iter().enumerate() {
            if k.attribute_name.is_empty() || k.attribute_name.len() > 255 {
                return Err(format!(
                    "primary key column {i}: name must be 1 to 255 bytes"
                ));
            }
            if self.primary_key[..i]
                .iter()
                .any(|p| p.attribute_name == k.attribute_name)
            {
                return Err(format!(
                    "primary key column `{}` is declared twice",
                    k.attribute_name
                ));
            }
        }
        self.options.validate().map_err(|e| e.to_string())
    }

    /// Encodes `key` (exactly the primary key columns) in key order.
    pub(crate) fn encode_key(&self, key: &Item) -> Result<Vec<u8>, String> {
        let map: &HashMap<String, serde_dynamo::AttributeValue> = key;
        if map.len() != self.primary_key.len() {
            return Err(format!(
                "the primary key has {} columns, {} were given",
                self.primary_key.len(),
                map.len()
            ));
        }
        let mut out = Vec::new();
        for k in &self.primary_key {
            let value = map
                .get(&k.attribute_name)
                .ok_or_else(|| format!("primary key column `{}` is missing", k.attribute_name))?;
            encode_key_value(k.attribute_type, value, &mut out)
                .map_err(|m| format!("primary key column `{}` {m}", k.attribute_name))?;
        }
        Ok(out)
    }
}

/// Checks a table name: 1 to 255 bytes of `a-z A-Z 0-9 _ - .`.
pub(crate) fn validate_table_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.len() > 255
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err(format!(
            "table name {name:?} must be 1 to 255 characters of a-z A-Z 0-9 _ - ."
        ));
    }
    Ok(())
}

/// Persistent metadata of a Tablestore table (`meta` value, JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TablestoreMeta {
    /// Key prefix in `items` and `stream` (shared id space with other models).
    pub id: u32,
    /// The definition, with the current options.
    pub definition: TablestoreTableDefinition,
}

/// `meta` key of a Tablestore table.
pub(crate) fn meta_key(name: &str) -> Vec<u8> {
    [META_PREFIX, name.as_bytes()].concat()
}

/// Every Tablestore table's metadata, in name order.
pub(crate) fn load_all(store: &Store) -> Result<Vec<TablestoreMeta>, StorageError> {
    let mut out = Vec::new();
    for guard in store.meta.prefix(META_PREFIX) {
        let value = guard.value()?;
        out.push(decode_json(META, "Tablestore table metadata", &value)?);
    }
    Ok(out)
}

/// One Tablestore table's metadata.
pub(crate) fn load(store: &Store, name: &str) -> Result<Option<TablestoreMeta>, StorageError> {
    match store.meta.get(meta_key(name))? {
        Some(v) => Ok(Some(decode_json(META, "Tablestore table metadata", &v)?)),
        None => Ok(None),
    }
}

/// Ids used by Tablestore tables (so `Engine::open` never reuses one).
pub(crate) fn table_ids(store: &Store) -> Result<Vec<u32>, StorageError> {
    Ok(load_all(store)?.into_iter().map(|m| m.id).collect())
}
