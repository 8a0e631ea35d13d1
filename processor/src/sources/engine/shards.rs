//! Reading a DynamoDB-model table's stream for the engine source: its
//! shards in order (parent before child), records from their stored bytes
//! (`engine_encode.rs`), and the read-ahead thread's loop.

use std::str::FromStr;
use std::sync::Arc;

use ttlstream_engine::{EventName, SequenceNumber, Shard, StreamPosition};

use super::{Batches, ReadFrom, ShardReader};
use crate::error::SourceError;
use crate::record::{Record, RecordContext};
use crate::sources::engine_encode::{EncodeJob, StoredBatch};

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

    /// Every shard of every stream of the table (older streams first), each
    /// stream's shards parent before child: the order records must be read in.
    pub(super) fn shards_in_order(&self) -> Result<Vec<(String, Shard)>, SourceError> {
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
    pub(super) fn read_ahead(&self, mut from: ReadFrom, max_records: usize, batches: &Batches) {
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
    pub(super) fn read_now(
        &self,
        from: &ReadFrom,
        max_records: usize,
    ) -> Result<Vec<Record>, SourceError> {
        self.read_stored(from, max_records).records()
    }

    /// What [`ShardReader::read_now`] reads, as the stream stores it, with
    /// the error that cut the read short after those records, if any (an
    /// error among the records, found when they are encoded, comes first,
    /// as in stream order).
    pub(super) fn read_stored(&self, from: &ReadFrom, max_records: usize) -> EncodeJob {
        let mut stored = Vec::new();
        let error = self.read_stored_into(from, max_records, &mut stored).err();
        EncodeJob::new(stored, error, self.routed.clone())
    }

    pub(super) fn read_stored_into(
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
pub(super) fn next_read(job: &EncodeJob, max_records: usize) -> Option<ReadFrom> {
    match job.last() {
        Some(last) if job.read_whole() && job.len() >= max_records => {
            Some(ReadFrom::After(last.to_string()))
        }
        _ => None,
    }
}

/// Where the read after a full read from `from` starts if the sequence
/// numbers run on without a gap.
pub(super) fn guess_next(from: &ReadFrom, max_records: usize) -> Option<ReadFrom> {
    let ReadFrom::After(sequence) = from else {
        return None;
    };
    let last = SequenceNumber::from_str(sequence)
        .ok()?
        .0
        .checked_add(u64::try_from(max_records).ok()?)?;
    Some(ReadFrom::After(SequenceNumber(last).to_string()))
}
