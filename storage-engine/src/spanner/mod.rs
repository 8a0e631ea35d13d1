//! The Spanner TTL model: a row deletion policy per table
//! ("Spanner: About TTL", "Spanner: Create and manage time to live (TTL)
//! policies", "Spanner: Change streams overview").
//!
//! * A table has typed columns, a primary key, optional secondary indexes,
//!   optional interleaving in a parent (`ON DELETE CASCADE`) and at most one
//!   [`RowDeletionPolicy`] (`OLDER_THAN(col, INTERVAL n DAY)`, parsed from
//!   GoogleSQL or PostgreSQL DDL by [`RowDeletionPolicy::parse`]).
//! * The policy column is a TIMESTAMP, stored as epoch **milliseconds**
//!   ([`SpannerValue::Timestamp`]); NULL never expires; rows already past the
//!   policy can be inserted, and stay readable until deleted.
//! * Writes are commits ([`Spanner::commit`](crate::Spanner::commit)): a list
//!   of `insert`, `update`, `insertOrUpdate`, `replace` and `delete`
//!   mutations ([`SpannerMutation`]) applied as one atomic transaction, none
//!   checked against the policy; `insert_row` and `delete_row` are commits
//!   of one mutation.
//! * The sweeper deletes due rows in batches; each batch is one atomic write
//!   holding the rows, their secondary-index and expiry-index entries, their
//!   interleaved child rows (recursively, with their entries), and the
//!   [`DataChangeRecord`]s (`mod_type: DELETE`, `is_system_transaction: true`,
//!   `transaction_tag: "RowDeletionPolicy"`). A user's delete has
//!   `is_system_transaction: false` and an empty tag.
//! * [`Spanner::restore_table_from_backup`](crate::Spanner::restore_table_from_backup)
//!   copies a table, which comes back without its policy.

mod backup;
mod ddl;
mod mutation;
mod partitions;
mod read;
mod record;
mod schema;
mod stage;
mod sweep;
mod value;
pub(crate) mod watermark;
mod write;

pub use crate::sweeper::watermark::UndeletableRows;
pub use ddl::{DdlError, MAX_POLICY_DAYS, RowDeletionPolicy};
pub use mutation::{MutationError, SpannerMutation};
pub use partitions::ChangeStreamPartition;
pub(crate) use record::record_time_millis;
pub use record::{
    ColumnType, DataChangeRecord, Mod, ModType, ROW_DELETION_POLICY_TAG, SpannerStreamEntry,
    TypeCode, ValueCaptureType,
};
pub use schema::{SpannerColumn, SpannerIndex, SpannerRow, SpannerTableDefinition};
pub use sweep::MAX_MUTATIONS_PER_COMMIT;
pub use value::{SpannerType, SpannerValue, rfc3339_millis};

/// The Spanner model of an [`Engine`](crate::Engine), from
/// [`Engine::spanner`](crate::Engine::spanner): tables with a row deletion
/// policy ("Spanner: About time to live (TTL)"), row inserts and deletes,
/// reads by key and by index, the change stream, backup and restore.
/// Borrows the engine; cheap to copy.
#[derive(Clone, Copy)]
pub struct Spanner<'a> {
    pub(crate) inner: &'a crate::state::Inner,
}

impl std::fmt::Debug for Spanner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spanner").finish_non_exhaustive()
    }
}

use crate::error::StorageError;
use crate::storage::{META, Store, decode_json};
use serde::{Deserialize, Serialize};

/// `meta` key prefix of Spanner table metadata.
const META_PREFIX: &[u8] = b"spanner/";

/// Persistent metadata of a Spanner table (`meta` value, JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SpannerMeta {
    /// Key prefix of rows (`items`), policy entries (the expiry index, in
    /// its short form: `storage/expiry_key.rs`) and records (`stream`).
    pub id: u32,
    /// Key prefix (`items`) of each secondary index, parallel to
    /// `definition.indexes`.
    pub index_ids: Vec<u32>,
    /// The definition, with the current policy.
    pub definition: SpannerTableDefinition,
}

/// `meta` key of a Spanner table.
pub(crate) fn meta_key(name: &str) -> Vec<u8> {
    [META_PREFIX, name.as_bytes()].concat()
}

/// Every Spanner table's metadata, in name order.
pub(crate) fn load_all(store: &Store) -> Result<Vec<SpannerMeta>, StorageError> {
    let mut out = Vec::new();
    for guard in store.meta.prefix(META_PREFIX) {
        out.push(decode_json(
            META,
            "Spanner table metadata",
            &guard.value()?,
        )?);
    }
    Ok(out)
}

/// One Spanner table's metadata.
pub(crate) fn load(store: &Store, name: &str) -> Result<Option<SpannerMeta>, StorageError> {
    match store.meta.get(meta_key(name))? {
        Some(v) => Ok(Some(decode_json(META, "Spanner table metadata", &v)?)),
        None => Ok(None),
    }
}

/// Ids used by Spanner tables and their indexes (so `Engine::open` never
/// reuses one).
pub(crate) fn table_ids(store: &Store) -> Result<Vec<u32>, StorageError> {
    Ok(load_all(store)?
        .into_iter()
        .flat_map(|m| std::iter::once(m.id).chain(m.index_ids))
        .collect())
}
