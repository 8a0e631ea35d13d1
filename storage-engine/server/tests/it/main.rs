//! Integration tests of ttlstream-server: its DynamoDB and DynamoDB Streams
//! API through the AWS SDK and raw HTTP, on a free 127.0.0.1 port.
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod admin;
mod admission;
mod api;
mod bad_requests;
mod batch_tables;
mod fidelity;
mod legacy;
mod limits;
mod sigv4;
mod spanner;
mod streams;
mod support;
mod table_fidelity;
mod tablestore;
mod tablestore_errors;
mod tablestore_shards;
mod ttl_status;
