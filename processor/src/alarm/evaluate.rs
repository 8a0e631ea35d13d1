//! One evaluation: the most recent datapoints in, the alarm's next state out.
//!
//! This is the foundation's evaluator: M out of N with the four `TreatMissingData`
//! settings applied to the last N periods. It does not yet reproduce CloudWatch's
//! wider evaluation range for alarms with missing data (see the CloudWatch User
//! Guide, "Configuring how CloudWatch alarms treat missing data"); that is
//! tracked as its own issue.

use serde::Serialize;

use super::definition::{AlarmDefinition, TreatMissingData};

/// An alarm's state. New alarms start in `INSUFFICIENT_DATA`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlarmState {
    /// The metric is within the threshold.
    Ok,
    /// The metric breached the threshold in M of the last N periods.
    Alarm,
    /// Not enough data to tell.
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
}

impl std::fmt::Display for AlarmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The state after evaluating `window`: the last N period datapoints, oldest
/// first, `None` for a period with no data. A window shorter than N is padded
/// with missing periods at the old end.
pub fn evaluate(
    definition: &AlarmDefinition,
    window: &[Option<f64>],
    current: AlarmState,
) -> AlarmState {
    let n = definition.evaluation_periods;
    let m = definition.datapoints_to_alarm();
    let recent = &window[window.len().saturating_sub(n)..];
    let missing = n - recent.iter().filter(|v| v.is_some()).count();
    let breaching = recent
        .iter()
        .flatten()
        .filter(|value| {
            definition
                .comparison_operator
                .breaches(**value, definition.threshold)
        })
        .count();
    let (breaching, missing) = match definition.treat_missing_data {
        TreatMissingData::Breaching => (breaching + missing, 0),
        TreatMissingData::NotBreaching => (breaching, 0),
        TreatMissingData::Ignore | TreatMissingData::Missing => (breaching, missing),
    };
    if breaching >= m {
        return AlarmState::Alarm;
    }
    if missing == n {
        return match definition.treat_missing_data {
            TreatMissingData::Ignore => current,
            _ => AlarmState::InsufficientData,
        };
    }
    AlarmState::Ok
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn alarm(treat: &str, m: usize, n: usize) -> AlarmDefinition {
        let text = format!(
            r#"{{"AlarmName":"a","Namespace":"TTLStream","MetricName":"TimeToLiveDeletedItemCount",
                "Statistic":"Sum","Period":60,"EvaluationPeriods":{n},"DatapointsToAlarm":{m},
                "Threshold":100,"ComparisonOperator":"LessThanThreshold","TreatMissingData":"{treat}"}}"#
        );
        AlarmDefinition::parse(&text, Path::new("a.json")).expect("valid")
    }

    #[test]
    fn m_of_n_breaching_raises_alarm() {
        let a = alarm("missing", 2, 3);
        assert_eq!(
            evaluate(&a, &[Some(500.0), Some(5.0), Some(7.0)], AlarmState::Ok),
            AlarmState::Alarm
        );
        assert_eq!(
            evaluate(
                &a,
                &[Some(5.0), Some(500.0), Some(500.0)],
                AlarmState::Alarm
            ),
            AlarmState::Ok
        );
    }

    #[test]
    fn missing_data_settings() {
        let none = [None, None];
        assert_eq!(
            evaluate(&alarm("breaching", 2, 2), &none, AlarmState::Ok),
            AlarmState::Alarm
        );
        assert_eq!(
            evaluate(&alarm("notBreaching", 2, 2), &none, AlarmState::Alarm),
            AlarmState::Ok
        );
        assert_eq!(
            evaluate(&alarm("ignore", 2, 2), &none, AlarmState::Alarm),
            AlarmState::Alarm
        );
        assert_eq!(
            evaluate(&alarm("missing", 2, 2), &none, AlarmState::Ok),
            AlarmState::InsufficientData
        );
    }

    #[test]
    fn short_window_counts_as_missing_at_the_old_end() {
        let a = alarm("breaching", 2, 2);
        assert_eq!(
            evaluate(&a, &[Some(1000.0)], AlarmState::InsufficientData),
            AlarmState::Ok
        );
        assert_eq!(
            evaluate(&a, &[Some(3.0)], AlarmState::Ok),
            AlarmState::Alarm
        );
    }
}
