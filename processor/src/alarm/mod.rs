//! Alarms on `TimeToLiveDeletedItemCount`, defined with PutMetricAlarm's names and
//! evaluated locally each period.

mod definition;
mod evaluate;
mod evaluator;

pub use definition::{AlarmDefinition, ComparisonOperator, Dimension, Statistic, TreatMissingData};
pub use evaluate::{AlarmState, evaluate};
pub use evaluator::{AlarmEvaluator, AlarmTransition};
