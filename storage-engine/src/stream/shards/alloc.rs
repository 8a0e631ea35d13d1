//! Sequence-number allocation and shard rotation, staged in the batch of the
//! record that needs them.
//!
//! The write lock's [`WriteState`] holds the next sequence number and, per
//! table with an ENABLED stream, its open shard. A write takes a
//! [`SeqAlloc`] (a copy of what it may change), stages records through it,
//! commits its batch, and only then hands the result back with
//! [`WriteState::apply`]: a failed commit changes nothing in memory.
//!
//! Rotation ("Change data capture for DynamoDB Streams": shards are created
//! and closed automatically): when a record is staged for a table whose open
//! shard already holds `max_records_per_shard` records, or is at least
//! `max_shard_age` old and holds a record, the same batch rewrites the old
//! shard's entry as closed (EndingSequenceNumber = its last record) and writes
//! a child entry (ParentShardId = the old one) starting at the new record.

use super::StreamOptions;
use super::meta::{ShardEntry, encode, shard_id, shard_key};
use crate::error::StorageError;
use crate::storage::Store;
use fjall::OwnedWriteBatch;
use std::collections::HashMap;
use std::sync::Arc;

/// Counters allocated under the engine's write lock: sequence numbers, the
/// open shards they go to, table ids.
pub(crate) struct WriteState {
    /// Next change-record sequence number (engine-wide).
    pub next_sequence_number: u64,
    /// Next table id.
    pub next_table_id: u32,
    /// The open shard of each table whose stream is enabled: DynamoDB tables
    /// with a StreamSpecification, Tablestore tables with a stream, Spanner
    /// tables with a change stream.
    pub open_shards: HashMap<u32, OpenShard>,
}

/// The open shard of a table's ENABLED stream, as the writer tracks it.
#[derive(Clone, Debug)]
pub(crate) struct OpenShard {
    /// StartingSequenceNumber (the key of its entry).
    pub start: u64,
    /// The stored entry (open: no ending).
    pub entry: Arc<ShardEntry>,
    /// Records it holds.
    pub records: u64,
    /// Its newest record.
    pub last: Option<u64>,
}

/// Sequence numbers and shard changes of one batch, applied to the
/// [`WriteState`] once the batch has committed.
pub(crate) struct SeqAlloc<'a> {
    base: &'a HashMap<u32, OpenShard>,
    /// The next sequence number to hand out.
    pub next: u64,
    touched: Vec<(u32, Option<OpenShard>)>,
}

/// What a committed [`SeqAlloc`] changed.
pub(crate) struct Allocated {
    next: u64,
    touched: Vec<(u32, Option<OpenShard>)>,
}

impl WriteState {
    /// Starts allocating for one batch.
    pub(crate) fn alloc(&self) -> SeqAlloc<'_> {
        SeqAlloc {
            base: &self.open_shards,
            next: self.next_sequence_number,
            touched: Vec::new(),
        }
    }

    /// Records what a committed batch allocated.
    pub(crate) fn apply(&mut self, done: Allocated) {
        self.next_sequence_number = done.next;
        for (id, shard) in done.touched {
            match shard {
                Some(shard) => self.open_shards.insert(id, shard),
                None => self.open_shards.remove(&id),
            };
        }
    }
}

impl SeqAlloc<'_> {
    /// Ends allocation; pass the result to [`WriteState::apply`] after the commit.
    pub(crate) fn finish(self) -> Allocated {
        Allocated {
            next: self.next,
            touched: self.touched,
        }
    }

    /// Allocates the sequence number of a record of table `table_id`'s stream
    /// written at `now_millis`, staging a shard rotation into `batch` when the
    /// open shard is full or old.
    ///
    /// # Errors
    ///
    /// [`StorageError::Encode`] (not expected).
    pub(crate) fn record(
        &mut self,
        store: &Store,
        batch: &mut OwnedWriteBatch,
        options: &StreamOptions,
        table_id: u32,
        now_millis: i64,
    ) -> Result<u64, StorageError> {
        let seq = self.next;
        self.next = self.next.saturating_add(1);
        let idx = match self.touched.iter().position(|(id, _)| *id == table_id) {
            Some(i) => i,
            None => {
                let Some(open) = self.base.get(&table_id) else {
                    // No open shard: not expected (every model stages a
                    // table's stream with its first shard); the record is
                    // still kept and numbered.
                    return Ok(seq);
                };
                self.touched.push((table_id, Some(open.clone())));
                self.touched.len() - 1
            }
        };
        let Some(shard) = self.touched[idx].1.as_mut() else {
            return Ok(seq);
        };
        let old_enough = now_millis.saturating_sub(shard.entry.created_millis)
            >= i64::try_from(options.max_shard_age.as_millis()).unwrap_or(i64::MAX);
        if let Some(last) = shard.last
            && (shard.records >= options.max_records_per_shard.max(1) || old_enough)
        {
            let ks = &store.shards;
            let closed = ShardEntry {
                ending: Some(last),
                closed_millis: Some(now_millis),
                ..(*shard.entry).clone()
            };
            batch.insert(
                ks,
                shard_key(table_id, shard.start),
                encode("shard entry", &closed)?,
            );
            let child = ShardEntry {
                shard_id: shard_id(now_millis, table_id, seq),
                parent_shard_id: Some(closed.shard_id),
                created_millis: now_millis,
                ending: None,
                closed_millis: None,
            };
            batch.insert(ks, shard_key(table_id, seq), encode("shard entry", &child)?);
            *shard = OpenShard {
                start: seq,
                entry: Arc::new(child),
                records: 0,
                last: None,
            };
        }
        shard.records += 1;
        shard.last = Some(seq);
        Ok(seq)
    }

    /// Reserves one sequence number (a new stream's and first shard's start,
    /// never a record's).
    pub(crate) fn reserve(&mut self) -> u64 {
        let seq = self.next;
        self.next = self.next.saturating_add(1);
        seq
    }

    /// Sets (or with `None` removes) the open shard of `table_id`.
    pub(crate) fn set_open(&mut self, table_id: u32, shard: Option<OpenShard>) {
        self.touched.retain(|(id, _)| *id != table_id);
        self.touched.push((table_id, shard));
    }

    /// The open shard of `table_id` as this batch sees it.
    pub(crate) fn open_shard(&self, table_id: u32) -> Option<&OpenShard> {
        match self.touched.iter().find(|(id, _)| *id == table_id) {
            Some((_, s)) => s.as_ref(),
            None => self.base.get(&table_id),
        }
    }
}
