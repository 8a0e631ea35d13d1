//! `ttlstream demo`: the main job end to end on the bundled engine, with no AWS
//! and no set-up.
//!
//! It creates the guide's `SessionData` table (partition key `UserName`, sort key
//! `SessionId`, TTL attribute `ExpirationTime`, stream `OLD_IMAGE`), writes the
//! five seed items (each with the guide's own `CreationTime` and
//! `ExpirationTime`) and `items` generated sessions with an accelerated clock
//! held at 2019-10-23 08:46 UTC, then lets the clock run and the sweeper expire
//! everything, and archives every TTL deletion through
//! `deploy/filters/ttl-system-deletes.json` into NDJSON files, while counting
//! `TimeToLiveDeletedItemCount` and evaluating the seed's anomaly alarm
//! (`deploy/alarms/ttl-deletion-anomaly.json`).
//!
//! `--model tablestore` and `--model spanner` run each model's own example
//! the same way (`models.rs`): a day of rows expiring over the accelerated
//! clock, archived through the model's filter in `deploy/filters/`, counted
//! under the model's metric, watched by the same anomaly alarm on it.

pub mod items;
mod models;
mod summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ttlstream_engine::{
    AcceleratedClock, Clock, Engine, EngineOptions, ScalarAttributeType, StreamOptions,
    StreamViewType, SweeperOptions, TableDefinition, TimeToLiveSpecification,
};

pub use summary::{ArchiveCheck, DemoSummary, check_archive};

use crate::alarm::AlarmDefinition;
use crate::config::{
    AlarmConfig, BatchConfig, CheckpointConfig, Config, MetricsConfig, RouteConfig, SinkConfig,
    SourceConfig,
};
use crate::error::PipelineError;
use crate::pipeline::Pipeline;
use crate::sinks::file::FileSinkConfig;
use crate::sources::engine::{EngineSource, EngineSourceConfig, TtlModel};

/// The demo's table name, from the guide.
pub const TABLE: &str = "SessionData";
/// The filter file the demo archives through (Lambda `FilterCriteria` form).
pub const TTL_FILTER: &str = include_str!("../../../deploy/filters/ttl-system-deletes.json");
/// The seed's anomaly alarm.
pub const ANOMALY_ALARM: &str = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");

/// What the demo does.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Working directory: `data/` (engine), `state/` (checkpoint), `config/`
    /// (the filter and alarm files used). Must be empty or missing.
    pub work_dir: PathBuf,
    /// Where the archive is written (`<archive_dir>/SessionData/*.ndjson`).
    pub archive_dir: PathBuf,
    /// Generated sessions besides the five seed items (DynamoDB); rows
    /// (Tablestore), or singers (Spanner).
    pub items: u64,
    /// Simulated seconds per real second.
    pub speed: f64,
    /// `TimeToLiveDeletedItemCount` period in seconds (a divisor of 3600).
    pub period_secs: u64,
    /// Whose TTL the demo shows: DynamoDB's (the guide's `SessionData`,
    /// `items` generated sessions besides the five seed items), Tablestore's
    /// or Spanner's (`items` rows).
    pub model: TtlModel,
}

/// Why the demo stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The working directory holds files from something else.
    #[error("{path} is not empty: the demo needs a fresh directory (remove it or choose another)")]
    NotEmpty {
        /// The directory.
        path: PathBuf,
    },
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The engine refused an operation.
    #[error("engine: {0}")]
    Engine(String),
    /// The pipeline failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
}

fn engine_error(e: impl std::fmt::Display) -> DemoError {
    DemoError::Engine(e.to_string())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemoError + '_ {
    move |source| DemoError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Runs the demo to the end and returns what happened.
///
/// # Errors
/// [`DemoError`]: a non-empty working directory, an engine or pipeline failure.
pub async fn run(options: &DemoOptions) -> Result<DemoSummary, DemoError> {
    let data_dir = options.work_dir.join("data");
    if std::fs::read_dir(&options.work_dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(DemoError::NotEmpty {
            path: options.work_dir.clone(),
        });
    }
    let config_dir = options.work_dir.join("config");
    std::fs::create_dir_all(&config_dir).map_err(io(&config_dir))?;
    let (filter_name, filter) = models::filter(options.model);
    let filter_path = config_dir.join(filter_name);
    std::fs::write(&filter_path, filter).map_err(io(&filter_path))?;
    let alarm_path = config_dir.join("ttl-deletion-anomaly.json");
    let alarm_json = anomaly_alarm(options.model).map_err(io(&alarm_path))?;
    std::fs::write(&alarm_path, alarm_json).map_err(io(&alarm_path))?;

    // 1. Load the table while the clock is held at the seed's CreationTime, so
    //    the load takes no simulated time however many items it writes.
    let start_millis = items::SEED_CREATION_TIME_SECS * 1000;
    let clock = Arc::new(AcceleratedClock::paused(start_millis, options.speed));
    let engine = Engine::open(
        &data_dir,
        EngineOptions {
            clock: clock.clone(),
            stream: demo_stream_options(),
            ..EngineOptions::default()
        },
    )
    .map_err(engine_error)?;
    let started = Instant::now();
    let loaded = models::load(&engine, options.model, options.items)?;
    let item_count = loaded.rows;
    engine.persist().map_err(engine_error)?;
    let write_elapsed = started.elapsed();

    // 2. Let the clock run; sweep and archive until the alarm has seen its
    //    quiet periods after the last deletion.
    let config = demo_config(options, &data_dir, &filter_path, &alarm_path);
    let alarm = AlarmDefinition::load(&alarm_path).map_err(PipelineError::from)?;
    let alarm_period = i64::try_from(alarm.period).unwrap_or(3600);
    let quiet_periods = alarm.evaluation_periods as i64;
    // Set once every item is deleted and archived: the end of the alarm period
    // holding that moment, plus N quiet periods for the alarm to see silence.
    let mut end_secs: Option<i64> = None;

    // The demo owns the engine (and its accelerated clock): the pipeline
    // reads it, the demo sweeps it.
    let source = EngineSource::new(engine.clone(), &demo_source(options.model, &data_dir));
    let mut pipeline = Pipeline::with_source(&config, Box::new(source))?;
    clock.start();
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(10),
        ..Default::default()
    });
    let run_started = Instant::now();
    let mut archive_busy = Duration::ZERO;
    let mut sweep_window: Option<(Instant, Instant)> = None;
    let mut last_deleted = 0;
    let mut datapoints = Vec::new();
    let mut transitions = Vec::new();
    loop {
        let step_started = Instant::now();
        let report = pipeline.step().await?;
        if report.records > 0 {
            archive_busy += step_started.elapsed();
        }
        datapoints.extend(report.datapoints);
        transitions.extend(report.transitions);
        let deleted = sweeper.deleted_total();
        if deleted > last_deleted {
            let now = Instant::now();
            sweep_window = Some((sweep_window.map_or(run_started, |(first, _)| first), now));
            last_deleted = deleted;
        }
        let caught_up = report.records == 0;
        if caught_up {
            // Archive what the open batch holds rather than wait for its age.
            pipeline.flush().await?;
        }
        let now_millis = clock.now_millis();
        if end_secs.is_none() && caught_up && deleted >= item_count {
            let done_secs = now_millis.div_euclid(1000).max(loaded.last_expiry_secs);
            end_secs = Some((done_secs / alarm_period + 1 + quiet_periods) * alarm_period);
        }
        if caught_up && end_secs.is_some_and(|end| now_millis >= end * 1000) {
            break;
        }
        if caught_up {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    sweeper.stop();
    let end_secs = end_secs.unwrap_or(loaded.last_expiry_secs);
    let closing = pipeline.close_periods_through(end_secs * 1000);
    datapoints.extend(closing.datapoints);
    transitions.extend(closing.transitions);
    let remaining = models::remaining(&engine, options.model)?;
    engine.persist().map_err(engine_error)?;

    let table = models::table(options.model);
    let archive_table_dir = options.archive_dir.join(table);
    let archive = check_archive(&archive_table_dir).map_err(io(&archive_table_dir))?;
    let stats = pipeline.stats();
    let mut by_period: BTreeMap<i64, f64> = BTreeMap::new();
    for point in datapoints.iter().filter(|p| p.period_start_secs < end_secs) {
        *by_period.entry(point.period_start_secs).or_default() += point.value;
    }
    Ok(DemoSummary {
        description: models::description(options.model).to_string(),
        table: table.to_string(),
        metric_name: options.model.ttl_metric_name(),
        items_written: item_count,
        write_elapsed,
        ttl_deletions: last_deleted,
        sweep_elapsed: sweep_window.map_or(Duration::ZERO, |(first, last)| last - first),
        records_read: stats.records_read,
        archived: stats.records_delivered,
        archive_busy,
        remaining_items: remaining,
        period_secs: options.period_secs,
        datapoints: by_period.into_iter().collect(),
        alarm,
        transitions,
        archive,
        archive_dir: archive_table_dir,
        speed: options.speed,
        start_secs: items::SEED_CREATION_TIME_SECS,
        end_secs,
    })
}

/// The demo's stream keeps records for a year of simulated time instead of
/// DynamoDB's 24 hours. Retention is measured by the engine clock, which the
/// demo runs thousands of times faster than real time, while the archive
/// reads from TRIM_HORIZON at its own pace: with 24 hours, a large `--items`
/// on a slow machine could have records trimmed before they are archived
/// (the read would then fail with TrimmedDataAccess rather than skip them).
/// Shards still rotate as in any engine (100,000 records or 4 hours).
fn demo_stream_options() -> StreamOptions {
    StreamOptions {
        retention: Duration::from_secs(365 * 86_400),
        ..StreamOptions::default()
    }
}

/// The seed's anomaly alarm, on the model's metric and table.
fn anomaly_alarm(model: TtlModel) -> std::io::Result<String> {
    if model == TtlModel::Dynamodb {
        return Ok(ANOMALY_ALARM.to_string());
    }
    let mut alarm: serde_json::Value = serde_json::from_str(ANOMALY_ALARM)?;
    let table = models::table(model);
    alarm["AlarmName"] = format!("ttl-deletion-anomaly-{table}").into();
    alarm["MetricName"] = model.ttl_metric_name().into();
    alarm["Dimensions"] = serde_json::json!([{"Name": "TableName", "Value": table}]);
    Ok(alarm.to_string())
}

/// The guide's `SessionData` with its five items and `items` generated
/// sessions (the DynamoDB model's demo).
fn load_session_data(engine: &Engine, items: u64) -> Result<models::Loaded, DemoError> {
    create_table(engine)?;
    engine
        .dynamodb()
        .put_items(TABLE, items::seed_items())
        .map_err(engine_error)?;
    let mut next = 0;
    while next < items {
        let end = (next + 10_000).min(items);
        let chunk = (next..end)
            .map(|i| items::generated_item(i, items))
            .collect();
        engine
            .dynamodb()
            .put_items(TABLE, chunk)
            .map_err(engine_error)?;
        next = end;
    }
    Ok(models::Loaded {
        rows: items + items::SEED_SESSIONS.len() as u64,
        last_expiry_secs: items::last_seed_expiration_secs(),
    })
}

fn create_table(engine: &Engine) -> Result<(), DemoError> {
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S)
                .with_sort_key("SessionId", ScalarAttributeType::S)
                .with_stream(StreamViewType::OldImage),
        )
        .map_err(engine_error)?;
    engine
        .dynamodb()
        .update_time_to_live(
            TABLE,
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".to_string(),
                enabled: true,
            },
        )
        .map_err(engine_error)
}

/// The demo's source: the table's stream in the engine the demo owns.
fn demo_source(model: TtlModel, data_dir: &Path) -> EngineSourceConfig {
    EngineSourceConfig {
        data_dir: Some(data_dir.to_path_buf()),
        model,
        ..EngineSourceConfig::new(models::table(model))
    }
}

/// The pipeline config the demo runs: the same structure `ttlstream run` reads.
fn demo_config(options: &DemoOptions, data_dir: &Path, filter: &Path, alarm: &Path) -> Config {
    Config {
        engine: None,
        source: Some(SourceConfig::Engine(demo_source(options.model, data_dir))),
        checkpoint: Some(CheckpointConfig {
            dir: options.work_dir.join("state"),
        }),
        routes: vec![RouteConfig {
            name: "ttl-archive".to_string(),
            filter: Some(filter.to_path_buf()),
            sinks: vec!["archive".to_string()],
        }],
        sinks: BTreeMap::from([(
            "archive".to_string(),
            SinkConfig::File(FileSinkConfig::new(options.archive_dir.clone())),
        )]),
        metrics: MetricsConfig {
            period_secs: options.period_secs,
            ..MetricsConfig::default()
        },
        alarms: vec![AlarmConfig {
            file: alarm.to_path_buf(),
        }],
        notifiers: Vec::new(),
        batch: BatchConfig::default(),
        retry: Default::default(),
        dead_letter: None,
        logging: Default::default(),
    }
}
