//! Integration tests of the ttlstream processor's library API and CLI.
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod alarm_apply_and_notify;
mod cli;
mod cli_alarm;
mod cli_filter;
mod cli_run;
mod cloudwatch_put_metric_data;
mod common;
mod dead_letter;
mod delivery_overlap;
mod demo_models;
mod dynamodb_streams_lineage;
mod engine_models;
mod engine_owner;
mod file_source;
mod filter_examples;
mod lambda_handler;
mod metrics_at_end;
mod pipeline_metrics;
mod prometheus_metrics;
mod unmatched_commit;
