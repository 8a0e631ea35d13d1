//! The DynamoDB model's table metadata (the `meta` keyspace's `"table/"`
//! values): definition, TTL setting and the progress of its expiry index.

use crate::dynamodb::table::{TableDefinition, TableProperties, TimeToLiveSpecification};
use crate::error::StorageError;
use crate::storage::{META, Store, decode_json};
use serde::{Deserialize, Serialize};

const TABLE_PREFIX: &[u8] = b"table/";

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

/// `meta` key of a table.
pub(crate) fn table_meta_key(name: &str) -> Vec<u8> {
    [TABLE_PREFIX, name.as_bytes()].concat()
}

/// All DynamoDB table metadata, in name order.
///
/// # Errors
///
/// I/O failure or undecodable metadata.
pub(crate) fn load_tables(store: &Store) -> Result<Vec<TableMeta>, StorageError> {
    let mut out = Vec::new();
    for guard in store.meta.prefix(TABLE_PREFIX) {
        let value = guard.value()?;
        out.push(decode_json(META, "table metadata", &value)?);
    }
    Ok(out)
}
