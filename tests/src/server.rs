//! Test servers as child processes on 127.0.0.1: a free port, started, waited
//! for until they answer HTTP, stopped (and started again on the same port for
//! outage tests), killed when dropped. One helper for every server the tests
//! run against (s3s-fs, moto_server, `ttlstream serve`, ...), and one
//! readiness wait ([`wait_ready`]) for them and `cargo lambda watch`.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The path of a test tool named by an environment variable that
/// `scripts/test-tools.sh` exports (e.g. `TTLSTREAM_S3S_FS`).
///
/// # Panics
/// Under `CI=true` when the variable is unset or names no file: a missing
/// server is a failure there, never a skip. Elsewhere it prints a note and
/// returns `None`, and the test returns early.
pub fn tool(variable: &str) -> Option<PathBuf> {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    if path.is_none() {
        let message = format!(
            "{variable} is not set to an executable: run the tests with `bash scripts/test.sh` \
             (or `eval \"$(bash scripts/test-tools.sh)\"` first)"
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message}");
        }
        eprintln!("skipping: {message}");
    }
    path
}

/// A free TCP port on 127.0.0.1 (free when this returns).
///
/// # Panics
/// When no port can be bound.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

/// Whether a server accepts a connection on `address`. A connection to a
/// free port in the ephemeral range can take that same port as its own
/// source and connect to itself (TCP self-connect); such a connection does
/// not count.
pub fn accepts(address: SocketAddr) -> Option<TcpStream> {
    let stream = TcpStream::connect_timeout(&address, Duration::from_millis(500)).ok()?;
    let own = stream.local_addr().ok()?;
    (own != address).then_some(stream)
}

/// Whether an HTTP server answers `GET <path>` on `address` with a status
/// line (any status): readiness proven by an answer, not by a connection.
pub fn answers_http(address: SocketAddr, path: &str) -> bool {
    let Some(mut stream) = accepts(address) else {
        return false;
    };
    let timeout = Some(Duration::from_secs(5));
    if stream.set_read_timeout(timeout).is_err() || stream.set_write_timeout(timeout).is_err() {
        return false;
    }
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let mut status = [0_u8; 5];
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_exact(&mut status).is_ok()
        && &status == b"HTTP/"
}

/// Polls `ready` every 20 ms until it holds or `timeout` passes; `exited`
/// is asked between polls and ends the wait with its message when the
/// server process has exited. Never a fixed wait.
///
/// # Panics
/// When the server exited or was not ready within `timeout`; the message
/// names `what` and includes `log()` (the server's output, if kept).
pub fn wait_ready(
    what: &str,
    timeout: Duration,
    mut ready: impl FnMut() -> bool,
    mut exited: impl FnMut() -> Option<String>,
    log: impl Fn() -> String,
) {
    let deadline = Instant::now() + timeout;
    while !ready() {
        if let Some(status) = exited() {
            panic!("{what} exited before it was ready: {status}\n{}", log());
        }
        assert!(
            Instant::now() < deadline,
            "{what} was not ready within {timeout:?}\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A server process listening on `127.0.0.1:<port>`.
#[derive(Debug)]
pub struct ServerProcess {
    program: PathBuf,
    args: Vec<String>,
    port: u16,
    child: Option<Child>,
}

impl ServerProcess {
    /// Starts `program` with `args` (`{port}` in an argument becomes the port)
    /// and waits up to 60 s until it answers HTTP on 127.0.0.1:port
    /// ([`answers_http`], `GET /`).
    ///
    /// # Panics
    /// When the program cannot be started or never listens.
    pub fn start(program: &Path, args: &[&str]) -> Self {
        let mut server = Self {
            program: program.to_path_buf(),
            args: args.iter().map(|a| a.to_string()).collect(),
            port: free_port(),
            child: None,
        };
        server.restart();
        server
    }

    /// `ttlstream serve` (`binary`: this crate's build of it, the test's
    /// `env!("CARGO_BIN_EXE_ttlstream-e2e")`) with its data under
    /// `data_dir`, the engine clock moved only through `/_ttlstream/clock`,
    /// sweeps only on `/_ttlstream/sweep` (a 1 h interval), and `extra`
    /// flags (credentials, a pipeline).
    ///
    /// # Panics
    /// As [`ServerProcess::start`].
    pub fn serve_manual_clock(binary: &Path, data_dir: &Path, extra: &[&str]) -> Self {
        let data_dir = data_dir.to_str().expect("utf-8 data dir");
        let mut args = vec![
            "serve",
            "--listen",
            "127.0.0.1:{port}",
            "--data-dir",
            data_dir,
            "--clock",
            "manual",
            "--sweep-interval",
            "1h",
        ];
        args.extend_from_slice(extra);
        Self::start(binary, &args)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the process (SIGKILL) and waits for it; the port is then closed.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the process again on the same port (after [`ServerProcess::stop`]).
    ///
    /// # Panics
    /// As [`ServerProcess::start`].
    pub fn restart(&mut self) {
        self.stop();
        let port = self.port.to_string();
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| a.replace("{port}", &port))
            .collect();
        let child = Command::new(&self.program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", self.program.display()));
        // Kept in `self` first, so a server that never answers is killed on drop.
        let child = self.child.insert(child);
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        wait_ready(
            &format!("{} on {address}", self.program.display()),
            Duration::from_secs(60),
            || answers_http(address, "/"),
            || child.try_wait().ok().flatten().map(|s| s.to_string()),
            String::new,
        );
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs a Python test script (`command`: the interpreter with the script and
/// its arguments) and returns the one JSON line it prints.
///
/// # Panics
/// When the script fails (with its output) or its output is not one JSON
/// value.
pub fn python_json(command: &mut Command) -> serde_json::Value {
    let output = command.output().expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{command:?} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}
