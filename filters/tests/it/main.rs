//! Integration tests of ttlstream-filters' public API.
//!
//! One test binary for the crate (a module per area), so the workspace links
//! one executable per crate instead of one per file.

mod common;
mod events;
mod exact;
mod filter_files;
mod matcher_vs_reference;
mod operators;
mod pattern_errors;
mod required_strings;
mod service_behaviours;
mod ttl;
