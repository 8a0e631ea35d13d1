//! `TimeToLiveDeletedItemCount`: how many items the TTL process deleted, per
//! `TableName`, per period (unit Count, statistic Sum). Counted from the system
//! deletions on the stream, by each record's `ApproximateCreationDateTime`.
//!
//! A period in which a table had no TTL deletion is published as an explicit 0:
//! silence must be data an alarm can see. Source: DynamoDB Developer Guide,
//! "DynamoDB Metrics and dimensions" (`TimeToLiveDeletedItemCount`).
//!
//! The same counter counts the other models' TTL deletions under their own
//! names ([`TtlDeletionCounter::with_metric_name`]): a Spanner table's rows
//! deleted by its row deletion policy as [`SPANNER_DELETED_ROWS`], a
//! Tablestore table's rows removed by TTL as [`TABLESTORE_DELETED_ROWS`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::record::Record;

/// The metric's name, as DynamoDB publishes it in `AWS/DynamoDB`.
pub const TIME_TO_LIVE_DELETED_ITEM_COUNT: &str = "TimeToLiveDeletedItemCount";

/// Rows deleted by a Spanner row deletion policy: Cloud Monitoring's
/// `row_deletion_policy/deleted_rows` ("Spanner: TTL metrics and
/// monitoring"), per `TableName` here (Spanner reports it per database).
pub const SPANNER_DELETED_ROWS: &str = "row_deletion_policy/deleted_rows";

/// Rows of a Tablestore table removed once all their cells expired (table
/// TTL) or fell past `max_versions`. Tablestore's CloudMonitor publishes no
/// TTL metric ("Tablestore: Monitoring and alerts" lists request, row and
/// capacity metrics only), so the name follows its `...RowCount` metrics and
/// DynamoDB's `TimeToLiveDeletedItemCount`.
pub const TABLESTORE_DELETED_ROWS: &str = "TimeToLiveDeletedRowCount";

/// One closed period of one table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Datapoint {
    /// The counter's metric: [`TIME_TO_LIVE_DELETED_ITEM_COUNT`] unless
    /// [`TtlDeletionCounter::with_metric_name`] set another.
    pub metric_name: &'static str,
    /// The `TableName` dimension.
    pub table_name: String,
    /// Start of the period, epoch seconds (a multiple of `period_secs`).
    pub period_start_secs: i64,
    /// Length of the period in seconds.
    pub period_secs: u64,
    /// Sum of TTL deletions in the period (Count).
    pub value: f64,
}

/// Counts TTL deletions into periods and closes periods as time passes.
#[derive(Clone, Debug)]
pub struct TtlDeletionCounter {
    metric_name: &'static str,
    period_secs: i64,
    /// Per table (every table given to [`TtlDeletionCounter::new`] and every
    /// one seen since), per open period start: TTL deletions counted. Keyed
    /// by table first, so counting a record looks it up by `&str` (no
    /// `String` per record).
    counts: BTreeMap<String, BTreeMap<i64, u64>>,
    /// Start of the oldest period not yet closed.
    next_to_close: Option<i64>,
}

impl TtlDeletionCounter {
    /// A counter with `period_secs`-long periods (at least 1) that publishes
    /// explicit zeros for `tables`.
    pub fn new(period_secs: u64, tables: impl IntoIterator<Item = String>) -> Self {
        Self {
            metric_name: TIME_TO_LIVE_DELETED_ITEM_COUNT,
            period_secs: i64::try_from(period_secs.max(1)).unwrap_or(i64::MAX),
            counts: tables.into_iter().map(|t| (t, BTreeMap::new())).collect(),
            next_to_close: None,
        }
    }

    /// The counter, publishing its datapoints as `metric_name` (the TTL
    /// model's own name: [`SPANNER_DELETED_ROWS`], [`TABLESTORE_DELETED_ROWS`]).
    #[must_use]
    pub fn with_metric_name(mut self, metric_name: &'static str) -> Self {
        self.metric_name = metric_name;
        self
    }

    /// Length of a period in seconds.
    pub fn period_secs(&self) -> u64 {
        self.period_secs.unsigned_abs()
    }

    fn period_of(&self, millis: i64) -> i64 {
        millis.div_euclid(1000).div_euclid(self.period_secs) * self.period_secs
    }

    /// Starts counting at the period holding `millis` (epoch ms), if not started.
    pub fn start_at(&mut self, millis: i64) {
        if self.next_to_close.is_none() {
            self.next_to_close = Some(self.period_of(millis));
        }
    }

    /// Counts `record`'s `deleted_rows` if it is a TTL deletion. A record older than the oldest
    /// open period (it arrived after its period was published) is counted in the
    /// oldest open period.
    pub fn observe(&mut self, record: &Record) {
        self.start_at(record.approximate_creation_millis);
        if !record.is_ttl_deletion {
            return;
        }
        let mut period = self.period_of(record.approximate_creation_millis);
        if let Some(oldest) = self.next_to_close {
            period = period.max(oldest);
        }
        let rows = u64::from(record.deleted_rows);
        if let Some(periods) = self.counts.get_mut(&record.table_name) {
            *periods.entry(period).or_default() += rows;
        } else {
            let periods = BTreeMap::from([(period, rows)]);
            self.counts.insert(record.table_name.clone(), periods);
        }
    }

    /// Closes every period that ends at or before `watermark_millis` (epoch ms)
    /// and returns its datapoints, oldest first, one per table per period.
    pub fn close_through(&mut self, watermark_millis: i64) -> Vec<Datapoint> {
        let Some(mut start) = self.next_to_close else {
            return Vec::new();
        };
        let mut closed = Vec::new();
        let period_secs = self.period_secs();
        while (start + self.period_secs).saturating_mul(1000) <= watermark_millis {
            for (table, periods) in &mut self.counts {
                let value = periods.remove(&start).unwrap_or(0);
                closed.push(Datapoint {
                    metric_name: self.metric_name,
                    table_name: table.clone(),
                    period_start_secs: start,
                    period_secs,
                    value: value as f64,
                });
            }
            start += self.period_secs;
        }
        self.next_to_close = Some(start);
        closed
    }

    /// Closes every open period through the one holding `now_millis` (epoch
    /// ms), and any later one already holding counts: the last of them is
    /// partial. For a run that ends (shutdown, end of input), whose open
    /// period would otherwise never be published. A partial period is still a
    /// datapoint: CloudWatch sums the datapoints of one period (statistic
    /// `Sum`), so what a restart counts in the rest of the period adds to it.
    pub fn close_open(&mut self, now_millis: i64) -> Vec<Datapoint> {
        let newest_counted = self
            .counts
            .values()
            .filter_map(|periods| periods.keys().next_back().copied())
            .max();
        let last = newest_counted.map_or(self.period_of(now_millis), |newest| {
            newest.max(self.period_of(now_millis))
        });
        self.close_through(last.saturating_add(self.period_secs).saturating_mul(1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deletion(table: &str, secs: i64, ttl: bool) -> Record {
        Record::new(table.into(), "1".into(), secs * 1000, ttl, Vec::new())
    }

    #[test]
    fn counts_per_period_with_explicit_zeros() {
        let mut counter = TtlDeletionCounter::new(60, ["A".to_string()]);
        counter.start_at(0);
        counter.observe(&deletion("A", 5, true));
        counter.observe(&deletion("A", 59, true));
        counter.observe(&deletion("A", 30, false));
        counter.observe(&deletion("A", 125, true));
        let points = counter.close_through(180_000);
        let values: Vec<(i64, f64)> = points
            .iter()
            .map(|p| (p.period_start_secs, p.value))
            .collect();
        assert_eq!(values, vec![(0, 2.0), (60, 0.0), (120, 1.0)]);
        assert!(
            counter.close_through(200_000).is_empty(),
            "period 180 still open"
        );
    }

    #[test]
    fn another_model_counts_rows_under_its_own_name() {
        let mut counter =
            TtlDeletionCounter::new(60, ["S".to_string()]).with_metric_name(SPANNER_DELETED_ROWS);
        counter.start_at(0);
        let mut record = deletion("S", 5, true);
        record.deleted_rows = 3;
        counter.observe(&record);
        let points = counter.close_through(120_000);
        let values: Vec<(&str, f64)> = points.iter().map(|p| (p.metric_name, p.value)).collect();
        assert_eq!(
            values,
            vec![
                ("row_deletion_policy/deleted_rows", 3.0),
                ("row_deletion_policy/deleted_rows", 0.0)
            ]
        );
    }

    #[test]
    fn a_period_closes_only_when_it_has_ended() {
        let mut counter = TtlDeletionCounter::new(60, ["A".to_string()]);
        counter.start_at(0);
        assert!(counter.close_through(59_999).is_empty());
        assert_eq!(counter.close_through(60_000).len(), 1);
    }

    #[test]
    fn late_record_counts_in_oldest_open_period() {
        let mut counter = TtlDeletionCounter::new(60, ["A".to_string()]);
        counter.start_at(0);
        counter.close_through(120_000);
        counter.observe(&deletion("A", 10, true));
        let points = counter.close_through(180_000);
        assert_eq!(points[0].period_start_secs, 120);
        assert_eq!(points[0].value, 1.0);
    }

    #[test]
    fn the_open_period_closes_partial_at_the_end_of_a_run() {
        let mut counter = TtlDeletionCounter::new(60, ["A".to_string()]);
        counter.start_at(0);
        counter.observe(&deletion("A", 10, true));
        counter.observe(&deletion("A", 70, true));
        counter.observe(&deletion("A", 75, true));
        assert_eq!(counter.close_through(90_000).len(), 1, "period 0 has ended");
        let points = counter.close_open(90_000);
        let values: Vec<(i64, f64)> = points
            .iter()
            .map(|p| (p.period_start_secs, p.value))
            .collect();
        assert_eq!(values, vec![(60, 2.0)], "the partial period 60..120");
        assert!(counter.close_open(90_000).is_empty(), "published once");
        // Records ahead of the clock close with it, quiet tables as zeros.
        let mut counter = TtlDeletionCounter::new(60, ["A".to_string(), "B".to_string()]);
        counter.start_at(0);
        counter.observe(&deletion("A", 130, true));
        let points = counter.close_open(10_000);
        let values: Vec<(&str, i64, f64)> = points
            .iter()
            .map(|p| (p.table_name.as_str(), p.period_start_secs, p.value))
            .collect();
        assert_eq!(
            values,
            vec![
                ("A", 0, 0.0),
                ("B", 0, 0.0),
                ("A", 60, 0.0),
                ("B", 60, 0.0),
                ("A", 120, 1.0),
                ("B", 120, 0.0)
            ]
        );
    }
}
