//! Crash safety of the Tablestore and Spanner models' change streams, as
//! `crash_safety.rs` checks the DynamoDB model's: a child process writes
//! rows to a Tablestore table (`time_to_live` one day) and a Spanner table
//! (a one-day row deletion policy), deletes some, and runs the sweeper,
//! whose deletions start while it writes (rows are written a few seconds
//! from expiry); it is killed with SIGKILL at 12 seeded random moments.
//! After each restart, for each table:
//!
//! * every acknowledged write has its insert record (`INSERT`);
//! * per key, the records form a valid life: an insert, then at most one
//!   deletion (Tablestore `REMOVE`, Spanner `DELETE` mod), never two;
//! * a row present is one whose last record is its insert; a row absent
//!   has a deletion as its last record (nothing disappears without one);
//! * sequence numbers are strictly increasing, and the records read after a
//!   restart start with every record read before (nothing lost or
//!   rewritten);
//! * a system deletion (Tablestore: `REMOVE` tagged as TTL; Spanner:
//!   `is_system_transaction` with the `RowDeletionPolicy` tag) comes at or
//!   after the row's expiry.
#![allow(clippy::unwrap_used)]

use crate::common::START_MILLIS;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::spanner::{
    ModType, RowDeletionPolicy, SpannerRow, SpannerStreamEntry, SpannerTableDefinition,
    SpannerType, SpannerValue, ValueCaptureType, rfc3339_millis,
};
use ttlstream_engine::tablestore::{
    PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition,
};
use ttlstream_engine::{
    AttributeValue, ChangeRecord, Engine, EngineOptions, EventName, Item, ManualClock,
    ScalarAttributeType, StreamOptions, StreamPosition, StreamViewType, SweeperOptions,
};

const ROUNDS: u64 = 12;
const SEED: u64 = 0x5EED_0F2B;
const DAY_MILLIS: i64 = 86_400_000;
/// Simulated time between rounds: every row of earlier rounds is expired
/// when the next child starts.
const ROUND_GAP_MILLIS: i64 = 100_000_000;
const TABLESTORE: &str = "Rows";
const SPANNER: &str = "Singers";

fn open(dir: &Path, clock: &Arc<ManualClock>) -> Engine {
    Engine::open(
        dir,
        EngineOptions {
            clock: clock.clone(),
            stream: StreamOptions {
                retention: Duration::from_secs(10 * 365 * 86_400),
                ..StreamOptions::default()
            },
            ..EngineOptions::default()
        },
    )
    .unwrap()
}

fn create_tables(engine: &Engine) {
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new(TABLESTORE, "id", ScalarAttributeType::S)
                .with_options(TablestoreOptions {
                    time_to_live_secs: 86_400,
                    max_versions: 1,
                    max_time_deviation_secs: 86_400,
                })
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new(SPANNER)
                .column("SingerId", SpannerType::Int64)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["SingerId"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1))
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .unwrap();
}

fn tablestore_key(id: &str) -> Item {
    HashMap::from([("id".to_string(), AttributeValue::S(id.to_string()))]).into()
}

fn id_of(item: &Item) -> String {
    match item.get("id") {
        Some(AttributeValue::S(id)) => id.clone(),
        other => panic!("no id in {other:?}"),
    }
}

/// splitmix64, as in `crash_safety.rs`.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

fn round_start_millis(round: u64) -> i64 {
    START_MILLIS + ROUND_GAP_MILLIS * i64::try_from(round).unwrap()
}

/// Child half of `killed_tablestore_and_spanner_writers_keep_their_streams_consistent`:
/// writes a row to each table per step (each expiring one to five simulated
/// seconds later; the clock moves 100 ms a step), deletes an earlier one
/// now and then, with the sweeper running, printing each acknowledged pair
/// until killed. Does nothing unless run by the parent.
#[test]
fn crash_child_tablestore_and_spanner_writer() {
    let (Ok(dir), Ok(round)) = (
        std::env::var("TTLSTREAM_MODELS_CRASH_DIR"),
        std::env::var("TTLSTREAM_MODELS_CRASH_ROUND"),
    ) else {
        return;
    };
    let round: u64 = round.parse().unwrap();
    let clock = Arc::new(ManualClock::new(round_start_millis(round)));
    let engine = open(Path::new(&dir), &clock);
    if engine.tablestore().describe_table(TABLESTORE).is_err() {
        create_tables(&engine);
    }
    let _sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(1),
        ..SweeperOptions::default()
    });
    let mut rng = Rng(SEED ^ (round << 32));
    let first_id = i64::try_from(round * 1_000_000).unwrap();
    for i in 0u64.. {
        clock.advance(Duration::from_millis(100));
        let now = ttlstream_engine::Clock::now_millis(clock.as_ref());
        // The version is the value, so a REMOVE's OldImage tells its expiry.
        let version = now - DAY_MILLIS + 1000 + rng.below(4000) as i64;
        let id = format!("r{round}-{i}");
        let cell = PutColumn::at("v", AttributeValue::N(version.to_string()), version);
        engine
            .tablestore()
            .put_row(TABLESTORE, tablestore_key(&id), vec![cell])
            .unwrap();
        let singer = first_id + i64::try_from(i).unwrap();
        let created = now - DAY_MILLIS + 1000 + rng.below(4000) as i64;
        let row = SpannerRow::from([
            ("SingerId".to_string(), SpannerValue::Int64(singer)),
            ("CreatedAt".to_string(), SpannerValue::Timestamp(created)),
        ]);
        engine.spanner().insert_row(SPANNER, row).unwrap();
        println!("ACK {id} {singer} {created}");
        match rng.below(10) {
            0 if i > 0 => {
                let old = format!("r{round}-{}", rng.below(i));
                engine
                    .tablestore()
                    .delete_row(TABLESTORE, &tablestore_key(&old))
                    .unwrap();
            }
            1 if i > 0 => {
                let old = first_id + i64::try_from(rng.below(i)).unwrap();
                engine
                    .spanner()
                    .delete_row(SPANNER, &[SpannerValue::Int64(old)])
                    .unwrap();
            }
            _ => {}
        }
    }
}

/// What the parent has read and verified so far.
#[derive(Default)]
struct Seen {
    tablestore: Vec<ChangeRecord>,
    spanner: Vec<SpannerStreamEntry>,
    /// Per Tablestore key and Spanner `SingerId`: whether its last record
    /// left it present.
    tablestore_present: BTreeMap<String, bool>,
    spanner_present: BTreeMap<String, bool>,
    /// System deletions read: Tablestore, Spanner (rows).
    system_deletions: (usize, usize),
}

/// Acknowledged writes: Tablestore keys, and Spanner `SingerId`s with their
/// `CreatedAt` (epoch ms).
#[derive(Default)]
struct Acked {
    tablestore: HashSet<String>,
    spanner: HashMap<String, i64>,
}

fn check(dir: &Path, acked: &Acked, seen: &mut Seen) {
    // At the first round's start nothing is expired: a read sees every row
    // that is stored.
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir, &clock);
    let tablestore = engine
        .tablestore()
        .read_stream(TABLESTORE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    let spanner = engine
        .spanner()
        .read_change_stream(SPANNER, None, usize::MAX)
        .unwrap();
    let rows: HashSet<String> = engine
        .tablestore()
        .scan_rows(TABLESTORE, ReadOptions::default())
        .unwrap()
        .iter()
        .map(|row| id_of(&row.primary_key))
        .collect();
    let singers: HashSet<String> = engine
        .spanner()
        .scan_table(SPANNER)
        .unwrap()
        .iter()
        .map(|row| match row.get("SingerId") {
            Some(SpannerValue::Int64(id)) => id.to_string(),
            other => panic!("SingerId {other:?}"),
        })
        .collect();
    engine.close().unwrap();

    assert!(
        tablestore.starts_with(&seen.tablestore),
        "Tablestore records were lost or rewritten"
    );
    assert!(
        spanner.starts_with(&seen.spanner),
        "Spanner records were lost or rewritten"
    );
    for r in &tablestore[seen.tablestore.len()..] {
        if let Some(prev) = seen.tablestore.last() {
            assert!(prev.sequence_number < r.sequence_number, "order at {r:?}");
        }
        let id = id_of(&r.keys);
        let present = seen.tablestore_present.get(&id).copied().unwrap_or(false);
        match r.event_name {
            EventName::Insert => assert!(!present, "INSERT of present {id}: {r:?}"),
            EventName::Remove => assert!(present, "second REMOVE of {id}: {r:?}"),
            EventName::Modify => panic!("no row is written twice: {r:?}"),
        }
        if r.is_ttl_delete() {
            let version: i64 = match r.old_image.as_ref().and_then(|old| old.get("v")) {
                Some(AttributeValue::N(v)) => v.parse().unwrap(),
                other => panic!("no version in {other:?}"),
            };
            assert!(
                r.approximate_creation_date_time_millis >= version + DAY_MILLIS,
                "{id} deleted before its expiry: {r:?}"
            );
            seen.system_deletions.0 += 1;
        }
        seen.tablestore_present
            .insert(id, r.event_name == EventName::Insert);
        seen.tablestore.push(r.clone());
    }
    for entry in &spanner[seen.spanner.len()..] {
        if let Some(prev) = seen.spanner.last() {
            assert!(prev.sequence_number < entry.sequence_number, "{entry:?}");
        }
        let record = &entry.record;
        for m in &record.mods {
            let id = m.keys["SingerId"].as_str().unwrap().to_string();
            let present = seen.spanner_present.get(&id).copied().unwrap_or(false);
            match record.mod_type {
                ModType::Insert => assert!(!present, "INSERT of present {id}: {entry:?}"),
                ModType::Delete => assert!(present, "second DELETE of {id}: {entry:?}"),
                ModType::Update => panic!("no row is updated: {entry:?}"),
            }
            if record.is_row_deletion_policy_delete() {
                if let Some(created) = acked.spanner.get(&id) {
                    // RFC 3339 with milliseconds, UTC: ordered as text.
                    assert!(
                        record.commit_timestamp >= rfc3339_millis(created + DAY_MILLIS),
                        "{id} deleted before its expiry: {entry:?}"
                    );
                }
                seen.system_deletions.1 += 1;
            }
            seen.spanner_present
                .insert(id, record.mod_type == ModType::Insert);
        }
        seen.spanner.push(entry.clone());
    }
    for id in &acked.tablestore {
        assert!(
            seen.tablestore_present.contains_key(id),
            "acked {id} has no record"
        );
    }
    for id in acked.spanner.keys() {
        assert!(
            seen.spanner_present.contains_key(id),
            "acked {id} has no record"
        );
    }
    for (id, present) in &seen.tablestore_present {
        assert_eq!(
            rows.contains(id),
            *present,
            "Tablestore row {id} and its records"
        );
    }
    for (id, present) in &seen.spanner_present {
        assert_eq!(
            singers.contains(id),
            *present,
            "Spanner row {id} and its records"
        );
    }
    assert!(
        rows.iter()
            .all(|id| seen.tablestore_present.contains_key(id))
    );
    assert!(
        singers
            .iter()
            .all(|id| seen.spanner_present.contains_key(id))
    );
}

#[test]
fn killed_tablestore_and_spanner_writers_keep_their_streams_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(SEED);
    let mut acked = Acked::default();
    let mut seen = Seen::default();
    for round in 0..ROUNDS {
        let want = 20 + rng.below(200) as usize;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash_safety_models::crash_child_tablestore_and_spanner_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TTLSTREAM_MODELS_CRASH_DIR", dir.path())
            .env("TTLSTREAM_MODELS_CRASH_ROUND", round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut got = 0;
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let Some(ack) = line.strip_prefix("ACK ") else {
                continue;
            };
            let fields: Vec<&str> = ack.split(' ').collect();
            acked.tablestore.insert(fields[0].to_string());
            acked
                .spanner
                .insert(fields[1].to_string(), fields[2].parse().unwrap());
            got += 1;
            if got == want {
                break;
            }
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        assert_eq!(got, want, "round {round}: child stopped early");
        check(dir.path(), &acked, &mut seen);
    }
    let (tablestore, spanner) = seen.system_deletions;
    assert!(
        tablestore > 0 && spanner > 0,
        "the sweeper never ran in a child"
    );

    // A sweep after the last crash finishes the work: every row gone, each
    // life ended by exactly one deletion.
    {
        let clock = Arc::new(ManualClock::new(round_start_millis(ROUNDS)));
        let engine = open(dir.path(), &clock);
        engine.sweep_now().unwrap();
        engine.close().unwrap();
    }
    check(dir.path(), &acked, &mut seen);
    assert!(seen.tablestore_present.values().all(|present| !present));
    assert!(seen.spanner_present.values().all(|present| !present));
}
