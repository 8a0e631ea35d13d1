//! An alarm definition file: the JSON input of CloudWatch's `PutMetricAlarm`, so
//! the same file can create the alarm in CloudWatch. Source: Amazon CloudWatch
//! API Reference, "PutMetricAlarm".
//!
//! What the file must hold follows that page. `AlarmName`, `EvaluationPeriods`
//! and `ComparisonOperator` are required by the API. `MetricName`, `Statistic`,
//! `Period` and `Threshold` are required by the API for a single-metric alarm
//! with a static threshold, the only kind ttlstream evaluates (no `Metrics`
//! math, no `ExtendedStatistic` percentiles, no anomaly detection). Every other
//! parameter is optional, and an omitted one means what the API says it means:
//! `DatapointsToAlarm` = `EvaluationPeriods`, `TreatMissingData` = `missing`
//! (`ignore` in `AWS/DynamoDB`, see [`AlarmDefinition::treat_missing_data`]),
//! `ActionsEnabled` = true, no `Dimensions`, `Unit`, actions or tags.

use std::path::Path;

use serde::Deserialize;

use crate::error::ConfigError;

/// The PutMetricAlarm fields the local evaluator reads, plus the action and tag
/// fields it accepts (for CloudWatch) and ignores.
///
/// An optional field the file omits is `None` (or empty), so that `alarm apply`
/// sends the file as written; the methods of the same name give the value with
/// AWS's default filled in.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct AlarmDefinition {
    /// `AlarmName` (required): unique per account and region.
    pub alarm_name: String,
    /// `AlarmDescription`. Optional.
    #[serde(default)]
    pub alarm_description: Option<String>,
    /// `Namespace`, e.g. `TTLStream` (custom) or `AWS/DynamoDB`. Optional in
    /// the API, which documents no default. Locally it only decides whether the
    /// `AWS/DynamoDB` default for missing data applies; the evaluator is fed
    /// ttlstream's own datapoints whatever the namespace.
    #[serde(default)]
    pub namespace: Option<String>,
    /// `MetricName` (required here); the local evaluator knows
    /// `TimeToLiveDeletedItemCount`.
    pub metric_name: String,
    /// `Dimensions`, e.g. `[{"Name":"TableName","Value":"SessionData"}]`.
    /// Optional; default none (the alarm then takes every table's datapoints).
    #[serde(default)]
    pub dimensions: Vec<Dimension>,
    /// `Statistic` applied per period (required here).
    pub statistic: Statistic,
    /// `Period` in seconds (required here); a multiple of the pipeline's metric
    /// period.
    pub period: u64,
    /// `EvaluationPeriods` (required): N, how many recent periods are evaluated.
    pub evaluation_periods: usize,
    /// `DatapointsToAlarm`: M, how many of the N must breach. Optional; see
    /// [`AlarmDefinition::datapoints_to_alarm`] for the default (N).
    #[serde(default)]
    pub datapoints_to_alarm: Option<usize>,
    /// `Threshold` (required here).
    pub threshold: f64,
    /// `ComparisonOperator` (required).
    pub comparison_operator: ComparisonOperator,
    /// `TreatMissingData`. Optional; see [`AlarmDefinition::treat_missing_data`]
    /// for the default (`missing`, or `ignore` in `AWS/DynamoDB`).
    #[serde(default)]
    pub treat_missing_data: Option<TreatMissingData>,
    /// `Unit`. Optional; default none (CloudWatch then takes every unit). Sent
    /// to CloudWatch, not used locally.
    #[serde(default)]
    pub unit: Option<String>,
    /// `ActionsEnabled`. Optional; see [`AlarmDefinition::actions_enabled`] for
    /// the default (true). CloudWatch only: the sidecar's `[[notifiers]]` get
    /// every state change.
    #[serde(default)]
    pub actions_enabled: Option<bool>,
    /// `AlarmActions` (CloudWatch only). Optional; default none.
    #[serde(default)]
    pub alarm_actions: Vec<String>,
    /// `OKActions` (CloudWatch only). Optional; default none.
    #[serde(default, rename = "OKActions")]
    pub ok_actions: Vec<String>,
    /// `InsufficientDataActions` (CloudWatch only). Optional; default none.
    #[serde(default)]
    pub insufficient_data_actions: Vec<String>,
    /// `EvaluateLowSampleCountPercentile` (CloudWatch only: it applies to
    /// percentile statistics, which the local evaluator does not have).
    /// Optional; default `evaluate`.
    #[serde(default)]
    pub evaluate_low_sample_count_percentile: Option<EvaluateLowSampleCountPercentile>,
    /// `Tags` (CloudWatch only), each `{"Key": ..., "Value": ...}`. Optional;
    /// default none.
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
/// CloudWatch alarms treat missing data"; `processor/src/alarm/evaluate.rs`
/// has the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TreatMissingData {
    /// Missing datapoints are good: they never breach.
    NotBreaching,
    /// Missing datapoints breach the threshold.
    Breaching,
    /// The alarm keeps its state while data is missing.
    Ignore,
    /// Missing data is not evaluated; all missing means INSUFFICIENT_DATA.
    Missing,
}

impl TreatMissingData {
    /// The API's name: `breaching`, `notBreaching`, `ignore`, `missing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Breaching => "breaching",
            Self::NotBreaching => "notBreaching",
            Self::Ignore => "ignore",
            Self::Missing => "missing",
        }
    }
}

/// `EvaluateLowSampleCountPercentile`: what a percentile alarm does with too
/// few samples (API Reference, "PutMetricAlarm").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EvaluateLowSampleCountPercentile {
    /// Evaluate anyway (the API's default).
    Evaluate,
    /// Keep the state while the sample is too small.
    Ignore,
}

impl EvaluateLowSampleCountPercentile {
    /// The API's name: `evaluate` or `ignore`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Evaluate => "evaluate",
            Self::Ignore => "ignore",
        }
    }
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

    /// M: `DatapointsToAlarm`, or `EvaluationPeriods` when not given (API
    /// Reference, "PutMetricAlarm": M is used "only if you are setting an 'M
    /// out of N' alarm").
    pub fn datapoints_to_alarm(&self) -> usize {
        self.datapoints_to_alarm.unwrap_or(self.evaluation_periods)
    }

    /// The `TreatMissingData` CloudWatch applies: the file's, or when the file
    /// has none, `ignore` for a metric in the `AWS/DynamoDB` namespace and
    /// `missing` for any other.
    ///
    /// Sources: API Reference, "PutMetricAlarm" ("If TreatMissingData is
    /// omitted, the default behavior of missing is used"); CloudWatch User
    /// Guide, "Configuring how CloudWatch alarms treat missing data" ("Alarms
    /// that evaluate metrics in the AWS/DynamoDB namespace default to ignore
    /// missing data. You can override this if you choose a different option").
    /// The API Reference's note on the same parameter still says such alarms
    /// "always ignore missing data even if you choose a different option";
    /// ttlstream follows the User Guide (docs/alarms.md).
    pub fn treat_missing_data(&self) -> TreatMissingData {
        match self.treat_missing_data {
            Some(given) => given,
            None if self.namespace.as_deref() == Some("AWS/DynamoDB") => TreatMissingData::Ignore,
            None => TreatMissingData::Missing,
        }
    }

    /// `ActionsEnabled`, or true when not given (API Reference,
    /// "PutMetricAlarm": "The default is TRUE").
    pub fn actions_enabled(&self) -> bool {
        self.actions_enabled.unwrap_or(true)
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
        assert_eq!(alarm.treat_missing_data(), TreatMissingData::Breaching);
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

    /// Only the fields the file format requires: the API's required three
    /// (`AlarmName`, `EvaluationPeriods`, `ComparisonOperator`) and the four a
    /// single-metric static-threshold alarm needs.
    const MINIMAL: &str = r#"{"AlarmName": "a", "MetricName": "TimeToLiveDeletedItemCount",
        "Statistic": "Sum", "Period": 60, "EvaluationPeriods": 3, "Threshold": 1,
        "ComparisonOperator": "LessThanThreshold"}"#;

    /// Each optional parameter's default, as the API Reference, "PutMetricAlarm"
    /// states it.
    #[test]
    fn omitted_optional_parameters_take_aws_defaults() {
        let alarm = AlarmDefinition::parse(MINIMAL, Path::new("a.json")).expect("valid");
        // "If TreatMissingData is omitted, the default behavior of missing is used."
        assert_eq!(alarm.treat_missing_data, None);
        assert_eq!(alarm.treat_missing_data(), TreatMissingData::Missing);
        // DatapointsToAlarm is M "only if you are setting an 'M out of N' alarm":
        // without it, M = N.
        assert_eq!(alarm.datapoints_to_alarm, None);
        assert_eq!(alarm.datapoints_to_alarm(), 3);
        // ActionsEnabled: "The default is TRUE."
        assert_eq!(alarm.actions_enabled, None);
        assert!(alarm.actions_enabled());
        // The rest: none.
        assert_eq!(alarm.namespace, None);
        assert_eq!(alarm.alarm_description, None);
        assert!(alarm.dimensions.is_empty());
        assert_eq!(alarm.table_name(), None);
        assert_eq!(alarm.unit, None);
        assert!(alarm.alarm_actions.is_empty());
        assert!(alarm.ok_actions.is_empty());
        assert!(alarm.insufficient_data_actions.is_empty());
        assert_eq!(alarm.evaluate_low_sample_count_percentile, None);
        assert!(alarm.tags.is_empty());
    }

    #[test]
    fn given_optional_parameters_are_kept() {
        let text = MINIMAL.replace(
            "\"AlarmName\": \"a\",",
            r#""AlarmName": "a", "TreatMissingData": "notBreaching", "DatapointsToAlarm": 2,
               "ActionsEnabled": false, "EvaluateLowSampleCountPercentile": "ignore","#,
        );
        let alarm = AlarmDefinition::parse(&text, Path::new("a.json")).expect("valid");
        assert_eq!(alarm.treat_missing_data(), TreatMissingData::NotBreaching);
        assert_eq!(alarm.datapoints_to_alarm(), 2);
        assert!(!alarm.actions_enabled());
        assert_eq!(
            alarm.evaluate_low_sample_count_percentile,
            Some(EvaluateLowSampleCountPercentile::Ignore)
        );
        let bad = MINIMAL.replace(
            "\"AlarmName\": \"a\",",
            r#""AlarmName": "a", "TreatMissingData": "Breaching","#,
        );
        let err = AlarmDefinition::parse(&bad, Path::new("a.json")).expect_err("case");
        assert!(err.to_string().contains("Breaching"), "{err}");
    }

    #[test]
    fn each_required_field_missing_is_named() {
        for field in [
            "AlarmName",
            "MetricName",
            "Statistic",
            "Period",
            "EvaluationPeriods",
            "Threshold",
            "ComparisonOperator",
        ] {
            let value: serde_json::Value = serde_json::from_str(MINIMAL).expect("json");
            let mut object = value.as_object().expect("object").clone();
            object.remove(field);
            let text = serde_json::Value::Object(object).to_string();
            let err = AlarmDefinition::parse(&text, Path::new("a.json")).expect_err(field);
            let message = err.to_string();
            assert!(message.contains(field), "{field}: {message}");
            assert!(message.contains("a.json"), "{field}: {message}");
        }
    }
}
