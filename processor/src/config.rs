//! The sidecar's configuration file (TOML): source, routes, sinks, metrics, alarms.
//!
//! Every table rejects unknown keys, so a typo is an error that names the key and
//! the file. Paths inside the file (filter files, alarm files, directories) are
//! resolved relative to the directory that holds the config file. `${NAME}`
//! and `${NAME:-default}` are replaced by environment variables
//! (`${NAME}` interpolation).
//!
//! ```toml
//! [engine]
//! data_dir = "data"              # the bundled engine this sidecar owns and sweeps
//!
//! [source.engine]
//! table = "SessionData"          # its stream, read from [engine]
//! model = "dynamodb"             # or "tablestore", "spanner": the table's TTL model
//!
//! [checkpoint]
//! dir = "state"
//!
//! [[routes]]
//! name = "ttl-archive"
//! filter = "filters/ttl-system-deletes.json"
//! sinks = ["archive"]
//!
//! [sinks.archive.file]
//! path = "archive"
//!
//! [metrics]
//! period_secs = 60
//!
//! [[alarms]]
//! file = "alarms/ttl-deletion-anomaly.json"
//! ```

mod files;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use crate::delivery::RetryConfig;
use crate::error::ConfigError;
pub use crate::sinks::SinkConfig;
use crate::sinks::dead_letter::DeadLetterConfig;
use crate::sources::engine::EngineSourceConfig;

/// The whole configuration file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The bundled engine this process owns (`[engine]`): opened, and swept,
    /// by the sidecar ([`crate::engine`]). Default: none (an `engine` source
    /// then reads the engine at its `data_dir` without sweeping it). The
    /// Lambda ignores it; `ttlstream serve --pipeline` refuses it.
    #[serde(default)]
    pub engine: Option<crate::engine::EngineConfig>,
    /// Where change records come from. Required by the sidecar; the Lambda
    /// ignores it (its event source mapping is the source).
    #[serde(default)]
    pub source: Option<SourceConfig>,
    /// Where the source's position is persisted. Required by the sidecar; the
    /// Lambda ignores it (the event source mapping keeps the position).
    #[serde(default)]
    pub checkpoint: Option<CheckpointConfig>,
    /// Which records go to which sinks; a record may match several routes.
    #[serde(default)]
    pub routes: Vec<RouteConfig>,
    /// Named sinks that routes refer to.
    #[serde(default)]
    pub sinks: BTreeMap<String, SinkConfig>,
    /// `TimeToLiveDeletedItemCount` and the processor's own metrics.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Alarm definition files (PutMetricAlarm JSON).
    #[serde(default)]
    pub alarms: Vec<AlarmConfig>,
    /// Where alarm state changes are delivered (`[[notifiers]]`, each with
    /// `webhook = {...}` or `command = {...}`). Default: none (logs only).
    #[serde(default)]
    pub notifiers: Vec<crate::notify::NotifierConfig>,
    /// Batching of source reads.
    #[serde(default)]
    pub batch: BatchConfig,
    /// Retries of failed sink writes.
    #[serde(default)]
    pub retry: RetryConfig,
    /// Where records go that a sink could not take after its retries. Default:
    /// none (the pipeline stops instead, without passing the record).
    #[serde(default)]
    pub dead_letter: Option<DeadLetterConfig>,
    /// What logs may contain.
    #[serde(default)]
    pub logging: LoggingConfig,
}

/// `[logging]`: logs never hold attribute values or TTL values; item keys only
/// when this says so.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoggingConfig {
    /// Log the key attributes of records that were dead-lettered, and object
    /// names built from item keys. Default false.
    #[serde(default)]
    pub log_keys: bool,
    /// Seconds between a running sidecar's progress lines (records read and
    /// their rate, matched, delivered, TTL deletions, how far behind the
    /// stream it is), logged at `info` while it reads records; a quiet
    /// stream logs none. 0: one after every read. Default 60.
    #[serde(default = "default_progress_interval_secs")]
    pub progress_interval_secs: u64,
}

impl Default for LoggingConfig {
    fn default() -> Self {
        Self {
            log_keys: false,
            progress_interval_secs: default_progress_interval_secs(),
        }
    }
}

fn default_progress_interval_secs() -> u64 {
    60
}

/// Who reads the config: the sidecar needs a source and a checkpoint, the
/// Lambda neither; a pipeline `ttlstream serve --pipeline` runs reads the
/// engine that `serve` opened, so its source is `[source.engine]` without a
/// data directory, and it has no `[engine]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Sidecar,
    Lambda,
    Served,
}

/// One source; exactly one of the tables must be present.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum SourceConfig {
    /// The bundled engine's stream (`[source.engine]`): the engine of
    /// `[engine]`, the one `ttlstream serve` serves, or one at a data
    /// directory, read without sweeping.
    Engine(EngineSourceConfig),
    /// NDJSON stream records from a file or stdin, for replays (`[source.file]`).
    File(crate::sources::file::FileSourceConfig),
    /// A DynamoDB stream read with the DynamoDB Streams API
    /// (`[source.dynamodb_streams]`).
    DynamodbStreams(crate::sources::dynamodb_streams::DynamodbStreamsConfig),
}

/// Where the checkpoint lives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointConfig {
    /// Directory for checkpoint files (created if missing). One file per source
    /// (`<table>.checkpoint.json`).
    pub dir: PathBuf,
}

/// A route: records that match `filter` are written to every sink in `sinks`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    /// Route name, used in logs and metrics.
    pub name: String,
    /// A filter file: a bare event pattern or Lambda `FilterCriteria` JSON
    /// (`{"Filters":[{"Pattern":"..."}]}`). Omit to route every record.
    #[serde(default)]
    pub filter: Option<PathBuf>,
    /// Names of sinks under `[sinks.<name>]`.
    pub sinks: Vec<String>,
}

/// Metric settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Length of one metric period in seconds. Default 60 (CloudWatch's
    /// standard resolution). Alarm periods must be multiples of it.
    #[serde(default = "default_period_secs")]
    pub period_secs: u64,
    /// Serve Prometheus text on `http://<this address>/metrics`, e.g.
    /// `"127.0.0.1:9464"` (loopback: only this host can scrape). Default: off.
    #[serde(default)]
    pub prometheus_listen: Option<std::net::SocketAddr>,
    /// Write CloudWatch Embedded Metric Format lines to stdout once per period
    /// (for the Lambda, whose stdout goes to CloudWatch Logs). Default false.
    #[serde(default)]
    pub emf: bool,
    /// Publish with CloudWatch PutMetricData once per period (region and
    /// credentials from the usual AWS sources). Default false.
    #[serde(default)]
    pub cloudwatch: bool,
    /// CloudWatch namespace for `emf` and `cloudwatch`. Default `TTLStream`;
    /// must not start with `AWS/` (reserved for AWS services).
    #[serde(default = "default_namespace")]
    pub namespace: String,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            period_secs: default_period_secs(),
            prometheus_listen: None,
            emf: false,
            cloudwatch: false,
            namespace: default_namespace(),
        }
    }
}

fn default_namespace() -> String {
    crate::metrics::cloudwatch::DEFAULT_NAMESPACE.to_string()
}

fn default_period_secs() -> u64 {
    60
}

/// One alarm.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlarmConfig {
    /// An alarm definition in PutMetricAlarm's JSON shape.
    pub file: PathBuf,
}

/// How many records one source read may return.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchConfig {
    /// Maximum records per batch. Default 1000 (GetRecords' maximum). At least 1.
    #[serde(default = "default_max_records")]
    pub max_records: usize,
    /// Milliseconds to wait before polling again when the source had nothing new.
    /// Default 200.
    #[serde(default = "default_poll_interval_millis")]
    pub poll_interval_millis: u64,
}

impl Default for BatchConfig {
    fn default() -> Self {
        Self {
            max_records: default_max_records(),
            poll_interval_millis: default_poll_interval_millis(),
        }
    }
}

fn default_max_records() -> usize {
    1000
}

fn default_poll_interval_millis() -> u64 {
    200
}

impl Config {
    /// Reads and validates a config file; relative paths inside it are resolved
    /// against the file's directory. `${NAME}` and `${NAME:-default}` in the
    /// file are replaced by environment variables first
    /// (`${NAME}` interpolation).
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read, [`ConfigError::Parse`]
    /// for TOML errors and unknown keys (with line and column) and for an
    /// unset or unsafe environment variable, and
    /// [`ConfigError::Invalid`] for values that parse but make no sense (a route
    /// naming a missing sink, a zero period) and for a file the config refers
    /// to (a filter, an alarm, the replay file) that cannot be read, naming
    /// its key and the line that refers to it.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Self::load_as(path, Role::Sidecar)
    }

    /// Reads a config file for the Lambda: as [`Config::load`], but `[source]`
    /// and `[checkpoint]` may be left out and are ignored when present (the
    /// event source mapping reads the stream and keeps the position), and
    /// metrics are EMF lines on stdout (`metrics.emf` on, no Prometheus
    /// listener).
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn load_lambda(path: &Path) -> Result<Config, ConfigError> {
        Self::load_as(path, Role::Lambda)
    }

    /// Reads a config file for the pipeline `ttlstream serve --pipeline`
    /// runs on the engine it serves: as [`Config::load`], but the source
    /// must be `[source.engine]` without `data_dir`, and `[engine]` is
    /// refused (`serve` owns the engine, its sweeper and its clock).
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn load_served(path: &Path) -> Result<Config, ConfigError> {
        Self::load_as(path, Role::Served)
    }

    fn load_as(path: &Path, role: Role) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let text = crate::interpolate::interpolate(&text, |name| std::env::var(name).ok())
            .map_err(|e| ConfigError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let mut config = Self::parse_as(&text, path, role)?;
        let base = path.parent().unwrap_or(Path::new("."));
        config.resolve_paths(base);
        files::check_readable(&config, &text, path)?;
        Ok(config)
    }

    /// Parses and validates config text; `origin` names the file in errors.
    /// Paths are left as written.
    ///
    /// # Errors
    /// As [`Config::load`], except `Read`.
    pub fn parse(text: &str, origin: &Path) -> Result<Config, ConfigError> {
        Self::parse_as(text, origin, Role::Sidecar)
    }

    fn parse_as(text: &str, origin: &Path, role: Role) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })?;
        if role == Role::Lambda {
            config.source = None;
            config.checkpoint = None;
            config.engine = None;
            // A function's stdout goes to CloudWatch Logs: EMF is how it
            // publishes metrics, and nothing can scrape it.
            config.metrics.emf = true;
            config.metrics.prometheus_listen = None;
        }
        config.validate(origin, role)?;
        Ok(config)
    }

    fn validate(&self, origin: &Path, role: Role) -> Result<(), ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: origin.to_path_buf(),
            message,
        };
        if role == Role::Served {
            if self.engine.is_some() {
                return Err(invalid(
                    "engine: not allowed in a config `ttlstream serve --pipeline` runs: serve owns the engine (--data-dir, the sweeper and clock flags); remove [engine]".into(),
                ));
            }
            match &self.source {
                Some(SourceConfig::Engine(source)) if source.data_dir.is_some() => {
                    return Err(invalid(
                        "source.engine.data_dir: not allowed in a config `ttlstream serve --pipeline` runs: the source reads the engine serve opened (--data-dir); remove it".into(),
                    ));
                }
                Some(SourceConfig::Engine(_)) => {}
                _ => {
                    return Err(invalid(
                        "source: `ttlstream serve --pipeline` reads the engine it serves; use [source.engine] with table (and model)".into(),
                    ));
                }
            }
        }
        if role != Role::Lambda {
            if self.source.is_none() {
                return Err(invalid(
                    "source: missing; add [source.engine], [source.file] or [source.dynamodb_streams]"
                        .into(),
                ));
            }
            if self.checkpoint.is_none() {
                return Err(invalid(
                    "checkpoint: missing; add [checkpoint] dir = \"...\"".into(),
                ));
            }
        }
        if let Some(SourceConfig::DynamodbStreams(streams)) = &self.source {
            streams.validate().map_err(|e| invalid(e.to_string()))?;
        }
        if let Some(SourceConfig::Engine(source)) = &self.source
            && role == Role::Sidecar
        {
            match (&self.engine, &source.data_dir) {
                (None, None) => return Err(invalid(crate::pipeline::NO_ENGINE.into())),
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        "source.engine.data_dir: not allowed with [engine]: the source reads [engine]'s data_dir (remove one of them)"
                            .into(),
                    ));
                }
                _ => {}
            }
        }
        if self.metrics.period_secs == 0 {
            return Err(invalid("metrics.period_secs: must be at least 1".into()));
        }
        if (self.metrics.emf || self.metrics.cloudwatch)
            && let Err(e) = crate::metrics::cloudwatch::check_namespace(&self.metrics.namespace)
        {
            return Err(invalid(format!("metrics.namespace: {e}")));
        }
        if self.batch.max_records == 0 {
            return Err(invalid("batch.max_records: must be at least 1".into()));
        }
        for (name, sink) in &self.sinks {
            sink.check()
                .map_err(|e| invalid(format!("sinks.{name}.{e}")))?;
        }
        if let Some(dead_letter) = &self.dead_letter {
            let Some(sink) = self.sinks.get(&dead_letter.sink) else {
                return Err(invalid(format!(
                    "dead_letter.sink: no sink named `{}`",
                    dead_letter.sink
                )));
            };
            if self
                .routes
                .iter()
                .any(|r| r.sinks.contains(&dead_letter.sink))
            {
                return Err(invalid(format!(
                    "dead_letter.sink: `{}` is also a route's sink; give dead letters their own sink",
                    dead_letter.sink
                )));
            }
            if sink.names_by_keys() {
                return Err(invalid(format!(
                    "dead_letter.sink: `{}` names objects by item keys ({{keys...}}); dead letters need a template without them",
                    dead_letter.sink
                )));
            }
        }
        for (i, route) in self.routes.iter().enumerate() {
            if route.sinks.is_empty() {
                return Err(invalid(format!(
                    "routes[{i}] ({}): sinks: at least one sink is needed",
                    route.name
                )));
            }
            for sink in &route.sinks {
                if !self.sinks.contains_key(sink) {
                    return Err(invalid(format!(
                        "routes[{i}] ({}): sinks: no sink named `{sink}` (defined: {})",
                        route.name,
                        self.sinks.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                }
            }
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        let join = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        if let Some(engine) = &mut self.engine {
            join(&mut engine.data_dir);
        }
        match &mut self.source {
            Some(SourceConfig::Engine(engine)) => {
                if let Some(data_dir) = &mut engine.data_dir {
                    join(data_dir);
                }
            }
            Some(SourceConfig::File(file)) if !file.is_stdin() => join(&mut file.path),
            _ => {}
        }
        if let Some(checkpoint) = &mut self.checkpoint {
            join(&mut checkpoint.dir);
        }
        for route in &mut self.routes {
            if let Some(filter) = &mut route.filter {
                join(filter);
            }
        }
        for sink in self.sinks.values_mut() {
            sink.resolve_paths(base);
        }
        for alarm in &mut self.alarms {
            join(&mut alarm.file);
        }
    }
}

#[cfg(test)]
mod tests;
