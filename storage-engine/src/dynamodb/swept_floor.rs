//! Sweeper lag: how long the oldest expired item has waited to be deleted.

use super::DynamoDb;
use crate::dynamodb::ttl::expired_range_secs;
use crate::error::ReadError;
use crate::storage::{decode_expiry_key, expiry_bound};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Per DynamoDB table, a key of the expiry index below which it holds no
/// entry in the expiry window (in memory only; unknown after open). The
/// sweeper raises it past each batch it scanned and deleted under the write
/// lock; every write of an expiry entry below it lowers it (also under the
/// write lock: the writes of items and of the index build); changing the
/// TTL setting forgets it. So each sweep pass and
/// [`DynamoDb::sweeper_lag_millis`](crate::DynamoDb::sweeper_lag_millis) can start reading at it instead of
/// stepping over every index entry the sweeper deleted since fjall last
/// compacted them.
#[derive(Debug, Default)]
pub(crate) struct SweptFloors(Mutex<HashMap<u32, Vec<u8>>>);

impl SweptFloors {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Vec<u8>>> {
        // Plain keys, each replaced whole: consistent even after a panic.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The floor of table `id`, if known.
    pub(crate) fn get(&self, id: u32) -> Option<Vec<u8>> {
        self.map().get(&id).cloned()
    }

    /// An expiry entry `key` of table `id` is being written (write lock held).
    pub(crate) fn lower(&self, id: u32, key: &[u8]) {
        if let Some(floor) = self.map().get_mut(&id)
            && key < floor.as_slice()
        {
            *floor = key.to_vec();
        }
    }

    /// The sweeper (write lock held) scanned every entry of table `id` after
    /// `from` (from `from` itself when `nothing_below`: its expiry window's
    /// start, or the floor it read under the same lock) up to and including
    /// `last` (to `end`, its window's end, if `last` is `None`) and deleted
    /// them all. The floor moves up only if nothing at or below `from` can
    /// be left: `nothing_below`, or a floor still above `from` (no write
    /// went below it since).
    pub(crate) fn swept(
        &self,
        id: u32,
        from: &[u8],
        nothing_below: bool,
        last: Option<&[u8]>,
        end: &[u8],
    ) {
        let mut map = self.map();
        let below_clear = nothing_below || map.get(&id).is_some_and(|f| f.as_slice() > from);
        if below_clear {
            let floor = match last {
                // The smallest key above `last`.
                Some(last) => [last, &[0]].concat(),
                None => end.to_vec(),
            };
            map.insert(id, floor);
        }
    }

    /// Forgets table `id`'s floor (its index is being rebuilt or removed).
    pub(crate) fn forget(&self, id: u32) {
        self.map().remove(&id);
    }
}

impl DynamoDb<'_> {
    /// Milliseconds from the expiry of the oldest item of `table` that has
    /// expired but is not yet deleted, to now (the engine's clock); 0 when the
    /// sweeper has caught up or TTL is off. Read from the expiry index's first
    /// entry in the expiry window, starting where the sweeper's last pass
    /// left off (so it does not step over the deletions of that pass); the
    /// first read after opening the engine, before any sweep, steps over the
    /// deletions fjall has not compacted yet. DynamoDB gives no such figure
    /// ("typically within a few days"); this is the engine's own.
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
        let mut start = expiry_bound(meta.id, low);
        if let Some(floor) = self.cache.swept_floors.get(meta.id)
            && floor > start
        {
            start = floor;
        }
        let end = expiry_bound(meta.id, high);
        if start >= end {
            return Ok(0);
        }
        let Some(guard) = self.inner.store.expiry.range(start..end).next() else {
            return Ok(0);
        };
        let key = guard.key()?;
        let (expiry_secs, _) = decode_expiry_key(&key)?;
        let lag = now_millis.saturating_sub(expiry_secs.saturating_mul(1000));
        Ok(u64::try_from(lag).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_rise_only_over_what_was_scanned_and_fall_with_writes() {
        let floors = SweptFloors::default();
        floors.lower(1, b"c");
        assert_eq!(floors.get(1), None, "unknown stays unknown");
        floors.swept(1, b"a", false, Some(b"c"), b"z");
        assert_eq!(floors.get(1), None, "a chunk after an unknown floor");
        floors.swept(1, b"a", true, Some(b"c"), b"z");
        assert_eq!(floors.get(1), Some(b"c\0".to_vec()));
        floors.swept(1, b"c", false, Some(b"e"), b"z");
        assert_eq!(floors.get(1), Some(b"e\0".to_vec()));
        // A write at the last key the sweeper deleted: the next chunk starts
        // after it, so the floor must not move past it.
        floors.lower(1, b"e");
        floors.swept(1, b"e", false, Some(b"g"), b"z");
        assert_eq!(floors.get(1), Some(b"e".to_vec()));
        floors.swept(1, b"a", true, None, b"z");
        assert_eq!(floors.get(1), Some(b"z".to_vec()));
        floors.forget(1);
        assert_eq!(floors.get(1), None);
    }
}
