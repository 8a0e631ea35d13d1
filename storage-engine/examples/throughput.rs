//! Quick throughput check (run with `--release`): bulk `put_items` and one
//! sweep over N items, printed as items/s and as a ratio against a baseline
//! measured in the same run (raw fjall batch inserts of the same bytes).
//!
//! `cargo run --release -p ttlstream-engine --example throughput -- 100000`
#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let start_millis = 1_700_000_000_000;
    let items: Vec<Item> = (0..n)
        .map(|i| {
            HashMap::from([
                (
                    "UserName".to_string(),
                    AttributeValue::S(format!("user{i:08}")),
                ),
                (
                    "ExpirationTime".to_string(),
                    AttributeValue::N((1_700_000_000 + (i % 3600) as i64).to_string()),
                ),
                ("Data".to_string(), AttributeValue::S("x".repeat(100))),
            ])
            .into()
        })
        .collect();

    // Baseline: the same item bytes written with raw fjall batches of 1,000.
    let base_dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(base_dir.path()).open().unwrap();
    let ks = db
        .keyspace("items", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let t = Instant::now();
    for (i, chunk) in items.chunks(1000).enumerate() {
        let mut b = db.batch();
        for (j, it) in chunk.iter().enumerate() {
            b.insert(
                &ks,
                format!("{i:06}{j:04}"),
                serde_json::to_vec(it).unwrap(),
            );
        }
        b.commit().unwrap();
    }
    let baseline = t.elapsed();

    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(start_millis));
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock: clock.clone(),
        },
    )
    .unwrap();
    engine
        .create_table(
            TableDefinition::new("SessionData", "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .unwrap();
    engine
        .update_time_to_live(
            "SessionData",
            TimeToLiveSpecification::enabled("ExpirationTime"),
        )
        .unwrap();
    let t = Instant::now();
    engine.put_items("SessionData", items).unwrap();
    let put = t.elapsed();

    clock.advance(Duration::from_secs(3601));
    let t = Instant::now();
    let deleted = engine.sweep_now().unwrap().deleted;
    let sweep = t.elapsed();
    assert_eq!(deleted as usize, n);

    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    println!("items: {n}");
    println!(
        "baseline raw fjall batch insert: {:>10.0} items/s",
        rate(baseline)
    );
    println!(
        "put_items (item+index+record):   {:>10.0} items/s  ({:.2}x baseline time)",
        rate(put),
        put.as_secs_f64() / baseline.as_secs_f64()
    );
    println!(
        "sweep_now (delete+index+record): {:>10.0} items/s  ({:.2}x baseline time)",
        rate(sweep),
        sweep.as_secs_f64() / baseline.as_secs_f64()
    );
}
