//! The full life of a TTL item with boto3 against `ttlstream serve` (the real
//! binary, manual clock, SigV4 credentials): `tests/boto3/ttl_life.py`, run
//! with `$TTLSTREAM_PYTHON` (a venv with boto3 from `scripts/test-tools.sh`).

use std::path::Path;
use std::process::Command;

use ttlstream_tests::server::{ServerProcess, python_json, tool};

#[test]
fn boto3_sees_an_expired_item_swept() {
    let Some(python) = tool("TTLSTREAM_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let server = ServerProcess::serve_manual_clock(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &data_dir,
        &[
            "--credentials",
            "AKID:SECRET",
            // The script watches the ENABLING -> ENABLED transition.
            "--ttl-transition",
            "5s",
        ],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("boto3/ttl_life.py");
    let seen = python_json(
        Command::new(&python)
            .arg(&script)
            .arg(server.endpoint())
            .env_remove("AWS_PROFILE")
            .env("AWS_CONFIG_FILE", dir.path().join("no-config"))
            .env(
                "AWS_SHARED_CREDENTIALS_FILE",
                dir.path().join("no-credentials"),
            ),
    );
    assert_eq!(seen["swept"], 1, "{seen}");
    assert_eq!(seen["ttl_after_update"], "ENABLING", "{seen}");
    assert_eq!(seen["wrong_secret"], "InvalidSignatureException", "{seen}");
    assert_eq!(seen["remaining"], serde_json::json!(["user2"]), "{seen}");
    assert_eq!(
        seen["remove_identity"],
        serde_json::json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}),
        "{seen}"
    );
    assert_eq!(seen["remove_old_image_user"], "user1", "{seen}");
    // Records carry the region the client signed for.
    assert_eq!(seen["aws_region"], "eu-west-1", "{seen}");
    assert_eq!(
        seen["legacy_expected"], "ConditionalCheckFailedException",
        "{seen}"
    );
}
