//! Closing the open batch and delivering it. A closed batch is written to
//! its sinks by a task of its own while the pipeline reads and routes the
//! next batch; at most one batch is in flight, and batches commit in order.
//! The checkpoint is saved with the batch in flight before the task starts,
//! and committed when the pipeline next closes a batch (in the same write as
//! that batch's in-flight range), catches up, flushes or stops; only the
//! pipeline writes the checkpoint, and dropping the pipeline aborts the
//! task. A crash at any point replays exactly the in-flight range, as with
//! one batch at a time: the records read after it are in memory only, and
//! are read again.
//!
//! Why: with the delivery awaited, the pipeline's thread waited on each
//! batch's file write and two checkpoint fsyncs for about half of every
//! pass of the pipeline benchmark (`pipeline_bench ... file`); overlapped
//! (and one checkpoint write a batch), that wait leaves the critical path.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::Pipeline;
use crate::checkpoint::InFlight;
use crate::error::{PipelineError, SinkError};
use crate::routing::Delivered;

/// A closed batch on its way to the sinks: its range is in flight in the
/// checkpoint.
pub(super) struct Delivery {
    range: InFlight,
    task: JoinHandle<Result<Delivered, (Delivered, SinkError)>>,
}

impl Drop for Delivery {
    /// A delivery no pipeline waits for stops at its next await: a later
    /// pipeline on the same checkpoint replays its range.
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Delivery {
    /// Where the next read starts while this batch is delivered.
    pub(super) fn last(&self) -> &str {
        &self.range.last
    }
}

impl Pipeline {
    /// Writes the open batch to every sink that holds records, sends what a sink
    /// could not take after its retries to the dead-letter sink, and commits the
    /// checkpoint past the batch (and past a batch still being delivered
    /// before it). A no-op without an open batch or a delivery. Called by
    /// [`Pipeline::run`] on shutdown; call it after the last step when driving
    /// the pipeline by hand.
    ///
    /// # Errors
    /// A sink error when a sink failed and there is no dead-letter sink (or it
    /// failed too); a checkpoint error. The checkpoint then still holds the
    /// batch as in flight, and the next step reads it again.
    pub async fn flush(&mut self) -> Result<(), PipelineError> {
        self.close_batch().await?;
        self.settle_and_save().await
    }

    /// Closes the open batch and starts its delivery, after waiting for the
    /// delivery before it; one checkpoint write commits that one and puts
    /// this one in flight. A partitioned source's batch is delivered and
    /// committed before this returns: the next read starts from the
    /// partition's committed progress.
    ///
    /// # Errors
    /// As [`Pipeline::flush`], for the delivery before; a checkpoint error.
    pub(super) async fn close_batch(&mut self) -> Result<(), PipelineError> {
        let committed = self.settle().await?;
        let Some(closed) = self.batcher.take() else {
            return self.save_if(committed);
        };
        let range = match self.replay.take() {
            Some(range) => range,
            None => InFlight {
                first: closed.first.clone(),
                last: closed.last.clone(),
                partition: self.open_progress.take(),
            },
        };
        self.open_progress = None;
        if closed.is_empty() {
            // Nothing for any sink: nothing to overwrite on replay either.
            self.commit(&range);
            return self.save_if(true);
        }
        // Not saved again when replaying the range the checkpoint holds.
        let in_flight_saved = self.checkpoint.in_flight.as_ref() == Some(&range);
        self.checkpoint.in_flight = Some(range.clone());
        self.save_if(committed || !in_flight_saved)?;
        let partitioned = range.partition.is_some();
        let routing = Arc::clone(&self.routing);
        let (first, last) = (range.first.clone(), range.last.clone());
        let task = tokio::spawn(async move {
            let result = routing.deliver(&closed, (&first, &last)).await;
            result.map_err(|undelivered| (undelivered.delivered, undelivered.error))
        });
        self.delivering = Some(Delivery { range, task });
        if partitioned {
            self.settle_and_save().await?;
        }
        Ok(())
    }

    /// [`Pipeline::settle`], and the commit saved.
    ///
    /// # Errors
    /// As [`Pipeline::settle`]; a checkpoint error.
    pub(super) async fn settle_and_save(&mut self) -> Result<(), PipelineError> {
        let committed = self.settle().await?;
        self.save_if(committed)
    }

    fn save_if(&self, changed: bool) -> Result<(), PipelineError> {
        if changed {
            self.store.save(&self.checkpoint)?;
        }
        Ok(())
    }

    /// Waits for the batch being delivered, if any, and commits it in the
    /// checkpoint in memory: `true` when it did (the caller saves it). When
    /// the delivery failed, its range is read again on the next step, and
    /// the records read after it are dropped from the open batch (they are
    /// read again too).
    pub(super) async fn settle(&mut self) -> Result<bool, PipelineError> {
        let Some(mut delivery) = self.delivering.take() else {
            return Ok(false);
        };
        let (delivered, error) = match (&mut delivery.task).await {
            Ok(Ok(delivered)) => (delivered, None),
            Ok(Err((delivered, error))) => (delivered, Some(error)),
            Err(join) => {
                let error = SinkError::DeliveryLost {
                    first: delivery.range.first.clone(),
                    last: delivery.range.last.clone(),
                    message: join.to_string(),
                };
                (Delivered::default(), Some(error))
            }
        };
        self.stats.records_delivered += delivered.records;
        self.stats.records_dead_lettered += delivered.dead_lettered;
        let range = delivery.range.clone();
        if let Some(error) = error {
            self.replay = Some(range);
            self.batcher.take();
            self.open_progress = None;
            return Err(error.into());
        }
        self.commit(&range);
        Ok(true)
    }

    /// The checkpoint past `range`: its last `SequenceNumber` (and
    /// partition progress) committed, nothing in flight; in memory.
    fn commit(&mut self, range: &InFlight) {
        self.checkpoint.sequence_number = Some(range.last.clone());
        self.checkpoint.in_flight = None;
        if let Some(progress) = &range.partition {
            self.checkpoint.commit_partition(progress);
        }
        self.stats.batches_committed += 1;
    }
}
