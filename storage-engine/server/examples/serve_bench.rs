//! `ttlstream serve`'s speed beside moto's, measured in the same run. Run
//! with `--release`:
//!
//! `cargo run --release -p ttlstream-server --example serve_bench -- [secs_per_phase] [rounds]`
//!
//! 32 concurrent `aws-sdk-dynamodb` clients (one task each) on loopback send
//! PutItem for `secs_per_phase` seconds (default 5, at least 5), then
//! GetItem of the keys written, first against the engine's server (the code
//! `ttlstream serve` runs: system clock, the TTL sweeper running, TTL
//! enabled on the table), then against `moto_server`
//! (`$TTLSTREAM_MOTO_SERVER`, else installed by `scripts/test-tools.sh`
//! under target/tools); `rounds` times (default 3, at least 3), alternating,
//! each round on a fresh table. Prints per phase requests/s, p50 / p99
//! latency and the server's CPU microseconds per request (the server
//! runtime's threads for ttlstream, the moto process for moto), then the
//! median rate of each operation and server over the rounds and their ratio
//! (target: ttlstream >= 20x moto). Items: a String key, a TTL Number one
//! day ahead, 100 bytes of data. SDK retries are off so an error is
//! counted, not hidden.
#![allow(clippy::unwrap_used, missing_docs)]

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType, TimeToLiveSpecification,
};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use ttlstream_engine::{Engine, EngineOptions, SweeperOptions};
use ttlstream_server::{Server, ServerOptions};

const CLIENTS: usize = 32;
const TABLE: &str = "BenchSessions";

#[derive(Clone, Copy, Debug)]
enum Op {
    Put,
    Get,
}

struct PhaseResult {
    /// Server CPU time spent in the phase, microseconds.
    cpu_micros: u64,
    requests: usize,
    /// Requests per client, in client order (a put's keys are `0..n`).
    per_client: Vec<usize>,
    errors: usize,
    secs: f64,
    p50_micros: u64,
    p99_micros: u64,
}

impl PhaseResult {
    fn per_sec(&self) -> f64 {
        self.requests as f64 / self.secs
    }

    fn cpu_micros_per_request(&self) -> f64 {
        self.cpu_micros as f64 / self.requests.max(1) as f64
    }
}

/// Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`).
fn clock_ticks_per_sec() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

/// utime + stime, in clock ticks, of a `/proc/.../stat` file.
fn stat_ticks(path: &str) -> u64 {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    // Fields after the `(comm)`: state is field 3; utime 14, stime 15.
    let Some(rest) = text.rsplit_once(')').map(|(_, r)| r) else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

/// Where to read a server's CPU time.
#[derive(Clone)]
enum Cpu {
    /// The threads (`/proc/self/task/<tid>`) of the in-process server runtime.
    Threads(Arc<Mutex<Vec<String>>>),
    /// A server process.
    Process(u32),
}

impl Cpu {
    fn micros(&self, ticks_per_sec: u64) -> u64 {
        let ticks: u64 = match self {
            Cpu::Threads(tids) => tids
                .lock()
                .unwrap()
                .iter()
                .map(|tid| stat_ticks(&format!("/proc/self/task/{tid}/stat")))
                .sum(),
            Cpu::Process(pid) => stat_ticks(&format!("/proc/{pid}/stat")),
        };
        ticks * 1_000_000 / ticks_per_sec.max(1)
    }
}

fn client(url: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "bench"))
        .retry_config(RetryConfig::disabled())
        .endpoint_url(url)
        .build();
    Client::from_conf(config)
}

async fn prepare_table(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("UserName")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("UserName")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name("ExpirationTime")
                .enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

fn key(worker: usize, i: usize) -> AttributeValue {
    AttributeValue::S(format!("user-{worker:02}-{i:09}"))
}

/// One phase: every client loops `op` until `secs` pass. Puts write keys
/// `0..`; gets read the keys that client's puts wrote (`written[client]`),
/// round and round; a get that finds no item counts as an error.
async fn phase(
    clients: &[Client],
    table: &str,
    op: Op,
    secs: f64,
    written: &[usize],
    cpu: &Cpu,
) -> PhaseResult {
    let ticks_per_sec = clock_ticks_per_sec();
    let cpu_before = cpu.micros(ticks_per_sec);
    let expires = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 86_400;
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(secs);
    let mut tasks = Vec::new();
    for (worker, c) in clients.iter().enumerate() {
        let c = c.clone();
        let table = table.to_string();
        let have = written.get(worker).copied().unwrap_or(0).max(1);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            let mut i = 0usize;
            while Instant::now() < deadline {
                let t = Instant::now();
                let ok = match op {
                    Op::Put => c
                        .put_item()
                        .table_name(&table)
                        .item("UserName", key(worker, i))
                        .item("ExpirationTime", AttributeValue::N(expires.to_string()))
                        .item("Data", AttributeValue::S("x".repeat(100)))
                        .send()
                        .await
                        .is_ok(),
                    Op::Get => c
                        .get_item()
                        .table_name(&table)
                        .key("UserName", key(worker, i % have))
                        .send()
                        .await
                        .is_ok_and(|o| o.item().is_some()),
                };
                latencies.push(u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX));
                if !ok {
                    errors += 1;
                }
                i += 1;
            }
            (latencies, errors, i)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    let mut per_client = Vec::new();
    for t in tasks {
        let (l, e, n) = t.await.unwrap();
        all.extend(l);
        errors += e;
        per_client.push(n);
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu_micros = cpu.micros(ticks_per_sec).saturating_sub(cpu_before);
    all.sort_unstable();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    PhaseResult {
        cpu_micros,
        requests: all.len(),
        per_client,
        errors,
        secs,
        p50_micros: pct(0.50),
        p99_micros: pct(0.99),
    }
}

/// Puts then gets against `url` on a fresh table `table`; returns both
/// phases.
async fn run(
    name: &str,
    url: &str,
    table: &str,
    secs: f64,
    cpu: &Cpu,
) -> (PhaseResult, PhaseResult) {
    let clients: Vec<Client> = (0..CLIENTS).map(|_| client(url)).collect();
    prepare_table(&clients[0], table).await;
    // Warm-up: each client opens its connection.
    for (w, c) in clients.iter().enumerate() {
        c.put_item()
            .table_name(table)
            .item("UserName", AttributeValue::S(format!("warm-{w}")))
            .send()
            .await
            .unwrap();
    }
    let put = phase(&clients, table, Op::Put, secs, &[], cpu).await;
    // Each client reads back the keys it wrote.
    let get = phase(&clients, table, Op::Get, secs, &put.per_client, cpu).await;
    for (op, r) in [("PutItem", &put), ("GetItem", &get)] {
        println!(
            "{name:<16} {op:<8} {:>8} requests {:>6.1} s {:>10.0} req/s   p50 {:>7.2} ms   p99 {:>7.2} ms   server CPU {:>7.1} us/request   errors {}",
            r.requests,
            r.secs,
            r.per_sec(),
            r.p50_micros as f64 / 1000.0,
            r.p99_micros as f64 / 1000.0,
            r.cpu_micros_per_request(),
            r.errors
        );
    }
    (put, get)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `$TTLSTREAM_MOTO_SERVER`, else what `scripts/test-tools.sh` installs.
fn moto_server() -> PathBuf {
    if let Some(p) = std::env::var_os("TTLSTREAM_MOTO_SERVER").map(PathBuf::from)
        && p.is_file()
    {
        return p;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    eprintln!("TTLSTREAM_MOTO_SERVER unset: installing moto with scripts/test-tools.sh");
    let out = Command::new("bash")
        .arg(root.join("scripts/test-tools.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run scripts/test-tools.sh");
    assert!(out.status.success(), "scripts/test-tools.sh failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("export TTLSTREAM_MOTO_SERVER="))
        .expect("test-tools.sh prints TTLSTREAM_MOTO_SERVER");
    PathBuf::from(line.trim_matches('\''))
}

struct Moto(Child);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_moto() -> (Moto, String) {
    let program = moto_server();
    let port = free_port();
    let child = Command::new(&program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
    let moto = Moto(child);
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            Instant::now() < deadline,
            "moto_server did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (moto, format!("http://{addr}"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args
        .next()
        .map(|a| a.parse().expect("secs_per_phase: a number"))
        .unwrap_or(5.0_f64)
        .max(5.0);
    let rounds: usize = args
        .next()
        .map(|a| a.parse().expect("rounds: a whole number"))
        .unwrap_or(3)
        .max(3);
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let sweeper = engine.start_sweeper(SweeperOptions::default());
    // The server on its own runtime, as its own process would have; its
    // threads (blocking ones kept alive) are where its CPU time is read.
    let server_threads = Arc::new(Mutex::new(Vec::new()));
    let recorded = server_threads.clone();
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_keep_alive(Duration::from_secs(24 * 3600))
        .on_thread_start(move || {
            if let Ok(link) = std::fs::read_link("/proc/thread-self")
                && let Some(tid) = link.file_name()
            {
                recorded
                    .lock()
                    .unwrap()
                    .push(tid.to_string_lossy().into_owned());
            }
        })
        .build()
        .unwrap();
    let server = server_rt
        .block_on(Server::bind(
            engine.clone(),
            ServerOptions {
                listen: "127.0.0.1:0".parse().unwrap(),
                ..ServerOptions::default()
            },
        ))
        .unwrap();
    let url = format!("http://{}", server.local_addr().unwrap());
    server_rt.spawn(server.run(std::future::pending()));
    let ours_cpu = Cpu::Threads(server_threads);

    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{CLIENTS} concurrent aws-sdk-dynamodb clients on loopback, {secs} s per phase, {rounds} rounds, {} CPUs",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let (moto, moto_url) = start_moto();
    let moto_cpu = Cpu::Process(moto.0.id());
    let (mut ours_put, mut ours_get, mut moto_put, mut moto_get) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let table = format!("{TABLE}{round}");
        let (p, g) = client_rt.block_on(run("ttlstream serve", &url, &table, secs, &ours_cpu));
        ours_put.push(p.per_sec());
        ours_get.push(g.per_sec());
        let (p, g) = client_rt.block_on(run("moto_server", &moto_url, &table, secs, &moto_cpu));
        moto_put.push(p.per_sec());
        moto_get.push(g.per_sec());
    }
    let (op, og, mp, mg) = (
        median(ours_put),
        median(ours_get),
        median(moto_put),
        median(moto_get),
    );
    println!(
        "median of {rounds} rounds (req/s): ttlstream PutItem {op:.0}, GetItem {og:.0}; moto PutItem {mp:.0}, GetItem {mg:.0}"
    );
    println!(
        "ratio (ttlstream / moto, medians): PutItem {:.1}x, GetItem {:.1}x (target >= 20x)",
        op / mp,
        og / mg
    );
    drop(moto);
    sweeper.stop();
}
