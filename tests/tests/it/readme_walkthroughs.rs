//! The README's step-by-step walk-throughs, run as written, so they cannot
//! drift from what works. Each is the ```sh block between
//! `<!-- walkthrough: NAME ... -->` and `<!-- /walkthrough -->`; the test
//! changes only what a shared machine needs: the `ttlstream` command
//! becomes this crate's build of it on a free port, the start waits until
//! the server answers, and the human's `sleep N;` waits until the archive
//! has a file (bounded), instead of a fixed time.

use std::path::Path;
use std::process::Command;

use ttlstream_tests::server::free_port;

/// The shell lines of the README's walk-through `name`.
fn walkthrough(name: &str) -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("read README.md");
    let start = readme
        .find(&format!("<!-- walkthrough: {name}"))
        .unwrap_or_else(|| panic!("README.md has no walkthrough `{name}`"));
    let rest = &readme[start..];
    let end = rest
        .find("<!-- /walkthrough -->")
        .expect("walkthrough end marker");
    let block = &rest[..end];
    let open = block.find("```sh\n").expect("a ```sh block") + "```sh\n".len();
    let close = block[open..].find("```").expect("the block's end") + open;
    block[open..close].to_string()
}

/// Runs walk-through `name` in an empty directory holding `deploy/` and
/// returns its standard output.
fn run(name: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::os::unix::fs::symlink(repo.join("deploy"), dir.path().join("deploy")).expect("symlink");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let binary = env!("CARGO_BIN_EXE_ttlstream-e2e");
    let mut script = String::from("set -eu\n");
    for line in walkthrough(name).lines() {
        let line = line.replace("127.0.0.1:8000", &format!("127.0.0.1:{port}"));
        if line.starts_with("ttlstream serve ") && line.ends_with('&') {
            let line = line.replacen(
                "ttlstream serve ",
                &format!("{binary} serve --listen 127.0.0.1:{port} --data-dir data "),
                1,
            );
            script.push_str(&format!("{line}\nSERVER=$!\ntrap 'kill $SERVER' EXIT\n"));
            script.push_str(&format!(
                "for _ in $(seq 600); do curl -s -o /dev/null {url}/_ttlstream/clock && break; sleep 0.1; done\n"
            ));
        } else if let Some(rest) = line.strip_prefix("sleep ") {
            let (_, after) = rest.split_once("; ").expect("`sleep N; command`");
            script.push_str(
                "for _ in $(seq 600); do ls archive/*/*.ndjson >/dev/null 2>&1 && break; sleep 0.1; done\n",
            );
            script.push_str(after);
            script.push('\n');
        } else {
            script.push_str(&line);
            script.push('\n');
        }
    }
    let output = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "walkthrough {name} failed:\n{script}\n--- stdout\n{stdout}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The archived record at the end of the walk-through's output (the curl
/// answers before it print no newline), which starts with `first_member`.
fn archived(stdout: &str, first_member: &str) -> serde_json::Value {
    let at = stdout
        .rfind(&format!("{{\"{first_member}\""))
        .unwrap_or_else(|| panic!("no archived record in the output: {stdout}"));
    serde_json::from_str(stdout[at..].trim()).expect("the archived record is one JSON line")
}

#[test]
fn the_tablestore_walkthrough_archives_alices_ttl_deletion() {
    let stdout = run("tablestore");
    let record = archived(&stdout, "awsRegion");
    assert_eq!(record["eventName"], "REMOVE", "{record}");
    assert_eq!(record["dynamodb"]["Keys"]["user"]["S"], "alice", "{record}");
    assert_eq!(record["userIdentity"]["type"], "Service", "{record}");
    assert_eq!(
        record["userIdentity"]["principalId"], "dynamodb.amazonaws.com",
        "{record}"
    );
}

#[test]
fn the_spanner_walkthrough_archives_the_row_deletion_policy_delete() {
    let stdout = run("spanner");
    let record = archived(&stdout, "commit_timestamp");
    assert_eq!(record["mod_type"], "DELETE", "{record}");
    assert_eq!(record["is_system_transaction"], true, "{record}");
    assert_eq!(record["transaction_tag"], "RowDeletionPolicy", "{record}");
    assert_eq!(record["mods"][0]["keys"]["SingerId"], "1", "{record}");
}
