//! A read's stored records turned into [`Record`]s by two threads at once:
//! the engine source's read-ahead thread starts on them as soon as it has
//! handed the read over, and the pipeline's thread joins in when it takes the
//! batch. Chunks are claimed from a shared cursor, so the split follows
//! whichever thread is free: the one that reads, or the one that filters and
//! writes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ttlstream_engine::{EventName, SequenceNumber, StoredEntry};

use crate::error::SourceError;
use crate::record::{Record, RecordContext};

/// Records as the stream stores them (or their headers), each with the
/// context of its shard, in stream order.
pub(super) type StoredBatch = Vec<(Arc<RecordContext>, StoredEntry)>;

/// Records per claim: tens of microseconds of encoding, small enough for the
/// two threads to finish close together.
const CHUNK: usize = 32;

enum Chunk {
    Stored(StoredBatch),
    Encoded(Result<Vec<Record>, SourceError>),
    Taken,
}

/// One read on its way to [`Record`]s.
pub(super) struct EncodeJob {
    chunks: Vec<Mutex<Chunk>>,
    next: AtomicUsize,
    /// The `eventName`s some route matches; `None`: all.
    routed: Option<Vec<EventName>>,
    len: usize,
    last: Option<SequenceNumber>,
    /// The error that ended the read after these records, reported once they
    /// are encoded (an error among them comes first, as in stream order).
    error: Mutex<Option<SourceError>>,
}

impl EncodeJob {
    /// The job of a read's `stored` records, and of the error that cut it
    /// short after them, if any.
    pub(super) fn new(
        stored: StoredBatch,
        error: Option<SourceError>,
        routed: Option<Vec<EventName>>,
    ) -> Self {
        let len = stored.len();
        let last = stored.last().map(|(_, entry)| entry.sequence_number());
        let mut chunks = Vec::with_capacity(len.div_ceil(CHUNK));
        let mut rest = stored.into_iter();
        loop {
            let chunk: StoredBatch = rest.by_ref().take(CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            chunks.push(Mutex::new(Chunk::Stored(chunk)));
        }
        Self {
            chunks,
            next: AtomicUsize::new(0),
            routed,
            len,
            last,
            error: Mutex::new(error),
        }
    }

    /// Whether the read ended without an error after its records.
    pub(super) fn read_whole(&self) -> bool {
        lock(&self.error).is_none()
    }

    /// Records in the read.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// `SequenceNumber` of the read's last record.
    pub(super) fn last(&self) -> Option<SequenceNumber> {
        self.last
    }

    /// Encodes chunks no thread has claimed yet, until none is left. A chunk
    /// is encoded under its lock, so [`EncodeJob::records`] waits for one in
    /// progress.
    pub(super) fn work(&self) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.chunks.get(index) else {
                return;
            };
            let mut chunk = lock(slot);
            if let Chunk::Stored(stored) = &*chunk {
                let encoded = self.encode(stored);
                *chunk = Chunk::Encoded(encoded);
            }
        }
    }

    /// The records in stream order: encodes the chunks left, waits for those
    /// in progress on another thread. The first error in stream order: a
    /// record's, else the read's.
    ///
    /// # Errors
    /// A record's [`SourceError`], or the error that cut the read short.
    pub(super) fn records(&self) -> Result<Vec<Record>, SourceError> {
        self.work();
        let mut out = Vec::with_capacity(self.len);
        for slot in &self.chunks {
            let mut chunk = lock(slot);
            let encoded = match std::mem::replace(&mut *chunk, Chunk::Taken) {
                // Claimed by a thread that has not locked it yet.
                Chunk::Stored(stored) => self.encode(&stored),
                Chunk::Encoded(encoded) => encoded,
                Chunk::Taken => Ok(Vec::new()),
            };
            out.extend(encoded?);
        }
        match lock(&self.error).take() {
            Some(error) => Err(error),
            None => Ok(out),
        }
    }

    /// A chunk's records: the Lambda shape of a record some route's
    /// `eventName` matches, else its [`Record::unmatched`] form; stops at the
    /// first error.
    fn encode(&self, stored: &StoredBatch) -> Result<Vec<Record>, SourceError> {
        let routed = |kind| self.routed.as_ref().is_none_or(|r| r.contains(&kind));
        stored
            .iter()
            .map(|(context, entry)| match entry {
                StoredEntry::Record(stored) if routed(stored.event_name()) => {
                    Record::from_stored(stored, context)
                }
                StoredEntry::Record(stored) => Record::unmatched_from_stored(stored),
                StoredEntry::Header(header) => Record::unmatched_from_header(header),
            })
            .collect()
    }
}

/// The value, even if a thread panicked holding it.
fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_dynamo::{AttributeValue, Item};
    use ttlstream_engine::{ChangeRecord, StoredRecord, StreamViewType, UserIdentity};

    use super::*;

    fn change(i: u64, millis: i64) -> ChangeRecord {
        let item: Item =
            HashMap::from([("k".to_string(), AttributeValue::S(format!("v{i}")))]).into();
        ChangeRecord {
            table_name: "Sessions".into(),
            sequence_number: SequenceNumber(i),
            event_id: String::new(),
            event_name: if i.is_multiple_of(3) {
                ttlstream_engine::EventName::Insert
            } else {
                ttlstream_engine::EventName::Remove
            },
            approximate_creation_date_time_millis: millis,
            keys: item.clone(),
            new_image: None,
            old_image: Some(item),
            size_bytes: 0,
            stream_view_type: StreamViewType::NewAndOldImages,
            user_identity: (!i.is_multiple_of(3)).then(UserIdentity::dynamodb_ttl),
        }
    }

    fn batch(changes: &[ChangeRecord]) -> StoredBatch {
        let context = Arc::new(RecordContext::new("ddblocal", "arn:stream"));
        changes
            .iter()
            .map(|c| {
                (
                    context.clone(),
                    StoredEntry::Record(StoredRecord::from_change(c)),
                )
            })
            .collect()
    }

    /// What one thread encoding record by record gives.
    fn sequential(changes: &[ChangeRecord], routed: &[EventName]) -> Result<Vec<Record>, String> {
        let context = RecordContext::new("ddblocal", "arn:stream");
        changes
            .iter()
            .map(|c| {
                let stored = StoredRecord::from_change(c);
                if routed.contains(&stored.event_name()) {
                    Record::from_stored(&stored, &context)
                } else {
                    Record::unmatched_from_stored(&stored)
                }
            })
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())
    }

    /// Two threads encoding one job give the records one thread gives, in
    /// order, and the first error in stream order: a record's before the
    /// read's.
    #[test]
    fn two_threads_encode_as_one() {
        let routed = vec![EventName::Remove];
        let changes: Vec<ChangeRecord> = (1..=300).map(|i| change(i, 1_700_000_000_000)).collect();
        for _ in 0..20 {
            let job = Arc::new(EncodeJob::new(batch(&changes), None, Some(routed.clone())));
            let helper = {
                let job = job.clone();
                std::thread::spawn(move || job.work())
            };
            let records = job.records().map_err(|e| e.to_string());
            helper.join().expect("helper");
            assert_eq!(records, sequential(&changes, &routed));
            assert_eq!(job.len(), 300);
            assert_eq!(job.last(), Some(SequenceNumber(300)));
        }
        let read_error = || SourceError::Record {
            table: "Sessions".into(),
            sequence_number: "301".into(),
            message: "the read failed".into(),
        };
        let mut bad = changes.clone();
        bad[100].approximate_creation_date_time_millis = i64::MAX;
        let expected = sequential(&bad, &routed).expect_err("out of range");
        let job = Arc::new(EncodeJob::new(
            batch(&bad),
            Some(read_error()),
            Some(routed.clone()),
        ));
        let helper = {
            let job = job.clone();
            std::thread::spawn(move || job.work())
        };
        assert_eq!(job.records().map_err(|e| e.to_string()), Err(expected));
        helper.join().expect("helper");
        let job = EncodeJob::new(batch(&changes), Some(read_error()), None);
        assert!(!job.read_whole());
        assert_eq!(
            job.records().map_err(|e| e.to_string()),
            Err(read_error().to_string())
        );
    }
}
