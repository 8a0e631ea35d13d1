use std::time::Duration;

use super::*;
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
    engine.dynamodb().put_items(table, items).expect("items");
}

fn source(dir: &std::path::Path) -> (Engine, EngineSource) {
    let engine = Engine::open(dir, Default::default()).expect("engine");
    for table in ["Sessions", "Others"] {
        engine
            .dynamodb()
            .create_table(
                TableDefinition::new(table, "Id", ScalarAttributeType::S)
                    .with_stream(StreamViewType::NewAndOldImages),
            )
            .expect("table");
    }
    let config = EngineSourceConfig::new("Sessions");
    (engine.clone(), EngineSource::new(engine, &config))
}

fn numbers(records: &[Record]) -> Vec<String> {
    records.iter().map(|r| r.sequence_number.clone()).collect()
}

fn after(records: &[Record]) -> ReadFrom {
    ReadFrom::After(records.last().expect("a record").sequence_number.clone())
}

/// The read-ahead threads read further than one batch, yet what the
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

    let first = source
        .read_batch(&ReadFrom::TrimHorizon, 2)
        .await
        .expect("read");
    assert_eq!(numbers(&first), all[0..2]);
    // Time for the thread to fill its bound and wait: nothing is lost.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut got = numbers(&first);
    let mut from = after(&first);
    for _ in 0..5 {
        let batch = source.read_batch(&from, 2).await.expect("read");
        assert_eq!(batch.len(), 2);
        got.extend(numbers(&batch));
        from = after(&batch);
    }
    assert_eq!(got, all[0..12]);
    // One table written: every guess was right, both readers read on.
    assert_eq!(source.readers, READERS);

    // Another position (a replay): the batch there, not the next one read ahead.
    let back = ReadFrom::After(all[3].clone());
    let batch = source.read_batch(&back, 2).await.expect("read");
    assert_eq!(numbers(&batch), all[4..6]);
    // A batch size the thread was not reading with.
    let batch = source.read_batch(&after(&batch), 3).await.expect("read");
    assert_eq!(numbers(&batch), all[6..9]);
    let (rest, _) = read_to_the_end(&mut source, after(&batch), 3).await;
    let got: Vec<String> = numbers(&batch).into_iter().chain(rest).collect();
    assert_eq!(got, all[6..]);

    // Records written after catching up are read (the thread stopped at
    // the short read and read nothing stale).
    put(&engine, 100, 4);
    let newer = source
        .read_batch(&ReadFrom::After(all[24].clone()), 3)
        .await
        .expect("read");
    assert_eq!(newer.len(), 3);
    let rest = source.read_batch(&after(&newer), 3).await.expect("read");
    assert_eq!(rest.len(), 1);
    assert!(
        newer
            .iter()
            .chain(&rest)
            .all(|r| r.sequence_number > all[24])
    );
}

/// Reads batches of `max_records` from `from` until a short read (caught
/// up): their sequence numbers, and the fewest read-ahead threads the
/// source had after a full batch.
async fn read_to_the_end(
    source: &mut EngineSource,
    mut from: ReadFrom,
    max_records: usize,
) -> (Vec<String>, u64) {
    let (mut got, mut fewest) = (Vec::new(), READERS);
    loop {
        let batch = source.read_batch(&from, max_records).await.expect("read");
        got.extend(numbers(&batch));
        if batch.len() < max_records {
            return (got, fewest);
        }
        fewest = fewest.min(source.readers);
        from = after(&batch);
    }
}

/// With another table written in between, the sequence numbers of a
/// table's records have gaps: the second reader's guessed reads start in
/// the wrong place and are not used, and one reader reads ahead until the
/// source catches up; the batches are still those a read from each asked
/// position returns. The next backlog, of one table, gets both readers.
#[tokio::test]
async fn guessed_reads_are_used_only_where_the_next_read_starts() {
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
    let (got, fewest) = read_to_the_end(&mut source, ReadFrom::TrimHorizon, 2).await;
    assert_eq!(got, all);
    assert_eq!(fewest, 1, "a missed guess leaves one reader");
    assert_eq!(source.readers, READERS, "until the source caught up");

    // A backlog of this table alone: every guess is right.
    put(&engine, 100, 13);
    let from = ReadFrom::After(all[20].clone());
    let (got, fewest) = read_to_the_end(&mut source, from, 2).await;
    assert_eq!(got.len(), 13);
    assert!(got.iter().all(|n| *n > all[20]));
    assert_eq!(fewest, READERS, "both readers read the new backlog");
}
