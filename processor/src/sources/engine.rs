//! `engine` source: the bundled engine's change stream, read in process,
//! shard by shard, parent before child, by one loop for every TTL model
//! (`shards.rs`): a DynamoDB-model table's stream through the engine's
//! DynamoDB Streams API (ListStreams, DescribeStream, GetRecords), a
//! Tablestore-model table's through its stream's shards, a Spanner-model
//! table's through its change stream's partitions; the model decides only
//! how a stored record becomes a [`Record`] (`models.rs`). The source only
//! reads: the engine's sweeper belongs to whoever owns the engine
//! ([`crate::engine`]).

mod config;
mod models;
mod shards;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use ttlstream_engine::{Engine, EventName};

pub use self::config::{EngineSourceConfig, TtlModel};
use super::engine_encode::EncodeJob;
use super::{BoxFuture, ReadLimits, Source, SourceBatch, StartingPosition};
use crate::checkpoint::Checkpoint;
use crate::error::SourceError;
use crate::record::Record;

/// Reads one table's stream from an [`Engine`].
pub struct EngineSource {
    reader: ShardReader,
    starting_position: StartingPosition,
    /// The next batch, being read on a blocking thread while the pipeline
    /// routes and writes the last one.
    read_ahead: Option<ReadAhead>,
}

/// What to read next, from the checkpoint [`Source::read`] is given.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ReadFrom {
    /// From the start of the stream.
    TrimHorizon,
    /// Records after this `SequenceNumber`.
    After(String),
    /// Exactly the records from `first` to `last` inclusive: the replay of a batch
    /// that was in flight when the process stopped.
    Range {
        /// First `SequenceNumber` of the range.
        first: String,
        /// Last `SequenceNumber` of the range.
        last: String,
    },
}

impl ReadFrom {
    /// The in-flight range again, else after the checkpoint's
    /// `SequenceNumber`, else from the start.
    fn of(checkpoint: &Checkpoint) -> Self {
        if let Some(in_flight) = &checkpoint.in_flight {
            return Self::Range {
                first: in_flight.first.clone(),
                last: in_flight.last.clone(),
            };
        }
        match &checkpoint.sequence_number {
            Some(sequence) => Self::After(sequence.clone()),
            None => Self::TrimHorizon,
        }
    }
}

/// What a read needs; cloned into the read-ahead thread.
#[derive(Clone)]
struct ShardReader {
    engine: Engine,
    /// Where the engine lives, for error messages.
    data_dir: PathBuf,
    table: String,
    /// The model `table` belongs to.
    model: TtlModel,
    /// `awsRegion` of the records.
    region: String,
    /// The `eventName`s some route matches ([`Source::route_event_names`]);
    /// records of other kinds are read without their JSON. `None`: all.
    routed: Option<Vec<EventName>>,
}

/// Batches read before the pipeline asked for them, by a blocking thread
/// that keeps reading forward while the batches are full (catching up),
/// at most [`READ_AHEAD_BATCHES`] ahead. Used while the pipeline asks for
/// exactly the next of them, else dropped (the thread then stops).
struct ReadAhead {
    /// Where the next batch in `batches` starts.
    from: ReadFrom,
    max_records: usize,
    /// The thread's reads in order, each with where it started; the
    /// thread stops after a short read or an error, or when this is dropped.
    batches: tokio::sync::mpsc::Receiver<(ReadFrom, Arc<EncodeJob>)>,
}

/// The read-ahead thread's side of [`ReadAhead::batches`].
type Batches = tokio::sync::mpsc::Sender<(ReadFrom, Arc<EncodeJob>)>;

/// How many batches the read-ahead thread may hold that the pipeline has not
/// taken yet. While the pipeline writes a closed batch to its sinks (a file
/// write and fsync, an S3 request: ten reads' worth of records at the
/// default limits) the thread keeps reading instead of stopping after one
/// batch; 32 reads cover about three such writes, so a slow fsync does not
/// stop it (8 did, on a busy disk). Bounded memory: at most this many reads
/// (plus the one in progress) of `max_records` records each, about 1 KB a
/// record for the TTL deletions of the bench.
const READ_AHEAD_BATCHES: usize = 32;

impl EngineSource {
    /// Reads `config.table` from `engine`: an engine this process owns
    /// ([`crate::engine::OwnedEngine`], the demo's) or one it opened to read
    /// ([`EngineSource::open`]). `config.data_dir`, if any, only names the
    /// engine in error messages.
    pub fn new(engine: Engine, config: &EngineSourceConfig) -> Self {
        Self {
            reader: ShardReader {
                data_dir: config.data_dir.clone().unwrap_or_default(),
                region: config.region.clone(),
                table: config.table.clone(),
                model: config.model,
                engine,
                routed: None,
            },
            starting_position: config.starting_position,
            read_ahead: None,
        }
    }

    /// Opens the engine at `data_dir` (for `[source.engine]` without
    /// `[engine]`: an engine read without sweeping it), and checks
    /// that it holds the table. Creates nothing and starts no sweeper.
    ///
    /// # Errors
    /// [`SourceError::DataDirMissing`] when the directory is missing or
    /// empty, [`SourceError::Open`] when the engine cannot be opened,
    /// [`SourceError::TableNotFound`] as [`EngineSource::checked`].
    pub fn open(
        data_dir: &std::path::Path,
        config: &EngineSourceConfig,
    ) -> Result<Self, SourceError> {
        crate::engine::check_data_dir(data_dir, "source.engine.data_dir")?;
        let engine = crate::engine::open_engine(data_dir)?;
        Self::new(engine, config).checked()
    }

    /// The source, if its engine holds the table in the configured model
    /// (a source built with [`EngineSource::new`] is not checked: the demo
    /// creates its table).
    ///
    /// # Errors
    /// [`SourceError::TableNotFound`], naming the directory and the
    /// DynamoDB-model tables it holds (or, for another model, that model).
    pub fn checked(self) -> Result<Self, SourceError> {
        let reader = &self.reader;
        if reader.has_model_table() {
            return Ok(self);
        }
        let tables = match reader.model {
            TtlModel::Dynamodb => {
                let tables = reader.engine.dynamodb().list_tables().unwrap_or_default();
                if tables.is_empty() {
                    "none".to_string()
                } else {
                    tables.join(", ")
                }
            }
            model => format!("no {} table of that name", model.as_str()),
        };
        Err(SourceError::TableNotFound {
            table: reader.table.clone(),
            data_dir: reader.data_dir.clone(),
            tables,
        })
    }

    /// [`ShardReader::read_now`], or the read-ahead of exactly this read;
    /// after a full batch of a forward read (catching up), starts a thread
    /// that reads the following batches ahead, so decoding the stream and
    /// writing to sinks use two cores, and reading goes on while the
    /// pipeline waits on a sink. The thread hands each read over as stored
    /// and then encodes it; the pipeline's thread encodes what is left of a
    /// read when it takes it ([`EncodeJob`]), so whichever thread is free
    /// does the encoding. At most [`READ_AHEAD_BATCHES`] are held (bounded
    /// memory); what was read ahead is used only while the pipeline asks for
    /// exactly the next position, so the checkpoint protocol is unchanged.
    async fn read_batch(
        &mut self,
        from: &ReadFrom,
        max_records: usize,
    ) -> Result<Vec<Record>, SourceError> {
        if self.reader.model != TtlModel::Dynamodb {
            return self.reader.read_now(from, max_records);
        }
        if let Some(ahead) = self
            .read_ahead
            .as_mut()
            .filter(|ahead| ahead.from == *from && ahead.max_records == max_records)
        {
            let Some((at, job)) = ahead.batches.recv().await else {
                self.read_ahead = None;
                return Err(self.read_ahead_failed(from));
            };
            debug_assert_eq!(at, *from, "read-ahead batches come in order");
            // Encodes what the read-ahead thread has not yet, beside it.
            let result = job.records();
            match &result {
                Ok(records) if records.len() >= max_records => {
                    if let Some(last) = records.last() {
                        ahead.from = ReadFrom::After(last.sequence_number.clone());
                    }
                }
                // A short read (caught up: the thread stopped) or an error
                // (dropping the receiver stops the thread).
                _ => self.read_ahead = None,
            }
            return result;
        }
        // Not the read the thread is on: stop it (dropping the receiver).
        self.read_ahead = None;
        let records = self.reader.read_now(from, max_records)?;
        if records.len() >= max_records
            && !matches!(from, ReadFrom::Range { .. })
            && let Some(last) = records.last()
        {
            let next = ReadFrom::After(last.sequence_number.clone());
            let (sender, batches) = tokio::sync::mpsc::channel(READ_AHEAD_BATCHES);
            let (reader, at) = (self.reader.clone(), next.clone());
            tokio::task::spawn_blocking(move || reader.read_ahead(at, max_records, &sender));
            self.read_ahead = Some(ReadAhead {
                from: next,
                max_records,
                batches,
            });
        }
        Ok(records)
    }

    fn read_ahead_failed(&self, from: &ReadFrom) -> SourceError {
        SourceError::Record {
            table: self.reader.table.clone(),
            sequence_number: format!("{from:?}"),
            message: "read-ahead thread failed".into(),
        }
    }
}

impl Source for EngineSource {
    fn id(&self) -> &str {
        &self.reader.table
    }

    fn tables(&self) -> Vec<String> {
        vec![self.reader.table.clone()]
    }

    fn ttl_metric_name(&self) -> &'static str {
        self.reader.model.ttl_metric_name()
    }

    fn route_event_names(&mut self, names: &BTreeSet<String>) {
        let kinds = [EventName::Insert, EventName::Modify, EventName::Remove];
        self.reader.routed = Some(
            kinds
                .into_iter()
                .filter(|kind| names.contains(kind.as_str()))
                .collect(),
        );
    }

    fn read<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<SourceBatch, SourceError>> {
        Box::pin(async move {
            let from = ReadFrom::of(checkpoint);
            let records = self.read_batch(&from, limits.max_records).await?;
            Ok(SourceBatch {
                records,
                progress: None,
            })
        })
    }

    fn latest(&mut self) -> BoxFuture<'_, Result<Option<String>, SourceError>> {
        Box::pin(async move {
            if self.starting_position != StartingPosition::Latest {
                return Ok(None);
            }
            self.reader.latest_of_model()
        })
    }

    fn clock(&self) -> std::sync::Arc<dyn ttlstream_engine::Clock> {
        self.reader.engine.clock()
    }
}

#[cfg(test)]
mod tests;
