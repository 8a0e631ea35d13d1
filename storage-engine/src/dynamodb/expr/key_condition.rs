//! KeyConditionExpression analysis ("Key condition expressions for query"):
//! `pk = :v`, optionally `AND` one sort-key condition (`=`, `<`, `<=`, `>`,
//! `>=`, `BETWEEN`, `begins_with`), in either order; a comparison may put
//! the value first (`:v = pk`, `:lo < sk`), as DynamoDB accepts. Every
//! value must have the key attribute's type.

use super::ast::{Comparator, Condition, Operand, PathElem};
use super::eval::{Values, compare};
use crate::error::expression::{ExpressionError, ExpressionKind};
use crate::storage::key::KeyAttribute;
use crate::storage::key::type_name;
use serde_dynamo::AttributeValue;

const KIND: ExpressionKind = ExpressionKind::KeyConditionExpression;

/// A condition on the sort key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SortCondition {
    /// `sk op :v` (`op` is never `<>`).
    Compare(Comparator, AttributeValue),
    /// `sk BETWEEN :lo AND :hi`
    Between(AttributeValue, AttributeValue),
    /// `begins_with(sk, :prefix)`
    BeginsWith(AttributeValue),
}

/// A validated key condition.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KeyCondition {
    /// The partition key value.
    pub partition: AttributeValue,
    /// The optional sort key condition.
    pub sort: Option<SortCondition>,
}

impl KeyCondition {
    /// Validates `cond` against the key schema (`pk_attr`, optional
    /// `sk_attr`).
    ///
    /// # Errors
    ///
    /// [`ExpressionError::Invalid`] worded as DynamoDB's: missing partition
    /// key condition, unsupported operator or shape, a non-key attribute,
    /// `begins_with` with a non-String, non-Binary value;
    /// [`ExpressionError::Parameter`] for a value whose type is not the
    /// key attribute's ("Condition parameter type does not match schema
    /// type").
    pub(crate) fn from_condition(
        cond: &Condition,
        pk_attr: &KeyAttribute,
        sk_attr: Option<&KeyAttribute>,
        values: &Values,
    ) -> Result<Self, ExpressionError> {
        let pk = pk_attr.attribute_name.as_str();
        let sk = sk_attr.map(|k| k.attribute_name.as_str());
        let kc = Self::analyse(cond, pk, sk, values)?;
        let schema_type = |attr: &KeyAttribute, v: &AttributeValue| {
            if type_name(v) == attr.attribute_type.as_str() {
                Ok(())
            } else {
                Err(ExpressionError::parameter(
                    "One or more parameter values were invalid: Condition parameter type does not match schema type",
                ))
            }
        };
        schema_type(pk_attr, &kc.partition)?;
        if let (Some(sc), Some(sk_attr)) = (&kc.sort, sk_attr) {
            match sc {
                SortCondition::Compare(_, v) => schema_type(sk_attr, v)?,
                SortCondition::Between(lo, hi) => {
                    schema_type(sk_attr, lo)?;
                    schema_type(sk_attr, hi)?;
                }
                SortCondition::BeginsWith(v) => {
                    if !matches!(v, AttributeValue::S(_) | AttributeValue::B(_)) {
                        return Err(ExpressionError::invalid(
                            KIND,
                            format!(
                                "Incorrect operand type for operator or function; operator or function: begins_with, operand type: {}",
                                type_name(v)
                            ),
                        ));
                    }
                    schema_type(sk_attr, v)?;
                }
            }
        }
        Ok(kc)
    }

    fn analyse(
        cond: &Condition,
        pk: &str,
        sk: Option<&str>,
        values: &Values,
    ) -> Result<Self, ExpressionError> {
        let parts: Vec<&Condition> = match cond {
            Condition::And(a, b) => vec![a, b],
            other => vec![other],
        };
        let mut partition = None;
        let mut sort = None;
        for part in parts {
            let (name, sc) = leaf(part, values)?;
            if name == pk {
                match sc {
                    SortCondition::Compare(Comparator::Eq, v) if partition.is_none() => {
                        partition = Some(v);
                    }
                    _ => return Err(unsupported()),
                }
            } else if Some(name) == sk && sort.is_none() {
                sort = Some(sc);
            } else if Some(name) == sk {
                return Err(unsupported());
            } else {
                return Err(ExpressionError::invalid(
                    KIND,
                    format!("Query key condition not supported: `{name}` is not a key attribute"),
                ));
            }
        }
        let partition = partition.ok_or_else(|| {
            ExpressionError::invalid(
                KIND,
                format!("Query condition missed key schema element: {pk}"),
            )
        })?;
        Ok(Self { partition, sort })
    }
}

fn unsupported() -> ExpressionError {
    ExpressionError::invalid(KIND, "Query key condition not supported")
}

/// A leaf condition on one top-level attribute with placeholder values.
fn leaf<'c>(
    c: &'c Condition,
    values: &Values,
) -> Result<(&'c str, SortCondition), ExpressionError> {
    let attr = |op: &'c Operand| match op {
        Operand::Path(p) => match p.0.as_slice() {
            [PathElem::Attr(n)] => Ok(n.as_str()),
            _ => Err(unsupported()),
        },
        _ => Err(unsupported()),
    };
    let val = |op: &Operand| match op {
        Operand::Value(v) => values.get(v).cloned().ok_or_else(unsupported),
        _ => Err(unsupported()),
    };
    match c {
        Condition::Compare(a, op, b) => {
            if *op == Comparator::Ne {
                return Err(ExpressionError::invalid(
                    KIND,
                    "Unsupported operator on KeyCondition: <>",
                ));
            }
            match (a, b) {
                (Operand::Value(_), Operand::Path(_)) => {
                    Ok((attr(b)?, SortCondition::Compare(op.flipped(), val(a)?)))
                }
                _ => Ok((attr(a)?, SortCondition::Compare(*op, val(b)?))),
            }
        }
        Condition::Between(a, lo, hi) => {
            let (lo, hi) = (val(lo)?, val(hi)?);
            if compare(&lo, &hi).is_some_and(|o| o.is_gt()) {
                return Err(ExpressionError::invalid(
                    KIND,
                    "The BETWEEN operator requires upper bound to be greater than or equal to lower bound",
                ));
            }
            Ok((attr(a)?, SortCondition::Between(lo, hi)))
        }
        Condition::BeginsWith(a, p) => Ok((attr(a)?, SortCondition::BeginsWith(val(p)?))),
        _ => Err(unsupported()),
    }
}
