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
use std::str::FromStr;

use ttlstream_engine::{Engine, EventName, SequenceNumber};

pub use self::config::{EngineSourceConfig, TtlModel};
use super::{BoxFuture, ReadLimits, Source, SourceBatch, StartingPosition};
use crate::checkpoint::Checkpoint;
use crate::error::SourceError;
use crate::record::Record;

/// Reads one table's stream from an [`Engine`].
pub struct EngineSource {
    reader: ShardReader,
    starting_position: StartingPosition,
    /// The next batches, being read by blocking threads while the pipeline
    /// routes and writes the last one.
    read_ahead: Option<ReadAhead>,
    /// How many threads read ahead: [`READERS`], or 1 from a missed guess
    /// ([`ShardReader::read_ahead`]) until the source catches up.
    readers: u64,
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

/// What a read needs; cloned into each read-ahead thread.
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

/// Batches read before the pipeline asked for them, by blocking threads
/// that keep reading forward while the batches are full (catching up), at
/// most [`READ_AHEAD_BATCHES`] ahead. Used while the pipeline asks for
/// exactly the next of them, else dropped (the threads then stop).
struct ReadAhead {
    /// Where the next batch starts.
    from: ReadFrom,
    max_records: usize,
    /// Each reader's reads in order, each with where it started; reader
    /// `k` of `n` reads batches `k`, `k + n`, ... A reader stops after a
    /// short read, an error or a missed guess, or when this is dropped.
    batches: Vec<tokio::sync::mpsc::Receiver<(ReadFrom, ReadResult)>>,
    /// Batches taken so far: the next comes from reader `taken % n`.
    taken: usize,
}

/// One read's records, or the error that ended it.
type ReadResult = Result<Vec<Record>, SourceError>;

/// A read-ahead reader's side of [`ReadAhead::batches`].
type Batches = tokio::sync::mpsc::Sender<(ReadFrom, ReadResult)>;

/// How many batches the read-ahead readers may hold that the pipeline has
/// not taken yet. While the pipeline writes a closed batch to its sinks (a
/// file write and fsync, an S3 request: ten reads' worth of records at the
/// default limits) the readers keep reading instead of stopping after one
/// batch; 32 reads cover about three such writes, so a slow fsync does not
/// stop them (8 did, on a busy disk). Bounded memory: at most this many
/// reads (plus one in progress per reader) of `max_records` records each,
/// about 1 KB a record for the TTL deletions of the bench.
const READ_AHEAD_BATCHES: usize = 32;

/// Threads reading ahead while the sequence numbers run on without a gap.
///
/// Why two: one reader (reading from the engine and writing the Lambda
/// shape, about 70 % of the pipeline's CPU) left a core idle while the
/// pipeline's thread routed and wrote; two kept both busy. The pipeline
/// benchmark (`pipeline_bench 200000 2000 5 3 file`, the file sink,
/// median of 3 rounds, 2-core VM) archived about 324,000 records/s with two
/// readers and 248,000/s with one (31 % more with two).
const READERS: u64 = 2;

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
            readers: READERS,
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
    /// after a full batch of a forward read (catching up), starts
    /// [`READERS`] threads that read the following batches ahead, so
    /// reading the stream and writing to sinks use both cores, and reading
    /// goes on while the pipeline waits on a sink. At most
    /// [`READ_AHEAD_BATCHES`] are held (bounded memory); what was read ahead
    /// is used only while the pipeline asks for exactly the next position,
    /// so the checkpoint protocol is unchanged. When a batch read ahead
    /// starts elsewhere (the table's sequence numbers have gaps: other
    /// tables are written too), it is dropped and one thread reads ahead
    /// until the source catches up; the next backlog gets [`READERS`] again
    /// (if other tables are still written, that costs one missed read).
    async fn read_batch(&mut self, from: &ReadFrom, max_records: usize) -> ReadResult {
        if self.reader.model != TtlModel::Dynamodb {
            return self.reader.read_now(from, max_records);
        }
        if let Some(ahead) = self
            .read_ahead
            .as_mut()
            .filter(|ahead| ahead.from == *from && ahead.max_records == max_records)
        {
            let turn = ahead.taken % ahead.batches.len();
            match ahead.batches[turn].recv().await {
                Some((at, read)) if at == *from => {
                    ahead.taken += 1;
                    match &read {
                        Ok(records) if records.len() >= max_records => {
                            if let Some(last) = records.last() {
                                ahead.from = ReadFrom::After(last.sequence_number.clone());
                            }
                        }
                        // Caught up: the threads stop; the next backlog may
                        // be one table's alone.
                        Ok(_) => {
                            self.read_ahead = None;
                            self.readers = READERS;
                        }
                        // Dropping the receivers stops the threads.
                        Err(_) => self.read_ahead = None,
                    }
                    return read;
                }
                // A missed guess (or a reader that died): read it now.
                _ => self.readers = 1,
            }
        }
        // Not the read the threads are on: stop them (dropping the receivers).
        self.read_ahead = None;
        let records = self.reader.read_now(from, max_records)?;
        if records.len() < max_records {
            // Caught up: the next backlog may be one table's alone.
            self.readers = READERS;
        }
        if records.len() >= max_records
            && !matches!(from, ReadFrom::Range { .. })
            && let Some(last) = records.last()
            && let Ok(last) = SequenceNumber::from_str(&last.sequence_number)
        {
            self.read_ahead = Some(self.start_reading_ahead(last, max_records));
        }
        Ok(records)
    }

    /// Starts [`EngineSource::readers`] threads reading the batches after
    /// `last`, reader `k` from `last + k * max_records`.
    fn start_reading_ahead(&self, last: SequenceNumber, max_records: usize) -> ReadAhead {
        let readers = self.readers;
        let per_reader = READ_AHEAD_BATCHES.div_ceil(readers as usize);
        let width = u64::try_from(max_records).unwrap_or(u64::MAX);
        let batches = (0..readers)
            .map(|k| {
                let (sender, batches) = tokio::sync::mpsc::channel(per_reader);
                let reader = self.reader.clone();
                let after = last.0.saturating_add(k.saturating_mul(width));
                tokio::task::spawn_blocking(move || {
                    reader.read_ahead(after, readers, max_records, &sender);
                });
                batches
            })
            .collect();
        ReadAhead {
            from: ReadFrom::After(last.to_string()),
            max_records,
            batches,
            taken: 0,
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
