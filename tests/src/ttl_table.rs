//! A table with expired and live items in a bundled engine, for tests that
//! need TTL deletions on a stream.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{
    Engine, EngineOptions, EventName, ScalarAttributeType, StreamPosition, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

/// The table's name.
pub const TABLE: &str = "Events";
/// Every item's `Payload` starts with this: it must never reach a log.
pub const PAYLOAD_MARKER: &str = "PAYLOAD-never-logged-";

/// The `ExpirationTime` of expired item `i` (epoch seconds, an hour ago and
/// more): a TTL value that must never reach a log.
pub fn expired_at(now_secs: i64, i: usize) -> i64 {
    now_secs - 3_600 - 7 * i as i64
}

/// Opens an engine at `dir` with table `Events` (`pk`, `sk`, TTL on
/// `ExpirationTime`, NEW_AND_OLD_IMAGES) holding `expired` expired items
/// (`pk` `p<i % 7>`, `sk` `expired-<i>`) and `alive` items that expire
/// tomorrow. Nothing is swept yet. Returns the engine, the expired keys and
/// the `now` used (epoch seconds).
///
/// # Panics
/// When the engine cannot be opened or written.
pub fn prepare(
    dir: &Path,
    expired: usize,
    alive: usize,
) -> (Engine, BTreeSet<(String, String)>, i64) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64;
    let engine = Engine::open(dir, EngineOptions::default()).expect("open engine");
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "pk", ScalarAttributeType::S)
                .with_sort_key("sk", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .expect("create table");
    engine
        .dynamodb()
        .update_time_to_live(
            TABLE,
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".into(),
                enabled: true,
            },
        )
        .expect("enable TTL");
    let item = |pk: String, sk: String, at: i64| {
        Item::from(HashMap::from([
            ("pk".to_string(), AttributeValue::S(pk)),
            ("sk".to_string(), AttributeValue::S(sk.clone())),
            (
                "Payload".to_string(),
                AttributeValue::S(format!("{PAYLOAD_MARKER}{sk}")),
            ),
            (
                "ExpirationTime".to_string(),
                AttributeValue::N(at.to_string()),
            ),
        ]))
    };
    let mut keys = BTreeSet::new();
    let mut items = Vec::new();
    for i in 0..expired {
        let (pk, sk) = (format!("p{}", i % 7), format!("expired-{i:05}"));
        items.push(item(pk.clone(), sk.clone(), expired_at(now, i)));
        keys.insert((pk, sk));
    }
    for i in 0..alive {
        items.push(item(
            format!("p{}", i % 7),
            format!("alive-{i:05}"),
            now + 86_400,
        ));
    }
    engine
        .dynamodb()
        .put_items(TABLE, items)
        .expect("put items");
    engine.persist().expect("persist");
    (engine, keys, now)
}

/// Puts `count` items (`pk` `p<i % 7>`, `sk` `expiring-<i>`) that expire
/// in the future: item `i` at `first_secs + i * every_millis / 1000` (epoch
/// seconds), for tests that need TTL deletions while something else
/// happens. Returns their keys.
///
/// # Panics
/// When the engine cannot be written.
pub fn put_expiring(
    engine: &Engine,
    first_secs: i64,
    count: usize,
    every_millis: i64,
) -> BTreeSet<(String, String)> {
    let mut keys = BTreeSet::new();
    let mut items = Vec::new();
    for i in 0..count {
        let (pk, sk) = (format!("p{}", i % 7), format!("expiring-{i:05}"));
        let at = first_secs + i as i64 * every_millis / 1000;
        items.push(Item::from(HashMap::from([
            ("pk".to_string(), AttributeValue::S(pk.clone())),
            ("sk".to_string(), AttributeValue::S(sk.clone())),
            (
                "Payload".to_string(),
                AttributeValue::S(format!("{PAYLOAD_MARKER}{sk}")),
            ),
            (
                "ExpirationTime".to_string(),
                AttributeValue::N(at.to_string()),
            ),
        ])));
        keys.insert((pk, sk));
    }
    engine
        .dynamodb()
        .put_items(TABLE, items)
        .expect("put items");
    engine.persist().expect("persist");
    keys
}

/// The `SequenceNumber`s of the TTL deletions on the table's stream.
///
/// # Panics
/// When the stream cannot be read.
pub fn ttl_deletion_sequences(engine: &Engine) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut from = StreamPosition::TrimHorizon;
    loop {
        let records = engine
            .dynamodb()
            .read_stream(TABLE, from, 1_000)
            .expect("read stream");
        let Some(last) = records.last() else {
            return out;
        };
        from = StreamPosition::AfterSequenceNumber(last.sequence_number);
        for record in &records {
            if record.event_name == EventName::Remove
                && record
                    .user_identity
                    .as_ref()
                    .is_some_and(|u| u.principal_id == "dynamodb.amazonaws.com")
            {
                out.insert(record.sequence_number.to_string());
            }
        }
    }
}
