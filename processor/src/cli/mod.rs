//! The `ttlstream` command line. The binary is `fn main() { ttlstream::cli::main() }`.
//!
//! Exit codes: 0 success; 1 a runtime failure (I/O, engine, sink); 2 bad input
//! (usage; an invalid config, pattern, alarm or event file; a replay file that
//! is missing or holds a malformed line under `on_malformed = "fail"`; an
//! engine data directory or table that is not there).

mod alarm;
mod filter;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serve_pipeline;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use crate::config::Config;
use crate::demo::{self, DemoOptions};

/// An event-driven stream processor for TTL deletions.
#[derive(Debug, Parser)]
#[command(name = "ttlstream", version, about, long_about = None)]
pub struct Cli {
    /// Log filter (tracing `EnvFilter` syntax, e.g. `info`, `ttlstream=debug`).
    /// Logs go to stderr. Default: `RUST_LOG`, else `info` for `run`, `error` for `demo`, `warn` otherwise.
    #[arg(long, global = true, env = "TTLSTREAM_LOG")]
    pub log: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job end to end on the bundled engine: the guide's SessionData
    /// table, TTL deletions archived, metric and alarm, with an accelerated clock.
    Demo {
        /// Working directory for the engine data, checkpoint and config files;
        /// must be empty or missing. Default: a new directory under the system
        /// temporary directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Archive directory. Default: `archive` beside the data.
        #[arg(long)]
        archive_dir: Option<PathBuf>,
        /// Generated sessions written besides the five seed items.
        #[arg(long, default_value_t = 10_000)]
        items: u64,
        /// Simulated seconds per real second.
        #[arg(long, default_value_t = 1_440.0)]
        speed: f64,
        /// TimeToLiveDeletedItemCount period in seconds (must divide 3600).
        #[arg(long, default_value_t = 600)]
        period_secs: u64,
        /// Whose TTL to show: `dynamodb` (the guide's SessionData),
        /// `tablestore` (table TTL and max versions) or `spanner` (a row
        /// deletion policy with an interleaved child).
        #[arg(long, value_enum, default_value = "dynamodb")]
        model: crate::sources::engine::TtlModel,
    },
    /// The sidecar: read the source, route, deliver, checkpoint, until SIGTERM/SIGINT.
    Run {
        /// The TOML config file.
        #[arg(long)]
        config: PathBuf,
        /// Serve Prometheus text on http://ADDR/metrics (overrides
        /// `[metrics] prometheus_listen`), e.g. 127.0.0.1:9464.
        #[arg(long, env = "TTLSTREAM_PROMETHEUS_LISTEN")]
        prometheus_listen: Option<std::net::SocketAddr>,
    },
    /// Alarm tools: simulate an alarm file on datapoints, or apply it to CloudWatch.
    Alarm {
        /// What to do with alarms.
        #[command(subcommand)]
        command: alarm::AlarmCommand,
    },
    /// The bundled engine behind its DynamoDB-compatible API (loopback only),
    /// with the TTL sweeper running, until SIGTERM/SIGINT.
    // Feature `serve` (default); the Lambda package builds without it.
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Event-pattern tools.
    Filter {
        /// What to do with patterns.
        #[command(subcommand)]
        command: filter::FilterCommand,
    },
}

/// Parses the process arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_level = match cli.command {
        Command::Run { .. } => "info",
        #[cfg(feature = "serve")]
        Command::Serve(_) => "info",
        // The demo prints its own summary, transitions included.
        Command::Demo { .. } => "error",
        Command::Filter { .. } | Command::Alarm { .. } => "warn",
    };
    let filter = cli
        .log
        .as_deref()
        .map(EnvFilter::new)
        .or_else(|| EnvFilter::try_from_default_env().ok())
        .unwrap_or_else(|| EnvFilter::new(default_level));
    // Colours only on a terminal: journald, `kubectl logs` and log files get
    // plain text.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();

    match cli.command {
        Command::Filter { command } => filter::run(command),
        Command::Alarm { command } => alarm::run(command),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(args),
        Command::Demo {
            data_dir,
            archive_dir,
            items,
            speed,
            period_secs,
            model,
        } => {
            if period_secs == 0 || 3600 % period_secs != 0 {
                eprintln!(
                    "error: --period-secs {period_secs} must divide 3600 (the alarm's Period)"
                );
                return ExitCode::from(2);
            }
            if !(speed.is_finite() && speed > 0.0) {
                eprintln!("error: --speed must be a positive number");
                return ExitCode::from(2);
            }
            let work_dir = data_dir.unwrap_or_else(|| {
                let stamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or_default();
                std::env::temp_dir().join(format!("ttlstream-demo-{}-{stamp}", std::process::id()))
            });
            let archive_dir = archive_dir.unwrap_or_else(|| work_dir.join("archive"));
            let options = DemoOptions {
                work_dir,
                archive_dir,
                items,
                speed,
                period_secs,
                model,
            };
            block_on(async {
                match demo::run(&options).await {
                    Ok(summary) => {
                        print!("{summary}");
                        if summary.is_complete() {
                            ExitCode::SUCCESS
                        } else {
                            ExitCode::FAILURE
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        ExitCode::FAILURE
                    }
                }
            })
        }
        Command::Run {
            config,
            prometheus_listen,
        } => {
            let config = match Config::load(&config) {
                Ok(mut config) => {
                    if prometheus_listen.is_some() {
                        config.metrics.prometheus_listen = prometheus_listen;
                    }
                    config
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            block_on(async {
                match crate::sidecar::run(&config, shutdown_signal()).await {
                    Ok(_) => ExitCode::SUCCESS,
                    Err(e) if e.is_bad_input() => {
                        eprintln!("error: {e}");
                        ExitCode::from(2)
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        ExitCode::FAILURE
                    }
                }
            })
        }
    }
}

/// Completes on SIGTERM or SIGINT.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs `future` on a new runtime. A blocking read still waiting when it
/// completes (stdin with no input, abandoned at shutdown) does not hold the
/// process: the runtime waits at most a second for such threads.
fn block_on<F: std::future::Future<Output = ExitCode>>(future: F) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => {
            let code = runtime.block_on(future);
            runtime.shutdown_timeout(std::time::Duration::from_secs(1));
            code
        }
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}
