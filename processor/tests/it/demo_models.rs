//! `ttlstream demo --model tablestore | spanner` end to end: each model's
//! example expires over the accelerated day, the archive holds exactly the
//! TTL deletions, each once, in the model's own record shape, the model's
//! metric counts every deleted row, and the anomaly alarm ends in ALARM
//! once the deletions stop.

use std::collections::BTreeMap;

use ttlstream::demo::{self, DemoOptions, DemoSummary};
use ttlstream::sources::engine::TtlModel;
use ttlstream_engine::Engine;
use ttlstream_engine::spanner::SpannerValue;

use crate::common;

/// Rows (Tablestore) or singers (Spanner): fewer than the alarm's 100 per
/// hour over a day, so it goes to ALARM from the first hour.
const ROWS: u64 = 120;

async fn run_demo(dir: &std::path::Path, model: TtlModel) -> (DemoOptions, DemoSummary) {
    let options = DemoOptions {
        work_dir: dir.join("work"),
        archive_dir: dir.join("archive"),
        items: ROWS,
        speed: 40_000.0,
        period_secs: 600,
        model,
    };
    let summary = demo::run(&options).await.expect("demo runs");
    assert!(summary.is_complete(), "{summary}");
    assert_eq!(summary.ttl_deletions, ROWS, "{summary}");
    let counted: f64 = summary.datapoints.iter().map(|(_, v)| v).sum();
    assert_eq!(counted, ROWS as f64, "the metric counts every row");
    let last = summary.transitions.last().expect("transitions");
    assert_eq!(last.to.as_str(), "ALARM", "{summary}");
    (options, summary)
}

/// How often each value occurs.
fn occurrences(values: impl Iterator<Item = String>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for value in values {
        *counts.entry(value).or_default() += 1;
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tablestore_demo_archives_each_expired_row_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (options, summary) = run_demo(dir.path(), TtlModel::Tablestore).await;
    assert_eq!(summary.metric_name, "TimeToLiveDeletedRowCount");
    let records = common::ndjson_lines(&options.archive_dir.join("SessionData"));
    let keys = occurrences(records.iter().map(|r| {
        let key = &r["dynamodb"]["Keys"]["UserName"]["S"];
        key.as_str().expect("UserName").to_string()
    }));
    let expected: Vec<String> = (0..ROWS).map(|i| format!("user{i:07}")).collect();
    assert_eq!(keys.keys().cloned().collect::<Vec<_>>(), expected);
    assert!(keys.values().all(|n| *n == 1), "a row archived twice");
    for record in &records {
        assert_eq!(record["eventName"], "REMOVE");
        assert_eq!(record["userIdentity"]["type"], "Service");
        assert_eq!(
            record["userIdentity"]["principalId"],
            "dynamodb.amazonaws.com"
        );
        // The newest of the three versions written ("Tablestore: Data
        // versions and TTL": a read returns the newest versions first).
        let user = record["dynamodb"]["Keys"]["UserName"]["S"]
            .as_str()
            .expect("key");
        let i: u64 = user["user".len()..].parse().expect("index");
        let pages = &record["dynamodb"]["OldImage"]["PagesViewed"]["N"];
        assert_eq!(pages, &(i % 40 + 2).to_string(), "{user}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spanner_demo_archives_each_policy_deletion_once_and_cascades() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (options, summary) = run_demo(dir.path(), TtlModel::Spanner).await;
    assert_eq!(summary.metric_name, "row_deletion_policy/deleted_rows");
    let records = common::ndjson_lines(&options.archive_dir.join("Singers"));
    let keys = occurrences(records.iter().flat_map(|r| {
        let mods = r["mods"].as_array().expect("mods").clone();
        mods.into_iter()
            .map(|m| m["keys"]["SingerId"].as_str().expect("key").to_string())
    }));
    let expected: BTreeMap<String, usize> = (0..ROWS).map(|i| (i.to_string(), 1)).collect();
    assert_eq!(keys, expected, "each singer's deletion archived once");
    for record in &records {
        assert_eq!(record["mod_type"], "DELETE");
        assert_eq!(record["is_system_transaction"], true);
        assert_eq!(record["transaction_tag"], "RowDeletionPolicy");
        assert_eq!(record["table_name"], "Singers");
    }
    // The albums went with their singers ("Spanner: About TTL": TTL on
    // interleaved tables), and their index entries with them.
    let engine = Engine::open(options.work_dir.join("data"), Default::default()).expect("engine");
    assert!(
        engine
            .spanner()
            .scan_table("Albums")
            .expect("Albums")
            .is_empty()
    );
    let title = SpannerValue::String("Album 1 of singer 0".into());
    let indexed = engine
        .spanner()
        .read_index("Albums", "AlbumsByAlbumTitle", &[title])
        .expect("index");
    assert!(indexed.is_empty(), "{indexed:?}");
}
