//! `ttlstream run`, the sidecar, stopped hard (SIGKILL) mid-run and started again,
//! twice: the archive ends with every TTL-deleted item exactly once, and nothing
//! else (no inserts, no user deletions).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{
    Engine, EngineOptions, ScalarAttributeType, StreamViewType, TableDefinition,
    TimeToLiveSpecification,
};
use ttlstream_tests::{count_files, key_of, occurrences, read_archive, wait_until};

const EXPIRED: usize = 1_500;
const ALIVE: usize = 200;
const USER_DELETED: usize = 100;

fn item(pk: &str, sk: &str, expires_at: Option<i64>) -> Item {
    let mut map = HashMap::from([
        ("pk".to_string(), AttributeValue::S(pk.to_string())),
        ("sk".to_string(), AttributeValue::S(sk.to_string())),
        ("payload".to_string(), AttributeValue::S("x".repeat(64))),
    ]);
    if let Some(at) = expires_at {
        map.insert("expiresAt".to_string(), AttributeValue::N(at.to_string()));
    }
    Item::from(map)
}

/// Writes the table: expired items, live items, and items the user deletes.
/// Returns the keys the TTL process must delete.
fn prepare(data_dir: &Path) -> BTreeSet<(String, String)> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64;
    let engine = Engine::open(data_dir, EngineOptions::default()).expect("open engine");
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Events", "pk", ScalarAttributeType::S)
                .with_sort_key("sk", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .expect("create table");
    engine
        .dynamodb()
        .update_time_to_live(
            "Events",
            TimeToLiveSpecification {
                attribute_name: "expiresAt".into(),
                enabled: true,
            },
        )
        .expect("enable TTL");
    let mut expired = BTreeSet::new();
    let mut items = Vec::new();
    for i in 0..EXPIRED {
        let (pk, sk) = (format!("p{}", i % 37), format!("expired-{i:05}"));
        items.push(item(&pk, &sk, Some(now - 3_600 - i as i64)));
        expired.insert((pk, sk));
    }
    for i in 0..ALIVE {
        items.push(item(
            &format!("p{}", i % 5),
            &format!("alive-{i:05}"),
            Some(now + 86_400),
        ));
    }
    for i in 0..USER_DELETED {
        items.push(item("user", &format!("deleted-{i:05}"), None));
    }
    engine.dynamodb().put_items("Events", items).expect("put");
    for i in 0..USER_DELETED {
        let key = Item::from(HashMap::from([
            ("pk".to_string(), AttributeValue::S("user".into())),
            (
                "sk".to_string(),
                AttributeValue::S(format!("deleted-{i:05}")),
            ),
        ]));
        engine
            .dynamodb()
            .delete_item("Events", &key)
            .expect("user delete");
    }
    engine.persist().expect("persist");
    expired
}

fn write_config(dir: &Path) -> std::path::PathBuf {
    let filter = dir.join("ttl.json");
    std::fs::write(
        &filter,
        include_str!("../../../deploy/filters/ttl-system-deletes.json"),
    )
    .expect("filter");
    let config = dir.join("ttlstream.toml");
    std::fs::write(
        &config,
        r#"
[engine]
data_dir = "data"
sweep_interval_millis = 20

[source.engine]
table = "Events"

[checkpoint]
dir = "state"

[batch]
max_records = 25
poll_interval_millis = 20

[[routes]]
name = "ttl-archive"
filter = "ttl.json"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"

[sinks.archive.file.batch]
max_records = 25
"#,
    )
    .expect("config");
    config
}

fn start(config: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ttlstream-e2e"))
        .args(["run", "--config"])
        .arg(config)
        .args(["--log", "warn"])
        .spawn()
        .expect("start sidecar")
}

fn archived_keys(dir: &Path) -> Vec<(String, String)> {
    read_archive(dir)
        .iter()
        .map(|r| key_of(r, "pk", "sk"))
        .collect()
}

#[test]
fn sidecar_killed_twice_loses_nothing_and_duplicates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let expired = prepare(&dir.path().join("data"));
    let config = write_config(dir.path());
    let archive = dir.path().join("archive").join("Events");

    for files_before_kill in [3, 25] {
        let mut child = start(&config);
        let progressed = wait_until(Duration::from_secs(60), || {
            count_files(&archive) >= files_before_kill
        });
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
        assert!(
            progressed,
            "sidecar wrote no {files_before_kill} files in time"
        );
    }
    let archived_before_finish = archived_keys(&archive).len();
    assert!(
        archived_before_finish < EXPIRED,
        "the kills must land mid-run ({archived_before_finish})"
    );

    let mut child = start(&config);
    let finished = wait_until(Duration::from_secs(120), || {
        archived_keys(&archive)
            .into_iter()
            .collect::<BTreeSet<_>>()
            .len()
            >= EXPIRED
    });
    // Graceful stop: SIGTERM finishes the batch in progress and exits 0.
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success());
    let exit = child.wait().expect("reap");
    assert!(finished, "the archive never reached {EXPIRED} keys");
    assert!(exit.success(), "sidecar exit on SIGTERM: {exit:?}");

    let keys = archived_keys(&archive);
    let counts = occurrences(keys.iter().cloned());
    let duplicated: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        duplicated.is_empty(),
        "archived more than once: {duplicated:?}"
    );
    let archived: BTreeSet<_> = keys.into_iter().collect();
    assert_eq!(
        archived, expired,
        "exactly the TTL-deleted items are archived"
    );
    for record in read_archive(&archive) {
        assert_eq!(record["userIdentity"]["type"], "Service");
        assert!(record["dynamodb"]["OldImage"]["expiresAt"]["N"].is_string());
    }

    // The engine agrees: the expired items are gone, the live ones are not.
    let engine = Engine::open(dir.path().join("data"), EngineOptions::default()).expect("reopen");
    let left = engine.dynamodb().scan("Events").expect("scan");
    assert_eq!(left.len(), ALIVE);
}
