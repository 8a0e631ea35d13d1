//! Test servers as child processes on 127.0.0.1: a free port, started, waited
//! for until they accept connections, stopped (and started again on the same
//! port for outage tests), killed when dropped. One helper for every server
//! the tests run against (s3s-fs, moto_server, ...).

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
    /// and waits up to 30 s until 127.0.0.1:port accepts connections.
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
        self.child = Some(child);
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!(
                    "{} exited before listening: {status}",
                    self.program.display()
                );
            }
            assert!(
                Instant::now() < deadline,
                "{} did not listen on {address} within 30 s",
                self.program.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}
