//! An alarm definition file: the JSON input of CloudWatch's `PutMetricAlarm`, so
//! the same file can create the alarm in CloudWatch. Source: Amazon CloudWatch
//! API Reference, "PutMetricAlarm".

use std::path::Path;

use serde::Deserialize;

use crate::error::ConfigError;

/// The PutMetricAlarm fields the local evaluator reads, plus the action and tag
/// fields it accepts (for CloudWatch) and ignores.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct AlarmDefinition {
    /// `AlarmName`: unique per account and region.
    pub alarm_name: String,
    /// `AlarmDescription`.
    #[serde(default)]
    pub alarm_description: Option<String>,
    /// `Namespace`, e.g. `TTLStream` (custom) or `AWS/DynamoDB`.
    pub namespace: String,
    /// `MetricName`; the local evaluator knows `TimeToLiveDeletedItemCount`.
    pub metric_name: String,
    /// `Dimensions`, e.g. `[{"Name":"TableName","Value":"SessionData"}]`.
    #[serde(default)]
    pub dimensions: Vec<Dimension>,
    /// `Statistic` applied per period.
    pub statistic: Statistic,
    /// `Period` in seconds; a multiple of the pipeline's metric period.
    pub period: u64,
    /// `EvaluationPeriods`: N, how many recent periods are evaluated.
    pub evaluation_periods: usize,
    /// `DatapointsToAlarm`: M, how many of the N must breach. Default N.
    #[serde(default)]
    pub datapoints_to_alarm: Option<usize>,
    /// `Threshold`.
    pub threshold: f64,
    /// `ComparisonOperator`.
    pub comparison_operator: ComparisonOperator,
    /// `TreatMissingData`. Default `missing`.
    #[serde(default)]
    pub treat_missing_data: TreatMissingData,
    /// `Unit` (accepted, not used locally).
    #[serde(default)]
    pub unit: Option<String>,
    /// `ActionsEnabled` (CloudWatch only).
    #[serde(default)]
    pub actions_enabled: Option<bool>,
    /// `AlarmActions` (CloudWatch only).
    #[serde(default)]
    pub alarm_actions: Vec<String>,
    /// `OKActions` (CloudWatch only).
    #[serde(default, rename = "OKActions")]
    pub ok_actions: Vec<String>,
    /// `InsufficientDataActions` (CloudWatch only).
    #[serde(default)]
    pub insufficient_data_actions: Vec<String>,
    /// `Tags` (CloudWatch only).
    #[serde(default)]
    pub tags: Vec<serde_json::Value>,
}

/// One `Dimensions` entry.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Dimension {
    /// `Name`, e.g. `TableName`.
    pub name: String,
    /// `Value`, e.g. `SessionData`.
    pub value: String,
}

/// `Statistic`: how the metric's values in one period become one datapoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Statistic {
    /// Total of the values.
    Sum,
    /// Mean of the values.
    Average,
    /// Smallest value.
    Minimum,
    /// Largest value.
    Maximum,
    /// Number of values.
    SampleCount,
}

/// `ComparisonOperator`: how a datapoint is compared with `Threshold`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ComparisonOperator {
    /// Breaching when value >= threshold.
    GreaterThanOrEqualToThreshold,
    /// Breaching when value > threshold.
    GreaterThanThreshold,
    /// Breaching when value < threshold.
    LessThanThreshold,
    /// Breaching when value <= threshold.
    LessThanOrEqualToThreshold,
}

impl ComparisonOperator {
    /// Whether `value` breaches `threshold`.
    pub fn breaches(self, value: f64, threshold: f64) -> bool {
        match self {
            Self::GreaterThanOrEqualToThreshold => value >= threshold,
            Self::GreaterThanThreshold => value > threshold,
            Self::LessThanThreshold => value < threshold,
            Self::LessThanOrEqualToThreshold => value <= threshold,
        }
    }
}

/// `TreatMissingData`. Source: CloudWatch User Guide, "Configuring how
/// CloudWatch alarms treat missing data".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TreatMissingData {
    /// Missing datapoints are good: they never breach.
    NotBreaching,
    /// Missing datapoints breach the threshold.
    Breaching,
    /// The alarm keeps its state while data is missing.
    Ignore,
    /// Missing data is not evaluated; all missing means INSUFFICIENT_DATA.
    #[default]
    Missing,
}

impl AlarmDefinition {
    /// Reads and checks an alarm file.
    ///
    /// # Errors
    /// [`ConfigError::Read`], [`ConfigError::Parse`] (unknown keys, wrong types,
    /// with line and column) or [`ConfigError::Invalid`] (zero `Period` or
    /// `EvaluationPeriods`, `DatapointsToAlarm` above `EvaluationPeriods`).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses and checks alarm JSON; `origin` names the file in errors.
    ///
    /// # Errors
    /// As [`AlarmDefinition::load`], except `Read`.
    pub fn parse(text: &str, origin: &Path) -> Result<Self, ConfigError> {
        let definition: Self = serde_json::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })?;
        let invalid = |message: &str| ConfigError::Invalid {
            path: origin.to_path_buf(),
            message: message.to_string(),
        };
        if definition.period == 0 {
            return Err(invalid("Period: must be at least 1 second"));
        }
        if definition.evaluation_periods == 0 {
            return Err(invalid("EvaluationPeriods: must be at least 1"));
        }
        let m = definition.datapoints_to_alarm();
        if m == 0 || m > definition.evaluation_periods {
            return Err(invalid(
                "DatapointsToAlarm: must be from 1 to EvaluationPeriods",
            ));
        }
        Ok(definition)
    }

    /// M: `DatapointsToAlarm`, or `EvaluationPeriods` when not given.
    pub fn datapoints_to_alarm(&self) -> usize {
        self.datapoints_to_alarm.unwrap_or(self.evaluation_periods)
    }

    /// The `TableName` dimension's value, if the alarm has one.
    pub fn table_name(&self) -> Option<&str> {
        self.dimensions
            .iter()
            .find(|d| d.name == "TableName")
            .map(|d| d.value.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");

    #[test]
    fn shipped_anomaly_alarm_parses() {
        let alarm = AlarmDefinition::parse(SEED, Path::new("seed.json")).expect("valid");
        assert_eq!(alarm.metric_name, "TimeToLiveDeletedItemCount");
        assert_eq!(alarm.statistic, Statistic::Sum);
        assert_eq!(alarm.period, 3600);
        assert_eq!(alarm.evaluation_periods, 2);
        assert_eq!(
            alarm.comparison_operator,
            ComparisonOperator::LessThanThreshold
        );
        assert_eq!(alarm.treat_missing_data, TreatMissingData::Breaching);
        assert_eq!(alarm.table_name(), Some("SessionData"));
    }

    #[test]
    fn unknown_field_and_bad_values_are_named() {
        let typo = SEED.replace("\"Threshold\"", "\"Treshold\"");
        let err = AlarmDefinition::parse(&typo, Path::new("a.json")).expect_err("typo");
        assert!(err.to_string().contains("Treshold"), "{err}");
        let zero = SEED.replace("\"EvaluationPeriods\": 2", "\"EvaluationPeriods\": 0");
        let err = AlarmDefinition::parse(&zero, Path::new("a.json")).expect_err("zero");
        assert!(err.to_string().contains("EvaluationPeriods"), "{err}");
    }
}
