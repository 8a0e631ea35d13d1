//! The change stream: records and their sequence numbers, their binary
//! encoding, the `stream` keyspace, and the DynamoDB Streams shape over it
//! (streams, shards, reads, retention).

pub(crate) mod codec;
pub(crate) mod error;
pub(crate) mod keys;
pub(crate) mod record;
pub(crate) mod sequence;
pub(crate) mod shards;
pub(crate) mod table_read;
