//! Reading a table's stream for the engine source, in every model through
//! one loop: its shards in order (parent before child; a Spanner table's
//! change stream partitions), records from their stored bytes (Spanner's
//! in `models.rs`), and the read-ahead readers' loop (DynamoDB tables
//! only).

use std::str::FromStr;
use std::sync::Arc;

use ttlstream_engine::{
    EventName, GetRecordsOutput, SequenceNumber, StoredEntry, StreamError, StreamPosition,
};

use super::{Batches, ReadFrom, ShardReader, TtlModel};
use crate::error::SourceError;
use crate::record::{Record, RecordContext};

impl ShardReader {
    pub(super) fn parse_sequence(&self, text: &str) -> Result<SequenceNumber, SourceError> {
        SequenceNumber::from_str(text).map_err(|_| SourceError::Record {
            table: self.table.clone(),
            sequence_number: text.to_string(),
            message: "not a sequence number of this engine (checkpoint from another source?)"
                .into(),
        })
    }

    pub(super) fn stream_error(&self, source: ttlstream_engine::StreamError) -> SourceError {
        SourceError::Stream {
            table: self.table.clone(),
            data_dir: self.data_dir.clone(),
            source: Box::new(source),
        }
    }

    /// Every shard of the table's stream in the order records must be read
    /// in: parent before child, older streams first. A DynamoDB table's
    /// shards come from the DynamoDB Streams API (ListStreams,
    /// DescribeStream); a Tablestore table's from its stream's shards
    /// (`Tablestore::describe_stream`); a Spanner table's from its change
    /// stream's partitions (`Spanner::change_stream_partitions`).
    pub(super) fn shards_in_order(&self) -> Result<Vec<ModelShard>, SourceError> {
        let err = |e| self.stream_error(e);
        let range_end = |range: ttlstream_engine::SequenceNumberRange| range.ending_sequence_number;
        match self.model {
            TtlModel::Dynamodb => self.dynamodb_shards(),
            TtlModel::Tablestore => {
                let context = Arc::new(RecordContext::new(
                    self.region.as_str(),
                    self.tablestore_arn(),
                ));
                let shards = self.engine.tablestore().describe_stream(&self.table);
                Ok(shards
                    .map_err(err)?
                    .into_iter()
                    .map(|shard| ModelShard {
                        stream_arn: String::new(),
                        shard_id: shard.shard_id,
                        ending: range_end(shard.sequence_number_range),
                        context: context.clone(),
                    })
                    .collect())
            }
            TtlModel::Spanner => {
                // Spanner records carry no eventSourceARN.
                let context = Arc::new(RecordContext::new(self.region.as_str(), ""));
                let partitions = self.engine.spanner().change_stream_partitions(&self.table);
                Ok(partitions
                    .map_err(err)?
                    .into_iter()
                    .map(|partition| ModelShard {
                        stream_arn: String::new(),
                        shard_id: partition.token,
                        ending: range_end(partition.sequence_number_range),
                        context: context.clone(),
                    })
                    .collect())
            }
        }
    }

    /// The shards of every stream of a DynamoDB table (older streams first).
    fn dynamodb_shards(&self) -> Result<Vec<ModelShard>, SourceError> {
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
            // eventSourceARN: the stream the shard belongs to.
            let context = Arc::new(RecordContext::new(
                self.region.as_str(),
                stream.stream_arn.as_str(),
            ));
            out.extend(description.shards.into_iter().map(|shard| ModelShard {
                stream_arn: stream.stream_arn.clone(),
                shard_id: shard.shard_id,
                ending: shard.sequence_number_range.ending_sequence_number,
                context: context.clone(),
            }));
        }
        Ok(out)
    }

    /// One read-ahead reader of `readers`: reads the batches after `after`
    /// that are its own, sending each with where it started, until a read
    /// is short (caught up: the pipeline then polls as usual), fails, or the
    /// receiver is gone.
    ///
    /// Alone, it reads each batch from where the last one ended. With
    /// others, it guesses where its batches start: the sequence numbers of
    /// a table written alone run on without a gap, so a full read after `s`
    /// ends at `s + max_records`, and reader `k` of `n` reads batches `k`,
    /// `k + n`, ... (the caller starts reader `k` at `s + k * max_records`).
    /// It stops after a batch that does not end where the next one was
    /// guessed to start: the pipeline then finds the next batch starting
    /// elsewhere than it asks, and reads on alone ([`EngineSource`]).
    ///
    /// [`EngineSource`]: super::EngineSource
    pub(super) fn read_ahead(
        &self,
        mut after: u64,
        readers: u64,
        max_records: usize,
        batches: &Batches,
    ) {
        let width = u64::try_from(max_records).unwrap_or(u64::MAX);
        loop {
            let from = ReadFrom::After(SequenceNumber(after).to_string());
            let read = self.read_now(&from, max_records);
            let end = match &read {
                Ok(records) if records.len() >= max_records => records
                    .last()
                    .and_then(|last| SequenceNumber::from_str(&last.sequence_number).ok()),
                _ => None,
            };
            if batches.blocking_send((from, read)).is_err() {
                return;
            }
            let Some(end) = end else { return };
            after = if readers == 1 {
                end.0
            } else if after.checked_add(width) == Some(end.0) {
                match width
                    .checked_mul(readers)
                    .and_then(|stride| after.checked_add(stride))
                {
                    Some(next) => next,
                    None => return,
                }
            } else {
                return;
            };
        }
    }

    /// Reads shard by shard with GetRecords-limited reads (1,000 records or
    /// 1 MB each) until `max_records` are read or an open shard has nothing
    /// new, and turns the records into [`Record`]s on this thread: a
    /// DynamoDB or Tablestore table's from their stored bytes
    /// ([`ShardReader::read_stored`]), a Spanner table's data change records
    /// through `models.rs`. A shard is left for its child only when it is
    /// closed and drained, so parents are always read before children.
    pub(super) fn read_now(
        &self,
        from: &ReadFrom,
        max_records: usize,
    ) -> Result<Vec<Record>, SourceError> {
        match self.model {
            TtlModel::Spanner => self.read_spanner(from, max_records),
            TtlModel::Dynamodb | TtlModel::Tablestore => self.read_stored(from, max_records),
        }
    }

    /// [`ShardReader::read_now`] of a DynamoDB or Tablestore table: the
    /// records as the stream stores them, each then written in the Lambda
    /// shape if some route's `eventName` matches it, else kept as its
    /// [`Record::unmatched_from_stored`] form (records no route matches are
    /// read only as far as their header). The first error in stream order:
    /// a record's, else the one that cut the read short.
    fn read_stored(&self, from: &ReadFrom, max_records: usize) -> Result<Vec<Record>, SourceError> {
        let routed = |kind: EventName| self.routed.as_ref().is_none_or(|r| r.contains(&kind));
        let sequence_of = |entry: &StoredEntry| entry.sequence_number();
        let keep = |shard: &ModelShard, entry| (shard.context.clone(), entry);
        let mut stored = Vec::new();
        let read = match self.model {
            TtlModel::Dynamodb => {
                let streams = self.engine.streams();
                let read = |shard: &ModelShard, position, want| {
                    let (arn, id) = (&shard.stream_arn, &shard.shard_id);
                    streams.get_stored_records_of(arn, id, position, want, routed)
                };
                self.read_shards(from, max_records, &mut stored, read, sequence_of, keep)
            }
            TtlModel::Tablestore => {
                let tablestore = self.engine.tablestore();
                let read = |shard: &ModelShard, position, want| {
                    let (table, id) = (&self.table, &shard.shard_id);
                    tablestore.get_stored_stream_records_of(table, id, position, want, routed)
                };
                self.read_shards(from, max_records, &mut stored, read, sequence_of, keep)
            }
            // Not a stored change record: `read_now` reads Spanner tables
            // through `read_spanner`.
            TtlModel::Spanner => Err(SourceError::Record {
                table: self.table.clone(),
                sequence_number: format!("{from:?}"),
                message: "a Spanner table's records are data change records, read whole".into(),
            }),
        };
        let records = stored
            .iter()
            .map(|(context, entry)| match entry {
                StoredEntry::Record(stored) if routed(stored.event_name()) => {
                    Record::from_stored(stored, context)
                }
                StoredEntry::Record(stored) => Record::unmatched_from_stored(stored),
                StoredEntry::Header(header) => Record::unmatched_from_header(header),
            })
            .collect::<Result<Vec<_>, _>>()?;
        read.map(|()| records)
    }

    /// The one read loop of every model: from `from`, shard by shard in
    /// [`ShardReader::shards_in_order`], each read with `read` (a
    /// GetRecords-limited read of one shard from a position), until
    /// `max_records` are in `out` (each made by `keep` from its shard and
    /// the stored entry), an open shard has nothing new, or, for a
    /// [`ReadFrom::Range`], the range's last record is passed. A closed
    /// shard wholly before the position is skipped; a closed, drained one
    /// is left for its child.
    pub(super) fn read_shards<E, T>(
        &self,
        from: &ReadFrom,
        max_records: usize,
        out: &mut Vec<T>,
        read: impl Fn(&ModelShard, StreamPosition, usize) -> Result<GetRecordsOutput<E>, StreamError>,
        sequence_of: impl Fn(&E) -> SequenceNumber,
        keep: impl Fn(&ModelShard, E) -> T,
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
        for shard in self.shards_in_order()? {
            // A closed shard wholly before the position holds nothing wanted.
            if shard.ending.is_some_and(|end| end.0 < first_wanted) {
                continue;
            }
            loop {
                let want = max_records.saturating_sub(out.len());
                if want == 0 {
                    return Ok(());
                }
                let got = read(&shard, position, want).map_err(|e| self.stream_error(e))?;
                let count = got.records.len();
                // Grown once per read, not by doubling record by record.
                out.reserve(count);
                for entry in got.records {
                    let sequence_number = sequence_of(&entry);
                    if until.is_some_and(|last| sequence_number > last) {
                        return Ok(());
                    }
                    position = StreamPosition::AfterSequenceNumber(sequence_number);
                    out.push(keep(&shard, entry));
                }
                match got.next_position {
                    // Closed and drained: go on with the child.
                    None => break,
                    // Open and nothing new: caught up.
                    Some(_) if count == 0 => return Ok(()),
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}

/// One shard of a table's stream, of any model, as the read loop needs it.
pub(super) struct ModelShard {
    /// The StreamArn of its stream (DynamoDB); empty for a Tablestore or
    /// Spanner table, whose shards are named by table.
    stream_arn: String,
    /// `ShardId` (Tablestore `shard_id`, Spanner partition `token`).
    shard_id: String,
    /// Its EndingSequenceNumber once closed.
    ending: Option<SequenceNumber>,
    /// The `awsRegion` and `eventSourceARN` of its records.
    context: Arc<RecordContext>,
}

impl ModelShard {
    /// `ShardId` (Tablestore `shard_id`, Spanner partition `token`).
    pub(super) fn shard_id(&self) -> &str {
        &self.shard_id
    }
}
