//! `[source.engine] model = "tablestore" | "spanner"`: a Tablestore or
//! Spanner table's change records read from the engine, filtered by the
//! model's system-deletion filter in `deploy/filters/`, archived, and read
//! again exactly after the pipeline stops with a batch read but not written.

use crate::common;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ttlstream::{Config, Pipeline};
use ttlstream_engine::spanner::{
    RowDeletionPolicy, SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue,
    ValueCaptureType,
};
use ttlstream_engine::tablestore::{PutColumn, TablestoreOptions, TablestoreTableDefinition};
use ttlstream_engine::{
    AttributeValue, Clock, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType,
    StreamViewType,
};

const SPANNER_FILTER: &str =
    include_str!("../../../deploy/filters/spanner-row-deletion-policy.json");
const TABLESTORE_FILTER: &str = include_str!("../../../deploy/filters/tablestore-ttl-deletes.json");

/// Rows written, each later deleted by its model's TTL.
const ROWS: i64 = 10;
const DAY_MILLIS: u64 = 86_400_000;

fn engine(dir: &Path) -> (Engine, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let engine = Engine::open(
        dir.join("data"),
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .expect("engine");
    (engine, clock)
}

/// `Singers` with a one-day row deletion policy on `CreatedAt` and a change
/// stream: the Spanner table these tests archive.
fn singers_table(engine: &Engine) {
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Singers")
                .column("SingerId", SpannerType::Int64)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["SingerId"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1))
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .expect("table");
}

/// A config reading `table` of `model` three records at a time, routing what
/// `filter` matches to the file sink `archive`, a file every two records.
fn config(dir: &Path, model: &str, table: &str, filter: &str) -> Config {
    std::fs::write(dir.join("filter.json"), filter).expect("filter");
    let toml = format!(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"{table}\"\nmodel = \"{model}\"\n\n\
         [checkpoint]\ndir = \"state\"\n\n[batch]\nmax_records = 3\n\n\
         [[routes]]\nname = \"ttl\"\nfilter = \"filter.json\"\nsinks = [\"archive\"]\n\n\
         [sinks.archive.file]\npath = \"archive\"\n\n\
         [sinks.archive.file.batch]\nmax_records = 2\n"
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, toml).expect("config");
    Config::load(&path).expect("config")
}

/// Runs a pipeline until it has committed something and read one batch
/// more, stops it there (the batch read, not written), then runs a new one
/// to the end. Returns the archived records.
async fn run_with_a_stop(
    dir: &Path,
    engine: &Engine,
    config: &Config,
    table: &str,
) -> Vec<serde_json::Value> {
    let reader = || common::engine_reader(engine.clone(), config);
    let mut pipeline = Pipeline::with_source(config, reader()).expect("pipeline");
    for _ in 0..100 {
        if pipeline.checkpoint().sequence_number.is_some() {
            break;
        }
        assert!(
            pipeline.step().await.expect("step").records > 0,
            "records left"
        );
    }
    let committed = pipeline.checkpoint().sequence_number.clone();
    assert!(committed.is_some(), "a batch was written before the stop");
    assert!(
        pipeline.step().await.expect("step").records > 0,
        "a batch in hand"
    );
    drop(pipeline);

    let mut pipeline = Pipeline::with_source(config, reader()).expect("pipeline");
    assert_eq!(pipeline.checkpoint().sequence_number, committed, "resumed");
    while pipeline.step().await.expect("step").records > 0 {}
    pipeline.flush().await.expect("flush");
    common::ndjson_lines(&dir.join("archive").join(table))
}

#[tokio::test]
async fn tablestore_ttl_deletions_are_archived_once_across_a_stop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = engine(dir.path());
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new("Sessions", "id", ScalarAttributeType::S)
                .with_options(TablestoreOptions {
                    time_to_live_secs: 86_400,
                    max_versions: 2,
                    max_time_deviation_secs: 86_400,
                })
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .expect("table");
    // Each row written, then expired (one day and a second later) and swept:
    // the stream alternates PutRow records and the sweeper's deletions.
    for i in 0..ROWS {
        let key = Item::from(HashMap::from([(
            "id".to_string(),
            AttributeValue::S(format!("row-{i:02}")),
        )]));
        let cell = PutColumn::new("payload", AttributeValue::N(i.to_string()));
        engine
            .tablestore()
            .put_row("Sessions", key, vec![cell])
            .expect("put");
        clock.advance(Duration::from_millis(DAY_MILLIS + 1000));
        assert_eq!(engine.sweep_now().expect("sweep").deleted, 1);
    }
    let config = config(dir.path(), "tablestore", "Sessions", TABLESTORE_FILTER);

    let archived = run_with_a_stop(dir.path(), &engine, &config, "Sessions").await;
    let ids: Vec<&str> = archived
        .iter()
        .map(|r| r["dynamodb"]["Keys"]["id"]["S"].as_str().expect("id"))
        .collect();
    let expected: Vec<String> = (0..ROWS).map(|i| format!("row-{i:02}")).collect();
    assert_eq!(ids, expected, "each deletion once, in stream order");
    for record in &archived {
        assert_eq!(record["eventName"], "REMOVE");
        assert_eq!(record["userIdentity"]["type"], "Service");
        assert_eq!(
            record["userIdentity"]["principalId"],
            "dynamodb.amazonaws.com"
        );
    }
}

#[tokio::test]
async fn spanner_row_deletion_policy_deletes_are_archived_once_across_a_stop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = engine(dir.path());
    singers_table(&engine);
    for i in 0..ROWS {
        let row = SpannerRow::from([
            ("SingerId".to_string(), SpannerValue::Int64(i)),
            (
                "CreatedAt".to_string(),
                SpannerValue::Timestamp(clock.now_millis()),
            ),
        ]);
        engine.spanner().insert_row("Singers", row).expect("insert");
        clock.advance(Duration::from_millis(DAY_MILLIS + 1000));
        assert_eq!(engine.sweep_now().expect("sweep").deleted, 1);
    }
    // A user's delete is no system deletion: the filter leaves it out.
    engine
        .spanner()
        .insert_row(
            "Singers",
            SpannerRow::from([
                ("SingerId".to_string(), SpannerValue::Int64(99)),
                ("CreatedAt".to_string(), SpannerValue::Null),
            ]),
        )
        .expect("insert");
    engine
        .spanner()
        .delete_row("Singers", &[SpannerValue::Int64(99)])
        .expect("delete");
    let config = config(dir.path(), "spanner", "Singers", SPANNER_FILTER);

    let archived = run_with_a_stop(dir.path(), &engine, &config, "Singers").await;
    let ids: Vec<&str> = archived
        .iter()
        .map(|r| r["mods"][0]["keys"]["SingerId"].as_str().expect("key"))
        .collect();
    let expected: Vec<String> = (0..ROWS).map(|i| i.to_string()).collect();
    assert_eq!(ids, expected, "each deletion once, in stream order");
    let transactions: BTreeSet<&str> = archived
        .iter()
        .map(|r| r["server_transaction_id"].as_str().expect("id"))
        .collect();
    assert_eq!(transactions.len(), archived.len(), "no record twice");
    for record in &archived {
        // Spanner's own DataChangeRecord fields, as its TTL doc tells
        // change-stream readers to filter them.
        assert_eq!(record["mod_type"], "DELETE");
        assert_eq!(record["is_system_transaction"], true);
        assert_eq!(record["transaction_tag"], "RowDeletionPolicy");
        assert_eq!(record["table_name"], "Singers");
    }
}

/// An anomaly alarm on `metric` for `table`: fewer than 1 deletion in a
/// 60 s period is ALARM (missing data breaching), as
/// `deploy/alarms/ttl-deletion-anomaly.json` watches `TimeToLiveDeletedItemCount`.
fn anomaly_alarm(dir: &Path, metric: &str, table: &str) {
    let alarm = serde_json::json!({
        "AlarmName": format!("ttl-deletion-anomaly-{table}"),
        "Namespace": "TTLStream",
        "MetricName": metric,
        "Dimensions": [{"Name": "TableName", "Value": table}],
        "Statistic": "Sum",
        "Period": 60,
        "EvaluationPeriods": 1,
        "DatapointsToAlarm": 1,
        "Threshold": 1,
        "ComparisonOperator": "LessThanThreshold",
        "TreatMissingData": "breaching",
        "Unit": "Count"
    });
    std::fs::write(dir.join("alarm.json"), alarm.to_string()).expect("alarm");
    let path = dir.join("ttlstream.toml");
    let mut toml = std::fs::read_to_string(&path).expect("config");
    toml.push_str("\n[metrics]\nperiod_secs = 60\n\n[[alarms]]\nfile = \"alarm.json\"\n");
    std::fs::write(&path, toml).expect("config");
}

/// Steps the pipeline until it has read everything, then once more after
/// each of `quiet_periods` minutes without deletions; returns the
/// datapoints and alarm transitions of all steps.
async fn datapoints_and_states(
    pipeline: &mut Pipeline,
    clock: &ManualClock,
    quiet_periods: usize,
) -> (Vec<(String, f64)>, Vec<String>) {
    let (mut points, mut states) = (Vec::new(), Vec::new());
    let mut keep = |report: ttlstream::pipeline::StepReport| {
        points.extend(
            report
                .datapoints
                .iter()
                .map(|p| (p.metric_name.to_string(), p.value)),
        );
        states.extend(report.transitions.iter().map(|t| format!("{:?}", t.to)));
        report.records
    };
    while keep(pipeline.step().await.expect("step")) > 0 {}
    for _ in 0..quiet_periods {
        clock.advance(Duration::from_secs(60));
        keep(pipeline.step().await.expect("quiet step"));
    }
    (points, states)
}

/// A minute boundary, so each test's deletions fall in one period.
const PERIOD_START_MILLIS: i64 = 1_700_000_040_000;

#[tokio::test]
async fn spanner_deleted_rows_metric_and_its_anomaly_alarm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = engine(dir.path());
    clock.set_millis(PERIOD_START_MILLIS);
    singers_table(&engine);
    // Three rows already past the policy (Spanner does not check inserts),
    // deleted by one sweep.
    for i in 0..3 {
        let row = SpannerRow::from([
            ("SingerId".to_string(), SpannerValue::Int64(i)),
            (
                "CreatedAt".to_string(),
                SpannerValue::Timestamp(PERIOD_START_MILLIS - 2 * DAY_MILLIS as i64),
            ),
        ]);
        engine.spanner().insert_row("Singers", row).expect("insert");
    }
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 3);
    config(dir.path(), "spanner", "Singers", SPANNER_FILTER);
    anomaly_alarm(dir.path(), "row_deletion_policy/deleted_rows", "Singers");
    let config = Config::load(&dir.path().join("ttlstream.toml")).expect("config");
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline");

    clock.advance(Duration::from_secs(60));
    let (points, states) = datapoints_and_states(&mut pipeline, &clock, 2).await;
    let name = "row_deletion_policy/deleted_rows".to_string();
    assert_eq!(
        points,
        vec![(name.clone(), 3.0), (name.clone(), 0.0), (name, 0.0)],
        "rows deleted per period, quiet periods as explicit zeros"
    );
    assert_eq!(states, ["Ok", "Alarm"], "the alarm sees the deletions stop");
}

#[tokio::test]
async fn tablestore_deleted_rows_metric_and_its_anomaly_alarm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = engine(dir.path());
    clock.set_millis(PERIOD_START_MILLIS - DAY_MILLIS as i64 - 1000);
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new("Sessions", "id", ScalarAttributeType::S)
                .with_options(TablestoreOptions {
                    time_to_live_secs: 86_400,
                    max_versions: 1,
                    max_time_deviation_secs: 86_400,
                })
                .with_stream(StreamViewType::OldImage),
        )
        .expect("table");
    for i in 0..2 {
        let key = Item::from(HashMap::from([(
            "id".to_string(),
            AttributeValue::S(format!("row-{i}")),
        )]));
        let cell = PutColumn::new("payload", AttributeValue::N(i.to_string()));
        engine
            .tablestore()
            .put_row("Sessions", key, vec![cell])
            .expect("put");
    }
    clock.set_millis(PERIOD_START_MILLIS);
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 2);
    config(dir.path(), "tablestore", "Sessions", TABLESTORE_FILTER);
    anomaly_alarm(dir.path(), "TimeToLiveDeletedRowCount", "Sessions");
    let config = Config::load(&dir.path().join("ttlstream.toml")).expect("config");
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline");

    clock.advance(Duration::from_secs(60));
    let (points, states) = datapoints_and_states(&mut pipeline, &clock, 1).await;
    let deleted: Vec<f64> = points
        .iter()
        .filter(|(name, _)| name == "TimeToLiveDeletedRowCount")
        .map(|(_, value)| *value)
        .collect();
    assert_eq!(deleted.iter().sum::<f64>(), 2.0, "{points:?}");
    assert_eq!(
        deleted.last(),
        Some(&0.0),
        "a quiet period is an explicit zero"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("Alarm"),
        "{states:?}"
    );
}

/// The owner of a Spanner-model engine publishes each table's
/// `row_deletion_policy/processed_watermark_age`: seconds since the last
/// sweep pass that deleted every row then due, and beside it
/// `row_deletion_policy/undeletable_rows`, an explicit 0 here.
#[tokio::test]
async fn the_owner_publishes_spanner_processed_watermark_age() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = engine(dir.path());
    singers_table(&engine);
    let config = config(dir.path(), "spanner", "Singers", SPANNER_FILTER);
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline")
            .owning(ttlstream::engine::OwnedEngine::new(engine.clone(), None));
    let recorder = ttlstream::metrics::SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let gauge = |recorder: &ttlstream::metrics::SnapshotRecorder, name: &str| {
        recorder
            .flush()
            .into_iter()
            .find(|d| d.name == name)
            .map(|d| (d.dimensions, d.value))
    };
    let age = |recorder: &ttlstream::metrics::SnapshotRecorder| {
        gauge(recorder, "row_deletion_policy/processed_watermark_age")
    };
    let undeletable = |recorder: &ttlstream::metrics::SnapshotRecorder| {
        gauge(recorder, "row_deletion_policy/undeletable_rows")
    };

    pipeline.step().await.expect("step");
    assert_eq!(age(&recorder), None, "no pass has processed the table yet");
    assert_eq!(undeletable(&recorder), None);
    engine.sweep_now().expect("sweep");
    clock.advance(Duration::from_secs(90));
    pipeline.step().await.expect("step");
    let table = vec![("TableName".to_string(), "Singers".to_string())];
    assert_eq!(age(&recorder), Some((table.clone(), 90.0)));
    pipeline.step().await.expect("step");
    assert_eq!(undeletable(&recorder), Some((table, 0.0)));
}
