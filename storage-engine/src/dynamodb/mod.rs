//! The DynamoDB model: tables and their metadata, items and their keys,
//! expressions, reads and writes, secondary indexes, item TTL (the expiry
//! index, its build and purge, the sweep of expired items) and the table's
//! DynamoDB Streams settings.

pub(crate) mod expr;
pub(crate) mod get_with;
pub(crate) mod index;
pub(crate) mod item;
pub(crate) mod meta;
pub(crate) mod query;
pub(crate) mod read;
pub(crate) mod read_page;
pub(crate) mod request;
pub(crate) mod stage;
pub(crate) mod stream_admin;
pub(crate) mod sweep;
pub(crate) mod swept_floor;
pub(crate) mod table;
pub(crate) mod table_admin;
pub mod ttl;
pub(crate) mod ttl_index;
pub(crate) mod write;
pub(crate) mod write_with;

/// The DynamoDB model of an [`Engine`](crate::Engine), from
/// [`Engine::dynamodb`](crate::Engine::dynamodb): CreateTable and the other
/// table operations, PutItem / GetItem / UpdateItem / DeleteItem with their
/// expressions, Query and Scan, UpdateTimeToLive ("Using time to live (TTL)
/// in DynamoDB"), UpdateTable's StreamSpecification, and reads of a table's
/// change stream across its shards. Borrows the engine; cheap to copy.
#[derive(Clone, Copy)]
pub struct DynamoDb<'a> {
    pub(crate) inner: &'a crate::state::Inner,
    pub(crate) cache: &'a DynamoDbCache,
}

/// The DynamoDB model's in-memory state, beside the shared one.
pub(crate) struct DynamoDbCache {
    /// Table metadata cache; changed only under the write lock, after the commit.
    pub tables:
        std::sync::RwLock<std::collections::BTreeMap<String, std::sync::Arc<meta::TableMeta>>>,
    /// Where each table's expiry index is known empty below (see `swept_floor.rs`).
    pub swept_floors: swept_floor::SweptFloors,
}

impl std::fmt::Debug for DynamoDb<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamoDb").finish_non_exhaustive()
    }
}
