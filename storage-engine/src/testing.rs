//! What the crate's unit tests share: an engine on a manual clock, a
//! DynamoDB table with TTL, its items, a Spanner table with a row deletion
//! policy.

#![allow(clippy::unwrap_used)]

use crate::spanner::{RowDeletionPolicy, SpannerTableDefinition, SpannerType};
use crate::{
    AttributeValue, Engine, EngineOptions, Item, ManualClock, TableDefinition,
    TimeToLiveSpecification,
};
use std::collections::HashMap;
use std::sync::Arc;

/// An engine in `dir` whose clock starts at `epoch_millis` (the returned
/// clock moves it).
pub(crate) fn engine_at(dir: &std::path::Path, epoch_millis: i64) -> (Engine, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(epoch_millis));
    let options = EngineOptions {
        clock: clock.clone(),
        ..Default::default()
    };
    (Engine::open(dir, options).unwrap(), clock)
}

/// An engine at epoch 1,000,000 ms with DynamoDB table `table` (named
/// `Tbl`), TTL on attribute `ttl`.
pub(crate) fn engine_with_table(
    dir: &std::path::Path,
    table: TableDefinition,
) -> (Engine, Arc<ManualClock>) {
    let (engine, clock) = engine_at(dir, 1_000_000);
    engine.dynamodb().create_table(table).unwrap();
    engine
        .dynamodb()
        .update_time_to_live("Tbl", TimeToLiveSpecification::enabled("ttl"))
        .unwrap();
    (engine, clock)
}

/// An item with String key `pk` and `ttl` epoch seconds.
pub(crate) fn item(pk: &str, ttl: i64) -> Item {
    HashMap::from([
        ("pk".to_string(), AttributeValue::S(pk.into())),
        ("ttl".to_string(), AttributeValue::N(ttl.to_string())),
    ])
    .into()
}

/// Spanner table `name`: `Id` INT64 key, `CreatedAt` TIMESTAMP, rows deleted
/// one day after `CreatedAt`.
pub(crate) fn spanner_one_day_table(name: &str) -> SpannerTableDefinition {
    SpannerTableDefinition::new(name)
        .column("Id", SpannerType::Int64)
        .column("CreatedAt", SpannerType::Timestamp)
        .primary_key(["Id"])
        .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1))
}
