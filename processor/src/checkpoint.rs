//! Checkpoints: where a source resumes, persisted only after every sink has
//! acknowledged a batch (at-least-once delivery).
//!
//! A checkpoint also records the batch in flight: before sinks see a batch, its
//! first and last `SequenceNumber` are written down; after a crash the pipeline
//! replays exactly that range first, so sinks that name their output after the
//! range (file and S3 sinks) overwrite what they wrote before instead of writing a
//! second copy under another name. One mechanism for every source.
//!
//! Sources with several partitions (DynamoDB Streams shards; a file's byte
//! offset) keep one position per partition in `partitions`, and their batch in
//! flight names its partition; the same file, the same atomic write.
//!
//! File format (`<dir>/<source id>.checkpoint.json`), written atomically (temporary
//! file, fsync, rename, fsync of the directory):
//! `{"sequence_number":"000000000000000000042","in_flight":{"first":"…43","last":"…90"}}`,
//! or with partitions:
//! `{"sequence_number":"…90","partitions":{"shardId-0001":{"position":"…90","finished":true}}}`

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::durable_file::{file_name_component, temporary_path, write_atomically};
use crate::error::CheckpointError;

/// Whether `SequenceNumber` `a` comes after `b`. Sequence numbers are decimal
/// strings of up to 40 digits (DynamoDB Streams API Reference, "StreamRecord");
/// compared as numbers, so `"10"` comes after `"9"` and zero padding is ignored.
pub fn sequence_after(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    (a.len(), a) > (b.len(), b)
}

/// A sequence-number range handed to sinks and not yet acknowledged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InFlight {
    /// `SequenceNumber` of the batch's first record.
    pub first: String,
    /// `SequenceNumber` of the batch's last record.
    pub last: String,
    /// For a partitioned source: the partition and positions of the batch, so it
    /// is read again exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionProgress>,
}

/// One batch of a partitioned source: where it was read and where the partition
/// stands once it is acknowledged. Positions are the source's own tokens (a
/// shard's `SequenceNumber`; a file's `<lines>:<bytes>` offset).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionProgress {
    /// The partition (a DynamoDB Streams `ShardId`; a file path).
    pub partition: String,
    /// Where the batch starts (inclusive), for an exact replay.
    pub start: String,
    /// The partition's position after the batch: committed on acknowledgement.
    pub end: String,
    /// The partition holds nothing after `end` (a closed shard, drained).
    #[serde(default, skip_serializing_if = "is_false")]
    pub finished: bool,
}

/// A partition's committed position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionCheckpoint {
    /// The position after the last acknowledged record (the source's token).
    pub position: String,
    /// Nothing more will come from this partition (a closed shard, drained);
    /// its children may be read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub finished: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A source's persisted position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// The last `SequenceNumber` every sink acknowledged; `None` before the first batch.
    pub sequence_number: Option<String>,
    /// The batch sinks were writing when the process stopped, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<InFlight>,
    /// Per-partition positions of a partitioned source (DynamoDB Streams:
    /// `ShardId` -> last acknowledged `SequenceNumber`); empty otherwise.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub partitions: BTreeMap<String, PartitionCheckpoint>,
}

impl Checkpoint {
    /// Commits an acknowledged batch of a partitioned source: its partition's
    /// position moves to `progress.end`.
    pub fn commit_partition(&mut self, progress: &PartitionProgress) {
        self.partitions.insert(
            progress.partition.clone(),
            PartitionCheckpoint {
                position: progress.end.clone(),
                finished: progress.finished,
            },
        );
    }
}

/// Reads and writes one source's checkpoint file.
#[derive(Clone, Debug)]
pub struct CheckpointStore {
    path: PathBuf,
}

impl CheckpointStore {
    /// A store for the source `source_id` under `dir` (created if missing).
    /// `source_id` must be a plain file-name component (a table name is). A
    /// temporary file left by a save that a stopped process did not finish
    /// is removed.
    ///
    /// # Errors
    /// [`CheckpointError::Io`] when the directory cannot be created.
    pub fn open(dir: &Path, source_id: &str) -> Result<Self, CheckpointError> {
        fs::create_dir_all(dir).map_err(|source| CheckpointError::Io {
            path: dir.to_path_buf(),
            action: "create directory",
            source,
        })?;
        let path = dir.join(format!(
            "{}.checkpoint.json",
            file_name_component(source_id)
        ));
        let _ = fs::remove_file(temporary_path(&path));
        Ok(Self { path })
    }

    /// The checkpoint file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the checkpoint; a missing file is the empty checkpoint.
    ///
    /// # Errors
    /// [`CheckpointError::Io`] when the file exists but cannot be read,
    /// [`CheckpointError::Corrupt`] when it is not a checkpoint.
    pub fn load(&self) -> Result<Checkpoint, CheckpointError> {
        match fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| CheckpointError::Corrupt {
                path: self.path.clone(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Checkpoint::default()),
            Err(source) => Err(CheckpointError::Io {
                path: self.path.clone(),
                action: "read",
                source,
            }),
        }
    }

    /// Writes the checkpoint durably: when this returns, a crash cannot lose it.
    ///
    /// # Errors
    /// [`CheckpointError::Io`] naming the step that failed.
    pub fn save(&self, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
        let bytes = serde_json::to_vec(checkpoint).map_err(|e| CheckpointError::Corrupt {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        write_atomically(&self.path, &bytes).map_err(|(action, source)| CheckpointError::Io {
            path: self.path.clone(),
            action,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_empty_checkpoint_and_save_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = CheckpointStore::open(&dir.path().join("state"), "SessionData").expect("open");
        assert_eq!(store.load().expect("load"), Checkpoint::default());
        let checkpoint = Checkpoint {
            sequence_number: Some("000000000000000000007".into()),
            in_flight: Some(InFlight {
                first: "000000000000000000008".into(),
                last: "000000000000000000009".into(),
                partition: None,
            }),
            partitions: BTreeMap::new(),
        };
        store.save(&checkpoint).expect("save");
        assert_eq!(store.load().expect("load"), checkpoint);
        let reopened =
            CheckpointStore::open(&dir.path().join("state"), "SessionData").expect("open");
        assert_eq!(reopened.load().expect("load"), checkpoint);
    }

    #[test]
    fn partitions_round_trip_and_old_files_still_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = CheckpointStore::open(dir.path(), "s").expect("open");
        let progress = PartitionProgress {
            partition: "shardId-1".into(),
            start: "100".into(),
            end: "120".into(),
            finished: true,
        };
        let mut checkpoint = Checkpoint {
            sequence_number: Some("120".into()),
            in_flight: Some(InFlight {
                first: "100".into(),
                last: "120".into(),
                partition: Some(progress.clone()),
            }),
            ..Checkpoint::default()
        };
        store.save(&checkpoint).expect("save");
        assert_eq!(store.load().expect("load"), checkpoint);
        checkpoint.in_flight = None;
        checkpoint.commit_partition(&progress);
        store.save(&checkpoint).expect("save");
        let loaded = store.load().expect("load");
        assert_eq!(loaded.partitions["shardId-1"].position, "120");
        assert!(loaded.partitions["shardId-1"].finished);
        fs::write(store.path(), br#"{"sequence_number":"7"}"#).expect("write");
        assert!(store.load().expect("old format").partitions.is_empty());
    }

    #[test]
    fn corrupt_file_is_reported_with_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = CheckpointStore::open(dir.path(), "t").expect("open");
        fs::write(store.path(), b"{not json").expect("write");
        let err = store.load().expect_err("corrupt");
        assert!(matches!(err, CheckpointError::Corrupt { .. }));
        assert!(err.to_string().contains("t.checkpoint.json"), "{err}");
    }

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        assert!(sequence_after("10", "9"));
        assert!(sequence_after("000000000000000000010", "9"));
        assert!(!sequence_after("009", "9"));
        assert!(!sequence_after("8", "000000000000000000009"));
    }

    #[test]
    fn source_id_cannot_escape_the_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = CheckpointStore::open(dir.path(), "../evil/x").expect("open");
        assert_eq!(store.path().parent(), Some(dir.path()));
    }
}
