//! The sweeper's lag histogram: for each TTL deletion, the time from the
//! item's expiry instant (its TTL second × 1000) to the deletion, in
//! milliseconds of the engine's clock. DynamoDB publishes no such figure (it
//! deletes "typically within a few days", "Using time to live (TTL) in
//! DynamoDB"); this is the engine's own measure.

/// Upper bounds (inclusive, milliseconds) of the histogram's buckets; the
/// last bucket holds everything above the last bound.
pub const LAG_BUCKET_BOUNDS_MILLIS: [u64; 17] = [
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000,
    3_600_000,
];

/// A fixed-bucket histogram of sweep lags (milliseconds), as counted by a
/// running [`Sweeper`](crate::Sweeper) ([`Sweeper::lag_histogram`](crate::Sweeper::lag_histogram)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LagHistogram {
    counts: [u64; LAG_BUCKET_BOUNDS_MILLIS.len() + 1],
}

impl LagHistogram {
    /// Counts one deletion `lag_millis` after its expiry (a negative lag,
    /// impossible for the sweeper, counts as 0).
    pub fn record(&mut self, lag_millis: i64) {
        let lag = u64::try_from(lag_millis).unwrap_or(0);
        let i = LAG_BUCKET_BOUNDS_MILLIS.partition_point(|&b| b < lag);
        if let Some(c) = self.counts.get_mut(i) {
            *c = c.saturating_add(1);
        }
    }

    /// Deletions counted.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Per bucket: its upper bound in milliseconds (`None` for the last,
    /// unbounded bucket) and its count.
    pub fn buckets(&self) -> impl Iterator<Item = (Option<u64>, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (LAG_BUCKET_BOUNDS_MILLIS.get(i).copied(), c))
    }

    /// The upper bound (milliseconds) of the bucket holding the `q`-quantile
    /// (`q` in 0..=1, clamped), so the true quantile is at most this; `None`
    /// when nothing was counted, `Some(u64::MAX)` when it lies above the last
    /// bound.
    pub fn quantile_upper_bound_millis(&self, q: f64) -> Option<u64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let q = if q.is_nan() { 1.0 } else { q.clamp(0.0, 1.0) };
        let rank = ((total as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bound, c) in self.buckets() {
            seen += c;
            if seen >= rank {
                return Some(bound.unwrap_or(u64::MAX));
            }
        }
        Some(u64::MAX)
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_quantiles() {
        let mut h = LagHistogram::default();
        assert_eq!(h.quantile_upper_bound_millis(0.5), None);
        for lag in [-5, 0, 1, 3, 100, 101, 999, 4_000_000] {
            h.record(lag);
        }
        assert_eq!(h.count(), 8);
        let b: Vec<_> = h.buckets().filter(|(_, c)| *c > 0).collect();
        assert_eq!(
            b,
            vec![
                (Some(1), 3),
                (Some(5), 1),
                (Some(100), 1),
                (Some(200), 1),
                (Some(1_000), 1),
                (None, 1)
            ]
        );
        assert_eq!(h.quantile_upper_bound_millis(0.5), Some(5));
        assert_eq!(h.quantile_upper_bound_millis(0.875), Some(1_000));
        assert_eq!(h.quantile_upper_bound_millis(1.0), Some(u64::MAX));
        assert_eq!(h.quantile_upper_bound_millis(f64::NAN), Some(u64::MAX));
        let mut m = LagHistogram::default();
        m.merge(&h);
        m.merge(&h);
        assert_eq!(m.count(), 16);
    }
}
