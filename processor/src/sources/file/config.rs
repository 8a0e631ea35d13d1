//! `[source.file]`: what the user writes.

use std::path::PathBuf;

use serde::Deserialize;

/// `[source.file]`: replay NDJSON stream records from a file or stdin.
///
/// Each line is one record in the Lambda event's shape (`eventName`,
/// `dynamodb{...}`, `userIdentity{type, principalId}`) or in the DynamoDB Streams
/// GetRecords `Record` shape (`userIdentity{Type, PrincipalId}`), or a whole
/// Lambda event / GetRecords response (`{"Records":[...]}`). Blank lines are
/// skipped.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSourceConfig {
    /// The file (relative paths: against the config file), or `-` for stdin.
    /// A file is checkpointed by line and byte offset, so a restart resumes
    /// after the last acknowledged line; stdin is read once, from its start.
    pub path: PathBuf,
    /// Table name for records without an `eventSourceARN` (GetRecords records
    /// have none). Default: none, and such a record is malformed.
    #[serde(default)]
    pub table: Option<String>,
    /// What a malformed line does: `fail` (default) stops with `file:line: what
    /// is wrong`; `skip` logs the same and counts it in `RecordsMalformed`.
    #[serde(default)]
    pub on_malformed: OnMalformed,
}

/// What a malformed line does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnMalformed {
    /// Stop the pipeline with an error naming the file and line.
    #[default]
    Fail,
    /// Log the error, count it, and go on with the next line.
    Skip,
}

impl FileSourceConfig {
    /// Whether the source reads stdin.
    pub fn is_stdin(&self) -> bool {
        self.path.as_os_str() == "-"
    }
}
