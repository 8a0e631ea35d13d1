//! Substitutes `ExpressionAttributeNames` into parsed expressions, checks
//! that every `:value` is defined, and that every supplied placeholder is
//! used ("Expression attribute names", "Expression attribute values").

use super::ast::{Condition, Operand, Path, PathElem, UpdateExpr};
use super::error::{ExpressionError, ExpressionKind};
use serde_dynamo::AttributeValue;
use std::collections::{BTreeSet, HashMap};

/// The placeholders of one request and which of them were used.
pub(crate) struct Placeholders<'a> {
    names: &'a HashMap<String, String>,
    values: &'a HashMap<String, AttributeValue>,
    used_names: BTreeSet<&'a str>,
    used_values: BTreeSet<&'a str>,
}

impl<'a> Placeholders<'a> {
    /// Placeholders from a request's `ExpressionAttributeNames` / `Values`.
    pub fn new(
        names: &'a HashMap<String, String>,
        values: &'a HashMap<String, AttributeValue>,
    ) -> Self {
        Self {
            names,
            values,
            used_names: BTreeSet::new(),
            used_values: BTreeSet::new(),
        }
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
