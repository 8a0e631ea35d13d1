//! Creating or updating an alarm in CloudWatch from its definition file, with
//! `PutMetricAlarm` (Amazon CloudWatch API Reference, "PutMetricAlarm"): the
//! file's fields are sent as they are, so the alarm in CloudWatch is the one
//! evaluated locally.

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::types::{
    ComparisonOperator as CwOperator, Dimension as CwDimension, StandardUnit,
    Statistic as CwStatistic, Tag,
};

use super::definition::{AlarmDefinition, TreatMissingData};

/// A failed PutMetricAlarm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApplyError {
    /// A field does not fit the API (e.g. `Period` beyond 32 bits, a tag
    /// without `Key` and `Value`).
    #[error("alarm {alarm}: {field}: {message}")]
    Field {
        /// `AlarmName`.
        alarm: String,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The call failed (after the SDK's own retries).
    #[error("PutMetricAlarm {alarm}: {message}")]
    Call {
        /// `AlarmName`.
        alarm: String,
        /// The SDK's error, with its source chain.
        message: String,
    },
}

/// The API's name for a `TreatMissingData` value.
pub fn treat_missing_data_name(t: TreatMissingData) -> &'static str {
    match t {
        TreatMissingData::Breaching => "breaching",
        TreatMissingData::NotBreaching => "notBreaching",
        TreatMissingData::Ignore => "ignore",
        TreatMissingData::Missing => "missing",
    }
}

/// Creates or updates `definition` in CloudWatch.
///
/// # Errors
/// [`ApplyError::Field`] before the call when a field does not fit;
/// [`ApplyError::Call`] when CloudWatch rejects it or cannot be reached.
pub async fn put_metric_alarm(
    client: &Client,
    definition: &AlarmDefinition,
) -> Result<(), ApplyError> {
    let d = definition;
    let field = |field: &'static str, message: String| ApplyError::Field {
        alarm: d.alarm_name.clone(),
        field,
        message,
    };
    let to_i32 = |name: &'static str, v: u64| {
        i32::try_from(v).map_err(|_| field(name, format!("{v} is too large")))
    };
    let period = to_i32("Period", d.period)?;
    let evaluation_periods = to_i32("EvaluationPeriods", d.evaluation_periods as u64)?;
    let datapoints = to_i32("DatapointsToAlarm", d.datapoints_to_alarm() as u64)?;
    let mut tags = Vec::new();
    for tag in &d.tags {
        let key = tag.get("Key").and_then(|v| v.as_str());
        let value = tag.get("Value").and_then(|v| v.as_str());
        let (Some(key), Some(value)) = (key, value) else {
            return Err(field("Tags", format!("{tag} needs string Key and Value")));
        };
        tags.push(Tag::builder().key(key).value(value).build());
    }
    let dimensions = d
        .dimensions
        .iter()
        .map(|x| CwDimension::builder().name(&x.name).value(&x.value).build())
        .collect();
    client
        .put_metric_alarm()
        .alarm_name(&d.alarm_name)
        .set_alarm_description(d.alarm_description.clone())
        .namespace(&d.namespace)
        .metric_name(&d.metric_name)
        .set_dimensions(Some(dimensions))
        .statistic(CwStatistic::from(format!("{:?}", d.statistic).as_str()))
        .period(period)
        .evaluation_periods(evaluation_periods)
        .datapoints_to_alarm(datapoints)
        .threshold(d.threshold)
        .comparison_operator(CwOperator::from(
            format!("{:?}", d.comparison_operator).as_str(),
        ))
        .treat_missing_data(treat_missing_data_name(d.treat_missing_data))
        .set_unit(d.unit.as_deref().map(StandardUnit::from))
        .set_actions_enabled(d.actions_enabled)
        .set_alarm_actions(Some(d.alarm_actions.clone()))
        .set_ok_actions(Some(d.ok_actions.clone()))
        .set_insufficient_data_actions(Some(d.insufficient_data_actions.clone()))
        .set_tags((!tags.is_empty()).then_some(tags))
        .send()
        .await
        .map_err(|e| ApplyError::Call {
            alarm: d.alarm_name.clone(),
            message: aws_sdk_cloudwatch::error::DisplayErrorContext(e).to_string(),
        })?;
    Ok(())
}
