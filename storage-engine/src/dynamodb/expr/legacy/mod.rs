//! The legacy conditional parameters ("Legacy conditional parameters" in
//! the DynamoDB Developer Guide, and the API Reference's `Expected`,
//! `AttributeUpdates`, `AttributesToGet`, `KeyConditions`, `QueryFilter`,
//! `ScanFilter` and `ConditionalOperator`) mapped onto the expression
//! engine: each becomes the syntax tree its expression form would parse
//! to, evaluated by the same code. Values go in a [`LegacyValues`] map
//! under keys no request placeholder can take (`legacy:N`).
//!
//! | legacy | expression |
//! |---|---|
//! | `Expected {a: {Value: v}}` (`Exists` true or absent) | `a = v` |
//! | `Expected {a: {Exists: false}}` | `attribute_not_exists(a)` |
//! | `EQ` `NE` `LE` `LT` `GE` `GT` | `a = v`, `a <> v`, `a <= v`, ... |
//! | `NULL` / `NOT_NULL` | `attribute_not_exists(a)` / `attribute_exists(a)` |
//! | `CONTAINS` / `BEGINS_WITH` | `contains(a, v)` / `begins_with(a, v)` |
//! | `NOT_CONTAINS` | `attribute_exists(a) AND NOT contains(a, v)` (false for an absent attribute, unlike `NE`) |
//! | `IN` / `BETWEEN` | `a IN (v1, ...)` / `a BETWEEN v1 AND v2` |
//! | `ConditionalOperator` | `AND` (default) / `OR` between the entries |
//! | `AttributeUpdates` `PUT` / `ADD` | `SET a = v` / `ADD a v` |
//! | `AttributeUpdates` `DELETE` | `REMOVE a`, or `DELETE a v` with a set value |
//! | `AttributesToGet [a, b]` | `ProjectionExpression` `a, b` |
//!
//! Entries combine in a balanced tree, so a map of thousands of entries
//! evaluates without deep recursion. The validation messages are
//! DynamoDB's.

use super::ast::{Comparator, Condition, Operand, Path, PathElem, UpdateExpr};
use super::eval::{Values, compare};
use crate::dynamodb::request::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator, ConditionalOperator,
    ExpectedAttributeValue,
};
use crate::error::expression::ExpressionError;
use crate::storage::key::type_name;
use serde_dynamo::AttributeValue;
use std::collections::HashMap;

mod conditions;
pub(crate) use conditions::{expected, filter, key_conditions};

fn invalid(message: impl std::fmt::Display) -> ExpressionError {
    ExpressionError::parameter(format!(
        "One or more parameter values were invalid: {message}"
    ))
}

/// The values of a request's legacy parameters, under keys that cannot
/// clash with `ExpressionAttributeValues` (those start with `:`).
#[derive(Debug, Default)]
pub(crate) struct LegacyValues {
    values: Values,
}

impl LegacyValues {
    /// An operand naming `value`.
    fn add(&mut self, value: AttributeValue) -> Operand {
        let key = format!("legacy:{}", self.values.len());
        self.values.insert(key.clone(), value);
        Operand::Value(key)
    }

    /// `request` values and these together, for evaluation.
    pub(crate) fn merged(self, request: &Values) -> Values {
        if self.values.is_empty() {
            return request.clone();
        }
        let mut all = request.clone();
        all.extend(self.values);
        all
    }
}

fn attr(name: &str) -> Operand {
    Operand::Path(top(name))
}

fn top(name: &str) -> Path {
    Path(vec![PathElem::Attr(name.to_string())])
}

/// Refuses a request that gives a legacy parameter and an expression
/// parameter together, and `ExpressionAttributeNames` / `Values` without
/// an expression, with DynamoDB's messages. `legacy` and `expressions`
/// list the parameters given, by name.
///
/// # Errors
///
/// [`ExpressionError::Parameter`].
pub(crate) fn check_parameters(
    legacy: &[&str],
    expressions: &[&str],
    value_expressions: &[&str],
    has_names: bool,
    has_values: bool,
) -> Result<(), ExpressionError> {
    if !legacy.is_empty() && !expressions.is_empty() {
        return Err(ExpressionError::parameter(format!(
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
            legacy.join(", "),
            expressions.join(", ")
        )));
    }
    if has_names && expressions.is_empty() {
        return Err(ExpressionError::parameter(
            "ExpressionAttributeNames can only be specified when using expressions",
        ));
    }
    let with_values: Vec<&str> = value_expressions
        .iter()
        .copied()
        .filter(|e| expressions.contains(e))
        .collect();
    if has_values && with_values.is_empty() {
        return Err(ExpressionError::parameter(format!(
            "ExpressionAttributeValues can only be specified when using expressions: {} {} null",
            value_expressions.join(" and "),
            if value_expressions.len() > 1 {
                "are"
            } else {
                "is"
            }
        )));
    }
    Ok(())
}

/// `ConditionalOperator` needs a map of two or more conditions.
fn check_operator(
    entries: usize,
    operator: Option<ConditionalOperator>,
) -> Result<(), ExpressionError> {
    if operator.is_some() && entries < 2 {
        return Err(ExpressionError::parameter(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        ));
    }
    Ok(())
}

/// `AttributeUpdates` as an update expression.
///
/// # Errors
///
/// [`ExpressionError::Parameter`] for a `PUT` or `ADD` without a value or
/// an invalid value.
pub(crate) fn attribute_updates(
    map: &HashMap<String, AttributeValueUpdate>,
    values: &mut LegacyValues,
) -> Result<UpdateExpr, ExpressionError> {
    let mut u = UpdateExpr::default();
    for (name, update) in sorted(map) {
        if let Some(v) = &update.value {
            check_value(v)?;
        }
        match (update.action, &update.value) {
            (AttributeAction::Put, Some(v)) => u.set.push((top(name), values.add(v.clone()))),
            (AttributeAction::Add, Some(v)) => u.add.push((top(name), values.add(v.clone()))),
            (AttributeAction::Delete, Some(v)) => {
                u.delete.push((top(name), values.add(v.clone())));
            }
            (AttributeAction::Delete, None) => u.remove.push(top(name)),
            (AttributeAction::Put | AttributeAction::Add, None) => {
                return Err(invalid(
                    "Only DELETE action is allowed when no attribute value is specified",
                ));
            }
        }
    }
    Ok(u)
}

/// `AttributesToGet` as a projection.
///
/// # Errors
///
/// [`ExpressionError::Parameter`] for a name given twice.
pub(crate) fn attributes_to_get(names: &[String]) -> Result<Vec<Path>, ExpressionError> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if n.len() > crate::storage::attribute::MAX_ATTRIBUTE_NAME_BYTES {
            return Err(ExpressionError::parameter(
                crate::storage::attribute::NAME_TOO_LARGE,
            ));
        }
        if !seen.insert(n.as_str()) {
            return Err(invalid(format!("Duplicate value in attribute name: {n}")));
        }
    }
    Ok(names.iter().map(|n| top(n)).collect())
}

fn check_value(v: &AttributeValue) -> Result<(), ExpressionError> {
    crate::storage::attribute::validate_value(v).map_err(ExpressionError::parameter)
}

/// A map's entries in name order, so that the same request always builds
/// the same tree.
fn sorted<V>(map: &HashMap<String, V>) -> Vec<(&str, &V)> {
    let mut entries: Vec<(&str, &V)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    entries.sort_unstable_by_key(|(k, _)| *k);
    entries
}
