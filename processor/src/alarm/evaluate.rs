//! One evaluation: the datapoints of the evaluation range in, the alarm's next
//! state out, as the CloudWatch User Guide describes it in "Configuring how
//! CloudWatch alarms treat missing data" (sections "How alarm state is
//! evaluated when data is missing" and "Avoiding premature transitions to alarm
//! state") and "Alarm evaluation".
//!
//! Datapoints are oldest first, the most recent last: the order of the guide's
//! tables, which show "the most recent data point on the right".
//!
//! CloudWatch retrieves more datapoints than `EvaluationPeriods` (N): the
//! *evaluation range*. The guide's examples use a range of 5 for N = 3; it does
//! not publish the general formula, so [`evaluation_range`] is N + 2. Then:
//!
//! * if at least N datapoints in the range exist, the N most recent existing ones
//!   are evaluated (M breaching of them: ALARM, else OK) and `TreatMissingData`
//!   is not consulted;
//! * if none exists: `missing` gives INSUFFICIENT_DATA, `ignore` keeps the state,
//!   `breaching` gives ALARM, `notBreaching` gives OK;
//! * otherwise every existing datapoint is evaluated together with as few filled
//!   ones as make up N: `breaching` fills breach, `notBreaching` fills do not.
//!   Under `missing` and `ignore` the fills count for neither side: M breaching
//!   gives ALARM, and any non-breaching datapoint gives OK.
//! * That leaves `missing` and `ignore` with every existing datapoint breaching
//!   but fewer than M of them: the premature-transition rule. When the oldest
//!   of them is at least M periods old (the most recent period is 1 old),
//!   `missing` gives ALARM ("alarms are designed to always go into ALARM state
//!   when the oldest available breaching datapoint ... is at least as old as
//!   the value of Datapoints to Alarm, and all other more recent data points are
//!   breaching or missing"); when it is younger, `missing` gives
//!   INSUFFICIENT_DATA (the earlier version of the page's table row `- - - - X`;
//!   the current page says only that the alarm "does not go immediately into
//!   ALARM state"). `ignore` keeps the current state in both cases (the tables'
//!   "Retain current state").
//!
//! The guide's tables add one condition to the rule's wording: in the 2 out of
//! 3 row `0 - X - -` the breaching datapoint is old enough, yet the state is OK
//! under `missing`, so a non-breaching datapoint anywhere in the range turns
//! the rule off.
//!
//! `TreatMissingData` itself is [`AlarmDefinition::treat_missing_data`]: the
//! file's, or `missing` (`ignore` in the `AWS/DynamoDB` namespace) when the
//! file has none.

use serde::{Deserialize, Serialize};

use super::definition::{AlarmDefinition, TreatMissingData};

/// An alarm's state. New alarms start in `INSUFFICIENT_DATA` (CloudWatch User
/// Guide, "Metric alarm states": "The alarm has just started, the metric is not
/// available, or not enough data is available").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlarmState {
    /// The metric is within the threshold.
    Ok,
    /// The metric breached the threshold in M of the last N periods.
    Alarm,
    /// The alarm just started, or not enough data to tell.
    #[default]
    InsufficientData,
}

impl AlarmState {
    /// CloudWatch's name: `OK`, `ALARM`, `INSUFFICIENT_DATA`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "OK",
            Self::Alarm => "ALARM",
            Self::InsufficientData => "INSUFFICIENT_DATA",
        }
    }

    /// Parses CloudWatch's name (`OK`, `ALARM`, `INSUFFICIENT_DATA`); `None` for
    /// anything else.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "OK" => Some(Self::Ok),
            "ALARM" => Some(Self::Alarm),
            "INSUFFICIENT_DATA" => Some(Self::InsufficientData),
            _ => None,
        }
    }
}

impl std::fmt::Display for AlarmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The number of alarm periods CloudWatch looks at: `EvaluationPeriods` + 2,
/// which is the range the CloudWatch User Guide's examples use ("CloudWatch
/// retrieves the 5 most recent data points" for 3 evaluation periods).
pub fn evaluation_range(definition: &AlarmDefinition) -> usize {
    definition.evaluation_periods.saturating_add(2)
}

/// The state after evaluating `range`: period datapoints, oldest first, `None`
/// for a period with no data. Only the last [`evaluation_range`] entries are
/// looked at; a shorter slice counts as missing at the old end. `current` is
/// the state before (kept by `ignore`). Never panics.
pub fn evaluate(
    definition: &AlarmDefinition,
    range: &[Option<f64>],
    current: AlarmState,
) -> AlarmState {
    let n = definition.evaluation_periods.max(1);
    let m = definition.datapoints_to_alarm().clamp(1, n);
    let width = evaluation_range(definition);
    let range = &range[range.len().saturating_sub(width)..];
    let breaches = |v: f64| {
        definition
            .comparison_operator
            .breaches(v, definition.threshold)
    };
    let existing: Vec<f64> = range.iter().flatten().copied().collect();
    if existing.len() >= n {
        let recent = &existing[existing.len() - n..];
        return verdict(recent.iter().filter(|v| breaches(**v)).count() >= m);
    }
    let treat = definition.treat_missing_data();
    let breaching = existing.iter().filter(|v| breaches(**v)).count();
    let fills = n - existing.len();
    match treat {
        TreatMissingData::Breaching => verdict(breaching + fills >= m),
        TreatMissingData::NotBreaching => verdict(breaching >= m),
        TreatMissingData::Missing | TreatMissingData::Ignore => {
            let keep_or = |state| {
                if treat == TreatMissingData::Ignore {
                    current
                } else {
                    state
                }
            };
            if existing.is_empty() {
                return keep_or(AlarmState::InsufficientData);
            }
            if breaching >= m {
                return AlarmState::Alarm;
            }
            if breaching < existing.len() {
                return AlarmState::Ok;
            }
            // Every existing datapoint breaches, but fewer than M of them: the
            // premature-transition rule, on the age of the oldest one.
            if oldest_existing_age(range) >= m {
                keep_or(AlarmState::Alarm)
            } else {
                keep_or(AlarmState::InsufficientData)
            }
        }
    }
}

/// How many periods old the oldest existing datapoint of `range` is: 1 for the
/// most recent period, `range.len()` for the oldest; 0 when none exists.
fn oldest_existing_age(range: &[Option<f64>]) -> usize {
    range
        .iter()
        .position(Option::is_some)
        .map_or(0, |index| range.len() - index)
}

fn verdict(alarm: bool) -> AlarmState {
    if alarm {
        AlarmState::Alarm
    } else {
        AlarmState::Ok
    }
}
