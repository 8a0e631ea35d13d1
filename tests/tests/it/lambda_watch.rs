//! `ttlstream-lambda` under `cargo lambda watch` (cargo-lambda's emulation of
//! the Lambda control plane and Runtime API, no Docker), invoked with `cargo
//! lambda invoke --data-file` and a DynamoDB event holding TTL deletions, a
//! user deletion, an insert and a modify: the TTL deletions reach the file
//! sink, the response is `{"batchItemFailures":[]}`, metrics come out as EMF
//! lines; a batch whose sink fails answers the first failed record's
//! SequenceNumber. The packaged function (deploy/sam's config files laid out
//! as `sam build` does, with the template's environment variables) archives
//! to S3 on s3s-fs, compared record by record, and answers the first failed
//! record while the S3 server is stopped.
//!
//! `watch` runs with `--only-lambda-apis` and the function is this crate's
//! build of the binary (`ttlstream-lambda-e2e`, the same one-line `main`),
//! started with the Runtime API variables `watch` prints. Letting `watch` build
//! the function itself (`cargo run -p ttlstream-lambda`) works
//! too, but its build environment differs from the test build's, so every test
//! run rebuilt the SDK's native dependencies (about 4 minutes here).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use ttlstream::sinks::encoding::Compression;
use ttlstream_tests::s3::{S3Server, objects};
use ttlstream_tests::server::{accepts, free_port, tool, wait_ready};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const EVENT: &str = "processor/tests/fixtures/lambda-dynamodb-event.json";

/// The name `watch --only-lambda-apis` serves the function under.
const FUNCTION: &str = "_";

/// `cargo lambda watch --only-lambda-apis` and the function polling it; both
/// killed when dropped. Their output goes to `log`.
struct Watch {
    watch: Child,
    function: Option<Child>,
    port: u16,
    log: PathBuf,
}

impl Watch {
    /// Starts `watch` and the function, which gets `env` besides the Runtime
    /// API variables.
    fn start(cargo_lambda: &Path, env: &[(&str, String)], log: PathBuf) -> Self {
        let port = free_port();
        let output = std::fs::File::create(&log).expect("log file");
        let watch = Command::new(cargo_lambda)
            .args(["lambda", "watch", "--only-lambda-apis"])
            .args(["--invoke-address", "127.0.0.1", "--invoke-port"])
            .arg(port.to_string())
            .current_dir(workspace())
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("log"))
            .stderr(output.try_clone().expect("log"))
            .spawn()
            .expect("start cargo lambda watch");
        let mut this = Self {
            watch,
            function: None,
            port,
            log,
        };
        // Ready when it has logged that its server starts (it binds right
        // after) and the port then accepts a connection that is not a
        // self-connect. Its routes answer only invocations and the runtime
        // API (other paths are never answered), so no request is sent.
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let log = this.log.clone();
        let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
        wait_ready(
            "cargo lambda watch",
            Duration::from_secs(120),
            || log_text().contains("starting Runtime server") && accepts(address).is_some(),
            || this.watch.try_wait().ok().flatten().map(|s| s.to_string()),
            log_text,
        );
        let function = Command::new(env!("CARGO_BIN_EXE_ttlstream-lambda-e2e"))
            .env(
                "AWS_LAMBDA_RUNTIME_API",
                format!("http://127.0.0.1:{port}/.rt"),
            )
            .env("AWS_LAMBDA_FUNCTION_NAME", FUNCTION)
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("log"))
            .stderr(output)
            .spawn()
            .expect("start the function");
        this.function = Some(function);
        this
    }

    /// The first EMF line counting the fixture's two TTL deletions.
    fn emf_line(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let log = self.log_text();
            if let Some(line) = log
                .lines()
                .find(|l| l.contains("\"TimeToLiveDeletedItemCount\":2"))
            {
                return serde_json::from_str(line).expect("EMF line is JSON");
            }
            assert!(Instant::now() < deadline, "no EMF line in:\n{log}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `cargo lambda invoke --data-file`: the response JSON.
    fn invoke(&self, cargo_lambda: &Path, data_file: &Path) -> Value {
        let output = Command::new(cargo_lambda)
            .args([
                "lambda",
                "invoke",
                "--invoke-address",
                "127.0.0.1",
                "--invoke-port",
            ])
            .arg(self.port.to_string())
            .arg("--data-file")
            .arg(data_file)
            .arg(FUNCTION)
            .current_dir(workspace())
            .output()
            .expect("cargo lambda invoke");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "invoke failed: {}\n{stdout}\n{}\nlog:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr),
            self.log_text()
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("response {stdout:?}: {e}"))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        for child in self
            .function
            .iter_mut()
            .chain(std::iter::once(&mut self.watch))
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn the_lambda_binary_archives_ttl_deletions_and_reports_the_first_failed_record() {
    let Some(cargo_lambda) = tool("TTLSTREAM_CARGO_LAMBDA") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("ttlstream.toml");
    std::fs::write(
        &config,
        format!(
            "[retry]\nmax_retries = 1\nmin_delay_millis = 1\nmax_delay_millis = 2\n\n\
             [[routes]]\nname = \"ttl-archive\"\nfilter = \"{}\"\nsinks = [\"archive\"]\n\n\
             [sinks.archive.file]\npath = \"archive\"\n",
            workspace()
                .join("deploy/filters/ttl-system-deletes.json")
                .display()
        ),
    )
    .expect("config");
    let watch = Watch::start(
        &cargo_lambda,
        &[("TTLSTREAM_CONFIG", config.display().to_string())],
        dir.path().join("watch.log"),
    );

    let response = watch.invoke(&cargo_lambda, &workspace().join(EVENT));
    assert_eq!(response, serde_json::json!({"batchItemFailures": []}));
    let archived = ttlstream_tests::read_archive(&dir.path().join("archive/SessionData"));
    let ids: Vec<&str> = archived
        .iter()
        .map(|r| r["eventID"].as_str().expect("eventID"))
        .collect();
    assert_eq!(
        ids,
        ["e2", "e5"],
        "the two TTL deletions; not the insert, modify or user delete"
    );
    assert_eq!(archived[0]["userIdentity"]["type"], "Service");

    // The same records from a table whose archive directory cannot be made.
    let blocked = dir.path().join("blocked-event.json");
    let text = std::fs::read_to_string(workspace().join(EVENT)).expect("fixture");
    std::fs::write(
        &blocked,
        text.replace("table/SessionData/", "table/Blocked/"),
    )
    .expect("write");
    std::fs::write(dir.path().join("archive/Blocked"), b"a file in the way").expect("write");
    let response = watch.invoke(&cargo_lambda, &blocked);
    assert_eq!(
        response,
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "111000000000000000000002"}]})
    );

    // Metrics left the function as CloudWatch EMF lines on stdout.
    let emf = watch.emf_line();
    assert_eq!(emf["TableName"], "SessionData");
    assert_eq!(
        emf["_aws"]["CloudWatchMetrics"][0]["Namespace"],
        "TTLStream"
    );
}

/// The fields of the fixture's TTL deletions an archive must keep, in order.
fn ttl_deletions_in_fixture() -> Vec<Value> {
    let text = std::fs::read_to_string(workspace().join(EVENT)).expect("fixture");
    let event: Value = serde_json::from_str(&text).expect("fixture JSON");
    event["Records"]
        .as_array()
        .expect("Records")
        .iter()
        .filter(|r| r["userIdentity"]["principalId"] == "dynamodb.amazonaws.com")
        .map(archived_fields)
        .collect()
}

fn archived_fields(record: &Value) -> Value {
    serde_json::json!({
        "eventID": record["eventID"],
        "eventName": record["eventName"],
        "eventSourceARN": record["eventSourceARN"],
        "Keys": record["dynamodb"]["Keys"],
        "OldImage": record["dynamodb"]["OldImage"],
        "SequenceNumber": record["dynamodb"]["SequenceNumber"],
        "userIdentity": record["userIdentity"],
    })
}

/// Every record of every object under `prefix`, gunzipped, in key order.
async fn s3_records(server: &S3Server, prefix: &str) -> Vec<Value> {
    let mut records = Vec::new();
    for (key, bytes) in objects(&server.client(), BUCKET, prefix).await {
        assert!(key.ends_with(".ndjson.gz"), "{key}");
        let text = Compression::Gzip.decode(&bytes).expect("gzip");
        records.extend(
            String::from_utf8(text)
                .expect("UTF-8")
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).expect("JSON line")),
        );
    }
    records
}

const BUCKET: &str = "ttl-archive";

#[tokio::test]
async fn the_packaged_function_archives_to_s3_and_answers_the_first_failed_record_while_s3_is_down()
{
    let Some(cargo_lambda) = tool("TTLSTREAM_CARGO_LAMBDA") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(mut s3) = S3Server::start(&dir.path().join("s3")) else {
        return;
    };
    s3.create_bucket(BUCKET).await;
    // The function's package as `sam build` lays it out (deploy/sam/Makefile):
    // ttlstream.toml and its filter file in LAMBDA_TASK_ROOT.
    let task_root = dir.path().join("task");
    let make = Command::new("make")
        .args(["-s", "-C"])
        .arg(workspace().join("deploy/sam"))
        .arg("package-config")
        .arg(format!("ARTIFACTS_DIR={}", task_root.display()))
        .output()
        .expect("run make");
    assert!(
        make.status.success(),
        "make package-config: {}",
        String::from_utf8_lossy(&make.stderr)
    );
    let mut env = vec![
        ("LAMBDA_TASK_ROOT", task_root.display().to_string()),
        // What deploy/sam/template.yaml sets, and the one knob an
        // S3-compatible server needs.
        ("TTLSTREAM_ARCHIVE_BUCKET", BUCKET.to_string()),
        ("TTLSTREAM_METRICS_NAMESPACE", "TTLStreamE2E".to_string()),
        ("TTLSTREAM_S3_FORCE_PATH_STYLE", "true".to_string()),
    ];
    env.extend(s3.env());
    let watch = Watch::start(&cargo_lambda, &env, dir.path().join("watch.log"));

    let response = watch.invoke(&cargo_lambda, &workspace().join(EVENT));
    assert_eq!(response, serde_json::json!({"batchItemFailures": []}));
    let archived: Vec<Value> = s3_records(&s3, "ttl/SessionData/")
        .await
        .iter()
        .map(archived_fields)
        .collect();
    assert_eq!(
        archived,
        ttl_deletions_in_fixture(),
        "the TTL deletions, record by record; not the insert, modify or user delete"
    );
    assert!(s3_records(&s3, "dead-letter/").await.is_empty());
    let emf = watch.emf_line();
    assert_eq!(
        emf["_aws"]["CloudWatchMetrics"][0]["Namespace"], "TTLStreamE2E",
        "the namespace comes from TTLSTREAM_METRICS_NAMESPACE"
    );

    // S3 is down: the archive and the dead-letter sink (same bucket) both
    // fail after the SDK's retries, so Lambda is told to retry from the first
    // TTL deletion.
    s3.process.stop();
    let response = watch.invoke(&cargo_lambda, &workspace().join(EVENT));
    assert_eq!(
        response,
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "111000000000000000000002"}]})
    );
    s3.process.restart();
    assert!(s3_records(&s3, "dead-letter/").await.is_empty());
}
