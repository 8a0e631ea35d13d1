//! The `file` source: a [`LineReader`] read from the pipeline's checkpoint,
//! the file being the one partition and `<line>:<byte>` its position.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use ttlstream_engine::{Clock, SystemClock};

use super::FileSourceConfig;
use super::reader::{LineReader, Offset, Until};
use crate::checkpoint::{Checkpoint, PartitionProgress};
use crate::error::SourceError;
use crate::record::Record;
use crate::sources::{BoxFuture, ReadLimits, Source, SourceBatch};

/// A replay's clock: the newest `ApproximateCreationDateTime` read so far (the
/// system clock before the first record), so metric periods close by the
/// records' time, not by today's.
#[derive(Debug, Default)]
pub struct ReplayClock {
    newest_millis: AtomicI64,
}

impl ReplayClock {
    fn observe(&self, records: &[Record]) {
        if let Some(newest) = records.iter().map(|r| r.approximate_creation_millis).max() {
            self.newest_millis.fetch_max(newest, Ordering::Relaxed);
        }
    }
}

impl Clock for ReplayClock {
    fn now_millis(&self) -> i64 {
        match self.newest_millis.load(Ordering::Relaxed) {
            0 => SystemClock.now_millis(),
            newest => newest,
        }
    }
}

/// Replays NDJSON stream records from a file or stdin.
pub struct FileSource {
    clock: Arc<ReplayClock>,
    config: FileSourceConfig,
    id: String,
    /// The file's canonical path (`-` for stdin): its checkpoint key, the
    /// same however the config and the path in it are spelled.
    partition: String,
    /// `None` while a read runs on the blocking pool.
    reader: Option<LineReader>,
    eof: bool,
}

impl FileSource {
    /// Opens the file (or stdin).
    ///
    /// # Errors
    /// [`SourceError::Read`] when the file cannot be opened.
    pub fn open(config: &FileSourceConfig) -> Result<Self, SourceError> {
        let reader = LineReader::open(&config.path, config.table.clone(), config.on_malformed)?;
        let partition = if config.is_stdin() {
            "-".to_string()
        } else {
            canonical(&config.path)
        };
        let id = if config.is_stdin() {
            "stdin".to_string()
        } else {
            let name = config.path.file_name().map_or_else(
                || config.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            format!("file-{name}")
        };
        Ok(Self {
            partition,
            config: config.clone(),
            id,
            reader: Some(reader),
            eof: false,
            clock: Arc::default(),
        })
    }

    fn position(&self, token: &str) -> Result<Offset, SourceError> {
        Offset::parse(token).ok_or_else(|| SourceError::Position {
            partition: self.partition.clone(),
            position: token.to_string(),
            message: "not a `<line>:<byte>` file offset (checkpoint from another source?)".into(),
        })
    }

    /// Where to read from and until, given the checkpoint. Stdin ignores the
    /// checkpoint: it cannot be read again.
    fn plan(
        &self,
        checkpoint: &Checkpoint,
        limits: ReadLimits,
    ) -> Result<(Option<Offset>, Until), SourceError> {
        if self.config.is_stdin() {
            return Ok((None, Until::Limits(limits)));
        }
        if let Some(progress) = checkpoint
            .in_flight
            .as_ref()
            .and_then(|f| f.partition.as_ref())
            .filter(|p| self.is_this_file(&p.partition))
        {
            let end = self.position(&progress.end)?;
            return Ok((Some(self.position(&progress.start)?), Until::Byte(end.byte)));
        }
        // This file's position; a checkpoint written before keys were
        // canonical may name it under other spellings: the furthest counts.
        let mut start = Offset::default();
        for (key, committed) in &checkpoint.partitions {
            if self.is_this_file(key) {
                let position = self.position(&committed.position)?;
                if position.byte > start.byte {
                    start = position;
                }
            }
        }
        Ok((Some(start), Until::Limits(limits)))
    }

    /// Whether a checkpoint's partition key names this file.
    fn is_this_file(&self, key: &str) -> bool {
        key == self.partition || canonical(std::path::Path::new(key)) == self.partition
    }

    async fn read_batch(
        &mut self,
        checkpoint: &Checkpoint,
        limits: ReadLimits,
    ) -> Result<SourceBatch, SourceError> {
        let (start, until) = self.plan(checkpoint, limits)?;
        let Some(mut reader) = self.reader.take() else {
            return Err(SourceError::Read {
                path: self.config.path.clone(),
                action: "read",
                source: std::io::Error::other("a previous read was cancelled mid-way"),
            });
        };
        let (reader, result) = tokio::task::spawn_blocking(move || {
            let result = (|| {
                if let Some(start) = start {
                    reader.seek(start)?;
                }
                let from = reader.offset();
                let records = reader.read(until)?;
                Ok::<_, SourceError>((from, records))
            })();
            (reader, result)
        })
        .await
        .map_err(|e| SourceError::Read {
            path: self.config.path.clone(),
            action: "read",
            source: std::io::Error::other(e.to_string()),
        })?;
        self.eof = reader.eof;
        let end = reader.offset();
        self.reader = Some(reader);
        let (from, records): (Offset, Vec<Record>) = result?;
        self.clock.observe(&records);
        let progress = (!self.config.is_stdin() && end != from).then(|| PartitionProgress {
            partition: self.partition.clone(),
            start: from.token(),
            end: end.token(),
            finished: false,
        });
        Ok(SourceBatch { records, progress })
    }
}

impl Source for FileSource {
    fn id(&self) -> &str {
        &self.id
    }

    fn tables(&self) -> Vec<String> {
        self.config.table.iter().cloned().collect()
    }

    fn read<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<SourceBatch, SourceError>> {
        // A replay has no "newest now": LATEST reads the file from its start too.
        Box::pin(self.read_batch(checkpoint, limits))
    }

    fn exhausted(&self) -> bool {
        self.eof
    }

    fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }
}

/// `path` made absolute with every `.`, `..` and symbolic link resolved, so
/// `cfg.toml`'s `replay.ndjson`, `./replay.ndjson` and `/srv/replay.ndjson`
/// are one checkpoint key; as given when it cannot be resolved.
fn canonical(path: &std::path::Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}
