//! The pipeline's instrumentation, end to end: the seed's five sessions expire
//! in the bundled engine, the pipeline archives their TTL deletions, and what it
//! recorded through the `metrics` crate is read back from a `SnapshotRecorder`
//! (the recorder behind the EMF and PutMetricData exporters).

use crate::common;

use std::sync::Arc;

use ttlstream::demo::items::{SEED_CREATION_TIME_SECS, last_seed_expiration_secs, seed_items};
use ttlstream::engine::OwnedEngine;
use ttlstream::metrics::{MetricDatum, SnapshotRecorder};
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{ManualClock, StreamViewType};

fn value(data: &[MetricDatum], name: &str, table: Option<&str>) -> Option<f64> {
    data.iter()
        .find(|d| {
            d.name == name
                && table.is_none_or(|t| d.dimensions == [("TableName".to_string(), t.to_string())])
        })
        .map(|d| d.value)
}

#[tokio::test]
async fn step_records_reads_matches_deliveries_and_ttl_deletions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start_millis = SEED_CREATION_TIME_SECS * 1000;
    let clock = Arc::new(ManualClock::new(start_millis));
    let engine = common::seed_engine(dir.path(), clock.clone(), StreamViewType::OldImage);
    clock.set_millis((last_seed_expiration_secs() + 3600) * 1000);
    let swept = engine.sweep_now().expect("sweep");
    assert_eq!(swept.deleted, 5);
    // Past the end of the deletions' metric period, so it closes.
    clock.set_millis(clock_now(&clock) + 120_000);

    let config_path = common::write_config(
        dir.path(),
        &format!(
            "{}{}\n[metrics]\nperiod_secs = 60\n",
            common::SEED_ENGINE_SOURCE,
            common::TTL_ROUTE_TO_FILE
        ),
    );
    let config = Config::load(&config_path).expect("config");
    // The test owns the engine (and sweeps it): the pipeline publishes its
    // sweeper lag as the owner's.
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline")
            .owning(OwnedEngine::new(engine.clone(), None));

    let recorder = SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&recorder);
    for _ in 0..10 {
        let report = pipeline.step().await.expect("step");
        if report.records == 0 {
            break;
        }
    }
    pipeline.flush().await.expect("write the open batch");
    let data = recorder.flush();
    // The archived records name the engine's real stream.
    let stream_arn = engine
        .streams()
        .list_streams(Some("SessionData"))
        .expect("ListStreams")
        .remove(0)
        .stream_arn;
    for file in std::fs::read_dir(dir.path().join("archive/SessionData")).expect("archive") {
        let text = std::fs::read_to_string(file.expect("entry").path()).expect("read");
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
            assert_eq!(record["eventSourceARN"], stream_arn.as_str());
            // awsRegion is the region the ARN names (the engine's `ddblocal`).
            assert_eq!(
                record["awsRegion"],
                stream_arn.split(':').nth(3).expect("ARN region")
            );
            assert_eq!(record["awsRegion"], ttlstream_engine::STREAM_ARN_REGION);
        }
    }
    assert_eq!(
        value(&data, "RecordsRead", None),
        Some(10.0),
        "5 INSERT + 5 REMOVE: {data:?}"
    );
    assert_eq!(value(&data, "RecordsMatched", None), Some(5.0), "{data:?}");
    assert_eq!(
        value(&data, "RecordsDelivered", None),
        Some(5.0),
        "{data:?}"
    );
    assert_eq!(
        value(&data, "TimeToLiveDeletedItemCount", Some("SessionData")),
        Some(5.0),
        "{data:?}"
    );
    assert_eq!(
        value(&data, "IteratorAgeMilliseconds", None),
        Some(120_000.0),
        "the newest record was written 2 minutes before it was read: {data:?}"
    );
    assert_eq!(value(&data, "RecordsFailed", None), None, "nothing failed");

    // Quiet periods are explicit zeros: the counter exists and adds 0.
    clock.set_millis(clock_now(&clock) + 10 * 60_000);
    pipeline.step().await.expect("quiet step");
    let quiet = recorder.flush();
    assert_eq!(
        value(&quiet, "TimeToLiveDeletedItemCount", Some("SessionData")),
        Some(0.0),
        "{quiet:?}"
    );
    assert_eq!(value(&quiet, "RecordsRead", None), Some(0.0));
    assert_eq!(
        value(&quiet, "SweeperLagMilliseconds", Some("SessionData")),
        Some(0.0),
        "everything expired was swept: {quiet:?}"
    );

    // An item that expired 90 s ago and has not been swept shows as lag.
    let mut late = seed_items().remove(0);
    let expired_at_secs = clock_now(&clock) / 1000 - 90;
    late.insert(
        "ExpirationTime".into(),
        serde_dynamo::AttributeValue::N(expired_at_secs.to_string()),
    );
    engine
        .dynamodb()
        .put_item("SessionData", late)
        .expect("put");
    pipeline.step().await.expect("step");
    let lagging = recorder.flush();
    let lag = value(&lagging, "SweeperLagMilliseconds", Some("SessionData")).expect("lag gauge");
    assert!((90_000.0..91_000.0).contains(&lag), "{lag}");
}

fn clock_now(clock: &ManualClock) -> i64 {
    use ttlstream_engine::Clock;
    clock.now_millis()
}
