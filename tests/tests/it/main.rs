//! End-to-end tests across ttlstream's crates, against real servers on 127.0.0.1.
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod boto3_ttl_life;
mod demo;
mod dynamodb_streams_moto;
mod dynamodb_streams_serve;
mod dynamodb_streams_serve_shards;
mod lambda_watch;
mod readme_walkthroughs;
mod s3_outage;
mod s3_sink;
mod serve_fair_sweep;
mod serve_pipeline;
mod sidecar_restart;
mod spanner_ttl_life;
mod tablestore_ttl_life;
