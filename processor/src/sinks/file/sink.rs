//! Writing a batch file: temporary file, fsync, rename, fsync of the directory, so
//! that an acknowledged batch survives a crash and a half-written one never shows
//! under its final name.

use std::path::{Path, PathBuf};

use super::config::FileSinkConfig;
use super::request::object_name;
use crate::durable_file::{remove_temporary_files, write_atomically};
use crate::error::SinkError;
use crate::sinks::encoding::{Compression, ndjson};
use crate::sinks::{Sink, SinkBatch};
use crate::sources::BoxFuture;

/// Writes NDJSON batch files under one directory.
#[derive(Clone, Debug)]
pub struct FileSink {
    name: String,
    root: PathBuf,
    compression: Compression,
}

impl FileSink {
    /// A sink named `name` writing under `config.path`. Temporary files that
    /// writes of a stopped process left there (`<table>/.<file>.tmp`) are
    /// removed first; a directory that cannot be read is left to the first
    /// write to report.
    pub fn new(name: &str, config: &FileSinkConfig) -> Self {
        let sink = Self {
            name: name.to_string(),
            root: config.path.clone(),
            compression: config.compression,
        };
        sink.remove_temporary_files();
        sink
    }

    fn remove_temporary_files(&self) {
        let Ok(tables) = std::fs::read_dir(&self.root) else {
            return;
        };
        for table in tables.flatten() {
            if !table.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let dir = table.path();
            match remove_temporary_files(&dir) {
                Ok(0) => {}
                Ok(removed) => tracing::info!(
                    sink = %self.name,
                    dir = %dir.display(),
                    removed,
                    "removed temporary files of interrupted writes"
                ),
                Err(error) => tracing::warn!(
                    sink = %self.name,
                    dir = %dir.display(),
                    %error,
                    "cannot remove temporary files of interrupted writes"
                ),
            }
        }
    }

    /// The directory files are written under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn write_blocking(&self, relative: &Path, bytes: &[u8]) -> Result<(), SinkError> {
        let path = self.root.join(relative);
        let io = |action, source| SinkError::Io {
            sink: self.name.clone(),
            action,
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io("create directory", e))?;
        }
        write_atomically(&path, bytes).map_err(|(action, e)| io(action, e))
    }
}

impl Sink for FileSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn write<'a>(&'a self, batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>> {
        let relative = object_name(batch, self.compression);
        let plain = ndjson(batch.records.iter().copied());
        let sink = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let bytes = sink
                    .compression
                    .encode(plain)
                    .map_err(|source| SinkError::Encode {
                        sink: sink.name.clone(),
                        source,
                    })?;
                sink.write_blocking(&relative, &bytes)
            })
            .await
            .unwrap_or_else(|join| {
                Err(SinkError::Io {
                    sink: self.name.clone(),
                    action: "write",
                    path: self.root.clone(),
                    source: std::io::Error::other(join.to_string()),
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    fn record(seq: &str, json: &str) -> Record {
        Record::new(
            "SessionData".into(),
            seq.into(),
            0,
            true,
            json.as_bytes().to_vec(),
        )
    }

    #[tokio::test]
    async fn writes_ndjson_named_by_range_and_overwrites_on_replay() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sink = FileSink::new("archive", &FileSinkConfig::new(dir.path()));
        let (a, b) = (record("001", r#"{"a":1}"#), record("003", r#"{"b":2}"#));
        let batch = SinkBatch {
            table_name: "SessionData",
            first_sequence_number: "001",
            last_sequence_number: "004",
            records: vec![&a, &b],
        };
        sink.write(&batch).await.expect("write");
        sink.write(&batch).await.expect("replay");
        let table_dir = dir.path().join("SessionData");
        let names: Vec<_> = std::fs::read_dir(&table_dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
            .collect();
        assert_eq!(names, vec!["001-004.ndjson".to_string()]);
        let text = std::fs::read_to_string(table_dir.join("001-004.ndjson")).expect("read");
        assert_eq!(text, "{\"a\":1}\n{\"b\":2}\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(table_dir.join("001-004.ndjson"))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[tokio::test]
    async fn unwritable_directory_is_a_retryable_error_naming_the_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").expect("write");
        let sink = FileSink::new("archive", &FileSinkConfig::new(blocker.clone()));
        let a = record("1", "{}");
        let batch = SinkBatch {
            table_name: "T",
            first_sequence_number: "1",
            last_sequence_number: "1",
            records: vec![&a],
        };
        let err = sink.write(&batch).await.expect_err("not a directory");
        assert!(err.is_retryable());
        assert!(err.to_string().contains("archive"), "{err}");
    }

    #[tokio::test]
    async fn temporary_files_are_removed_on_start_and_after_a_failed_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let table_dir = dir.path().join("SessionData");
        std::fs::create_dir_all(&table_dir).expect("dir");
        let leftover = table_dir.join(".000001-000009.ndjson.tmp");
        std::fs::write(&leftover, b"half a batch").expect("write");
        let sink = FileSink::new("archive", &FileSinkConfig::new(dir.path()));
        assert!(!leftover.exists(), "removed when the sink starts");

        // The batch's file name is taken by a directory: the rename fails.
        let blocked = table_dir.join("000010-000011.ndjson");
        std::fs::create_dir(&blocked).expect("dir");
        std::fs::write(blocked.join("x"), b"x").expect("write");
        let a = record("000010", "{}");
        let batch = SinkBatch {
            table_name: "SessionData",
            first_sequence_number: "000010",
            last_sequence_number: "000011",
            records: vec![&a],
        };
        sink.write(&batch)
            .await
            .expect_err("rename over a directory");
        let names: Vec<_> = std::fs::read_dir(&table_dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
            .collect();
        assert_eq!(names, ["000010-000011.ndjson"], "no temporary file left");
    }
}
