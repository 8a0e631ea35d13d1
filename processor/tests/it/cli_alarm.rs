//! `ttlstream alarm simulate`: output and exit codes.

use std::process::{Command, Output};

use crate::common::stdout;

const SEED: &str = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");

fn simulate(datapoints: &str, extra: &[&str]) -> Output {
    simulate_alarm(SEED, datapoints, extra)
}

fn simulate_alarm(alarm: &str, datapoints: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.json"), alarm).expect("alarm");
    std::fs::write(dir.path().join("d.json"), datapoints).expect("datapoints");
    Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(dir.path())
        .args([
            "alarm",
            "simulate",
            "--alarm",
            "a.json",
            "--datapoints",
            "d.json",
        ])
        .args(extra)
        .output()
        .expect("run ttlstream")
}

#[test]
fn explicit_zeros_raise_the_seed_alarm() {
    let out = simulate("[900, 0, 0]", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "ALARM\n");
    let out = simulate("[900, 0]", &["--verbose"]);
    assert_eq!(stdout(&out), "0\tOK\n1\tOK\n");
}

#[test]
fn starting_state_and_missing_periods() {
    // All missing with `breaching`: ALARM whatever the state before.
    let out = simulate("[null, null]", &["--state", "OK"]);
    assert_eq!(stdout(&out), "ALARM\n");
    // No datapoints: the starting state is printed.
    let out = simulate("[]", &["--state", "OK"]);
    assert_eq!(stdout(&out), "OK\n");
    let out = simulate("[]", &[]);
    assert_eq!(stdout(&out), "INSUFFICIENT_DATA\n");
}

/// `LessThanThreshold 100` on 5-minute periods with N = 3, and neither
/// `TreatMissingData` nor (unless `m` is given) `DatapointsToAlarm`: AWS's
/// defaults `missing` and M = N apply.
fn three_periods(m: Option<usize>, treat: Option<&str>) -> String {
    let m = m.map_or(String::new(), |m| format!(r#""DatapointsToAlarm": {m},"#));
    let treat = treat.map_or(String::new(), |t| format!(r#""TreatMissingData": "{t}","#));
    format!(
        r#"{{"AlarmName": "a", "Namespace": "TTLStream", "MetricName": "TimeToLiveDeletedItemCount",
            "Statistic": "Sum", "Period": 300, "EvaluationPeriods": 3, {m} {treat}
            "Threshold": 100, "ComparisonOperator": "LessThanThreshold"}}"#
    )
}

/// The CloudWatch User Guide's premature-transition rows, typed as the tables
/// show them (most recent on the right): first table `- - X - -` (3 of 3) and
/// second table `- - - X -` (2 of 3) are ALARM under MISSING, the default, and
/// keep the current state under IGNORE.
#[test]
fn premature_transition_rows_from_the_cli() {
    let out = simulate_alarm(
        &three_periods(None, None),
        "[null, null, 5, null, null]",
        &["--verbose"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        stdout(&out),
        "0\tINSUFFICIENT_DATA\n1\tINSUFFICIENT_DATA\n2\tINSUFFICIENT_DATA\n\
         3\tINSUFFICIENT_DATA\n4\tALARM\n",
        "the breach alarms once it is DatapointsToAlarm (3) periods old"
    );
    let out = simulate_alarm(
        &three_periods(Some(2), None),
        "[null, null, null, 5, null]",
        &[],
    );
    assert_eq!(stdout(&out), "ALARM\n");
    let out = simulate_alarm(
        &three_periods(None, Some("ignore")),
        "[null, null, 5, null, null]",
        &["--state", "OK"],
    );
    assert_eq!(stdout(&out), "OK\n");
}

#[test]
fn bad_datapoints_exit_2_naming_the_file() {
    let out = simulate(r#"[1, "two"]"#, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("d.json"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn run_fails_when_the_prometheus_address_is_taken() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = ttlstream_engine::Engine::open(dir.path().join("data"), Default::default())
        .expect("engine");
    engine
        .dynamodb()
        .create_table(
            ttlstream_engine::TableDefinition::new(
                "SessionData",
                "UserName",
                ttlstream_engine::ScalarAttributeType::S,
            )
            .with_stream(ttlstream_engine::StreamViewType::OldImage),
        )
        .expect("table");
    engine.close().expect("close");
    let config = "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"\n\n[checkpoint]\ndir = \"state\"\n";
    std::fs::write(dir.path().join("t.toml"), config).expect("config");
    let out = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(dir.path())
        .args(["run", "--config", "t.toml", "--prometheus-listen", &addr])
        .output()
        .expect("run ttlstream");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("Prometheus exporter"), "{err}");
    assert!(err.contains(&addr), "{err}");
}
