//! A running alarm: folds metric-period datapoints into alarm periods, evaluates
//! each closed alarm period and reports state changes.

use std::collections::VecDeque;

use serde::Serialize;

use super::definition::{AlarmDefinition, Statistic};
use super::evaluate::{AlarmState, evaluate, evaluation_range};
use crate::metrics::Datapoint;

/// A state change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AlarmTransition {
    /// `AlarmName`.
    pub alarm_name: String,
    /// State before.
    pub from: AlarmState,
    /// State after.
    pub to: AlarmState,
    /// End of the alarm period whose evaluation changed the state, epoch seconds.
    pub at_secs: i64,
    /// The datapoint of that period (`None`: missing).
    pub value: Option<f64>,
}

/// One alarm's running state.
#[derive(Clone, Debug)]
pub struct AlarmEvaluator {
    definition: AlarmDefinition,
    state: AlarmState,
    /// Start of the alarm period being filled and the metric values in it.
    bucket: Option<(i64, Vec<f64>)>,
    /// Closed alarm-period datapoints, newest last, at most the evaluation
    /// range (`EvaluationPeriods` + 2) kept; `None` for a period with no data.
    window: VecDeque<Option<f64>>,
    /// Start of the alarm period after the last one evaluated.
    next_start: Option<i64>,
}

impl AlarmEvaluator {
    /// A new alarm, in `INSUFFICIENT_DATA` as CloudWatch starts them.
    pub fn new(definition: AlarmDefinition) -> Self {
        Self {
            definition,
            state: AlarmState::InsufficientData,
            bucket: None,
            window: VecDeque::new(),
            next_start: None,
        }
    }

    /// The definition.
    pub fn definition(&self) -> &AlarmDefinition {
        &self.definition
    }

    /// The current state.
    pub fn state(&self) -> AlarmState {
        self.state
    }

    /// Whether a datapoint feeds this alarm (metric name and `TableName`).
    pub fn accepts(&self, point: &Datapoint) -> bool {
        point.metric_name == self.definition.metric_name
            && self
                .definition
                .table_name()
                .is_none_or(|table| table == point.table_name)
    }

    /// Adds one closed metric period; returns the state changes it caused,
    /// oldest first (none unless an alarm period closed). Metric periods must
    /// arrive in order; alarm periods skipped entirely are evaluated as
    /// missing, one by one, as CloudWatch evaluates every period ("Configuring
    /// how CloudWatch alarms treat missing data"), so one datapoint after a gap
    /// can cause more than one change.
    pub fn observe(&mut self, point: &Datapoint) -> Vec<AlarmTransition> {
        if !self.accepts(point) {
            return Vec::new();
        }
        let period = i64::try_from(self.definition.period.max(1)).unwrap_or(i64::MAX);
        let start = point
            .period_start_secs
            .div_euclid(period)
            .saturating_mul(period);
        let mut transitions = Vec::new();
        if let Some((open, _)) = &self.bucket
            && *open != start
        {
            // The open bucket is over even if its last metric period never came.
            transitions.extend(self.close_bucket());
        }
        if let Some(expected) = self.next_start
            && start > expected
        {
            // Whole alarm periods with no metric period at all are missing data.
            let skipped = start.saturating_sub(expected) / period;
            let cap = i64::try_from(evaluation_range(&self.definition)).unwrap_or(i64::MAX);
            for j in (0..skipped.clamp(0, cap)).rev() {
                // The j-th skipped period before `start` ends at start - j periods.
                let end = start.saturating_sub(period.saturating_mul(j));
                transitions.extend(self.push(None, end));
            }
        }
        let (_, values) = self.bucket.get_or_insert_with(|| (start, Vec::new()));
        values.push(point.value);
        let point_end = point
            .period_start_secs
            .saturating_add(i64::try_from(point.period_secs).unwrap_or(0));
        if point_end >= start.saturating_add(period) {
            transitions.extend(self.close_bucket());
        }
        transitions
    }

    fn close_bucket(&mut self) -> Option<AlarmTransition> {
        let (start, values) = self.bucket.take()?;
        let value = aggregate(self.definition.statistic, &values);
        let period = i64::try_from(self.definition.period.max(1)).unwrap_or(i64::MAX);
        self.push(value, start.saturating_add(period))
    }

    /// Appends one alarm-period datapoint ending at `end_secs` and evaluates.
    fn push(&mut self, value: Option<f64>, end_secs: i64) -> Option<AlarmTransition> {
        self.window.push_back(value);
        self.next_start = Some(end_secs);
        while self.window.len() > evaluation_range(&self.definition) {
            self.window.pop_front();
        }
        let window: Vec<Option<f64>> = self.window.iter().copied().collect();
        let next = evaluate(&self.definition, &window, self.state);
        if next == self.state {
            return None;
        }
        let transition = AlarmTransition {
            alarm_name: self.definition.alarm_name.clone(),
            from: self.state,
            to: next,
            at_secs: end_secs,
            value,
        };
        self.state = next;
        Some(transition)
    }
}

fn aggregate(statistic: Statistic, values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let sum: f64 = values.iter().sum();
    Some(match statistic {
        Statistic::Sum => sum,
        Statistic::Average => sum / values.len() as f64,
        Statistic::Minimum => values.iter().copied().fold(f64::INFINITY, f64::min),
        Statistic::Maximum => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Statistic::SampleCount => values.len() as f64,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::metrics::TIME_TO_LIVE_DELETED_ITEM_COUNT;

    fn seed_alarm() -> AlarmEvaluator {
        let text = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");
        AlarmEvaluator::new(AlarmDefinition::parse(text, Path::new("seed.json")).expect("valid"))
    }

    fn minute(start: i64, value: f64) -> Datapoint {
        Datapoint {
            metric_name: TIME_TO_LIVE_DELETED_ITEM_COUNT,
            table_name: "SessionData".into(),
            period_start_secs: start,
            period_secs: 60,
            value,
        }
    }

    /// Feeds one hour of per-minute values; returns the transitions seen.
    fn hour(alarm: &mut AlarmEvaluator, hour_start: i64, per_minute: f64) -> Vec<AlarmTransition> {
        (0..60)
            .flat_map(|i| alarm.observe(&minute(hour_start + i * 60, per_minute)))
            .collect()
    }

    #[test]
    fn seed_alarm_goes_ok_then_alarm_when_deletions_stop() {
        let mut alarm = seed_alarm();
        assert_eq!(alarm.state(), AlarmState::InsufficientData);
        let t = hour(&mut alarm, 0, 10.0);
        assert_eq!(t.len(), 1);
        assert_eq!(
            (t[0].from, t[0].to, t[0].at_secs),
            (AlarmState::InsufficientData, AlarmState::Ok, 3600)
        );
        assert_eq!(t[0].value, Some(600.0));
        assert!(
            hour(&mut alarm, 3600, 0.0).is_empty(),
            "one quiet hour is not enough"
        );
        let t = hour(&mut alarm, 7200, 0.0);
        assert_eq!(
            (t[0].from, t[0].to, t[0].at_secs),
            (AlarmState::Ok, AlarmState::Alarm, 10800)
        );
    }

    #[test]
    fn skipped_alarm_periods_count_as_missing() {
        let mut alarm = seed_alarm();
        assert_eq!(hour(&mut alarm, 0, 10.0).len(), 1);
        assert_eq!(alarm.state(), AlarmState::Ok);
        // Nothing at all for hours 1 and 2 (no explicit zeros), then one
        // minute of hour 3: the one real datapoint (600, not breaching) is still
        // in the 4-period evaluation range, so `breaching` fills only one of
        // the two evaluated periods, and hour 3 ends with 2 real datapoints.
        assert!(alarm.observe(&minute(4 * 3600 - 60, 500.0)).is_empty());
        assert_eq!(alarm.state(), AlarmState::Ok);

        let mut quiet = seed_alarm();
        assert_eq!(hour(&mut quiet, 0, 10.0).len(), 1);
        // Hours 1..=4 missing: at the end of hour 4 the 600 leaves the range.
        let t = quiet.observe(&minute(5 * 3600, 10.0));
        assert_eq!(t.len(), 1, "{t:?}");
        let t = &t[0];
        assert_eq!((t.from, t.to), (AlarmState::Ok, AlarmState::Alarm));
        assert_eq!(t.value, None);
        assert_eq!(t.at_secs, 5 * 3600);
    }

    /// The first table's premature-transition row `- - X - -` (CloudWatch User
    /// Guide, "Configuring how CloudWatch alarms treat missing data") reached
    /// period by period: alarm periods with no metric period at all are the
    /// `-`, and the breach alarms once it is 3 periods old under `missing` (the
    /// default when the file has no `TreatMissingData`).
    #[test]
    fn a_lone_breach_alarms_once_it_is_datapoints_to_alarm_periods_old() {
        let text = r#"{"AlarmName": "a", "MetricName": "TimeToLiveDeletedItemCount",
            "Statistic": "Sum", "Period": 60, "EvaluationPeriods": 3, "Threshold": 100,
            "ComparisonOperator": "LessThanThreshold"}"#;
        let mut alarm =
            AlarmEvaluator::new(AlarmDefinition::parse(text, Path::new("a.json")).expect("valid"));
        assert!(alarm.observe(&minute(0, 5.0)).is_empty(), "`X`: too young");
        assert_eq!(alarm.state(), AlarmState::InsufficientData);
        // The next datapoint comes three periods later. On its arrival the
        // periods ending at 120 (`X -`: too young) and 180 (`X - -`: ALARM) are
        // evaluated, then its own period: `X - - 0` has a non-breaching
        // datapoint, so OK. Both changes are reported.
        let t = alarm.observe(&minute(180, 500.0));
        let seen: Vec<_> = t
            .iter()
            .map(|t| (t.from, t.to, t.at_secs, t.value))
            .collect();
        assert_eq!(
            seen,
            [
                (AlarmState::InsufficientData, AlarmState::Alarm, 180, None),
                (AlarmState::Alarm, AlarmState::Ok, 240, Some(500.0)),
            ]
        );
    }

    #[test]
    fn other_tables_are_ignored() {
        let mut alarm = seed_alarm();
        let mut point = minute(0, 0.0);
        point.table_name = "Other".into();
        assert!(!alarm.accepts(&point));
        assert!(alarm.observe(&point).is_empty());
    }
}
