//! Helpers shared by the processor's integration tests.

#![allow(dead_code)]

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_http_client::test_util::{ReplayEvent, StaticReplayClient};
use aws_smithy_types::body::SdkBody;

/// A CloudWatch client whose HTTP layer is the SDK's recorded-request test
/// client (moto does not speak the SDK's CBOR protocol): one empty CBOR reply
/// per entry of `statuses`, in order. Request compression is off so the CBOR
/// request bodies can be inspected.
pub fn cloudwatch_replay(statuses: &[u16]) -> (Client, StaticReplayClient) {
    let events = statuses
        .iter()
        .map(|status| {
            ReplayEvent::new(
                http::Request::builder()
                    .uri("https://monitoring.us-east-1.amazonaws.com/")
                    .body(SdkBody::empty())
                    .expect("request"),
                http::Response::builder()
                    .status(*status)
                    .header("smithy-protocol", "rpc-v2-cbor")
                    .header("content-type", "application/cbor")
                    .body(SdkBody::from(vec![0xa0_u8]))
                    .expect("response"),
            )
        })
        .collect();
    let http = StaticReplayClient::new(events);
    let conf = aws_sdk_cloudwatch::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "test"))
        .http_client(http.clone())
        .disable_request_compression(true)
        .build();
    (Client::from_conf(conf), http)
}

/// Every JSON line of the `.ndjson` files directly in `dir`, files in name
/// order (sinks name files by sequence number, so this is delivery order).
/// A missing directory reads as no lines.
pub fn ndjson_lines(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.expect("entry").path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "ndjson"));
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .expect("read")
                .lines()
                .map(|l| serde_json::from_str(l).expect("json"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// An engine under `dir/data` on `clock` holding the seed's five sessions in
/// `SessionData` (keys `UserName`, `SessionId`; TTL on `ExpirationTime`;
/// stream view `view`): five INSERT records, nothing expired yet.
pub fn seed_engine(
    dir: &std::path::Path,
    clock: std::sync::Arc<ttlstream_engine::ManualClock>,
    view: ttlstream_engine::StreamViewType,
) -> ttlstream_engine::Engine {
    use ttlstream_engine::{
        Engine, EngineOptions, ScalarAttributeType, TableDefinition, TimeToLiveSpecification,
    };
    let engine = Engine::open(
        dir.join("data"),
        EngineOptions {
            clock,
            ..Default::default()
        },
    )
    .expect("engine");
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("SessionData", "UserName", ScalarAttributeType::S)
                .with_sort_key("SessionId", ScalarAttributeType::S)
                .with_stream(view),
        )
        .expect("table");
    engine
        .dynamodb()
        .update_time_to_live(
            "SessionData",
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".into(),
                enabled: true,
            },
        )
        .expect("ttl");
    engine
        .dynamodb()
        .put_items("SessionData", ttlstream::demo::items::seed_items())
        .expect("items");
    engine
}

/// The filter that selects TTL deletions, as shipped.
pub const TTL_FILTER: &str = include_str!("../../../../deploy/filters/ttl-system-deletes.json");

/// A sidecar config's `[source.engine]` reading [`seed_engine`]'s table.
pub const SEED_ENGINE_SOURCE: &str = r#"
[source.engine]
data_dir = "data"
table = "SessionData"
"#;

/// A sidecar config's checkpoints in `state` and its one route, `ttl`: what
/// `ttl.json` ([`write_config`]'s TTL filter) matches goes to the file sink
/// `archive`, under `archive`. Tables such as `[batch]` or `[metrics]` may
/// follow it.
pub const TTL_ROUTE_TO_FILE: &str = r#"
[checkpoint]
dir = "state"

[[routes]]
name = "ttl"
filter = "ttl.json"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"
"#;

/// Writes `config` (TOML) as `dir/ttlstream.toml` and [`TTL_FILTER`] as
/// `dir/ttl.json`; the config's path.
pub fn write_config(dir: &std::path::Path, config: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("ttl.json"), TTL_FILTER).expect("filter");
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, config).expect("config");
    path
}

/// `count` TTL deletions of `SessionData` as NDJSON lines in the Lambda
/// event's shape, `SequenceNumber`s 100000000000000000001 up, one second
/// apart from 2019-10-23 11:06 UTC (all in one hour).
pub fn ttl_replay(count: usize) -> String {
    let mut text = String::new();
    for i in 1..=count {
        let record = serde_json::json!({
            "eventID": format!("t{i}"),
            "eventName": "REMOVE",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "ApproximateCreationDateTime": 1_571_828_000 + i,
                "Keys": {"UserName": {"S": format!("user{i}")}},
                "SequenceNumber": format!("{}", 100_000_000_000_000_000_000_u128 + i as u128),
                "SizeBytes": 40,
                "StreamViewType": "OLD_IMAGE"
            },
            "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/SessionData/stream/2019-10-23T08:46:00.000"
        });
        text.push_str(&record.to_string());
        text.push('\n');
    }
    text
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns
/// whether it held. For waiting on another process's progress.
pub fn wait_until(timeout: std::time::Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    condition()
}

/// Sends SIGTERM to `child` and waits (at most `timeout`) for it to exit;
/// its stdout and stderr (if piped).
///
/// # Panics
/// When the signal cannot be sent or the process does not exit in time.
pub fn terminate(
    mut child: std::process::Child,
    timeout: std::time::Duration,
) -> std::process::Output {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success(), "kill -TERM");
    let exited = wait_until(timeout, || child.try_wait().ok().flatten().is_some());
    if !exited {
        let _ = child.kill();
    }
    let output = child.wait_with_output().expect("reap");
    assert!(exited, "no exit within {timeout:?} of SIGTERM: {output:?}");
    output
}

/// `GET <path>` on `addr` with plain std I/O (HTTP/1.0, no keep-alive): the
/// response body, or `None` when the server does not answer.
pub fn http_get(addr: std::net::SocketAddr, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream =
        std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)).ok()?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.").then(|| body.to_string())
}

/// The pipeline's source for a test that owns `engine`: the stream of the
/// `[source.engine]` table in `config`, read from `engine`.
pub fn engine_reader(
    engine: ttlstream_engine::Engine,
    config: &ttlstream::Config,
) -> Box<ttlstream::sources::engine::EngineSource> {
    let Some(ttlstream::config::SourceConfig::Engine(source)) = &config.source else {
        panic!("the config has no [source.engine]");
    };
    Box::new(ttlstream::sources::engine::EngineSource::new(
        engine, source,
    ))
}

/// A command's standard output, as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A command's standard error, as text.
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
