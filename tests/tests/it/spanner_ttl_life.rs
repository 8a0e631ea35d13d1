//! The TTL life of a Spanner table through `ttlstream serve`'s Spanner REST
//! subset (the real binary, manual clock, SigV4 credentials):
//! `tests/spanner/ttl_life.py`, run with `$TTLSTREAM_PYTHON` (the test venv
//! from `scripts/test-tools.sh`, with `requests` and botocore).

use std::path::Path;
use std::process::Command;

use serde_json::json;
use ttlstream_tests::server::{ServerProcess, python_json, tool};

#[test]
fn python_sees_spanner_rows_deleted_by_the_row_deletion_policy() {
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("spanner/ttl_life.py");
    let seen = python_json(Command::new(&python).arg(&script).arg(server.endpoint()));
    assert_eq!(
        seen["unsigned"],
        json!([403, "PERMISSION_DENIED"]),
        "{seen}"
    );
    assert_eq!(seen["ddl"].as_array().map(Vec::len), Some(3), "{seen}");
    // No hiding and no insert check: the row already past the policy is read.
    assert_eq!(
        seen["readable_before_sweep"],
        json!(["1", "2", "3"]),
        "{seen}"
    );
    assert_eq!(seen["swept_first"], 1, "{seen}");
    assert_eq!(seen["after_first_sweep"], json!(["2", "3"]), "{seen}");
    assert_eq!(seen["albums_after_first_sweep"], json!(["2"]), "{seen}");
    assert_eq!(
        seen["delete_tags"],
        json!([[true, "RowDeletionPolicy", {"SingerId": "1"}]]),
        "{seen}"
    );
    // NULL never expires.
    assert_eq!(seen["after_eight_days"], json!(["3"]), "{seen}");
    assert_eq!(seen["restored_has_policy"], false, "{seen}");
    assert_eq!(
        seen["restored_rows_after_sweep"],
        json!(["1", "2", "3"]),
        "{seen}"
    );
    assert_eq!(
        seen["bad_requests"].as_array().map(Vec::len),
        Some(10),
        "{seen}"
    );
}
