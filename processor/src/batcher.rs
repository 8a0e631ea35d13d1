//! The one batching mechanism: records a source read are held per sink until a
//! sink's limit (records, bytes, age) closes the batch for every sink at once.
//!
//! Every sink of a source shares the batch boundaries, so one in-flight
//! `SequenceNumber` range in the checkpoint describes every object written for
//! the batch, and a crash replays exactly that range (see [`crate::checkpoint`]).
//! Memory is bounded: the pipeline reads from the source only between writes,
//! and an open batch never holds more than each sink's `max_records` and
//! `max_bytes` (a single record larger than `max_bytes` is a batch of its own).

use std::time::{Duration, Instant};

use crate::record::Record;
use crate::sinks::{BatchLimits, SinkBatch};

/// The open batch of one source.
#[derive(Debug)]
pub struct Batcher {
    limits: Vec<BatchLimits>,
    records: Vec<Record>,
    per_sink: Vec<Vec<usize>>,
    bytes: Vec<usize>,
    range: Option<(String, String)>,
    /// When the range began (its first record, matched or not).
    range_opened: Option<Instant>,
    /// When the first record for a sink arrived.
    opened: Option<Instant>,
}

/// A batch taken out of the [`Batcher`] for delivery.
#[derive(Debug)]
pub struct ClosedBatch {
    /// `SequenceNumber` of the first source record the batch covers.
    pub first: String,
    /// `SequenceNumber` of the last source record the batch covers.
    pub last: String,
    records: Vec<Record>,
    per_sink: Vec<Vec<usize>>,
}

impl Batcher {
    /// A batcher for sinks with these limits (index = sink index).
    pub fn new(limits: Vec<BatchLimits>) -> Self {
        let sinks = limits.len();
        Self {
            limits,
            records: Vec::new(),
            per_sink: vec![Vec::new(); sinks],
            bytes: vec![0; sinks],
            range: None,
            range_opened: None,
            opened: None,
        }
    }

    /// The source range the open batch covers, matched or not.
    pub fn range(&self) -> Option<(&str, &str)> {
        self.range.as_ref().map(|(f, l)| (f.as_str(), l.as_str()))
    }

    /// Whether any sink holds a record (otherwise the range can be committed
    /// without writing anything).
    pub fn holds_records(&self) -> bool {
        !self.records.is_empty()
    }

    /// Whether `sinks` can take `record` without passing their `max_bytes`. An
    /// empty sink always can.
    pub fn fits(&self, record: &Record, sinks: &[usize]) -> bool {
        let len = record.json.len() + 1;
        sinks.iter().all(|&s| {
            self.per_sink[s].is_empty() || self.bytes[s] + len <= self.limits[s].max_bytes
        })
    }

    /// Adds a record read from the source for `sinks` (none: the record only
    /// extends the range). Returns whether a sink is now full (records or bytes).
    pub fn push(&mut self, record: Record, sinks: &[usize]) -> bool {
        match &mut self.range {
            Some((_, last)) => last.clone_from(&record.sequence_number),
            None => {
                self.range = Some((
                    record.sequence_number.clone(),
                    record.sequence_number.clone(),
                ));
                self.range_opened = Some(Instant::now());
            }
        }
        if sinks.is_empty() {
            return false;
        }
        self.opened.get_or_insert_with(Instant::now);
        let index = self.records.len();
        let len = record.json.len() + 1;
        self.records.push(record);
        let mut full = false;
        for &s in sinks {
            self.per_sink[s].push(index);
            self.bytes[s] += len;
            full |= self.per_sink[s].len() >= self.limits[s].max_records
                || self.bytes[s] >= self.limits[s].max_bytes;
        }
        full
    }

    /// Whether the oldest held record has waited `max_age_millis` of a sink
    /// holding records.
    pub fn is_due(&self, now: Instant) -> bool {
        let Some(opened) = self.opened else {
            return false;
        };
        let max_age = self
            .per_sink
            .iter()
            .zip(&self.limits)
            .filter(|(held, _)| !held.is_empty())
            .map(|(_, limits)| limits.max_age_millis)
            .min()
            .unwrap_or(u64::MAX);
        now.saturating_duration_since(opened) >= Duration::from_millis(max_age)
    }

    /// How long the open range has been open at `now` (zero without one).
    pub fn range_age(&self, now: Instant) -> Duration {
        self.range_opened.map_or(Duration::ZERO, |opened| {
            now.saturating_duration_since(opened)
        })
    }

    /// Takes the open batch out; the batcher starts empty.
    pub fn take(&mut self) -> Option<ClosedBatch> {
        let (first, last) = self.range.take()?;
        self.range_opened = None;
        self.opened = None;
        self.bytes.iter_mut().for_each(|b| *b = 0);
        let sinks = self.per_sink.len();
        let held = self.records.len();
        Some(ClosedBatch {
            first,
            last,
            // The next batch is likely as long: grown once, not by doubling.
            records: std::mem::replace(&mut self.records, Vec::with_capacity(held)),
            per_sink: std::mem::replace(&mut self.per_sink, vec![Vec::new(); sinks]),
        })
    }
}

impl ClosedBatch {
    /// Whether no sink holds a record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Each sink's records, one [`SinkBatch`] per sink and table, named by the
    /// range `first..=last` (the batch's own, or the in-flight range being
    /// replayed).
    pub fn sink_batches<'a>(
        &'a self,
        first: &'a str,
        last: &'a str,
    ) -> Vec<(usize, SinkBatch<'a>)> {
        let mut batches = Vec::new();
        for (sink, indices) in self.per_sink.iter().enumerate() {
            let mut tables: Vec<(&str, Vec<&Record>)> = Vec::new();
            for &i in indices {
                let record = &self.records[i];
                match tables.iter_mut().find(|(t, _)| *t == record.table_name) {
                    Some((_, records)) => records.push(record),
                    None => tables.push((&record.table_name, vec![record])),
                }
            }
            for (table_name, records) in tables {
                batches.push((
                    sink,
                    SinkBatch {
                        table_name,
                        first_sequence_number: first,
                        last_sequence_number: last,
                        records,
                    },
                ));
            }
        }
        batches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: u32, len: usize) -> Record {
        Record::new("T".into(), format!("{seq:021}"), 0, true, vec![b'x'; len])
    }

    fn limits(max_records: usize, max_bytes: usize, max_age_millis: u64) -> BatchLimits {
        BatchLimits {
            max_records,
            max_bytes,
            max_age_millis,
        }
    }

    #[test]
    fn closes_at_the_tightest_sinks_record_limit_and_covers_unmatched_records() {
        let mut batcher = Batcher::new(vec![
            limits(3, 1 << 20, 60_000),
            limits(100, 1 << 20, 60_000),
        ]);
        assert!(!batcher.push(record(1, 10), &[0, 1]));
        assert!(!batcher.push(record(2, 10), &[]));
        assert!(!batcher.push(record(3, 10), &[0, 1]));
        assert!(batcher.push(record(4, 10), &[0]), "sink 0 holds 3 records");
        let closed = batcher.take().expect("open batch");
        assert_eq!(
            (closed.first.as_str(), closed.last.as_str()),
            (
                record(1, 0).sequence_number.as_str(),
                record(4, 0).sequence_number.as_str()
            )
        );
        let batches = closed.sink_batches(&closed.first, &closed.last);
        let counts: Vec<(usize, usize)> =
            batches.iter().map(|(s, b)| (*s, b.records.len())).collect();
        assert_eq!(counts, vec![(0, 3), (1, 2)]);
        assert!(batcher.range().is_none() && !batcher.holds_records());
    }

    #[test]
    fn bytes_never_pass_max_bytes_and_age_counts_from_the_first_held_record() {
        let mut batcher = Batcher::new(vec![limits(100, 25, 50)]);
        let now = Instant::now();
        assert!(
            !batcher.is_due(now + Duration::from_secs(1)),
            "nothing held"
        );
        batcher.push(record(1, 10), &[0]);
        assert!(batcher.fits(&record(2, 10), &[0]), "11 + 11 <= 25");
        batcher.push(record(2, 10), &[0]);
        assert!(!batcher.fits(&record(3, 10), &[0]), "33 > 25");
        assert!(
            batcher.fits(&record(3, 10), &[]),
            "a record for no sink always fits"
        );
        assert!(batcher.is_due(Instant::now() + Duration::from_millis(50)));
        assert!(!batcher.is_due(Instant::now()));
        let mut single = Batcher::new(vec![limits(100, 5, 50)]);
        assert!(
            single.fits(&record(1, 10), &[0]),
            "an empty sink takes an oversize record"
        );
        assert!(single.push(record(1, 10), &[0]));
    }
}
