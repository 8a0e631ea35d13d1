//! `ttlstream run` on bad input and faults, as a new user meets them: exit
//! code 2 and a message naming what and where for a malformed replay line, a
//! missing replay or filter file, a mistyped engine data directory or table;
//! one checkpoint however the config path is spelled; the sinks' batch
//! limits on a replay; a sink that fails for a while neither ends the
//! sidecar nor survives SIGTERM.

use crate::common;
use crate::prometheus_metrics::free_loopback_port;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{TTL_ROUTE_TO_FILE, stderr, write_config};
use serde_json::Value;

/// `ttlstream run --config <config>` in `cwd`, to its end.
fn run(cwd: &Path, config: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(cwd)
        .args(["run", "--config", config])
        .output()
        .expect("run ttlstream")
}

#[test]
fn a_malformed_replay_line_and_a_missing_replay_file_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = common::ttl_replay(2);
    text.push_str("{\"eventName\": \n");
    std::fs::write(dir.path().join("replay.ndjson"), text).expect("replay");
    let source = "[source.file]\npath = \"replay.ndjson\"\non_malformed = \"fail\"\n";
    write_config(dir.path(), &format!("{source}{TTL_ROUTE_TO_FILE}"));
    let out = run(dir.path(), "ttlstream.toml");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("replay.ndjson:3: not JSON"),
        "{}",
        stderr(&out)
    );

    std::fs::remove_file(dir.path().join("replay.ndjson")).expect("remove");
    let out = run(dir.path(), "ttlstream.toml");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 2: source.file.path: cannot read "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_filter_file_names_the_key_and_line_that_refer_to_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(1)).expect("replay");
    let source = "[source.file]\npath = \"replay.ndjson\"\n";
    let config = format!("{source}{TTL_ROUTE_TO_FILE}").replace("ttl.json", "filters/ttl.json");
    write_config(dir.path(), &config);
    let out = run(dir.path(), "ttlstream.toml");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("ttlstream.toml: line 9: routes[0] (ttl).filter: cannot read "),
        "{err}"
    );
    assert!(err.contains("filters/ttl.json"), "{err}");
}

#[test]
fn a_mistyped_data_dir_is_refused_and_not_created() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = "[source.engine]\ndata_dir = \"dta\"\ntable = \"SessionData\"\n";
    write_config(dir.path(), &format!("{source}{TTL_ROUTE_TO_FILE}"));
    let out = run(dir.path(), "ttlstream.toml");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("engine data directory "), "{err}");
    assert!(err.contains("dta does not exist"), "{err}");
    assert!(!dir.path().join("dta").exists(), "no database was created");

    // An engine without the table: the error names the directory.
    let engine =
        ttlstream_engine::Engine::open(dir.path().join("data"), Default::default()).expect("open");
    engine
        .dynamodb()
        .create_table(
            ttlstream_engine::TableDefinition::new(
                "Sessions",
                "UserName",
                ttlstream_engine::ScalarAttributeType::S,
            )
            .with_stream(ttlstream_engine::StreamViewType::OldImage),
        )
        .expect("table");
    engine.close().expect("close");
    let config = format!("{source}{TTL_ROUTE_TO_FILE}").replace("\"dta\"", "\"data\"");
    write_config(dir.path(), &config);
    let out = run(dir.path(), "ttlstream.toml");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "table `SessionData` not found in engine data directory data (tables there: Sessions)"
        ),
        "{err}"
    );
}

/// The file offsets the checkpoint holds, by partition key.
fn partitions(state: &Path) -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(state.join("file-replay.ndjson.checkpoint.json")).expect("read");
    let value: Value = serde_json::from_str(&text).expect("checkpoint JSON");
    value["partitions"]
        .as_object()
        .expect("partitions")
        .iter()
        .map(|(key, p)| {
            (
                key.clone(),
                p["position"].as_str().expect("position").into(),
            )
        })
        .collect()
}

#[test]
fn the_replay_checkpoint_is_one_however_the_config_path_is_spelled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let replay = dir.path().join("replay.ndjson");
    let all = common::ttl_replay(6);
    let lines: Vec<&str> = all.split_inclusive('\n').collect();
    let source = "[source.file]\npath = \"replay.ndjson\"\n";
    let config = write_config(dir.path(), &format!("{source}{TTL_ROUTE_TO_FILE}"));
    let archive = dir.path().join("archive/SessionData");
    let spellings = [
        "ttlstream.toml".to_string(),
        "./ttlstream.toml".to_string(),
        config.display().to_string(),
    ];
    let mut positions = Vec::new();
    for (run_index, spelling) in spellings.iter().enumerate() {
        // Two more lines before each run.
        std::fs::write(&replay, lines[..2 * (run_index + 1)].concat()).expect("replay");
        let out = run(dir.path(), spelling);
        assert!(out.status.success(), "{spelling}: {}", stderr(&out));
        let ids: Vec<String> = common::ndjson_lines(&archive)
            .iter()
            .map(|r| r["eventID"].as_str().expect("eventID").to_string())
            .collect();
        let expected: Vec<String> = (1..=2 * (run_index + 1)).map(|i| format!("t{i}")).collect();
        assert_eq!(ids, expected, "{spelling}: each line archived once");
        let held = partitions(&dir.path().join("state"));
        assert_eq!(held.len(), 1, "{spelling}: one key for the file: {held:?}");
        positions.push(held[0].1.clone());
    }
    let bytes: Vec<u64> = positions
        .iter()
        .map(|p| p.split(':').nth(1).expect("bytes").parse().expect("number"))
        .collect();
    assert!(
        bytes.windows(2).all(|w| w[0] < w[1]),
        "the position only moves forward: {positions:?}"
    );
    assert_eq!(positions[2], format!("6:{}", all.len()));
}

#[test]
fn a_running_sidecar_logs_its_progress_at_the_configured_interval() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(1000)).expect("replay");
    let source = "[source.file]\npath = \"replay.ndjson\"\n";
    // Reads of 100 records; a progress line after each.
    let config = format!(
        "{source}[batch]\nmax_records = 100\n{TTL_ROUTE_TO_FILE}\n[logging]\nprogress_interval_secs = 0\n"
    );
    write_config(dir.path(), &config);
    let out = run(dir.path(), "ttlstream.toml");
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" progress ")).collect();
    assert_eq!(lines.len(), 10, "one line per read of 100:\n{log}");
    for (i, line) in lines.iter().enumerate() {
        assert!(
            line.contains(&format!("records_read={}", 100 * (i + 1))),
            "{line}"
        );
        assert!(line.contains("records_per_sec="), "{line}");
        assert!(line.contains("iterator_age_millis="), "{line}");
    }
    // Every record of the replay is a TTL deletion.
    assert!(lines[9].contains("ttl_deletions=1000"), "{}", lines[9]);

    // The default interval (60 s) is longer than this run: no line.
    let quiet = tempfile::tempdir().expect("tempdir");
    std::fs::write(quiet.path().join("replay.ndjson"), common::ttl_replay(1000)).expect("replay");
    write_config(quiet.path(), &format!("{source}{TTL_ROUTE_TO_FILE}"));
    let out = run(quiet.path(), "ttlstream.toml");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains(" progress "), "{}", stderr(&out));
}

#[test]
fn a_replay_honours_the_sinks_batch_limits() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(1000)).expect("replay");
    let source = "[source.file]\npath = \"replay.ndjson\"\n";
    let config =
        format!("{source}{TTL_ROUTE_TO_FILE}\n[sinks.archive.file.batch]\nmax_records = 100\n");
    write_config(dir.path(), &config);
    let out = run(dir.path(), "ttlstream.toml");
    assert!(out.status.success(), "{}", stderr(&out));
    let archive = dir.path().join("archive/SessionData");
    let mut sizes: Vec<usize> = std::fs::read_dir(&archive)
        .expect("archive")
        .map(|e| {
            let text = std::fs::read_to_string(e.expect("entry").path()).expect("read");
            text.lines().count()
        })
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [100; 10], "10 files of 100 records");

    // max_bytes likewise: each record is one line of JSON.
    let bytes_dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        bytes_dir.path().join("replay.ndjson"),
        common::ttl_replay(50),
    )
    .expect("replay");
    let record_bytes = common::ttl_replay(1).len();
    let config = format!(
        "{source}{TTL_ROUTE_TO_FILE}\n[sinks.archive.file.batch]\nmax_bytes = {}\n",
        5 * record_bytes
    );
    write_config(bytes_dir.path(), &config);
    let out = run(bytes_dir.path(), "ttlstream.toml");
    assert!(out.status.success(), "{}", stderr(&out));
    let files = std::fs::read_dir(bytes_dir.path().join("archive/SessionData")).expect("archive");
    let mut count = 0;
    for file in files {
        let text = std::fs::read_to_string(file.expect("entry").path()).expect("read");
        assert!(text.len() <= 5 * record_bytes, "{} bytes", text.len());
        count += 1;
    }
    assert!(count >= 10, "{count} files");
    assert_eq!(
        common::ndjson_lines(&bytes_dir.path().join("archive/SessionData")).len(),
        50
    );
}

#[test]
fn a_failing_sink_stalls_the_sidecar_visibly_until_sigterm_and_nothing_is_lost() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(4)).expect("replay");
    // The archive directory cannot be made: a file is in its way.
    std::fs::write(dir.path().join("archive"), b"in the way").expect("block");
    let source = "[source.file]\npath = \"replay.ndjson\"\n";
    let config = write_config(dir.path(), &format!("{source}{TTL_ROUTE_TO_FILE}"));
    let prometheus = free_loopback_port();
    let child = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(dir.path())
        .args(["run", "--config", "ttlstream.toml", "--prometheus-listen"])
        .arg(prometheus.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    // The stall shows in the gauge while the sidecar keeps retrying.
    let stalled = common::wait_until(Duration::from_secs(60), || {
        let Some(metrics) = common::http_get(prometheus, "/metrics") else {
            return false;
        };
        metrics.lines().any(|line| {
            line.strip_prefix("SinkStalledMilliseconds{Sink=\"archive\"} ")
                .and_then(|v| v.parse::<f64>().ok())
                .is_some_and(|v| v > 0.0)
        })
    });
    assert!(stalled, "no SinkStalledMilliseconds for the failing sink");
    let output = common::terminate(child, Duration::from_secs(30));
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("sink write failed; retrying"), "{err}");
    assert!(err.contains("delivered on the next start"), "{err}");
    let checkpoint: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("state/file-replay.ndjson.checkpoint.json"))
            .expect("checkpoint"),
    )
    .expect("JSON");
    assert!(checkpoint["in_flight"].is_object(), "{checkpoint}");

    // The sink works again: the next start delivers the batch, once.
    std::fs::remove_file(dir.path().join("archive")).expect("unblock");
    let out = run(dir.path(), &config.display().to_string());
    assert!(out.status.success(), "{}", stderr(&out));
    let ids: Vec<String> = common::ndjson_lines(&dir.path().join("archive/SessionData"))
        .iter()
        .map(|r| r["eventID"].as_str().expect("eventID").to_string())
        .collect();
    assert_eq!(ids, ["t1", "t2", "t3", "t4"]);
}
