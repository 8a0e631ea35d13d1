//! Integration tests of ttlstream-engine's public API (the HTTP API's are in
//! `ttlstream-server`).
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod common;
mod concurrency;
mod crash_safety;
mod crash_safety_models;
mod expressions;
mod indexes;
mod items_query;
mod model;
mod reopen;
mod spanner;
mod spanner_commit;
mod spanner_undeletable;
mod stream_records;
mod stream_retention;
mod stream_shards;
mod stream_shards_models;
mod sweeper_control;
mod sweeper_lag;
mod tablestore;
mod ttl_expiry;
mod validation;
