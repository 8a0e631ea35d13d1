use super::config::default_region;
use super::*;
use crate::sources::StartingPosition;
use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{ScalarAttributeType, StreamViewType, TableDefinition};

/// Writes `count` items (keys `id-{first}` ...) to `Sessions`, one
/// INSERT each.
fn put(engine: &Engine, first: usize, count: usize) {
    put_to(engine, "Sessions", first, count);
}

fn put_to(engine: &Engine, table: &str, first: usize, count: usize) {
    let items = (first..first + count)
        .map(|i| {
            Item::from(std::collections::HashMap::from([(
                "Id".to_string(),
                AttributeValue::S(format!("id-{i:04}")),
            )]))
        })
        .collect();
    engine.put_items(table, items).expect("items");
}

fn source(dir: &std::path::Path) -> (Engine, EngineSource) {
    let engine = Engine::open(dir, Default::default()).expect("engine");
    for table in ["Sessions", "Others"] {
        engine
            .create_table(
                TableDefinition::new(table, "Id", ScalarAttributeType::S)
                    .with_stream(StreamViewType::NewAndOldImages),
            )
            .expect("table");
    }
    let config = EngineSourceConfig {
        data_dir: dir.to_path_buf(),
        table: "Sessions".into(),
        starting_position: StartingPosition::TrimHorizon,
        region: default_region(),
        sweep_interval_millis: 0,
        create: false,
        max_deletes_per_sweep: default_max_deletes_per_sweep(),
    };
    (engine.clone(), EngineSource::with_engine(engine, &config))
}

fn numbers(records: &[Record]) -> Vec<String> {
    records.iter().map(|r| r.sequence_number.clone()).collect()
}

fn after(records: &[Record]) -> ReadFrom {
    ReadFrom::After(records.last().expect("a record").sequence_number.clone())
}

/// The read-ahead thread reads further than one batch, yet what the
/// pipeline gets is exactly what a read from its position returns:
/// the next batches in order, the batch after any other position it
/// asks for, and records written after the thread caught up.
#[tokio::test]
async fn reads_ahead_give_what_the_asked_position_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, mut source) = source(dir.path());
    put(&engine, 0, 25);
    let all = source
        .reader
        .read_now(&ReadFrom::TrimHorizon, 100)
        .expect("all");
    assert_eq!(all.len(), 25);
    let all = numbers(&all);

    let first = source.read(&ReadFrom::TrimHorizon, 2).await.expect("read");
    assert_eq!(numbers(&first), all[0..2]);
    // Time for the thread to fill its bound and wait: nothing is lost.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut got = numbers(&first);
    let mut from = after(&first);
    for _ in 0..5 {
        let batch = source.read(&from, 2).await.expect("read");
        assert_eq!(batch.len(), 2);
        got.extend(numbers(&batch));
        from = after(&batch);
    }
    assert_eq!(got, all[0..12]);

    // Another position (a replay): the batch there, not the next one read ahead.
    let back = ReadFrom::After(all[3].clone());
    let batch = source.read(&back, 2).await.expect("read");
    assert_eq!(numbers(&batch), all[4..6]);
    // A batch size the thread was not reading with.
    let batch = source.read(&after(&batch), 3).await.expect("read");
    assert_eq!(numbers(&batch), all[6..9]);
    let mut got = numbers(&batch);
    let mut from = after(&batch);
    loop {
        let batch = source.read(&from, 3).await.expect("read");
        got.extend(numbers(&batch));
        if batch.len() < 3 {
            break;
        }
        from = after(&batch);
    }
    assert_eq!(got, all[6..]);

    // Records written after catching up are read (the thread stopped at
    // the short read and read nothing stale).
    put(&engine, 100, 4);
    let newer = source
        .read(&ReadFrom::After(all[24].clone()), 3)
        .await
        .expect("read");
    assert_eq!(newer.len(), 3);
    let rest = source.read(&after(&newer), 3).await.expect("read");
    assert_eq!(rest.len(), 1);
    assert!(
        newer
            .iter()
            .chain(&rest)
            .all(|r| r.sequence_number > all[24])
    );
}

/// With another table written in between, the sequence numbers of a
/// table's records have gaps: the second thread's guessed reads start in
/// the wrong place and are not used; the batches are still those a read
/// from each asked position returns.
#[tokio::test]
async fn guessed_reads_are_used_only_where_the_next_read_starts() {
    assert_eq!(
        guess_next(&ReadFrom::After("000000000000000000007".into()), 3),
        Some(ReadFrom::After("000000000000000000010".into()))
    );
    assert_eq!(guess_next(&ReadFrom::TrimHorizon, 3), None);
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, mut source) = source(dir.path());
    for round in 0..6 {
        put(&engine, round * 10, 3 + round % 2);
        put_to(&engine, "Others", round * 10, 2);
    }
    let all = source
        .reader
        .read_now(&ReadFrom::TrimHorizon, 100)
        .expect("all");
    let all = numbers(&all);
    assert_eq!(all.len(), 21);
    let mut got = Vec::new();
    let mut from = ReadFrom::TrimHorizon;
    loop {
        let batch = source.read(&from, 2).await.expect("read");
        got.extend(numbers(&batch));
        if batch.len() < 2 {
            break;
        }
        from = after(&batch);
    }
    assert_eq!(got, all);
}

/// The sweeper a sidecar starts shares each pass between tables: the few
/// expired items of one table go in the first pass although another table
/// ahead of it (in name order) holds more than three passes' worth at the
/// default `max_deletes_per_sweep`. Deletions are ordered by their REMOVE
/// records' sequence numbers (one engine-wide counter); no timing.
#[test]
fn the_sidecar_sweeper_shares_each_pass_between_tables() {
    use ttlstream_engine::{StreamPosition, TimeToLiveSpecification};
    let dir = tempfile::tempdir().expect("tempdir");
    let per_pass = default_max_deletes_per_sweep().get();
    let engine = Engine::open(dir.path(), Default::default()).expect("engine");
    let expired_secs = engine.clock().now_millis() / 1000 - 60;
    for (table, count) in [("Hot", 3 * per_pass + 1_000), ("Small", 10)] {
        engine
            .create_table(TableDefinition::new(table, "Id", ScalarAttributeType::S))
            .expect("table");
        engine
            .update_time_to_live(table, TimeToLiveSpecification::enabled("ExpiresAt"))
            .expect("ttl");
        for first in (0..count).step_by(1_000) {
            let items = (first..count.min(first + 1_000))
                .map(|i| {
                    Item::from(std::collections::HashMap::from([
                        ("Id".to_string(), AttributeValue::S(format!("id-{i:06}"))),
                        (
                            "ExpiresAt".to_string(),
                            AttributeValue::N(expired_secs.to_string()),
                        ),
                    ]))
                })
                .collect();
            engine.put_items(table, items).expect("items");
        }
        // The stream from here on: it holds the TTL deletions only.
        engine
            .update_stream(table, Some(StreamViewType::KeysOnly))
            .expect("stream");
    }
    drop(engine);

    let config = EngineSourceConfig {
        data_dir: dir.path().to_path_buf(),
        table: "Small".into(),
        starting_position: StartingPosition::TrimHorizon,
        region: default_region(),
        sweep_interval_millis: 3_600_000,
        create: false,
        max_deletes_per_sweep: default_max_deletes_per_sweep(),
    };
    let source = EngineSource::open(&config).expect("open");
    let engine = source.reader.engine.clone();
    let removes = |table: &str| -> Vec<SequenceNumber> {
        engine
            .read_stream(table, StreamPosition::TrimHorizon, usize::MAX)
            .expect("stream")
            .into_iter()
            .filter(|r| r.is_ttl_delete())
            .map(|r| r.sequence_number)
            .collect()
    };
    let mut small = Vec::new();
    for _ in 0..6_000 {
        small = removes("Small");
        if small.len() == 10 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(source); // stops the sweeper
    assert_eq!(small.len(), 10, "Small's expired items were not all swept");
    let hot_first = removes("Hot").into_iter().filter(|s| *s < small[9]).count();
    assert!(
        hot_first < 3 * per_pass,
        "{hot_first} of Hot's deletions came before Small's last: more than three passes"
    );
}

#[test]
fn max_deletes_per_sweep_defaults_to_10000_and_refuses_0() {
    let minimal = "data_dir = \"data\"\ntable = \"Sessions\"\n";
    let config: EngineSourceConfig = toml::from_str(minimal).expect("config");
    assert_eq!(config.max_deletes_per_sweep.get(), 10_000);
    let set: EngineSourceConfig =
        toml::from_str(&format!("{minimal}max_deletes_per_sweep = 250\n")).expect("config");
    assert_eq!(set.max_deletes_per_sweep.get(), 250);
    let zero =
        toml::from_str::<EngineSourceConfig>(&format!("{minimal}max_deletes_per_sweep = 0\n"));
    let message = zero.expect_err("0 is refused").to_string();
    assert!(message.contains("max_deletes_per_sweep"), "{message}");
}
