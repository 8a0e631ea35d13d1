//! Crash safety: a child process writes, deletes and sweeps under load and is
//! killed with SIGKILL at 20 seeded random moments. After each restart the
//! stored items and the change stream must agree:
//!
//! * every acknowledged write has its INSERT record;
//! * per key, the records form a valid life: INSERT, MODIFY*, then at most
//!   one REMOVE (so an item is present, or has exactly one REMOVE record per
//!   life, never two, never a REMOVE for a present item);
//! * an item present in the table is exactly the last image in the stream,
//!   and an item absent has a REMOVE as its last record (nothing disappears
//!   without a record);
//! * sequence numbers are strictly increasing, and the records seen after a
//!   restart start with every record seen before (nothing lost or rewritten);
//! * a TTL REMOVE is written only after the item's expiry;
//! * the stream's shards (rotated every 40 records and at each round's first
//!   write, by age) form one parent-before-child chain: every shard but the
//!   last closed, each closed shard ending at its last record and holding at
//!   most 40, and reading shard by shard with `get_records` yields exactly
//!   the records of the table's stream, in order.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::{
    AttributeValue, ChangeRecord, Clock, Engine, EngineOptions, EventName, ManualClock,
    StreamOptions, StreamPosition, StreamStatus, StreamViewType, SweeperOptions,
};

const ROUNDS: u64 = 20;
const SEED: u64 = 0x7717_5EED;
/// Simulated time between rounds: every item of earlier rounds is expired
/// when the next child starts.
const ROUND_GAP_MILLIS: i64 = 100_000_000;
/// Records per shard before rotation: small, so kills land on rotations.
const SHARD_RECORDS: u64 = 40;

/// Opens with a retention longer than the whole test (every record is
/// checked), small shards, and rotation by age at each round's first write.
fn open_crash(dir: &Path, clock: &Arc<ManualClock>) -> Engine {
    Engine::open(
        dir,
        EngineOptions {
            clock: clock.clone(),
            stream: StreamOptions {
                retention: Duration::from_secs(10 * 365 * 86_400),
                max_records_per_shard: SHARD_RECORDS,
                max_shard_age: Duration::from_secs(3600),
            },
            ..EngineOptions::default()
        },
    )
    .unwrap()
}

/// The shard invariants (see the module comment).
fn check_shards(engine: &Engine) {
    let streams = engine.streams().list_streams(Some(TABLE)).unwrap();
    assert_eq!(streams.len(), 1, "{streams:?}");
    let description = engine
        .streams()
        .describe_stream(&streams[0].stream_arn)
        .unwrap();
    assert_eq!(description.stream_status, StreamStatus::Enabled);
    let shards = &description.shards;
    let mut via_shards = Vec::new();
    for (i, shard) in shards.iter().enumerate() {
        let range = shard.sequence_number_range;
        match i {
            0 => assert_eq!(shard.parent_shard_id, None),
            _ => assert_eq!(
                shard.parent_shard_id.as_deref(),
                Some(shards[i - 1].shard_id.as_str()),
                "lineage broken at {shard:?}"
            ),
        }
        let last = i + 1 == shards.len();
        assert_eq!(range.ending_sequence_number.is_none(), last, "{shard:?}");
        let mut position = StreamPosition::TrimHorizon;
        let mut held = Vec::new();
        loop {
            let out = engine
                .streams()
                .get_records(&streams[0].stream_arn, &shard.shard_id, position, 1000)
                .unwrap();
            let empty = out.records.is_empty();
            held.extend(out.records);
            match out.next_position {
                Some(next) if !empty => position = next,
                Some(_) => break,
                None => {
                    assert!(!last, "open shard {shard:?} reported drained");
                    break;
                }
            }
        }
        if let Some(end) = range.ending_sequence_number {
            assert!(
                held.len() as u64 <= SHARD_RECORDS,
                "{shard:?}: {}",
                held.len()
            );
            if let Some(r) = held.last() {
                assert_eq!(
                    r.sequence_number, end,
                    "{shard:?} does not end at its last record"
                );
            }
            if let Some(next) = shards.get(i + 1) {
                assert!(next.sequence_number_range.starting_sequence_number > end);
            }
        }
        for r in &held {
            assert!(r.sequence_number >= range.starting_sequence_number);
        }
        via_shards.extend(held);
    }
    let all = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    assert_eq!(via_shards, all, "shards do not partition the stream");
}

/// splitmix64: a seeded, dependency-free random source.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn round_start_millis(round: u64) -> i64 {
    START_MILLIS + ROUND_GAP_MILLIS * i64::try_from(round).unwrap()
}

/// Child half of `killed_writer_and_sweeper_keep_items_and_stream_consistent`:
/// writes, overwrites and deletes items while a background sweeper deletes
/// expired ones, printing each acknowledged key, until killed. Does nothing
/// unless run by the parent.
#[test]
fn crash_child_writer_and_sweeper() {
    let (Ok(dir), Ok(round)) = (
        std::env::var("TTLSTREAM_CRASH_DIR"),
        std::env::var("TTLSTREAM_CRASH_ROUND"),
    ) else {
        return;
    };
    let round: u64 = round.parse().unwrap();
    let clock = Arc::new(ManualClock::new(round_start_millis(round)));
    let engine = open_crash(Path::new(&dir), &clock);
    if engine.dynamodb().list_tables().unwrap().is_empty() {
        session_table(&engine, StreamViewType::NewAndOldImages);
    }
    let _sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(1),
        ..SweeperOptions::default()
    });
    let mut rng = Rng(SEED ^ (round << 32));
    for i in 0u64.. {
        clock.advance(Duration::from_millis(10));
        let now_secs = clock.now_millis() / 1000;
        let user = format!("r{round}-{i}");
        engine
            .dynamodb()
            .put_item(TABLE, session(&user, now_secs + rng.below(4) as i64))
            .unwrap();
        println!("ACK {user}");
        match rng.below(10) {
            // Overwrite an earlier key: MODIFY if still there, else a new life.
            0 | 1 if i > 0 => {
                let old = format!("r{round}-{}", rng.below(i));
                engine
                    .dynamodb()
                    .put_item(TABLE, session(&old, now_secs + rng.below(3) as i64))
                    .unwrap();
            }
            // A user delete: a REMOVE without userIdentity, or nothing if swept.
            2 if i > 0 => {
                let old = format!("r{round}-{}", rng.below(i));
                engine.dynamodb().delete_item(TABLE, &key(&old)).unwrap();
            }
            _ => {}
        }
    }
}

fn user_in(image: Option<&ttlstream_engine::Item>) -> String {
    image.map(user_of).unwrap_or_default()
}

fn expiry_of(item: &ttlstream_engine::Item) -> i64 {
    match item.get(TTL_ATTR) {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        other => panic!("no {TTL_ATTR} in {other:?}"),
    }
}

/// What the parent has verified so far: the last record per key and the
/// newest record, so each check reads only the records added since.
#[derive(Default)]
struct Seen {
    last: BTreeMap<String, ChangeRecord>,
    newest: Option<ChangeRecord>,
    ttl_deletes: usize,
}

/// Checks every invariant on the recovered data.
fn check(dir: &Path, acked: &HashSet<String>, seen: &mut Seen) {
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_crash(dir, &clock);
    check_shards(&engine);
    // Re-read the newest record seen before: it must be unchanged.
    let from = seen
        .newest
        .as_ref()
        .map_or(StreamPosition::TrimHorizon, |r| {
            StreamPosition::AtSequenceNumber(r.sequence_number)
        });
    let mut records = engine
        .dynamodb()
        .read_stream(TABLE, from, usize::MAX)
        .unwrap();
    let items: HashMap<String, ttlstream_engine::Item> = engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .into_iter()
        .map(|i| (user_of(&i), i))
        .collect();
    engine.close().unwrap();

    if let Some(newest) = &seen.newest {
        assert_eq!(
            records.first(),
            Some(newest),
            "records were lost or rewritten"
        );
        records.remove(0);
    }
    let mut prev = seen.newest.as_ref().map(|r| r.sequence_number);
    for r in records {
        assert!(
            prev.is_none_or(|p| p < r.sequence_number),
            "sequence numbers not strictly increasing at {r:?}"
        );
        prev = Some(r.sequence_number);
        let user = user_of(&r.keys);
        let present = seen
            .last
            .get(&user)
            .is_some_and(|p| p.event_name != EventName::Remove);
        match r.event_name {
            EventName::Insert => assert!(!present, "INSERT of present {user}: {r:?}"),
            EventName::Modify => assert!(present, "MODIFY of absent {user}: {r:?}"),
            EventName::Remove => assert!(present, "second REMOVE of {user}: {r:?}"),
        }
        if r.is_ttl_delete() {
            let old = r.old_image.as_ref().unwrap();
            assert!(
                expiry_of(old) * 1000 < r.approximate_creation_date_time_millis,
                "{user} deleted by TTL before its expiry: {r:?}"
            );
            seen.ttl_deletes += 1;
        }
        assert_eq!(user_in(r.new_image.as_ref().or(r.old_image.as_ref())), user);
        seen.newest = Some(r.clone());
        seen.last.insert(user, r);
    }
    for user in acked {
        assert!(
            seen.last.contains_key(user),
            "acknowledged {user} has no record"
        );
    }
    for (user, r) in &seen.last {
        match items.get(user) {
            Some(item) => {
                assert_ne!(r.event_name, EventName::Remove, "REMOVE for present {user}");
                assert_eq!(
                    r.new_image.as_ref(),
                    Some(item),
                    "{user} differs from stream"
                );
            }
            None => assert_eq!(
                r.event_name,
                EventName::Remove,
                "{user} disappeared without a record"
            ),
        }
    }
    for user in items.keys() {
        assert!(
            seen.last.contains_key(user),
            "{user} present without a record"
        );
    }
}

#[test]
fn killed_writer_and_sweeper_keep_items_and_stream_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(SEED);
    let mut acked = HashSet::new();
    let mut seen = Seen::default();
    for round in 0..ROUNDS {
        let want = 20 + rng.below(250) as usize;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash_safety::crash_child_writer_and_sweeper",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TTLSTREAM_CRASH_DIR", dir.path())
            .env("TTLSTREAM_CRASH_ROUND", round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut got = 0;
        for line in BufReader::new(stdout).lines() {
            if let Some(k) = line.unwrap().strip_prefix("ACK ") {
                acked.insert(k.to_string());
                got += 1;
                if got == want {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        assert_eq!(got, want, "round {round}: child stopped early");
        check(dir.path(), &acked, &mut seen);
    }
    assert!(seen.ttl_deletes > 0, "the sweeper never ran in a child");

    // A sweep after the last crash finishes the work: every item gone, each
    // life ended by exactly one REMOVE, no record repeated.
    {
        let clock = Arc::new(ManualClock::new(round_start_millis(ROUNDS)));
        let engine = open_crash(dir.path(), &clock);
        engine.sweep_now().unwrap();
        assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
        engine.close().unwrap();
    }
    check(dir.path(), &acked, &mut seen);
}
