//! Sweeper lag: how long the oldest expired item has waited to be deleted.

use crate::engine::Engine;
use crate::error::ReadError;
use crate::storage::{decode_expiry_key, expiry_bound};
use crate::ttl::expired_range_secs;

impl Engine {
    /// Milliseconds from the expiry of the oldest item of `table` that has
    /// expired but is not yet deleted, to now (the engine's clock); 0 when the
    /// sweeper has caught up or TTL is off. Read from the expiry index's first
    /// entry in the expiry window: one range read, but it steps over every
    /// index entry the sweeper deleted since fjall last compacted them, so it
    /// costs more the more was swept recently (about 100 ms after 100,000
    /// deletions); sample it, do not call it per record. DynamoDB gives no
    /// such figure ("typically within a few days"); this is the engine's own.
    ///
    /// # Errors
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn sweeper_lag_millis(&self, table: &str) -> Result<u64, ReadError> {
        let meta = self
            .table_meta(table)
            .ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })?;
        if meta.ttl_enabled().is_none() {
            return Ok(0);
        }
        let now_millis = self.inner.clock.now_millis();
        let (low, high) = expired_range_secs(now_millis);
        let range = expiry_bound(meta.id, low)..expiry_bound(meta.id, high);
        let Some(guard) = self.inner.store.expiry.range(range).next() else {
            return Ok(0);
        };
        let key = guard.key()?;
        let (expiry_secs, _) = decode_expiry_key(&key)?;
        let lag = now_millis.saturating_sub(expiry_secs.saturating_mul(1000));
        Ok(u64::try_from(lag).unwrap_or(0))
    }
}
