//! Helpers for ttlstream's end-to-end tests (the tests themselves are in `tests/`).

pub mod dynamodb;
pub mod s3;
pub mod server;
pub mod ttl_table;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Every record of every `.ndjson` file under `dir`, parsed, in file-name order.
/// Temporary files (`.name.tmp`) are not archive files and are skipped.
///
/// # Panics
/// When a file cannot be read or a line is not JSON: both are test failures.
pub fn read_archive(dir: &Path) -> Vec<Value> {
    let mut files: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.expect("dir entry").path()).collect(),
        Err(_) => return Vec::new(),
    };
    files.retain(|p| p.extension().is_some_and(|e| e == "ndjson"));
    files.sort();
    files
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).expect("read archive file");
            text.lines()
                .map(|line| serde_json::from_str(line).expect("archive line is JSON"))
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// Number of `.ndjson` files directly under `dir` (0 when it does not exist).
pub fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "ndjson"))
            .count()
    })
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns
/// whether it held. For waiting on another process's progress, never on expiry.
pub fn wait_until(timeout: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}

/// The primary key of an archived record as `(partition, sort)` strings.
///
/// # Panics
/// When the record has no string keys named `pk`/`sk` or `UserName`/`SessionId`.
pub fn key_of(record: &Value, partition: &str, sort: &str) -> (String, String) {
    let keys = &record["dynamodb"]["Keys"];
    let get = |name: &str| {
        keys[name]["S"]
            .as_str()
            .unwrap_or_else(|| panic!("key {name} missing in {record}"))
            .to_string()
    };
    (get(partition), get(sort))
}

/// Converts an item to the DynamoDB-JSON value a Lambda record carries.
///
/// # Panics
/// Never for a valid item (serialisation of attribute values cannot fail).
pub fn item_json(item: &serde_dynamo::Item) -> Value {
    serde_json::to_value(item).expect("item serialises")
}

/// Counts how often each value occurs.
pub fn occurrences<T: std::hash::Hash + Eq>(
    values: impl IntoIterator<Item = T>,
) -> HashMap<T, usize> {
    let mut counts = HashMap::new();
    for value in values {
        *counts.entry(value).or_insert(0) += 1;
    }
    counts
}
