//! Integration tests of ttlstream-engine's public API (and, with feature `server`, of its HTTP API).
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod common;
mod concurrency;
mod crash_safety;
mod expressions;
mod indexes;
mod items_query;
mod model;
mod reopen;
mod server_admin;
mod server_api;
mod server_bad_requests;
mod server_batch_tables;
mod server_fidelity;
mod server_legacy;
mod server_limits;
mod server_sigv4;
mod server_streams;
#[cfg(feature = "server")]
mod server_support;
mod server_table_fidelity;
mod server_ttl_status;
mod spanner;
mod stream_records;
mod stream_retention;
mod stream_shards;
mod sweeper_control;
mod sweeper_lag;
mod tablestore;
mod ttl_expiry;
