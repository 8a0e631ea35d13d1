//! A batch becomes a file name and a body.

use std::path::PathBuf;

use crate::durable_file::file_name_component;
use crate::sinks::SinkBatch;
use crate::sinks::encoding::Compression;

/// The file a batch is written to, relative to the sink's directory:
/// `<table>/<first SequenceNumber>-<last SequenceNumber>.ndjson` plus `.gz` or
/// `.zst`. Derived only from the source range, so a replayed batch lands on the
/// same name.
pub fn object_name(batch: &SinkBatch<'_>, compression: Compression) -> PathBuf {
    PathBuf::from(file_name_component(batch.table_name)).join(format!(
        "{}-{}.ndjson{}",
        batch.first_sequence_number,
        batch.last_sequence_number,
        compression.extension()
    ))
}
