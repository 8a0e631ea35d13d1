//! Alarms on `TimeToLiveDeletedItemCount`, defined with PutMetricAlarm's names and
//! evaluated locally each period.

pub mod apply;
mod definition;
mod evaluate;
mod evaluator;

pub use definition::{AlarmDefinition, ComparisonOperator, Dimension, Statistic, TreatMissingData};
pub use evaluate::{AlarmState, effective_treat_missing_data, evaluate, evaluation_range};
pub use evaluator::{AlarmEvaluator, AlarmTransition};

#[cfg(test)]
mod tests;
