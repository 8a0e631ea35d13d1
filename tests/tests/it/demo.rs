//! `ttlstream demo` end to end: the archive holds exactly the expired items, each
//! once, with the Lambda-cased `userIdentity`; the guide's five items with the
//! guide's own times, the generated ones with the OldImage that was written.

use std::process::Command;

use ttlstream::demo::{self, DemoOptions, items};
use ttlstream_tests::{item_json, key_of, occurrences, read_archive};

/// The DynamoDB Developer Guide's five `SessionData` items: `UserName`,
/// `SessionId`, `CreationTime`, `ExpirationTime` (epoch seconds).
const GUIDE_ITEMS: [(&str, &str, &str, &str); 5] = [
    ("user1", "74686572652773", "1571820360", "1571827560"),
    ("user2", "6e6f7468696e67", "1571820180", "1571827380"),
    ("user3", "746f2073656520", "1571820923", "1571828123"),
    ("user4", "68657265212121", "1571820683", "1571827883"),
    ("user5", "6e6572642e2e2e", "1571820743", "1571831543"),
];

/// Enough sessions that the first, partial hour (08:46 to 09:00) holds more than
/// the alarm's threshold of 100 deletions, so the alarm goes OK first.
const ITEMS: u64 = 2_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_archives_exactly_the_expired_items_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = DemoOptions {
        work_dir: dir.path().join("work"),
        archive_dir: dir.path().join("archive"),
        items: ITEMS,
        speed: 20_000.0,
        period_secs: 600,
        model: ttlstream::sources::engine::TtlModel::Dynamodb,
    };
    let summary = demo::run(&options).await.expect("demo runs");
    assert!(summary.is_complete(), "{summary}");

    let mut written: Vec<serde_dynamo::Item> = items::seed_items();
    let generated: Vec<serde_dynamo::Item> = (0..ITEMS)
        .map(|i| items::generated_item(i, ITEMS))
        .collect();
    written.extend(generated.iter().cloned());
    let records = read_archive(&options.archive_dir.join("SessionData"));
    assert_eq!(records.len(), written.len(), "one archived record per item");

    let counts = occurrences(records.iter().map(|r| key_of(r, "UserName", "SessionId")));
    assert!(counts.values().all(|n| *n == 1), "a key was archived twice");
    for record in &records {
        assert_eq!(record["eventName"], "REMOVE");
        assert_eq!(record["eventSource"], "aws:dynamodb");
        assert_eq!(record["userIdentity"]["type"], "Service");
        assert_eq!(
            record["userIdentity"]["principalId"],
            "dynamodb.amazonaws.com"
        );
        assert!(
            record["userIdentity"].get("Type").is_none(),
            "Lambda casing only"
        );
        assert_eq!(record["dynamodb"]["StreamViewType"], "OLD_IMAGE");
        assert!(
            record["dynamodb"].get("NewImage").is_none(),
            "OLD_IMAGE has no NewImage"
        );
    }
    let by_key: std::collections::HashMap<_, _> = records
        .iter()
        .map(|r| (key_of(r, "UserName", "SessionId"), r))
        .collect();
    // The guide's items, each with its own times, as the DynamoDB Developer
    // Guide's TTL example lists them ("Using time to live (TTL) in DynamoDB").
    for (user, session, created, expires) in GUIDE_ITEMS {
        let key = (user.to_string(), session.to_string());
        let record = by_key
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not archived"));
        let old = &record["dynamodb"]["OldImage"];
        assert_eq!(old["UserName"]["S"], user, "{key:?}");
        assert_eq!(old["SessionId"]["S"], session, "{key:?}");
        assert_eq!(old["CreationTime"]["N"], created, "{key:?}");
        assert_eq!(old["ExpirationTime"]["N"], expires, "{key:?}");
    }
    for item in &generated {
        let json = item_json(item);
        let key = (
            json["UserName"]["S"]
                .as_str()
                .expect("UserName")
                .to_string(),
            json["SessionId"]["S"]
                .as_str()
                .expect("SessionId")
                .to_string(),
        );
        let record = by_key
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not archived"));
        assert_eq!(record["dynamodb"]["OldImage"], json, "OldImage of {key:?}");
    }

    // The metric saw every deletion; the alarm was OK while thousands of items
    // expired per hour, and was in ALARM, from a quiet hour, by the end. (Whether the first, partial hour already breached depends on how
    // far the sweeper trails the accelerated clock, so it is not asserted.)
    let counted: f64 = summary.datapoints.iter().map(|(_, v)| v).sum();
    assert_eq!(counted, written.len() as f64);
    let states: Vec<&str> = summary.transitions.iter().map(|t| t.to.as_str()).collect();
    assert!(states.contains(&"OK"), "{states:?}");
    let last = summary.transitions.last().expect("transitions");
    assert_eq!(last.to.as_str(), "ALARM");
    assert!(last.at_secs <= summary.end_secs);
    assert_eq!(last.value, Some(0.0));
}

#[test]
fn demo_command_prints_summary_and_exits_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_ttlstream-e2e"))
        .args(["demo", "--items", "50", "--speed", "20000", "--data-dir"])
        .arg(dir.path().join("work"))
        .arg("--archive-dir")
        .arg(dir.path().join("archive"))
        .output()
        .expect("run demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("complete: every TTL deletion archived once"),
        "{stdout}"
    );
    // The summary shows the clock, the deletions, the metric and the alarm.
    assert!(
        stdout.contains("clock: 2019-10-23T08:46:00Z -> "),
        "{stdout}"
    );
    assert!(
        stdout.contains("TTL deletions         55 items"),
        "{stdout}"
    );
    assert!(stdout.contains("TimeToLiveDeletedItemCount"), "{stdout}");
    // 50 sessions over two hours stay under the alarm's 100 per hour.
    assert!(stdout.contains("-> ALARM"), "{stdout}");

    // Running it again into the same directory is refused, not mixed.
    let again = Command::new(env!("CARGO_BIN_EXE_ttlstream-e2e"))
        .args(["demo", "--items", "5", "--data-dir"])
        .arg(dir.path().join("work"))
        .output()
        .expect("run demo");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty"));
}
