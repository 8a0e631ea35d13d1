//! Substitutes `ExpressionAttributeNames` into parsed expressions, checks
//! that every `:value` is defined, and that every supplied placeholder is
//! used ("Expression attribute names", "Expression attribute values").

use super::ast::{Condition, Operand, Path, PathElem, UpdateExpr};
use crate::error::expression::{ExpressionError, ExpressionKind};
use serde_dynamo::AttributeValue;
use std::collections::{BTreeSet, HashMap};

/// Longest `#name` or `:value` placeholder, its first character included
/// ("Constraints in Amazon DynamoDB": 255 bytes).
pub const MAX_PLACEHOLDER_BYTES: usize = 255;
/// Most bytes of `ExpressionAttributeNames` and `ExpressionAttributeValues`
/// together ("the maximum length of all substitution variables in an
/// expression is 2 MB").
pub const MAX_SUBSTITUTION_BYTES: usize = 2 * 1024 * 1024;

/// Checks one placeholder key: `prefix` then one or more letters, digits
/// or `_`, at most [`MAX_PLACEHOLDER_BYTES`].
fn check_key(parameter: &str, prefix: char, key: &str) -> Result<(), ExpressionError> {
    let rest = key.strip_prefix(prefix).unwrap_or("");
    if rest.is_empty() || !rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(ExpressionError::parameter(format!(
            "{parameter} contains invalid key: Syntax error; key: \"{key}\""
        )));
    }
    if key.len() > MAX_PLACEHOLDER_BYTES {
        return Err(ExpressionError::parameter(format!(
            "{parameter} contains invalid key: The key is longer than {MAX_PLACEHOLDER_BYTES} bytes; key: \"{key}\""
        )));
    }
    Ok(())
}

/// The placeholders of one request and which of them were used.
pub(crate) struct Placeholders<'a> {
    names: &'a HashMap<String, String>,
    values: &'a HashMap<String, AttributeValue>,
    used_names: BTreeSet<&'a str>,
    used_values: BTreeSet<&'a str>,
}

impl<'a> Placeholders<'a> {
    /// Placeholders from a request's `ExpressionAttributeNames` / `Values`,
    /// checked as DynamoDB checks them ("Expression attribute names",
    /// "Expression attribute values", "Constraints in Amazon DynamoDB"):
    /// keys `#` / `:` followed by letters, digits or `_`, at most 255 bytes;
    /// names within the attribute name limit; values valid as item values
    /// would be; at most 2 MB of keys, names and values in all.
    ///
    /// # Errors
    ///
    /// [`ExpressionError::Parameter`] with DynamoDB's message.
    pub fn new(
        names: &'a HashMap<String, String>,
        values: &'a HashMap<String, AttributeValue>,
    ) -> Result<Self, ExpressionError> {
        let mut total = 0usize;
        for (key, name) in names {
            check_key("ExpressionAttributeNames", '#', key)?;
            if name.len() > crate::storage::attribute::MAX_ATTRIBUTE_NAME_BYTES {
                return Err(ExpressionError::parameter(
                    crate::storage::attribute::NAME_TOO_LARGE,
                ));
            }
            total += key.len() + name.len();
        }
        for (key, value) in values {
            check_key("ExpressionAttributeValues", ':', key)?;
            crate::storage::attribute::validate_value(value).map_err(|m| {
                let m = m.trim_start_matches("1 validation error detected: ");
                ExpressionError::parameter(format!(
                    "ExpressionAttributeValues contains invalid value: {m} for key {key}"
                ))
            })?;
            total += key.len()
                + usize::try_from(crate::storage::attribute::value_size_bytes(value))
                    .unwrap_or(usize::MAX);
        }
        if total > MAX_SUBSTITUTION_BYTES {
            return Err(ExpressionError::parameter(format!(
                "ExpressionAttributeNames and ExpressionAttributeValues hold {total} bytes; at most {MAX_SUBSTITUTION_BYTES} (2 MB) are allowed"
            )));
        }
        Ok(Self {
            names,
            values,
            used_names: BTreeSet::new(),
            used_values: BTreeSet::new(),
        })
    }

    /// Replaces `#name` elements of `path` with their attribute names.
    pub fn path(&mut self, kind: ExpressionKind, path: &mut Path) -> Result<(), ExpressionError> {
        for elem in &mut path.0 {
            if let PathElem::Attr(n) = elem
                && n.starts_with('#')
            {
                let Some((k, v)) = self.names.get_key_value(n.as_str()) else {
                    return Err(ExpressionError::UndefinedName {
                        kind,
                        name: n.clone(),
                    });
                };
                self.used_names.insert(k.as_str());
                *n = v.clone();
            }
        }
        Ok(())
    }

    /// Resolves every path and checks every value in `op`.
    pub fn operand(
        &mut self,
        kind: ExpressionKind,
        op: &mut Operand,
    ) -> Result<(), ExpressionError> {
        match op {
            Operand::Path(p) | Operand::Size(p) => self.path(kind, p),
            Operand::Value(v) => match self.values.get_key_value(v.as_str()) {
                Some((k, _)) => {
                    self.used_values.insert(k.as_str());
                    Ok(())
                }
                None => Err(ExpressionError::UndefinedValue {
                    kind,
                    name: v.clone(),
                }),
            },
            Operand::IfNotExists(p, v) => {
                self.path(kind, p)?;
                self.operand(kind, v)
            }
            Operand::ListAppend(a, b) | Operand::Plus(a, b) | Operand::Minus(a, b) => {
                self.operand(kind, a)?;
                self.operand(kind, b)
            }
        }
    }

    /// Resolves a condition.
    pub fn condition(
        &mut self,
        kind: ExpressionKind,
        c: &mut Condition,
    ) -> Result<(), ExpressionError> {
        match c {
            Condition::Compare(a, _, b)
            | Condition::BeginsWith(a, b)
            | Condition::Contains(a, b) => {
                self.operand(kind, a)?;
                self.operand(kind, b)
            }
            Condition::Between(a, lo, hi) => {
                self.operand(kind, a)?;
                self.operand(kind, lo)?;
                self.operand(kind, hi)
            }
            Condition::In(a, list) => {
                if list.len() > 100 {
                    return Err(ExpressionError::invalid(
                        kind,
                        "The IN operator accepts at most 100 operands",
                    ));
                }
                self.operand(kind, a)?;
                list.iter_mut().try_for_each(|o| self.operand(kind, o))
            }
            Condition::Exists(p) | Condition::NotExists(p) => self.path(kind, p),
            Condition::AttributeType(p, t) => {
                self.path(kind, p)?;
                self.operand(kind, t)
            }
            Condition::And(a, b) | Condition::Or(a, b) => {
                self.condition(kind, a)?;
                self.condition(kind, b)
            }
            Condition::Not(a) => self.condition(kind, a),
        }
    }

    /// Resolves an update expression.
    pub fn update(&mut self, u: &mut UpdateExpr) -> Result<(), ExpressionError> {
        let kind = ExpressionKind::UpdateExpression;
        for (p, v) in u.set.iter_mut().chain(&mut u.add).chain(&mut u.delete) {
            self.path(kind, p)?;
            self.operand(kind, v)?;
        }
        u.remove.iter_mut().try_for_each(|p| self.path(kind, p))
    }

    /// Fails if a supplied placeholder was not used by any expression.
    pub fn finish(self) -> Result<(), ExpressionError> {
        let unused = |all: Vec<&str>, used: &BTreeSet<&str>| {
            let mut left: Vec<&str> = all.into_iter().filter(|k| !used.contains(k)).collect();
            left.sort_unstable();
            left.join(", ")
        };
        let names = unused(
            self.names.keys().map(String::as_str).collect(),
            &self.used_names,
        );
        if !names.is_empty() {
            return Err(ExpressionError::Unused {
                parameter: "ExpressionAttributeNames",
                keys: names,
            });
        }
        let values = unused(
            self.values.keys().map(String::as_str).collect(),
            &self.used_values,
        );
        if !values.is_empty() {
            return Err(ExpressionError::Unused {
                parameter: "ExpressionAttributeValues",
                keys: values,
            });
        }
        Ok(())
    }
}
