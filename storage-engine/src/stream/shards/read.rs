//! ListStreams, DescribeStream, GetShardIterator and GetRecords. Each call
//! reads one fjall snapshot, so shard boundaries and records are seen as of
//! one instant (a rotation commits both in one batch).

use super::Streams;
use super::found::{Found, shard_shape};
use super::meta::{
    SHARDS, StreamKind, load_shards, load_streams, parse_stream_arn, trimmed_through,
};
use super::{
    GetRecordsOutput, MAX_GET_RECORDS, MAX_GET_RECORDS_BYTES, StreamDescription, StreamStatus,
    StreamSummary,
};
use crate::error::StorageError;
use crate::stream::codec::{StoredEntry, StoredRecord};
use crate::stream::error::StreamError;
use crate::stream::keys::{decode_record, stored_entry, stored_record, stream_key};
use crate::stream::record::{EventName, SequenceNumber, StreamPosition};
use fjall::{Guard, Readable, Snapshot};

impl Streams<'_> {
    /// The streams kept (ENABLED, and DISABLED ones not yet removed by
    /// retention), of `table` only if given, ordered by table name then
    /// creation (DynamoDB Streams `ListStreams`; the caller pages with
    /// `ExclusiveStartStreamArn` / `Limit`). A table name with no streams
    /// gives an empty list, not an error, as ListStreams does.
    ///
    /// # Errors
    ///
    /// [`StreamError::Storage`].
    pub fn list_streams(&self, table: Option<&str>) -> Result<Vec<StreamSummary>, StreamError> {
        let snapshot = self.store.db.snapshot();
        let mut out: Vec<(String, i64, StreamSummary)> =
            load_streams(&snapshot, &self.store.shards)?
                .into_iter()
                .filter(|s| is_dynamodb(&s.entry.kind))
                .filter(|s| table.is_none_or(|t| s.entry.table_name == t))
                .map(|s| {
                    let summary = StreamSummary {
                        stream_arn: s.entry.arn(),
                        table_name: s.entry.table_name.clone(),
                        stream_label: s.entry.label(),
                    };
                    (s.entry.table_name, s.entry.created_millis, summary)
                })
                .collect();
        out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        Ok(out.into_iter().map(|(_, _, s)| s).collect())
    }

    /// The newest stream of `table`, ENABLED or DISABLED (DescribeTable's
    /// `LatestStreamArn` and `LatestStreamLabel`); `None` if the table never
    /// had one or it has been removed by retention.
    ///
    /// # Errors
    ///
    /// [`StreamError::Storage`].
    pub fn latest_stream(&self, table: &str) -> Result<Option<StreamSummary>, StreamError> {
        Ok(self.list_streams(Some(table))?.pop())
    }

    /// The stream with this ARN and every shard it keeps, parent before
    /// child (DynamoDB Streams `DescribeStream`, whole; a server pages the
    /// shards with `ExclusiveStartShardId` / `Limit`).
    ///
    /// # Errors
    ///
    /// [`StreamError::InvalidStreamArn`]; [`StreamError::StreamNotFound`];
    /// [`StreamError::Storage`].
    pub fn describe_stream(&self, stream_arn: &str) -> Result<StreamDescription, StreamError> {
        let snapshot = self.store.db.snapshot();
        let found = self.find_stream(&snapshot, stream_arn)?;
        let e = &found.stream.entry;
        let StreamKind::DynamoDb {
            partition_key,
            sort_key,
            view,
        } = &e.kind
        else {
            return Err(StreamError::StreamNotFound {
                stream_arn: stream_arn.to_string(),
            });
        };
        Ok(StreamDescription {
            stream_arn: e.arn(),
            stream_label: e.label(),
            stream_status: if e.disabled_millis.is_some() {
                StreamStatus::Disabled
            } else {
                StreamStatus::Enabled
            },
            stream_view_type: *view,
            creation_request_date_time_millis: e.created_millis,
            table_name: e.table_name.clone(),
            key_schema: std::iter::once(partition_key.clone())
                .chain(sort_key.clone())
                .collect(),
            shards: found.shards.iter().map(shard_shape).collect(),
        })
    }

    /// Checks a GetShardIterator request and returns the position to read
    /// from with [`Streams::get_records`](crate::Streams::get_records) (DynamoDB Streams
    /// `GetShardIterator`): `TrimHorizon` is returned as is; `Latest` becomes
    /// `AfterSequenceNumber` of the shard's newest record (so later records
    /// are read, earlier ones are not); a sequence number must lie in the
    /// shard's SequenceNumberRange and not below the trim horizon.
    ///
    /// # Errors
    ///
    /// [`StreamError::InvalidStreamArn`]; [`StreamError::StreamNotFound`];
    /// [`StreamError::ShardNotFound`];
    /// [`StreamError::SequenceNumberOutsideShard`];
    /// [`StreamError::TrimmedDataAccess`] ("You request a shard iterator with
    /// a sequence number older than the trim point");
    /// [`StreamError::Storage`].
    pub fn shard_iterator(
        &self,
        stream_arn: &str,
        shard_id: &str,
        position: StreamPosition,
    ) -> Result<StreamPosition, StreamError> {
        let snapshot = self.store.db.snapshot();
        let found = self.find_stream(&snapshot, stream_arn)?;
        self.iterator_in(&snapshot, &found, stream_arn, shard_id, position)
    }

    /// [`Streams::shard_iterator`] in a stream found in `snapshot`
    /// (`stream_name` names it in errors).
    pub(super) fn iterator_in(
        &self,
        snapshot: &Snapshot,
        found: &Found,
        stream_name: &str,
        shard_id: &str,
        position: StreamPosition,
    ) -> Result<StreamPosition, StreamError> {
        let (shard, last) = found.shard(stream_name, shard_id)?;
        match position {
            StreamPosition::TrimHorizon => Ok(position),
            StreamPosition::Latest => {
                let newest = self.newest_in(snapshot, found.stream.table_id, shard.start, last)?;
                let after = newest
                    .unwrap_or(shard.start.saturating_sub(1))
                    .max(found.trimmed.unwrap_or(0));
                Ok(StreamPosition::AfterSequenceNumber(SequenceNumber(after)))
            }
            StreamPosition::AtSequenceNumber(s) | StreamPosition::AfterSequenceNumber(s) => {
                if s.0 < shard.start || shard.entry.ending.is_some_and(|end| s.0 > end) {
                    return Err(StreamError::SequenceNumberOutsideShard {
                        shard_id: shard_id.to_string(),
                        sequence_number: s,
                        range: match shard.entry.ending {
                            Some(end) => {
                                format!("{}..={}", SequenceNumber(shard.start), SequenceNumber(end))
                            }
                            None => format!("{}..", SequenceNumber(shard.start)),
                        },
                    });
                }
                found.check_trim(position)?;
                Ok(position)
            }
        }
    }

    /// Reads up to `limit` records of one shard from `position` (DynamoDB
    /// Streams `GetRecords`): at most [`MAX_GET_RECORDS`] (1,000) records
    /// (`limit` is clamped to 1..=1,000) and at most [`MAX_GET_RECORDS_BYTES`]
    /// (1 MB) of `SizeBytes`. A sequence number before the shard's start
    /// reads from its start. `next_position` is `None` once a closed shard
    /// is drained ("NextShardIterator ... null: the shard has been closed");
    /// an open shard with nothing new returns no records and a position to
    /// poll again.
    ///
    /// # Errors
    ///
    /// [`StreamError::InvalidStreamArn`]; [`StreamError::StreamNotFound`];
    /// [`StreamError::ShardNotFound`]; [`StreamError::TrimmedDataAccess`]
    /// when records after an `AtSequenceNumber` / `AfterSequenceNumber`
    /// position have been trimmed ("a stream record in the shard exceeds the
    /// 24 hour period and is trimmed"); [`StreamError::Storage`].
    pub fn get_records(
        &self,
        stream_arn: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
    ) -> Result<GetRecordsOutput, StreamError> {
        self.read_shard(stream_arn, shard_id, position, limit, |guard| {
            let record = decode_record(&guard.value()?)?;
            Ok((record.size_bytes, record.sequence_number, record))
        })
    }

    /// [`Streams::get_records`](crate::Streams::get_records) with each record as stored
    /// ([`StoredRecord`]: checked, not decoded), for readers that turn records
    /// into their own bytes. Same limits, positions and errors.
    ///
    /// # Errors
    ///
    /// As [`Streams::get_records`](crate::Streams::get_records).
    pub fn get_stored_records(
        &self,
        stream_arn: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
    ) -> Result<GetRecordsOutput<StoredRecord>, StreamError> {
        self.read_shard(stream_arn, shard_id, position, limit, |guard| {
            let record = stored_record(guard.value()?)?;
            Ok((record.size_bytes(), record.sequence_number(), record))
        })
    }

    /// [`Streams::get_stored_records`](crate::Streams::get_stored_records) for a reader that has no use for
    /// records of some kinds: a record whose `eventName` `full` rejects
    /// comes as its header ([`StoredEntry::Header`]: `SequenceNumber`,
    /// time, kind, table, TTL deletion or not), checked as far as that and
    /// no further, so a fault in its keys or images is not found; it counts
    /// its stored length towards the 1 MB limit instead of its `SizeBytes`
    /// (not computed), so a read can end at another record than
    /// [`Streams::get_stored_records`](crate::Streams::get_stored_records)' would. Every other record comes whole
    /// ([`StoredEntry::Record`]), as does one whose identity is not the TTL
    /// service's. Same positions, record limit and errors.
    ///
    /// # Errors
    ///
    /// As [`Streams::get_records`](crate::Streams::get_records).
    pub fn get_stored_records_of(
        &self,
        stream_arn: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
        full: impl Fn(EventName) -> bool,
    ) -> Result<GetRecordsOutput<StoredEntry>, StreamError> {
        self.read_shard(stream_arn, shard_id, position, limit, |guard| {
            let (size, entry) = stored_entry(guard.value()?, &full)?;
            Ok((size, entry.sequence_number(), entry))
        })
    }

    /// GetRecords of a stream found by ARN.
    fn read_shard<R>(
        &self,
        stream_arn: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
        read: impl Fn(Guard) -> Result<(u64, SequenceNumber, R), StorageError>,
    ) -> Result<GetRecordsOutput<R>, StreamError> {
        let snapshot = self.store.db.snapshot();
        let found = self.find_stream(&snapshot, stream_arn)?;
        self.read_in(
            &snapshot, &found, stream_arn, shard_id, position, limit, read,
        )
    }

    /// The one GetRecords read, of every model's streams: `read` turns a
    /// stored record (key and value) into a record and says its
    /// `SizeBytes` and `SequenceNumber`. `stream_name` names the stream in
    /// errors.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_in<R>(
        &self,
        snapshot: &Snapshot,
        found: &Found,
        stream_name: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
        read: impl Fn(Guard) -> Result<(u64, SequenceNumber, R), StorageError>,
    ) -> Result<GetRecordsOutput<R>, StreamError> {
        let position = match position {
            StreamPosition::Latest => {
                self.iterator_in(snapshot, found, stream_name, shard_id, position)?
            }
            other => other,
        };
        let (shard, last) = found.shard(stream_name, shard_id)?;
        found.check_trim(position)?;
        let trim_floor = found.trimmed.map_or(0, |t| t.saturating_add(1));
        let from = match position {
            StreamPosition::TrimHorizon | StreamPosition::Latest => shard.start.max(trim_floor),
            StreamPosition::AtSequenceNumber(s) => s.0.max(shard.start),
            StreamPosition::AfterSequenceNumber(s) => s.0.saturating_add(1).max(shard.start),
        };
        let closed = shard.entry.ending.is_some();
        let limit = limit.clamp(1, MAX_GET_RECORDS);
        // Sized once for the most this read can return (the limit, or the
        // numbers left in the shard): growing by doubling copied the records
        // about ten times per 1,000-record read.
        let in_range =
            usize::try_from(last.saturating_sub(from).saturating_add(1)).unwrap_or(limit);
        let mut records = Vec::with_capacity(if from <= last { limit.min(in_range) } else { 0 });
        let mut last_read = None;
        if from <= last {
            let id = found.stream.table_id;
            let lo = stream_key(id, SequenceNumber(from));
            let hi = stream_key(id, SequenceNumber(last));
            let mut bytes = 0u64;
            for guard in snapshot.range(&self.store.stream, lo..=hi) {
                let (size, sequence_number, record) = read(guard)?;
                bytes = bytes.saturating_add(size);
                if !records.is_empty() && bytes > MAX_GET_RECORDS_BYTES {
                    break;
                }
                records.push(record);
                last_read = Some(sequence_number);
                if records.len() >= limit {
                    break;
                }
            }
        }
        let next_position = match last_read {
            Some(s) if closed && s.0 >= last => None,
            Some(s) => Some(StreamPosition::AfterSequenceNumber(s)),
            None if closed => None,
            None => Some(position),
        };
        Ok(GetRecordsOutput {
            records,
            next_position,
        })
    }

    fn find_stream(&self, snapshot: &Snapshot, stream_arn: &str) -> Result<Found, StreamError> {
        let (table, millis) =
            parse_stream_arn(stream_arn).map_err(|m| StreamError::InvalidStreamArn {
                stream_arn: stream_arn.to_string(),
                message: m.to_string(),
            })?;
        let ks = &self.store.shards;
        let streams = load_streams(snapshot, ks)?;
        let pos = streams
            .iter()
            .position(|s| {
                is_dynamodb(&s.entry.kind)
                    && s.entry.table_name == table
                    && s.entry.created_millis == millis
            })
            .ok_or_else(|| StreamError::StreamNotFound {
                stream_arn: stream_arn.to_string(),
            })?;
        let stream = streams[pos].clone();
        let end = streams
            .get(pos + 1)
            .filter(|next| next.table_id == stream.table_id)
            .map(|next| next.start);
        let shards = load_shards(snapshot, ks, stream.table_id, stream.start, end)?;
        let trimmed = trimmed_through(snapshot, ks, stream.table_id)?;
        debug_assert_eq!(SHARDS, "shards");
        Ok(Found {
            stream,
            shards,
            trimmed,
        })
    }

    /// The newest record of table `table_id` in `[from, to]`.
    fn newest_in(
        &self,
        snapshot: &Snapshot,
        table_id: u32,
        from: u64,
        to: u64,
    ) -> Result<Option<u64>, StreamError> {
        let lo = stream_key(table_id, SequenceNumber(from));
        let hi = stream_key(table_id, SequenceNumber(to));
        match snapshot.range(&self.store.stream, lo..=hi).next_back() {
            Some(guard) => Ok(Some(
                crate::stream::keys::decode_stream_key(&guard.key()?)?.0,
            )),
            None => Ok(None),
        }
    }
}

/// Whether a stream is a DynamoDB table's: the only ones the DynamoDB
/// Streams API shows (a Tablestore or Spanner table's stream is read through
/// its model's API, as its service's clients expect).
fn is_dynamodb(kind: &StreamKind) -> bool {
    matches!(kind, StreamKind::DynamoDb { .. })
}
