//! The pipeline: source -> router -> sinks, then checkpoint, metrics and alarms.
//!
//! One [`Pipeline::step`] reads one source batch into the open batch
//! (the pipeline's batcher). When a sink's limit closes it, every sink gets the
//! records its routes matched; only when every sink has acknowledged (or its
//! records went to the dead-letter sink) is the checkpoint committed
//! (at-least-once). Before sinks see a batch its range is written into the
//! checkpoint as in flight, so a crash replays exactly that range and sinks
//! overwrite rather than duplicate. A closed batch is delivered while the
//! next one is read and routed (`flush.rs`).

mod flush;
mod run;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use ttlstream_engine::{Clock, Engine};

use crate::alarm::{AlarmDefinition, AlarmEvaluator, AlarmTransition};
use crate::batcher::Batcher;
use crate::checkpoint::{Checkpoint, CheckpointStore, InFlight, PartitionProgress, sequence_after};
use crate::config::{Config, SourceConfig};
use crate::engine::OwnedEngine;
use crate::error::{ConfigError, PipelineError, SourceError};
use crate::metrics::{Datapoint, PipelineStats, TtlDeletionCounter, names};
use crate::record::Record;
use crate::routing::Routing;
use crate::sinks::{BatchLimits, Sink};
use crate::sources::dynamodb_streams::DynamodbStreamsSource;
use crate::sources::engine::{EngineSource, EngineSourceConfig};
use crate::sources::file::FileSource;
use crate::sources::{ReadLimits, Source, SourceBatch};

fn missing(table: &str) -> PipelineError {
    ConfigError::Invalid {
        path: table.into(),
        message: format!("[{table}] is missing from the config"),
    }
    .into()
}

/// Why an `engine` source cannot open: it names no engine.
pub(crate) const NO_ENGINE: &str = "source.engine.data_dir: missing; name the data directory of an engine no running process has open, add [engine] to own one in this process, or run this pipeline inside the server that has it open (`ttlstream serve --pipeline FILE`)";

/// What one [`Pipeline::step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Records read (0: the source had nothing new).
    pub records: usize,
    /// Metric periods that closed during the step.
    pub datapoints: Vec<Datapoint>,
    /// Alarm state changes during the step.
    pub transitions: Vec<AlarmTransition>,
}

/// A built pipeline, ready to run.
pub struct Pipeline {
    source: Box<dyn Source>,
    /// Shared with the task delivering a closed batch.
    routing: Arc<Routing>,
    batcher: Batcher,
    /// The closed batch being delivered while the next one is read.
    delivering: Option<flush::Delivery>,
    /// The in-flight range being read again after a crash or a failed write.
    replay: Option<InFlight>,
    /// A partitioned source's progress for the open batch (one read per batch).
    open_progress: Option<PartitionProgress>,
    store: CheckpointStore,
    checkpoint: Checkpoint,
    counter: TtlDeletionCounter,
    alarms: Vec<AlarmEvaluator>,
    notifiers: Vec<crate::notify::NotifierConfig>,
    clock: Arc<dyn Clock>,
    /// Records and bytes one read may return: the sinks' tightest batch
    /// limits and `[batch] max_records` (a partitioned source's read is one
    /// batch). A read of fewer records means the source has caught up.
    read_limits: ReadLimits,
    poll_interval: Duration,
    /// `[logging] progress_interval_secs`: [`Pipeline::run`]'s progress lines.
    progress_interval: Duration,
    /// How far behind the stream the last read record was (its
    /// `ApproximateCreationDateTime` to now), for the progress line.
    iterator_age_millis: Option<i64>,
    /// Turned `true` by [`Pipeline::run`] when its shutdown completes: ends a
    /// read that waits for input and a sink write stalled in its retries.
    stop: Arc<watch::Sender<bool>>,
    stats: PipelineStats,
    /// The engine of the config's `[engine]`, which this pipeline owns: its
    /// sweeper runs while the pipeline lives, and the pipeline publishes its
    /// sweeper lag.
    engine: Option<OwnedEngine>,
    /// When the sweeper-lag gauge was last read from the owned engine.
    lag_sampled: Option<std::time::Instant>,
    /// `RecordsRead` and `RecordsMatched` counted but not yet added to the
    /// metrics: they are added once per step, not per record.
    unpublished: RecordCounts,
}

/// Records counted by a step, added to the `RecordsRead` and
/// `RecordsMatched` counters when it ends.
#[derive(Clone, Copy, Debug, Default)]
struct RecordCounts {
    read: u64,
    matched: u64,
}

/// How often a step that read a full batch (catching up) refreshes the
/// sweeper-lag gauge of the engine the pipeline owns; a step that caught up
/// always does. (The read once
/// stepped over the sweeper's uncompacted deletions, ~100 ms after 100,000
/// sweeps; the engine now starts it at a swept floor.)
const LAG_SAMPLE_INTERVAL: Duration = Duration::from_secs(5);

/// How long a range of records that no route matched stays open while the
/// source still returns full reads. Committing it costs two fsyncs (the
/// checkpoint file and its directory, ~5 ms each here); committing after
/// every read made a run of unmatched records (a table's INSERTs before its
/// TTL deletions) wait on the disk for most of its time. A step that catches
/// up commits such a range at once, and a later batch's range includes it, so
/// the checkpoint only lags (a restart reads these records again and the
/// filter drops them again); it never passes an undelivered record.
const UNMATCHED_COMMIT_INTERVAL: Duration = Duration::from_secs(1);

impl Pipeline {
    /// Builds the pipeline a config describes: opens its `[engine]`, if any
    /// (this pipeline then owns that engine and runs its sweeper, and an
    /// `engine` source reads it), then its source (`dynamodb_streams`:
    /// DescribeTable, DescribeStream), and goes on as
    /// [`Pipeline::with_source`]. The sidecar, a replay and the tests build
    /// pipelines this way; a caller that has its own source (the demo reads
    /// an engine it opened with its own clock) calls
    /// [`Pipeline::with_source`].
    ///
    /// # Errors
    /// [`PipelineError::Source`] when the engine or the source cannot be
    /// opened (a missing data directory or table: [`SourceError::is_bad_input`]),
    /// [`PipelineError::Config`] when `[source]` is missing, and the errors
    /// of [`Pipeline::with_source`].
    pub async fn build(config: &Config) -> Result<Self, PipelineError> {
        let engine = config.engine.as_ref().map(OwnedEngine::open).transpose()?;
        let source: Box<dyn Source> = match &config.source {
            Some(SourceConfig::Engine(source)) => Box::new(match (&engine, &config.engine) {
                (Some(owned), Some(owned_config)) => {
                    let source = EngineSourceConfig {
                        data_dir: Some(owned_config.data_dir.clone()),
                        ..source.clone()
                    };
                    EngineSource::new(owned.engine().clone(), &source).checked()?
                }
                _ => {
                    let Some(data_dir) = &source.data_dir else {
                        return Err(ConfigError::Invalid {
                            path: "source.engine".into(),
                            message: NO_ENGINE.into(),
                        }
                        .into());
                    };
                    EngineSource::open(data_dir, source)?
                }
            }),
            Some(SourceConfig::File(file)) => Box::new(FileSource::open(file)?),
            Some(SourceConfig::DynamodbStreams(streams)) => {
                Box::new(DynamodbStreamsSource::open(streams).await?)
            }
            None => return Err(missing("source")),
        };
        let mut pipeline = Self::with_source(config, source)?;
        pipeline.engine = engine;
        Ok(pipeline)
    }

    /// Builds the pipeline of `config` around `source` (the config's
    /// `[source]` and `[engine]` are not opened): loads the routes' filters
    /// and the alarms, builds the sinks and reads the checkpoint. What
    /// [`Pipeline::build`] does after opening the source.
    ///
    /// # Errors
    /// [`PipelineError::Config`] for filter and alarm files and a missing
    /// `[checkpoint]`, [`PipelineError::Checkpoint`] when the checkpoint
    /// cannot be read.
    pub fn with_source(
        config: &Config,
        mut source: Box<dyn Source>,
    ) -> Result<Self, PipelineError> {
        let mut routing = Routing::build(config)?;
        let (stop, stopped) = watch::channel(false);
        routing.retry_until_elapsed(stopped);
        if let Some(names) = routing.event_names() {
            source.route_event_names(names);
        }
        let mut alarms = Vec::new();
        for alarm in &config.alarms {
            let definition = AlarmDefinition::load(&alarm.file)?;
            if definition.period % config.metrics.period_secs != 0 {
                return Err(ConfigError::Invalid {
                    path: alarm.file.clone(),
                    message: format!(
                        "Period: {} s is not a multiple of the metric period ({} s, metrics.period_secs)",
                        definition.period, config.metrics.period_secs
                    ),
                }
                .into());
            }
            alarms.push(AlarmEvaluator::new(definition));
        }
        let Some(checkpoint_config) = &config.checkpoint else {
            return Err(missing("checkpoint"));
        };
        let store = CheckpointStore::open(&checkpoint_config.dir, source.id())?;
        let checkpoint = store.load()?;
        let counter = TtlDeletionCounter::new(config.metrics.period_secs, source.tables())
            .with_metric_name(source.ttl_metric_name());
        let tightest = routing.limits().into_iter().reduce(BatchLimits::min);
        let read_limits = ReadLimits {
            max_records: tightest.map_or(config.batch.max_records, |limits| {
                limits.max_records.min(config.batch.max_records)
            }),
            max_bytes: tightest.map_or(usize::MAX, |limits| limits.max_bytes),
        };
        Ok(Self {
            clock: source.clock(),
            source,
            batcher: Batcher::new(routing.limits()),
            routing: Arc::new(routing),
            delivering: None,
            replay: checkpoint.in_flight.clone(),
            open_progress: None,
            store,
            checkpoint,
            counter,
            alarms,
            notifiers: config.notifiers.clone(),
            read_limits,
            poll_interval: Duration::from_millis(config.batch.poll_interval_millis),
            progress_interval: Duration::from_secs(config.logging.progress_interval_secs),
            iterator_age_millis: None,
            stop: Arc::new(stop),
            stats: PipelineStats::default(),
            engine: None,
            lag_sampled: None,
            unpublished: RecordCounts::default(),
        })
    }

    /// Counters since the pipeline was built.
    pub fn stats(&self) -> PipelineStats {
        self.stats
    }

    /// The committed checkpoint.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    /// The alarms and their current states.
    pub fn alarms(&self) -> &[AlarmEvaluator] {
        &self.alarms
    }

    /// The source (for its tables).
    pub fn source(&self) -> &dyn Source {
        self.source.as_ref()
    }

    /// The engine this pipeline owns: the config's `[engine]`, opened by
    /// [`Pipeline::build`], or one given to [`Pipeline::owning`]; `None`
    /// otherwise.
    pub fn engine(&self) -> Option<&Engine> {
        self.engine.as_ref().map(OwnedEngine::engine)
    }

    /// Makes the pipeline the owner of `engine` (for a pipeline built
    /// [`with_source`](Pipeline::with_source) around an engine the caller
    /// opened): it keeps the engine and its sweeper, if any, while it lives
    /// and publishes its `SweeperLagMilliseconds`.
    #[must_use]
    pub fn owning(mut self, engine: OwnedEngine) -> Self {
        self.engine = Some(engine);
        self
    }

    /// Replaces the sink named like `sink` (from the config) with `sink`: a
    /// caller's own S3 client, a test double. Unknown names are ignored.
    /// Call it before the first step: while a batch is being delivered the
    /// sinks are in use, and the sink is not replaced (logged).
    #[must_use]
    pub fn with_sink(mut self, sink: Box<dyn Sink>) -> Self {
        match Arc::get_mut(&mut self.routing) {
            Some(routing) => {
                routing.replace_sink(sink);
            }
            None => tracing::error!(
                sink = sink.name(),
                "sink not replaced: a batch is being delivered to the sinks"
            ),
        }
        self
    }

    /// Where the next read starts, as the checkpoint the source reads from:
    /// after the open batch's last record (a batch may span reads); else
    /// the batch in flight again (after a crash or a failed write); else
    /// the committed checkpoint, a `LATEST` start resolved once
    /// ([`Source::latest`]) and persisted.
    async fn read_position(&mut self) -> Result<Checkpoint, PipelineError> {
        let mut at = Checkpoint {
            in_flight: None,
            ..self.checkpoint.clone()
        };
        if let Some((_, last_read)) = self.batcher.range() {
            at.sequence_number = Some(last_read.to_string());
            return Ok(at);
        }
        if let Some(delivering) = &self.delivering {
            at.sequence_number = Some(delivering.last().to_string());
            return Ok(at);
        }
        if let Some(in_flight) = &self.replay {
            at.in_flight = Some(in_flight.clone());
            return Ok(at);
        }
        if at.sequence_number.is_none()
            && let Some(latest) = self.source.latest().await?
        {
            self.checkpoint.sequence_number = Some(latest.clone());
            self.store.save(&self.checkpoint)?;
            at.sequence_number = Some(latest);
        }
        Ok(at)
    }

    /// Reads the next batch from [`Pipeline::read_position`].
    async fn read_batch(&mut self) -> Result<SourceBatch, PipelineError> {
        let at = self.read_position().await?;
        Ok(self.source.read(&at, self.read_limits).await?)
    }

    /// Reads one source batch and adds it to the open batch; when a sink's
    /// limit (records, bytes, age) is reached, closes the open batch and
    /// starts writing it to every sink, after committing the batch written
    /// before it; closes the metric periods that are over. A step that reads
    /// nothing (caught up) first waits for the batch being written and
    /// commits it; [`Pipeline::flush`] writes and commits everything.
    ///
    /// # Errors
    /// A source, sink or checkpoint error. The checkpoint is then not advanced:
    /// the next step (or the next process) reads the batch again.
    pub async fn step(&mut self) -> Result<StepReport, PipelineError> {
        let result = self.read_route_and_write().await;
        self.publish_record_counts();
        result
    }

    /// Adds the records counted since the last call to the `RecordsRead` and
    /// `RecordsMatched` counters (once per step: a counter update per record
    /// was a recorder lookup per record).
    fn publish_record_counts(&mut self) {
        let RecordCounts { read, matched } = std::mem::take(&mut self.unpublished);
        if read > 0 {
            ::metrics::counter!(names::RECORDS_READ).increment(read);
        }
        if matched > 0 {
            ::metrics::counter!(names::RECORDS_MATCHED).increment(matched);
        }
    }

    /// [`Pipeline::step`], without publishing its record counts. A read that
    /// is still waiting when [`Pipeline::run`] is asked to stop (stdin with
    /// no input yet) is abandoned: it has changed nothing.
    async fn read_route_and_write(&mut self) -> Result<StepReport, PipelineError> {
        let mut stopped = self.stop.subscribe();
        let SourceBatch { records, progress } = tokio::select! {
            biased;
            read = self.read_batch() => read?,
            Ok(_) = stopped.wait_for(|stopping| *stopping) => return Ok(StepReport::default()),
        };
        let read = records.len();
        self.sample_sweeper_lag(read < self.read_limits.max_records);
        if read == 0 && self.batcher.range().is_none() {
            // Caught up: nothing stays in flight while the pipeline waits.
            let committed = self.settle().await?;
            // Periods start at the first record's time, or now if the stream is quiet.
            self.counter.start_at(self.clock.now_millis());
            let trimmed = self.replay.take().is_some();
            self.checkpoint.in_flight = None;
            if let Some(progress) = &progress {
                // A partition moved without records (a closed shard drained).
                self.checkpoint.commit_partition(progress);
            }
            // One save: the delivery committed, the in-flight range no longer
            // exists in the stream (trimmed), or a partition moved.
            if committed || trimmed || progress.is_some() {
                self.store.save(&self.checkpoint)?;
            }
            let report = self.close_periods(self.clock.now_millis());
            self.notify(&report).await;
            return Ok(report);
        }
        let newest = records.last().map(|r| r.approximate_creation_millis);
        // A partitioned source's read is one batch: its checkpoint can name one
        // partition's progress, so batches do not span reads.
        let partitioned = progress.is_some();
        self.open_progress = progress;
        let split = self.replay.is_none() && !partitioned;
        let mut replay_done = read == 0 || partitioned;
        for record in records {
            if let Some(range) = &self.replay
                && !partitioned
                && sequence_after(&record.sequence_number, &range.last)
            {
                replay_done = true;
                break;
            }
            let sinks = self.observe_and_route(&record)?;
            if split && !self.batcher.fits(&record, &sinks) {
                self.close_batch().await?;
            }
            if self.batcher.push(record, &sinks) && split {
                self.close_batch().await?;
            }
        }
        if partitioned {
            self.close_batch().await?;
        } else if let Some(range) = &self.replay {
            replay_done |= self
                .batcher
                .range()
                .is_some_and(|(_, last)| last == range.last);
            if replay_done {
                self.close_batch().await?;
            }
        } else {
            let now = std::time::Instant::now();
            let unmatched_due = !self.batcher.holds_records()
                && (read < self.read_limits.max_records
                    || self.batcher.range_age(now) >= UNMATCHED_COMMIT_INTERVAL);
            if unmatched_due || self.batcher.is_due(now) {
                self.close_batch().await?;
            }
        }

        if let Some(newest) = newest {
            let age_millis = self.clock.now_millis().saturating_sub(newest).max(0);
            ::metrics::gauge!(names::ITERATOR_AGE_MILLISECONDS).set(age_millis as f64);
            self.iterator_age_millis = Some(age_millis);
        }
        let newest = newest.unwrap_or(0);
        let watermark = if read < self.read_limits.max_records {
            newest.max(self.clock.now_millis())
        } else {
            newest
        };
        let mut report = self.close_periods(watermark);
        report.records = read;
        self.notify(&report).await;
        Ok(report)
    }

    /// Sets the sweeper-lag gauges from the engine this pipeline owns, if
    /// any, when the step caught up (`caught_up`) or [`LAG_SAMPLE_INTERVAL`]
    /// has passed since the last read.
    fn sample_sweeper_lag(&mut self, caught_up: bool) {
        let Some(engine) = &self.engine else {
            return;
        };
        let now = std::time::Instant::now();
        if !caught_up
            && self
                .lag_sampled
                .is_some_and(|at| now.duration_since(at) < LAG_SAMPLE_INTERVAL)
        {
            return;
        }
        engine.publish_sweeper_lag();
        self.lag_sampled = Some(now);
    }

    /// Counts a record and returns the sinks (indices) its routes send it to.
    fn observe_and_route(&mut self, record: &Record) -> Result<Vec<usize>, PipelineError> {
        self.counter.observe(record);
        self.stats.records_read += 1;
        self.unpublished.read += 1;
        if record.is_ttl_deletion {
            self.stats.ttl_deletions += 1;
        }
        let (matched, sinks) =
            self.routing
                .match_record(record)
                .map_err(|e| SourceError::Record {
                    table: record.table_name.clone(),
                    sequence_number: record.sequence_number.clone(),
                    message: e.to_string(),
                })?;
        self.unpublished.matched += u64::from(matched);
        if !sinks.is_empty() {
            self.stats.records_matched += 1;
        }
        Ok(sinks)
    }

    /// Delivers the step's alarm state changes to the configured notifiers.
    async fn notify(&self, report: &StepReport) {
        for transition in &report.transitions {
            crate::notify::deliver_all(&self.notifiers, transition).await;
        }
    }

    fn close_periods(&mut self, watermark_millis: i64) -> StepReport {
        let datapoints = self.counter.close_through(watermark_millis);
        let mut transitions = Vec::new();
        for point in &datapoints {
            run::publish(point, false);
            for alarm in &mut self.alarms {
                for transition in alarm.observe(point) {
                    tracing::warn!(
                        alarm = %transition.alarm_name,
                        from = %transition.from,
                        to = %transition.to,
                        at_secs = transition.at_secs,
                        value = ?transition.value,
                        "alarm state changed"
                    );
                    transitions.push(transition);
                }
            }
        }
        StepReport {
            records: 0,
            datapoints,
            transitions,
        }
    }

    /// Closes metric periods up to `watermark_millis` (epoch ms) without reading:
    /// used when a run ends at a known time.
    pub fn close_periods_through(&mut self, watermark_millis: i64) -> StepReport {
        self.close_periods(watermark_millis)
    }
}
