//! When a range of records that no route matches is committed: not after every
//! full read (each commit is two fsyncs), but when the pipeline catches up, so
//! a restart before that reads the range again and loses nothing.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use ttlstream::demo::items::SEED_CREATION_TIME_SECS;
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{Engine, ManualClock, StreamViewType};

/// An engine whose stream holds the seed's five INSERTs (none expired, so no
/// TTL deletion), and a config reading it two records at a time.
fn engine_and_config(dir: &Path) -> (Engine, Config) {
    let clock = Arc::new(ManualClock::new(SEED_CREATION_TIME_SECS * 1000));
    let engine = common::seed_engine(dir, clock, StreamViewType::NewAndOldImages);
    let path = common::write_config(
        dir,
        &format!(
            "{}{}\n[batch]\nmax_records = 2\n",
            common::SEED_ENGINE_SOURCE,
            common::TTL_ROUTE_TO_FILE
        ),
    );
    (engine, Config::load(&path).expect("config"))
}

#[tokio::test]
async fn unmatched_full_reads_are_committed_when_the_pipeline_catches_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, config) = engine_and_config(dir.path());

    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline");
    for _ in 0..2 {
        let report = pipeline.step().await.expect("step");
        assert_eq!(report.records, 2, "a full read");
        assert_eq!(
            pipeline.checkpoint().sequence_number,
            None,
            "a full read of unmatched records is not committed yet"
        );
    }
    // A restart here reads the five records again: nothing was skipped.
    drop(pipeline);
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine.clone(), &config))
            .expect("pipeline");
    let mut read = 0;
    loop {
        let report = pipeline.step().await.expect("step");
        read += report.records;
        if report.records < 2 {
            break;
        }
    }
    assert_eq!(read, 5, "the restart read every record again");
    let committed = pipeline
        .checkpoint()
        .sequence_number
        .clone()
        .expect("the short read (caught up) commits the unmatched range");
    assert_eq!(pipeline.stats().records_matched, 0);

    // The commit is on disk: a new process starts after the fifth record.
    drop(pipeline);
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine, &config)).expect("pipeline");
    assert_eq!(pipeline.checkpoint().sequence_number, Some(committed));
    assert_eq!(pipeline.step().await.expect("step").records, 0);
}
