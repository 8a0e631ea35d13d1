//! The whole TTL life of a Tablestore-model table through `ttlstream
//! serve`'s Tablestore JSON API and its change records (the real binary, manual clock, SigV4
//! credentials): `tests/tablestore/ttl_life.py`, run with `$TTLSTREAM_PYTHON`
//! (the venv with `requests` and botocore from `scripts/test-tools.sh`).

use serde_json::json;
use std::path::Path;
use std::process::Command;

use ttlstream_tests::server::{ServerProcess, python_json, tool};

#[test]
fn requests_sees_versions_hidden_restored_and_swept() {
    let Some(python) = tool("TTLSTREAM_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let server = ServerProcess::serve_manual_clock(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &data_dir,
        &["--credentials", "AKID:SECRET"],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tablestore/ttl_life.py");
    let seen = python_json(Command::new(&python).arg(&script).arg(server.endpoint()));
    // "Tablestore: Error codes": a bad signature is 403 OTSAuthFailed.
    assert_eq!(seen["unsigned"], json!([403, "OTSAuthFailed"]), "{seen}");
    // Defaults of "Tablestore: TableOptions": max version offset one day.
    assert_eq!(
        seen["options"],
        json!({"time_to_live": 86400, "max_versions": 2, "deviation_cell_version_in_sec": 86400}),
        "{seen}"
    );
    // "Data versions and TTL": versions past max_versions or the TTL are
    // hidden at once, and back when the option is raised before cleanup.
    assert_eq!(
        seen["max_versions_2"],
        json!({"plan": [9], "visits": [3, 2]})
    );
    assert_eq!(
        seen["max_versions_3"],
        json!({"plan": [9], "visits": [3, 2, 1]})
    );
    assert_eq!(
        seen["expired_alice"],
        json!({"plan": [9], "visits": [3, 2]})
    );
    assert_eq!(seen["expired_bob"], json!(null));
    assert_eq!(
        seen["restored_alice"],
        json!({"plan": [9], "visits": [3, 2, 1]})
    );
    assert_eq!(seen["restored_bob"], json!({"visits": [5]}));
    // A row goes only when all its cells have expired.
    assert_eq!(seen["first_sweep"], 1, "{seen}");
    assert_eq!(seen["after_first_sweep"], json!(["alice"]));
    assert_eq!(
        seen["alice_after_first_sweep"],
        json!({"plan": [9], "visits": [3, 2]})
    );
    assert_eq!(
        seen["alice_after_sweep_raise"],
        json!({"plan": [9], "visits": [3, 2]})
    );
    assert_eq!(seen["second_sweep"], 1, "{seen}");
    assert_eq!(seen["after_second_sweep"], json!([]));
    let version_error = seen["version_error"].as_str().expect("message");
    assert!(
        version_error.contains("`visits`") && version_error.contains("allowed range"),
        "{version_error}"
    );
    assert_eq!(seen["bad_requests"].as_array().map(Vec::len), Some(15));
    assert_eq!(seen["tables_left"], json!([]));
    // Users' writes carry no identity; the sweeper's deletions the
    // system-deletion tag.
    let ttl = json!({"type": "Service", "principal_id": "dynamodb.amazonaws.com"});
    assert_eq!(
        seen["records_after_puts"],
        json!([["PUT_ROW", "alice", null], ["PUT_ROW", "bob", null]]),
        "{seen}"
    );
    assert_eq!(
        seen["records_at_end"],
        json!([["DELETE_ROW", "bob", ttl], ["DELETE_ROW", "alice", ttl]]),
        "{seen}"
    );
}
