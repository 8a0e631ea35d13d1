//! A batch becomes a file name and a body.

use std::path::PathBuf;

use crate::durable_file::file_name_component;
use crate::sinks::SinkBatch;

/// The file a batch is written to, relative to the sink's directory:
/// `<table>/<first SequenceNumber>-<last SequenceNumber>.ndjson`. Derived only
/// from the source range, so a replayed batch lands on the same name.
pub fn object_name(batch: &SinkBatch<'_>) -> PathBuf {
    PathBuf::from(file_name_component(batch.table_name)).join(format!(
        "{}-{}.ndjson",
        batch.first_sequence_number, batch.last_sequence_number
    ))
}

/// NDJSON: one Lambda-shaped record per line, each line ending in `\n`.
pub fn body(batch: &SinkBatch<'_>) -> Vec<u8> {
    let len = batch.records.iter().map(|r| r.json.len() + 1).sum();
    let mut body = Vec::with_capacity(len);
    for record in &batch.records {
        body.extend_from_slice(&record.json);
        body.push(b'\n');
    }
    body
}
