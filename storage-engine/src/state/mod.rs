//! The state every TTL model shares: the store, the clock, the stream
//! options, the engine-wide write lock and the counters it guards, and where
//! budget-limited sweeps stopped. The models and the root import it; it
//! imports no model.

pub(crate) mod clock;

use crate::storage::Store;
use crate::stream::shards::StreamOptions;
use crate::stream::shards::alloc::WriteState;
use crate::sweeper::resume::SweepResume;
use crate::sweeper::watermark::ProcessedWatermarks;
use clock::Clock;
use fjall::PersistMode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// State shared by all clones of an [`Engine`](crate::Engine), its model
/// handles and its sweeper.
pub(crate) struct Inner {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Shard rotation and retention.
    pub stream_options: StreamOptions,
    /// The write lock and the counters it protects.
    pub write: Mutex<WriteState>,
    /// Where the last budget-limited pass stopped in each Tablestore and
    /// Spanner table (see `sweeper/resume.rs`).
    pub sweep_resume: SweepResume,
    /// Each Spanner table's processed watermark (see `sweeper/watermark.rs`).
    pub processed_watermarks: ProcessedWatermarks,
}

impl Inner {
    /// Takes the engine-wide write lock.
    pub(crate) fn lock_writes(&self) -> MutexGuard<'_, WriteState> {
        // The state is counters that are only advanced after a successful
        // commit, so it is consistent even if a holder panicked.
        self.write.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Err(e) = self.store.db.persist(PersistMode::SyncAll) {
            tracing::error!(error = %e, "persisting the engine on close failed");
        }
    }
}
