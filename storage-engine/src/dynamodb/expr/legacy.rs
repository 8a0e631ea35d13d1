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

/// The condition of an `Expected` map (`None` for an empty map).
///
/// # Errors
///
/// [`ExpressionError::Parameter`] with DynamoDB's message for an invalid
/// entry.
pub(crate) fn expected(
    map: Option<&HashMap<String, ExpectedAttributeValue>>,
    operator: Option<ConditionalOperator>,
    values: &mut LegacyValues,
) -> Result<Option<Condition>, ExpressionError> {
    let Some(map) = map else {
        if operator.is_some() {
            return Err(ExpressionError::parameter(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements",
            ));
        }
        return Ok(None);
    };
    check_operator(map.len(), operator)?;
    let mut parts = Vec::with_capacity(map.len());
    for (name, e) in sorted(map) {
        parts.push(expected_entry(name, e, values)?);
    }
    Ok(combine(parts, operator.unwrap_or_default()))
}

fn expected_entry(
    name: &str,
    e: &ExpectedAttributeValue,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    if e.value.is_some() && e.attribute_value_list.is_some() {
        return Err(invalid(format!(
            "Value and AttributeValueList cannot be used together for Attribute: {name}"
        )));
    }
    if let Some(op) = e.comparison_operator {
        if e.exists.is_some() {
            return Err(invalid(format!(
                "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
            )));
        }
        let list: Vec<AttributeValue> = match (&e.attribute_value_list, &e.value) {
            (Some(list), _) => list.clone(),
            (None, Some(v)) => vec![v.clone()],
            (None, None) => Vec::new(),
        };
        return comparison(name, op, list, values);
    }
    if e.attribute_value_list.is_some() {
        return Err(invalid(format!(
            "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
        )));
    }
    match (e.exists, &e.value) {
        (Some(false), None) => Ok(Condition::NotExists(top(name))),
        (Some(false), Some(_)) => Err(invalid(format!(
            "Value cannot be used when Exists is false for Attribute: {name}"
        ))),
        (exists, None) => Err(invalid(format!(
            "Value must be provided when Exists is {} for Attribute: {name}",
            if exists.is_some() { "true" } else { "null" }
        ))),
        (_, Some(v)) => {
            check_value(v)?;
            Ok(Condition::Compare(
                attr(name),
                Comparator::Eq,
                values.add(v.clone()),
            ))
        }
    }
}

/// The condition of a `QueryFilter` or `ScanFilter` map (`None` if absent).
///
/// # Errors
///
/// As [`expected`].
pub(crate) fn filter(
    map: Option<&HashMap<String, crate::dynamodb::request::Condition>>,
    operator: Option<ConditionalOperator>,
    values: &mut LegacyValues,
) -> Result<Option<Condition>, ExpressionError> {
    let Some(map) = map else {
        if operator.is_some() {
            return Err(ExpressionError::parameter(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements",
            ));
        }
        return Ok(None);
    };
    check_operator(map.len(), operator)?;
    let mut parts = Vec::with_capacity(map.len());
    for (name, c) in sorted(map) {
        parts.push(comparison(
            name,
            c.comparison_operator,
            c.attribute_value_list.clone(),
            values,
        )?);
    }
    Ok(combine(parts, operator.unwrap_or_default()))
}

/// `KeyConditions` as a key condition tree (one or two entries, `AND`).
///
/// # Errors
///
/// As [`expected`]; an operator a key condition cannot use.
pub(crate) fn key_conditions(
    map: &HashMap<String, crate::dynamodb::request::Condition>,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    if map.is_empty() || map.len() > 2 {
        return Err(invalid("Conditions can be of length 1 or 2 only"));
    }
    let mut parts = Vec::new();
    for (name, c) in sorted(map) {
        use ComparisonOperator as C;
        if !matches!(
            c.comparison_operator,
            C::Eq | C::Le | C::Lt | C::Ge | C::Gt | C::BeginsWith | C::Between
        ) {
            return Err(ExpressionError::parameter(
                "Attempted conditional constraint is not an indexable operation",
            ));
        }
        parts.push(comparison(
            name,
            c.comparison_operator,
            c.attribute_value_list.clone(),
            values,
        )?);
    }
    combine(parts, ConditionalOperator::And).ok_or_else(|| invalid("KeyConditions is empty"))
}

/// One `ComparisonOperator` with its operands, checked as DynamoDB checks
/// them: the number of operands, one type for all of them, a type the
/// operator takes, `BETWEEN` bounds in order.
fn comparison(
    name: &str,
    op: ComparisonOperator,
    list: Vec<AttributeValue>,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    use ComparisonOperator as C;
    let count_ok = match op {
        C::Null | C::NotNull => list.is_empty(),
        C::In => !list.is_empty(),
        C::Between => list.len() == 2,
        _ => list.len() == 1,
    };
    if !count_ok {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {} ComparisonOperator",
            op.as_str()
        )));
    }
    for v in &list {
        check_value(v)?;
    }
    if let Some(first) = list.first()
        && list.iter().any(|v| type_name(v) != type_name(first))
    {
        return Err(invalid(
            "AttributeValues inside AttributeValueList must be of same type",
        ));
    }
    let allowed: &[&str] = match op {
        // "AttributeValueList can contain only one AttributeValue element of
        // type String, Number, Binary, String Set, Number Set, or Binary Set"
        // (Condition, DynamoDB API Reference).
        C::Eq | C::Ne => &["S", "N", "B", "SS", "NS", "BS"],
        C::BeginsWith => &["S", "B"],
        _ => &["S", "N", "B"],
    };
    if let Some(bad) = list.iter().find(|v| !allowed.contains(&type_name(v))) {
        return Err(invalid(format!(
            "ComparisonOperator {} is not valid for {} AttributeValue type",
            op.as_str(),
            type_name(bad)
        )));
    }
    if op == C::Between
        && let [lo, hi] = list.as_slice()
        && compare(lo, hi).is_some_and(|o| o.is_gt())
    {
        return Err(ExpressionError::parameter(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ));
    }
    let mut operands = list.into_iter().map(|v| values.add(v));
    let mut next = || operands.next().unwrap_or(Operand::Value(String::new()));
    let compare = |c: Comparator, v: Operand| Condition::Compare(attr(name), c, v);
    Ok(match op {
        C::Eq => compare(Comparator::Eq, next()),
        C::Ne => compare(Comparator::Ne, next()),
        C::Le => compare(Comparator::Le, next()),
        C::Lt => compare(Comparator::Lt, next()),
        C::Ge => compare(Comparator::Ge, next()),
        C::Gt => compare(Comparator::Gt, next()),
        C::NotNull => Condition::Exists(top(name)),
        C::Null => Condition::NotExists(top(name)),
        C::Contains => Condition::Contains(attr(name), next()),
        C::NotContains => Condition::And(
            Box::new(Condition::Exists(top(name))),
            Box::new(Condition::Not(Box::new(Condition::Contains(
                attr(name),
                next(),
            )))),
        ),
        C::BeginsWith => Condition::BeginsWith(attr(name), next()),
        C::In => Condition::In(attr(name), operands.collect()),
        C::Between => {
            let lo = next();
            Condition::Between(attr(name), lo, next())
        }
    })
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

/// The conditions joined by `operator` in a balanced tree (depth log2 n).
fn combine(mut parts: Vec<Condition>, operator: ConditionalOperator) -> Option<Condition> {
    while parts.len() > 1 {
        let mut next = Vec::with_capacity(parts.len().div_ceil(2));
        let mut it = parts.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => match operator {
                    ConditionalOperator::And => Condition::And(Box::new(a), Box::new(b)),
                    ConditionalOperator::Or => Condition::Or(Box::new(a), Box::new(b)),
                },
                None => a,
            });
        }
        parts = next;
    }
    parts.pop()
}
