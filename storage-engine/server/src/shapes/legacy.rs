//! The legacy conditional parameters' shapes ("Legacy conditional
//! parameters"; `ExpectedAttributeValue`, `Condition`,
//! `AttributeValueUpdate` in the DynamoDB API Reference) and their
//! conversion into the engine's request types, which map them onto
//! expressions.

use crate::error::{ApiError, enum_constraint};
use serde::Deserialize;
use serde_dynamo::AttributeValue;
use std::collections::HashMap;
use ttlstream_engine::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator, Condition, ConditionalOperator,
    ExpectedAttributeValue,
};

const OPERATORS: &[&str] = &[
    "IN",
    "NULL",
    "BETWEEN",
    "LT",
    "NOT_CONTAINS",
    "EQ",
    "GT",
    "NOT_NULL",
    "NE",
    "LE",
    "BEGINS_WITH",
    "GE",
    "CONTAINS",
];

/// `ExpectedAttributeValue`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ExpectedShape {
    pub value: Option<AttributeValue>,
    pub exists: Option<bool>,
    pub comparison_operator: Option<String>,
    pub attribute_value_list: Option<Vec<AttributeValue>>,
}

/// `Condition` (KeyConditions, QueryFilter, ScanFilter).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ConditionShape {
    pub comparison_operator: Option<String>,
    pub attribute_value_list: Option<Vec<AttributeValue>>,
}

/// `AttributeValueUpdate`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct AttributeValueUpdateShape {
    pub value: Option<AttributeValue>,
    pub action: Option<String>,
}

fn operator(text: &str, member: &str) -> Result<ComparisonOperator, ApiError> {
    ComparisonOperator::parse(text).ok_or_else(|| enum_constraint(text, member, OPERATORS))
}

/// `ConditionalOperator`.
///
/// # Errors
///
/// A `ValidationException` for a value other than `AND` / `OR`.
pub fn conditional_operator(text: Option<&str>) -> Result<Option<ConditionalOperator>, ApiError> {
    text.map(|t| match t {
        "AND" => Ok(ConditionalOperator::And),
        "OR" => Ok(ConditionalOperator::Or),
        other => Err(enum_constraint(
            other,
            "conditionalOperator",
            &["AND", "OR"],
        )),
    })
    .transpose()
}

/// `Expected` as the engine takes it.
///
/// # Errors
///
/// A `ValidationException` for an unknown `ComparisonOperator`.
pub fn expected(
    map: Option<HashMap<String, ExpectedShape>>,
) -> Result<Option<HashMap<String, ExpectedAttributeValue>>, ApiError> {
    map.map(|m| {
        m.into_iter()
            .map(|(name, e)| {
                let comparison_operator = e
                    .comparison_operator
                    .as_deref()
                    .map(|t| operator(t, &format!("expected.{name}.member.comparisonOperator")))
                    .transpose()?;
                Ok((
                    name,
                    ExpectedAttributeValue {
                        value: e.value,
                        exists: e.exists,
                        comparison_operator,
                        attribute_value_list: e.attribute_value_list,
                    },
                ))
            })
            .collect()
    })
    .transpose()
}

/// `KeyConditions`, `QueryFilter` or `ScanFilter` (named `member`) as the
/// engine takes them.
///
/// # Errors
///
/// A `ValidationException` for a missing or unknown `ComparisonOperator`.
pub fn conditions(
    map: Option<HashMap<String, ConditionShape>>,
    member: &str,
) -> Result<Option<HashMap<String, Condition>>, ApiError> {
    map.map(|m| {
        m.into_iter()
            .map(|(name, c)| {
                let at = format!("{member}.{name}.member.comparisonOperator");
                let text = c
                    .comparison_operator
                    .ok_or_else(|| ApiError::missing(&at))?;
                Ok((
                    name,
                    Condition {
                        comparison_operator: operator(&text, &at)?,
                        attribute_value_list: c.attribute_value_list.unwrap_or_default(),
                    },
                ))
            })
            .collect()
    })
    .transpose()
}

/// `AttributeUpdates` as the engine takes it.
///
/// # Errors
///
/// A `ValidationException` for an unknown `Action`.
pub fn attribute_updates(
    map: Option<HashMap<String, AttributeValueUpdateShape>>,
) -> Result<Option<HashMap<String, AttributeValueUpdate>>, ApiError> {
    map.map(|m| {
        m.into_iter()
            .map(|(name, u)| {
                let action = match u.action.as_deref() {
                    None | Some("PUT") => AttributeAction::Put,
                    Some("DELETE") => AttributeAction::Delete,
                    Some("ADD") => AttributeAction::Add,
                    Some(other) => {
                        return Err(enum_constraint(
                            other,
                            &format!("attributeUpdates.{name}.member.action"),
                            &["ADD", "PUT", "DELETE"],
                        ));
                    }
                };
                Ok((
                    name,
                    AttributeValueUpdate {
                        value: u.value,
                        action,
                    },
                ))
            })
            .collect()
    })
    .transpose()
}
