//! Creating or updating an alarm in CloudWatch from its definition file, with
//! `PutMetricAlarm` (Amazon CloudWatch API Reference, "PutMetricAlarm"): the
//! file's fields are sent as they are, so the alarm in CloudWatch is the one
//! evaluated locally. A field the file omits is omitted from the request too,
//! and CloudWatch applies the same default the local evaluator does.

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::types::{
    ComparisonOperator as CwOperator, Dimension as CwDimension, StandardUnit,
    Statistic as CwStatistic, Tag,
};

use super::definition::AlarmDefinition;

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
    let datapoints = d
        .datapoints_to_alarm
        .map(|m| to_i32("DatapointsToAlarm", m as u64))
        .transpose()?;
    let mut tags = Vec::new();
    for tag in &d.tags {
        let key = tag.get("Key").and_then(|v| v.as_str());
        let value = tag.get("Value").and_then(|v| v.as_str());
        let (Some(key), Some(value)) = (key, value) else {
            return Err(field("Tags", format!("{tag} needs string Key and Value")));
        };
        tags.push(Tag::builder().key(key).value(value).build());
    }
    let dimensions: Vec<CwDimension> = d
        .dimensions
        .iter()
        .map(|x| CwDimension::builder().name(&x.name).value(&x.value).build())
        .collect();
    // An empty list is sent as no list: the file's "none" either way.
    let listed = |list: &[String]| (!list.is_empty()).then(|| list.to_vec());
    client
        .put_metric_alarm()
        .alarm_name(&d.alarm_name)
        .set_alarm_description(d.alarm_description.clone())
        .set_namespace(d.namespace.clone())
        .metric_name(&d.metric_name)
        .set_dimensions((!dimensions.is_empty()).then_some(dimensions))
        .statistic(CwStatistic::from(format!("{:?}", d.statistic).as_str()))
        .period(period)
        .evaluation_periods(evaluation_periods)
        .set_datapoints_to_alarm(datapoints)
        .threshold(d.threshold)
        .comparison_operator(CwOperator::from(
            format!("{:?}", d.comparison_operator).as_str(),
        ))
        .set_treat_missing_data(d.treat_missing_data.map(|t| t.as_str().to_string()))
        .set_unit(d.unit.as_deref().map(StandardUnit::from))
        .set_actions_enabled(d.actions_enabled)
        .set_alarm_actions(listed(&d.alarm_actions))
        .set_ok_actions(listed(&d.ok_actions))
        .set_insufficient_data_actions(listed(&d.insufficient_data_actions))
        .set_evaluate_low_sample_count_percentile(
            d.evaluate_low_sample_count_percentile
                .map(|e| e.as_str().to_string()),
        )
        .set_tags((!tags.is_empty()).then_some(tags))
        .send()
        .await
        .map_err(|e| ApplyError::Call {
            alarm: d.alarm_name.clone(),
            message: aws_sdk_cloudwatch::error::DisplayErrorContext(e).to_string(),
        })?;
    Ok(())
}
