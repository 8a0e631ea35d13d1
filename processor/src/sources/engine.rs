//! `engine` source: the bundled engine's change stream, read in process.
//! A DynamoDB-model table's stream is read through the engine's DynamoDB
//! Streams API (ListStreams, DescribeStream, GetRecords), shard by shard,
//! parent before child; a Tablestore- or Spanner-model table's change
//! records through that model's stream read (`models.rs`), from the same
//! checkpoint positions. The source only reads: the engine's sweeper
//! belongs to whoever owns the engine ([`crate::engine`]).

mod config;
mod models;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use ttlstream_engine::{Engine, EventName, SequenceNumber, Shard, StreamPosition};

pub use self::config::{EngineSourceConfig, TtlModel};
use super::engine_encode::{EncodeJob, StoredBatch};
use super::{BoxFuture, ReadLimits, Source, SourceBatch, StartingPosition};
use crate::checkpoint::Checkpoint;
use crate::error::SourceError;
use crate::record::{Record, RecordContext};

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
            return self.reader.read_model(from, max_records);
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

impl ShardReader {
    fn parse_sequence(&self, text: &str) -> Result<SequenceNumber, SourceError> {
        SequenceNumber::from_str(text).map_err(|_| SourceError::Record {
            table: self.table.clone(),
            sequence_number: text.to_string(),
            message: "not a sequence number of this engine (checkpoint from another source?)"
                .into(),
        })
    }

    fn stream_error(&self, source: ttlstream_engine::StreamError) -> SourceError {
        SourceError::Stream {
            table: self.table.clone(),
            data_dir: self.data_dir.clone(),
            source: Box::new(source),
        }
    }

    /// Every shard of every stream of the table (older streams first), each
    /// stream's shards parent before child: the order records must be read in.
    fn shards_in_order(&self) -> Result<Vec<(String, Shard)>, SourceError> {
        let mut out = Vec::new();
        let streams = self
            .engine
            .streams()
            .list_streams(Some(&self.table))
            .map_err(|e| self.stream_error(e))?;
        if streams.is_empty() {
            // No stream kept: say why (no such table, stream disabled)
            // rather than wait forever.
            self.engine
                .dynamodb()
                .latest_sequence_number(&self.table)
                .map_err(|e| self.stream_error(e))?;
        }
        for stream in streams {
            let description = self
                .engine
                .streams()
                .describe_stream(&stream.stream_arn)
                .map_err(|e| self.stream_error(e))?;
            out.extend(
                description
                    .shards
                    .into_iter()
                    .map(|shard| (stream.stream_arn.clone(), shard)),
            );
        }
        Ok(out)
    }

    /// The read-ahead thread: reads batch after batch from `from` and sends
    /// each (as stored, [`EncodeJob`]) with where it started, then encodes
    /// what the pipeline's thread has not taken of it yet; until a read is
    /// short (caught up: the pipeline then polls as usual), fails, or the
    /// receiver is gone.
    ///
    /// A second thread reads, meanwhile, where the next read starts if the
    /// table's sequence numbers run on without a gap (a full read after `s`
    /// then ends at `s + max_records`: one table written); its read is sent
    /// only when that is where the next read starts, so what is sent is what
    /// a read from there returns. After a wrong guess it is not asked again.
    fn read_ahead(&self, mut from: ReadFrom, max_records: usize, batches: &Batches) {
        let (ask, asked) = std::sync::mpsc::sync_channel::<ReadFrom>(1);
        let (give, given) = std::sync::mpsc::sync_channel::<Arc<EncodeJob>>(1);
        let helper = self.clone();
        tokio::task::spawn_blocking(move || {
            for at in asked {
                let job = Arc::new(helper.read_stored(&at, max_records));
                if give.send(job.clone()).is_err() {
                    return;
                }
                job.work();
            }
        });
        let mut guessing = true;
        loop {
            let guess = if guessing {
                guess_next(&from, max_records).filter(|at| ask.send(at.clone()).is_ok())
            } else {
                None
            };
            let job = Arc::new(self.read_stored(&from, max_records));
            let mut next = next_read(&job, max_records);
            if batches.blocking_send((from, job.clone())).is_err() {
                return;
            }
            job.work();
            if let Some(at) = guess {
                let Ok(guessed) = given.recv() else {
                    return;
                };
                if next.as_ref() == Some(&at) {
                    next = next_read(&guessed, max_records);
                    if batches.blocking_send((at, guessed.clone())).is_err() {
                        return;
                    }
                    guessed.work();
                } else {
                    guessing = false;
                }
            }
            match next {
                Some(next) => from = next,
                None => return,
            }
        }
    }

    /// Reads shard by shard with GetRecords-limited reads (1,000 records or
    /// 1 MB each) until `max_records` are read or an open shard has nothing
    /// new, and turns the records into [`Record`]s on this thread. A shard is
    /// left for its child only when it is closed and drained, so parents are
    /// always read before children.
    fn read_now(&self, from: &ReadFrom, max_records: usize) -> Result<Vec<Record>, SourceError> {
        self.read_stored(from, max_records).records()
    }

    /// What [`ShardReader::read_now`] reads, as the stream stores it, with
    /// the error that cut the read short after those records, if any (an
    /// error among the records, found when they are encoded, comes first,
    /// as in stream order).
    fn read_stored(&self, from: &ReadFrom, max_records: usize) -> EncodeJob {
        let mut stored = Vec::new();
        let error = self.read_stored_into(from, max_records, &mut stored).err();
        EncodeJob::new(stored, error, self.routed.clone())
    }

    fn read_stored_into(
        &self,
        from: &ReadFrom,
        max_records: usize,
        out: &mut StoredBatch,
    ) -> Result<(), SourceError> {
        let (mut position, until) = match from {
            ReadFrom::TrimHorizon => (StreamPosition::TrimHorizon, None),
            ReadFrom::After(sequence) => (
                StreamPosition::AfterSequenceNumber(self.parse_sequence(sequence)?),
                None,
            ),
            ReadFrom::Range { first, last } => (
                StreamPosition::AtSequenceNumber(self.parse_sequence(first)?),
                Some(self.parse_sequence(last)?),
            ),
        };
        let first_wanted = match position {
            StreamPosition::AtSequenceNumber(s) => s.0,
            StreamPosition::AfterSequenceNumber(s) => s.0.saturating_add(1),
            _ => 0,
        };
        // Records no route matches are read as far as their header.
        let routed = |kind: EventName| self.routed.as_ref().is_none_or(|r| r.contains(&kind));
        for (arn, shard) in self.shards_in_order()? {
            // A closed shard wholly before the position holds nothing wanted.
            if shard
                .sequence_number_range
                .ending_sequence_number
                .is_some_and(|end| end.0 < first_wanted)
            {
                continue;
            }
            // eventSourceARN: the stream the shard belongs to.
            let context = Arc::new(RecordContext::new(self.region.as_str(), arn.as_str()));
            loop {
                let want = max_records.saturating_sub(out.len());
                if want == 0 {
                    return Ok(());
                }
                let got = self
                    .engine
                    .streams()
                    .get_stored_records_of(&arn, &shard.shard_id, position, want, routed)
                    .map_err(|e| self.stream_error(e))?;
                let read = got.records.len();
                // Grown once per read, not by doubling record by record.
                out.reserve(read);
                for entry in got.records {
                    let sequence_number = entry.sequence_number();
                    if until.is_some_and(|last| sequence_number > last) {
                        return Ok(());
                    }
                    position = StreamPosition::AfterSequenceNumber(sequence_number);
                    out.push((context.clone(), entry));
                }
                match got.next_position {
                    // Closed and drained: go on with the child.
                    None => break,
                    // Open and nothing new: caught up.
                    Some(_) if read == 0 => return Ok(()),
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}

/// Where the read after a read of `job` starts, when that read was full and
/// whole (a short read: caught up).
fn next_read(job: &EncodeJob, max_records: usize) -> Option<ReadFrom> {
    match job.last() {
        Some(last) if job.read_whole() && job.len() >= max_records => {
            Some(ReadFrom::After(last.to_string()))
        }
        _ => None,
    }
}

/// Where the read after a full read from `from` starts if the sequence
/// numbers run on without a gap.
fn guess_next(from: &ReadFrom, max_records: usize) -> Option<ReadFrom> {
    let ReadFrom::After(sequence) = from else {
        return None;
    };
    let last = SequenceNumber::from_str(sequence)
        .ok()?
        .0
        .checked_add(u64::try_from(max_records).ok()?)?;
    Some(ReadFrom::After(SequenceNumber(last).to_string()))
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
            if self.reader.model != TtlModel::Dynamodb {
                return self.reader.latest_of_model();
            }
            self.reader
                .engine
                .dynamodb()
                .latest_sequence_number(&self.reader.table)
                .map(|latest| latest.map(|s| s.to_string()))
                .map_err(|source| self.reader.stream_error(source))
        })
    }

    fn clock(&self) -> std::sync::Arc<dyn ttlstream_engine::Clock> {
        self.reader.engine.clock()
    }
}

#[cfg(test)]
mod tests;
