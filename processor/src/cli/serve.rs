//! `ttlstream serve`: the bundled engine behind its DynamoDB-compatible API
//! (the engine's `server` feature), with the TTL sweeper running.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use ttlstream_engine::server::{MAX_REQUEST_BODY_BYTES, Server, ServerOptions};
use ttlstream_engine::{Engine, EngineOptions, SweeperOptions};

/// Flags of `ttlstream serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Engine data directory (created if missing).
    #[arg(long, default_value = "ttlstream-data")]
    pub data_dir: PathBuf,
    /// Address to listen on. Loopback only: SigV4 signatures are not verified
    /// yet, so any other address is refused.
    #[arg(long, default_value = "127.0.0.1:8000")]
    pub listen: SocketAddr,
    /// Real milliseconds between the end of one TTL sweep pass and the start
    /// of the next.
    #[arg(long, default_value_t = 1_000)]
    pub sweep_interval_millis: u64,
}

/// Runs the server until SIGTERM/SIGINT. Exit code 2 for a refused address,
/// 1 for a runtime failure.
pub fn run(args: ServeArgs) -> ExitCode {
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "error: refusing to listen on {}: SigV4 verification is not implemented, so `ttlstream serve` listens on loopback only (127.0.0.1 or ::1)",
            args.listen
        );
        return ExitCode::from(2);
    }
    let engine = match Engine::open(&args.data_dir, EngineOptions::default()) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let sweeper = match engine.try_start_sweeper(SweeperOptions {
        interval: Duration::from_millis(args.sweep_interval_millis),
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
        ..ServerOptions::default()
    };
    let code = super::block_on(async move {
        let server = match Server::bind(engine, options).await {
            Ok(server) => server,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Ok(addr) = server.local_addr() {
            eprintln!("ttlstream serve: DynamoDB API on http://{addr}");
        }
        match server.run(super::shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        }
    });
    sweeper.stop();
    code
}
