//! Alarms on `TimeToLiveDeletedItemCount`, defined with PutMetricAlarm's names and
//! evaluated locally each period.

pub mod apply;
mod definition;
mod evaluate;
mod evaluator;

pub use definition::{
    AlarmDefinition, ComparisonOperator, Dimension, EvaluateLowSampleCountPercentile, Statistic,
    TreatMissingData,
};
pub use evaluate::{AlarmState, evaluate, evaluation_range};
pub use evaluator::{AlarmEvaluator, AlarmTransition};

#[cfg(test)]
mod tests;
