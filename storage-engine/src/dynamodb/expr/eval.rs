//! Evaluating conditions against an item ("Condition expressions",
//! "Comparison operator and function reference").
//!
//! Rules reproduced: a comparison with an absent operand is false, except
//! `<>`, which is true (an absent attribute is not equal to anything);
//! `=` across types is false and `<>` true; `<`, `<=`, `>`, `>=` and
//! `BETWEEN` compare only N (numerically), S and B (bytewise) of the same
//! type, otherwise false; `size` is the byte length of S/B and the element
//! count of sets, lists and maps.

use super::ast::{Comparator, Condition, Operand, Path, PathElem};
use crate::error::expression::{ExpressionError, ExpressionKind};
use crate::storage::key::{encode_number, type_name};
use crate::storage::number::Decimal;
use serde_dynamo::AttributeValue;
use std::cmp::Ordering;
use std::collections::HashMap;

/// An item's attributes.
pub(crate) type Attrs = HashMap<String, AttributeValue>;
/// `ExpressionAttributeValues`.
pub(crate) type Values = HashMap<String, AttributeValue>;

/// The value at `path` in `item`, if present.
pub(crate) fn get_path<'a>(item: &'a Attrs, path: &Path) -> Option<&'a AttributeValue> {
    let mut elems = path.0.iter();
    let mut cur = match elems.next()? {
        PathElem::Attr(n) => item.get(n)?,
        PathElem::Index(_) => return None,
    };
    for e in elems {
        cur = match (e, cur) {
            (PathElem::Attr(n), AttributeValue::M(m)) => m.get(n)?,
            (PathElem::Index(i), AttributeValue::L(l)) => l.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The value of a condition operand (`size`, `:value` or path).
pub(crate) fn operand_value(op: &Operand, item: &Attrs, values: &Values) -> Option<AttributeValue> {
    match op {
        Operand::Path(p) => get_path(item, p).cloned(),
        Operand::Value(v) => values.get(v).cloned(),
        Operand::Size(p) => size(get_path(item, p)?).map(|n| AttributeValue::N(n.to_string())),
        // Update-only operands never reach a condition (the parser cannot
        // produce them there).
        _ => None,
    }
}

fn size(v: &AttributeValue) -> Option<usize> {
    Some(match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.len(),
        AttributeValue::Ss(s) => s.len(),
        AttributeValue::Ns(s) => s.len(),
        AttributeValue::Bs(s) => s.len(),
        AttributeValue::L(l) => l.len(),
        AttributeValue::M(m) => m.len(),
        _ => return None,
    })
}

/// The order-preserving bytes of a Number (numeric order = byte order).
pub(crate) fn number_key(n: &str) -> Option<Vec<u8>> {
    let d = Decimal::parse(n).ok()?;
    let mut out = Vec::new();
    encode_number(&d, &mut out);
    Some(out)
}

/// Ordering of two N, S or B values of the same type; `None` otherwise.
pub(crate) fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::N(x), AttributeValue::N(y)) => Some(number_key(x)?.cmp(&number_key(y)?)),
        (AttributeValue::S(x), AttributeValue::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (AttributeValue::B(x), AttributeValue::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// Deep equality: Numbers numerically, sets ignoring order.
pub(crate) fn equal(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue as V;
    let set_eq = |x: &[String], y: &[String], num: bool| {
        x.len() == y.len()
            && x.iter().all(|e| {
                y.iter().any(|f| {
                    if num {
                        number_key(e) == number_key(f)
                    } else {
                        e == f
                    }
                })
            })
    };
    match (a, b) {
        (V::N(_), V::N(_)) => compare(a, b) == Some(Ordering::Equal),
        (V::Ss(x), V::Ss(y)) => set_eq(x, y, false),
        (V::Ns(x), V::Ns(y)) => set_eq(x, y, true),
        (V::Bs(x), V::Bs(y)) => x.len() == y.len() && x.iter().all(|e| y.contains(e)),
        (V::L(x), V::L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (V::M(x), V::M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Evaluates `cond` against `item` (an absent item is an empty one).
///
/// # Errors
///
/// [`ExpressionError::Invalid`] for an operand of an unusable type that
/// comes from `ExpressionAttributeValues` (e.g. `attribute_type` with an
/// unknown type, `begins_with` with a Number, `BETWEEN` bounds out of order).
pub(crate) fn eval(
    kind: ExpressionKind,
    cond: &Condition,
    item: &Attrs,
    values: &Values,
) -> Result<bool, ExpressionError> {
    let val = |op: &Operand| operand_value(op, item, values);
    Ok(match cond {
        Condition::Compare(a, op, b) => match (val(a), val(b)) {
            (Some(x), Some(y)) => match op {
                Comparator::Eq => equal(&x, &y),
                Comparator::Ne => !equal(&x, &y),
                Comparator::Lt => compare(&x, &y) == Some(Ordering::Less),
                Comparator::Le => compare(&x, &y).is_some_and(Ordering::is_le),
                Comparator::Gt => compare(&x, &y) == Some(Ordering::Greater),
                Comparator::Ge => compare(&x, &y).is_some_and(Ordering::is_ge),
            },
            _ => *op == Comparator::Ne,
        },
        Condition::Between(a, lo, hi) => {
            let (lo, hi) = (val(lo), val(hi));
            if let (Some(l), Some(h)) = (&lo, &hi)
                && compare(l, h) == Some(Ordering::Greater)
            {
                return Err(ExpressionError::invalid(
                    kind,
                    "The BETWEEN operator requires upper bound to be greater than or equal to lower bound",
                ));
            }
            match (val(a), lo, hi) {
                (Some(x), Some(l), Some(h)) => {
                    compare(&x, &l).is_some_and(Ordering::is_ge)
                        && compare(&x, &h).is_some_and(Ordering::is_le)
                }
                _ => false,
            }
        }
        Condition::In(a, list) => match val(a) {
            Some(x) => list.iter().any(|o| val(o).is_some_and(|y| equal(&x, &y))),
            None => false,
        },
        Condition::Exists(p) => get_path(item, p).is_some(),
        Condition::NotExists(p) => get_path(item, p).is_none(),
        Condition::AttributeType(p, t) => {
            const TYPES: [&str; 10] = ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"];
            let wanted = match val(t) {
                Some(AttributeValue::S(s)) if TYPES.contains(&s.as_str()) => s,
                other => {
                    return Err(ExpressionError::invalid(
                        kind,
                        format!(
                            "Invalid attribute type name found; type: {}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}",
                            other.as_ref().map_or("<absent>", type_name)
                        ),
                    ));
                }
            };
            get_path(item, p).is_some_and(|v| type_name(v) == wanted)
        }
        Condition::BeginsWith(a, prefix) => match (val(a), val(prefix)) {
            (_, Some(p)) if !matches!(p, AttributeValue::S(_) | AttributeValue::B(_)) => {
                return Err(ExpressionError::invalid(
                    kind,
                    format!(
                        "Incorrect operand type for operator or function; operator or function: begins_with, operand type: {}",
                        type_name(&p)
                    ),
                ));
            }
            (Some(AttributeValue::S(s)), Some(AttributeValue::S(p))) => s.starts_with(p.as_str()),
            (Some(AttributeValue::B(s)), Some(AttributeValue::B(p))) => s.starts_with(&p),
            _ => false,
        },
        Condition::Contains(a, needle) => match (val(a), val(needle)) {
            (Some(AttributeValue::S(s)), Some(AttributeValue::S(n))) => s.contains(n.as_str()),
            (Some(AttributeValue::Ss(s)), Some(AttributeValue::S(n))) => s.contains(&n),
            (Some(AttributeValue::Ns(s)), Some(AttributeValue::N(n))) => {
                let k = number_key(&n);
                s.iter().any(|e| number_key(e) == k)
            }
            (Some(AttributeValue::Bs(s)), Some(AttributeValue::B(n))) => s.contains(&n),
            (Some(AttributeValue::B(s)), Some(AttributeValue::B(n))) => {
                n.is_empty() || s.windows(n.len()).any(|w| w == n.as_slice())
            }
            (Some(AttributeValue::L(l)), Some(n)) => l.iter().any(|e| equal(e, &n)),
            _ => false,
        },
        Condition::And(a, b) => eval(kind, a, item, values)? && eval(kind, b, item, values)?,
        Condition::Or(a, b) => eval(kind, a, item, values)? || eval(kind, b, item, values)?,
        Condition::Not(a) => !eval(kind, a, item, values)?,
    })
}
