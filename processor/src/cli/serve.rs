//! `ttlstream serve`: the bundled engine behind its network APIs
//! (`ttlstream-server`), with the TTL sweeper running, and with
//! `--pipeline FILE` a sidecar pipeline on the same engine
//! (`serve_pipeline.rs`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use tokio::sync::watch;
use ttlstream_engine::{
    Clock, DEFAULT_MAX_DELETES_PER_SWEEP, Engine, EngineOptions, ManualClock, StreamOptions,
    SweeperOptions, SystemClock,
};
use ttlstream_server::{Credentials, MAX_REQUEST_BODY_BYTES, Server, ServerOptions};

use super::serve_pipeline::ServedPipeline;

/// Flags of `ttlstream serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Engine data directory (created if missing).
    #[arg(long, default_value = "ttlstream-data")]
    pub data_dir: PathBuf,
    /// Address to listen on. Loopback only unless credentials are given
    /// (`--credentials` or `--credentials-file`).
    #[arg(long, default_value = "127.0.0.1:8000")]
    pub listen: SocketAddr,
    /// Verify SigV4 signatures against `ACCESS_KEY_ID:SECRET_ACCESS_KEY`.
    /// Prefer the environment variable or `--credentials-file` over the flag
    /// (a flag shows in the process list).
    #[arg(long, env = "TTLSTREAM_CREDENTIALS", hide_env_values = true)]
    pub credentials: Option<String>,
    /// A file whose first line is `ACCESS_KEY_ID:SECRET_ACCESS_KEY`.
    #[arg(long, conflicts_with = "credentials")]
    pub credentials_file: Option<PathBuf>,
    /// Real time between the end of one TTL sweep pass and the start of the
    /// next, e.g. `100ms`, `1s`, `5m`. `POST /_ttlstream/sweep` sweeps at once.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    pub sweep_interval: Duration,
    /// Most TTL deletions per sweep pass (a count, at least 1; all tables
    /// together, shared fairly between them, so a few expired items of one
    /// table wait at most one pass behind another table's backlog). A pass
    /// that spends it all is followed by the next at once, not after
    /// `--sweep-interval`.
    #[arg(long, default_value_t = DEFAULT_MAX_DELETES_PER_SWEEP, value_parser = at_least_one)]
    pub max_deletes_per_sweep: usize,
    /// The engine clock: `system` (wall clock), or `manual` (starts at the
    /// wall clock's time and moves only by `POST /_ttlstream/clock`).
    #[arg(long, value_enum, default_value_t = ClockKind::System)]
    pub clock: ClockKind,
    /// How long (engine clock) a TTL change stays ENABLING / DISABLING and
    /// refuses another UpdateTimeToLive (DynamoDB: up to one hour). Default
    /// `0s`: DescribeTimeToLive reports ENABLED / DISABLED at once, as the
    /// service answers in practice; set e.g. `5s` to see the transition.
    #[arg(long, default_value = "0s", value_parser = humantime::parse_duration)]
    pub ttl_transition: Duration,
    /// The region in ARNs and stream records (`awsRegion`) for requests
    /// that are not signed; a signed request gets the region of its SigV4
    /// credential scope.
    #[arg(long, env = "AWS_REGION", default_value = ttlstream_server::DEFAULT_REGION)]
    pub region: String,
    /// Stream records per shard: a shard holding this many records is
    /// closed at the next record, which opens its child shard (a count;
    /// 0 is taken as 1).
    #[arg(long, default_value_t = StreamOptions::default().max_records_per_shard)]
    pub shard_max_records: u64,
    /// Bytes of the engine's block cache (recently read blocks of items and
    /// stream records); fjall recommends 20 to 25 % of the memory available.
    #[arg(long, default_value_t = ttlstream_engine::DEFAULT_CACHE_SIZE_BYTES)]
    pub cache_size_bytes: u64,
    /// Shard age (engine clock) after which a shard holding a record is
    /// closed at the next record, e.g. `10m`, `4h` (DynamoDB's shards roll
    /// over about every four hours).
    #[arg(long, default_value = "4h", value_parser = humantime::parse_duration)]
    pub shard_max_age: Duration,
    /// How long stream records are kept (engine clock, from each record's
    /// ApproximateCreationDateTime) before retention trims them; reading
    /// trimmed positions is a `TrimmedDataAccessException`; e.g. `1m`,
    /// `24h` (DynamoDB's).
    #[arg(long, default_value = "24h", value_parser = humantime::parse_duration)]
    pub stream_retention: Duration,
    /// A sidecar config whose pipeline runs in this process on the served
    /// engine: `[source.engine]` with `table` and `model` (no `data_dir`),
    /// routes, sinks, `[checkpoint]`, metrics, alarms; no `[engine]`. It
    /// starts once the table exists and stops with the server.
    #[arg(long)]
    pub pipeline: Option<PathBuf>,
}

/// The engine clock of `ttlstream serve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockKind {
    /// The wall clock.
    System,
    /// A clock moved only through the admin path.
    Manual,
}

/// A count flag that must be at least 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The credentials from `--credentials` / `TTLSTREAM_CREDENTIALS` or
/// `--credentials-file`, if any.
fn credentials(args: &ServeArgs) -> Result<Option<Credentials>, String> {
    let (text, source) = match (&args.credentials, &args.credentials_file) {
        (Some(text), _) => (text.clone(), "--credentials".to_string()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let line = text.lines().next().unwrap_or_default().to_string();
            (line, path.display().to_string())
        }
        (None, None) => return Ok(None),
    };
    text.parse().map(Some).map_err(|e| format!("{source}: {e}"))
}

/// Runs the server until SIGTERM/SIGINT. Exit code 2 for bad flags or a
/// refused address, 1 for a runtime failure.
pub fn run(args: ServeArgs) -> ExitCode {
    let credentials = match credentials(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let pipeline = match args.pipeline.as_deref().map(ServedPipeline::load) {
        Some(Ok(pipeline)) => Some(pipeline),
        Some(Err(e)) => {
            eprintln!("error: --pipeline: {e}");
            return ExitCode::from(2);
        }
        None => None,
    };
    if !args.listen.ip().is_loopback() && credentials.is_none() {
        eprintln!(
            "error: refusing to listen on {}: without --credentials (or TTLSTREAM_CREDENTIALS, --credentials-file) to verify SigV4 signatures against, `ttlstream serve` listens on loopback only (127.0.0.1 or ::1)",
            args.listen
        );
        return ExitCode::from(2);
    }
    let manual_clock = (args.clock == ClockKind::Manual)
        .then(|| Arc::new(ManualClock::new(SystemClock.now_millis())));
    let clock: Arc<dyn Clock> = match &manual_clock {
        Some(c) => c.clone(),
        None => Arc::new(SystemClock),
    };
    let engine = match Engine::open(
        &args.data_dir,
        EngineOptions {
            clock,
            stream: StreamOptions {
                retention: args.stream_retention,
                max_records_per_shard: args.shard_max_records,
                max_shard_age: args.shard_max_age,
            },
            cache_size_bytes: args.cache_size_bytes,
        },
    ) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let sweeper = match engine.try_start_sweeper(SweeperOptions {
        interval: args.sweep_interval,
        max_deletes_per_sweep: Some(args.max_deletes_per_sweep),
        ..SweeperOptions::default()
    }) {
        Ok(sweeper) => sweeper,
        Err(e) => {
            eprintln!("error: cannot start the TTL sweeper: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = ServerOptions {
        listen: args.listen,
        max_request_body_bytes: MAX_REQUEST_BODY_BYTES,
        ttl_transition: args.ttl_transition,
        region: args.region.clone(),
        credentials,
        manual_clock,
    };
    let signed = options.credentials.is_some();
    let code = super::block_on(async move {
        let server = match Server::bind(engine.clone(), options).await {
            Ok(server) => server,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Ok(addr) = server.local_addr() {
            eprintln!(
                "ttlstream serve: DynamoDB, Tablestore and Spanner APIs on http://{addr} (SigV4 {}; clock {:?}; TTL transition {}){}",
                if signed { "verified" } else { "not verified" },
                args.clock,
                humantime::format_duration(args.ttl_transition),
                pipeline.as_ref().map_or(String::new(), |p| format!(
                    "; pipeline {}",
                    p.path().display()
                )),
            );
        }
        // SIGTERM / SIGINT, or a pipeline that failed, stops both.
        let (stop, stopped) = watch::channel(false);
        let stop = Arc::new(stop);
        let signal = tokio::spawn({
            let stop = stop.clone();
            async move {
                super::shutdown_signal().await;
                stop.send_replace(true);
            }
        });
        // In this task beside the server (a pipeline is not `Send`).
        let piped = async {
            let pipeline = pipeline?;
            let result = pipeline
                .run(engine, args.data_dir.clone(), stopped.clone())
                .await;
            stop.send_replace(true);
            Some(result)
        };
        let mut server_stopped = stopped.clone();
        let served = async {
            let served = server
                .run(async move {
                    let _ = server_stopped.wait_for(|stopped| *stopped).await;
                })
                .await;
            stop.send_replace(true);
            served
        };
        let (served, piped) = tokio::join!(served, piped);
        signal.abort();
        let mut code = match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
        if let Some(Err(e)) = piped {
            eprintln!("error: pipeline: {e}");
            code = ExitCode::from(if e.is_bad_input() { 2 } else { 1 });
        }
        code
    });
    sweeper.stop();
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn a_sweep_pass_deletes_at_most_10000_unless_told_otherwise() {
        let cli = Cli::try_parse_from(["serve"]).expect("defaults");
        assert_eq!(cli.serve.max_deletes_per_sweep, 10_000);
        let cli = Cli::try_parse_from(["serve", "--max-deletes-per-sweep", "250"]).expect("flag");
        assert_eq!(cli.serve.max_deletes_per_sweep, 250);
        let refused = Cli::try_parse_from(["serve", "--max-deletes-per-sweep", "0"]);
        let message = refused.expect_err("0 is refused").to_string();
        assert!(
            message.contains("--max-deletes-per-sweep") && message.contains("at least 1"),
            "{message}"
        );
    }
}
