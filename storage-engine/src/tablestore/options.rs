//! Tablestore table options and the rules they impose on cell versions
//! ("Tablestore: Data versions and TTL", "Tablestore: TableOptions").

use serde::{Deserialize, Serialize};

/// Seconds in one day: the smallest `time_to_live` other than -1.
pub const MIN_TIME_TO_LIVE_SECS: i64 = 86_400;
/// The default `max_time_deviation` (Tablestore's `deviation_cell_version_in_sec`).
pub const DEFAULT_MAX_TIME_DEVIATION_SECS: i64 = 86_400;

/// A [`TablestoreOptions`] value outside its allowed range (the ranges of
/// "Tablestore: TableOptions").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TablestoreOptionsError {
    /// `time_to_live_secs` is neither -1 nor at least [`MIN_TIME_TO_LIVE_SECS`].
    #[error(
        "time_to_live {time_to_live_secs} is out of range: -1 (never expire) or at least {MIN_TIME_TO_LIVE_SECS} seconds"
    )]
    TimeToLive {
        /// The value given, seconds.
        time_to_live_secs: i64,
    },
    /// `max_versions` is 0.
    #[error("max_versions {max_versions} is out of range: at least 1")]
    MaxVersions {
        /// The value given.
        max_versions: u32,
    },
    /// `max_time_deviation_secs` is below 1.
    #[error("max_time_deviation {max_time_deviation_secs} is out of range: at least 1 second")]
    MaxTimeDeviation {
        /// The value given, seconds.
        max_time_deviation_secs: i64,
    },
}

/// Table options (Tablestore `TableOptions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablestoreOptions {
    /// How long a cell version lives, in **seconds**, measured from its
    /// version timestamp: -1 = never expires, otherwise at least 86,400.
    /// Default: -1.
    pub time_to_live_secs: i64,
    /// How many versions of each attribute column are readable (the newest
    /// ones); at least 1. Default: 1.
    pub max_versions: u32,
    /// Max version offset, in **seconds**: a written version must lie within
    /// this distance of the current time (and not already be expired); at
    /// least 1. Default: 86,400.
    pub max_time_deviation_secs: i64,
}

impl Default for TablestoreOptions {
    fn default() -> Self {
        Self {
            time_to_live_secs: -1,
            max_versions: 1,
            max_time_deviation_secs: DEFAULT_MAX_TIME_DEVIATION_SECS,
        }
    }
}

impl TablestoreOptions {
    /// Options with this TTL (seconds), one version and the default deviation.
    pub fn with_time_to_live_secs(time_to_live_secs: i64) -> Self {
        Self {
            time_to_live_secs,
            ..Self::default()
        }
    }

    /// Checks each option against its allowed range.
    ///
    /// # Errors
    ///
    /// [`TablestoreOptionsError::TimeToLive`],
    /// [`TablestoreOptionsError::MaxVersions`] or
    /// [`TablestoreOptionsError::MaxTimeDeviation`], naming the option, its
    /// value and the allowed range.
    pub fn validate(&self) -> Result<(), TablestoreOptionsError> {
        if self.time_to_live_secs != -1 && self.time_to_live_secs < MIN_TIME_TO_LIVE_SECS {
            return Err(TablestoreOptionsError::TimeToLive {
                time_to_live_secs: self.time_to_live_secs,
            });
        }
        if self.max_versions < 1 {
            return Err(TablestoreOptionsError::MaxVersions {
                max_versions: self.max_versions,
            });
        }
        if self.max_time_deviation_secs < 1 {
            return Err(TablestoreOptionsError::MaxTimeDeviation {
                max_time_deviation_secs: self.max_time_deviation_secs,
            });
        }
        Ok(())
    }

    /// The TTL in milliseconds, `None` when versions never expire.
    pub fn time_to_live_millis(&self) -> Option<i64> {
        (self.time_to_live_secs != -1).then(|| self.time_to_live_secs.saturating_mul(1000))
    }

    /// The versions (epoch ms) a write may carry at `now_millis`:
    /// `[max(now - max_time_deviation, now - time_to_live), now + max_time_deviation)`.
    pub fn writable_version_range(&self, now_millis: i64) -> (i64, i64) {
        let deviation = self.max_time_deviation_secs.saturating_mul(1000);
        let mut low = now_millis.saturating_sub(deviation);
        if let Some(ttl) = self.time_to_live_millis() {
            low = low.max(now_millis.saturating_sub(ttl));
        }
        (low, now_millis.saturating_add(deviation))
    }

    /// Whether a version (epoch ms) is expired at `now_millis`: its age
    /// exceeds the TTL (`version < now - time_to_live`).
    pub fn is_version_expired(&self, version_millis: i64, now_millis: i64) -> bool {
        self.time_to_live_millis()
            .is_some_and(|ttl| version_millis < now_millis.saturating_sub(ttl))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ranges_are_validated_by_name() {
        let ok = TablestoreOptions::default();
        assert!(ok.validate().is_ok());
        let short = TablestoreOptions::with_time_to_live_secs(3_600);
        let err = short.validate().unwrap_err();
        assert_eq!(
            err,
            TablestoreOptionsError::TimeToLive {
                time_to_live_secs: 3_600
            }
        );
        let message = err.to_string();
        assert!(
            message.contains("time_to_live") && message.contains("86400"),
            "{message}"
        );
        let zero = TablestoreOptions {
            max_versions: 0,
            ..ok
        };
        let message = zero.validate().unwrap_err().to_string();
        assert!(message.contains("max_versions"), "{message}");
        let dev = TablestoreOptions {
            max_time_deviation_secs: 0,
            ..ok
        };
        let message = dev.validate().unwrap_err().to_string();
        assert!(message.contains("max_time_deviation"), "{message}");
        assert!(
            TablestoreOptions::with_time_to_live_secs(86_400)
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn window_uses_the_tighter_lower_bound() {
        let o = TablestoreOptions {
            time_to_live_secs: 86_400,
            max_versions: 1,
            max_time_deviation_secs: 200_000,
        };
        let now = 1_000_000_000;
        assert_eq!(
            o.writable_version_range(now),
            (now - 86_400_000, now + 200_000_000)
        );
        assert!(o.is_version_expired(now - 86_400_001, now));
        assert!(!o.is_version_expired(now - 86_400_000, now));
        assert!(!TablestoreOptions::default().is_version_expired(i64::MIN, now));
    }
}
