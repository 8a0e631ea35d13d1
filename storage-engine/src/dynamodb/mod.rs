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
pub(crate) mod stream_admin;
pub(crate) mod sweep;
pub(crate) mod swept_floor;
pub(crate) mod table;
pub(crate) mod table_admin;
pub mod ttl;
pub(crate) mod ttl_index;
pub(crate) mod write;
pub(crate) mod write_with;
