//! Applying an UpdateExpression to an item, and ProjectionExpressions
//! ("Update expressions", "Projection expressions").
//!
//! Every right-hand side is evaluated against the item as it was before the
//! update; then SET, REMOVE, ADD and DELETE are applied in that order.

use super::arith;
use super::ast::{Operand, Path, PathElem, UpdateExpr};
use super::eval::{Attrs, Values, get_path, number_key};
use crate::error::expression::{ExpressionError, ExpressionKind};
use crate::storage::key::type_name;
use serde_dynamo::AttributeValue;

const KIND: ExpressionKind = ExpressionKind::UpdateExpression;

fn invalid(message: impl Into<String>) -> ExpressionError {
    ExpressionError::invalid(KIND, message)
}

/// Checks that no two paths of `u` overlap (DynamoDB rejects `SET a = :x
/// REMOVE a` and `SET a = :x, a.b = :y`) or conflict (`a.b` and `a[0]`).
///
/// # Errors
///
/// [`ExpressionError::Invalid`] naming both paths.
pub(crate) fn check_overlaps(u: &UpdateExpr) -> Result<(), ExpressionError> {
    let paths: Vec<&Path> = u
        .set
        .iter()
        .map(|(p, _)| p)
        .chain(u.remove.iter())
        .chain(u.add.iter().map(|(p, _)| p))
        .chain(u.delete.iter().map(|(p, _)| p))
        .collect();
    check_paths(KIND, &paths)
}

/// Checks that no two of `paths` overlap or conflict, with DynamoDB's
/// messages (UpdateExpression and ProjectionExpression alike).
///
/// # Errors
///
/// [`ExpressionError::Invalid`] of `kind` naming both paths.
pub(crate) fn check_paths(kind: ExpressionKind, paths: &[&Path]) -> Result<(), ExpressionError> {
    for (i, a) in paths.iter().enumerate() {
        for b in paths.iter().skip(i + 1) {
            let verb = if a.overlaps(b) {
                "overlap"
            } else if a.conflicts(b) {
                "conflict"
            } else {
                continue;
            };
            return Err(ExpressionError::invalid(
                kind,
                format!(
                    "Two document paths {verb} with each other; must remove or rewrite one of these paths; path one: [{a}], path two: [{b}]"
                ),
            ));
        }
    }
    Ok(())
}

/// `old` with `u` applied.
///
/// # Errors
///
/// [`ExpressionError::Invalid`] for an operand of the wrong type, an
/// absent operand of `+`/`-`/`list_append`, a path whose parent does not
/// exist, or a Number result beyond DynamoDB's precision or range.
pub(crate) fn apply(
    u: &UpdateExpr,
    old: &Attrs,
    values: &Values,
) -> Result<Attrs, ExpressionError> {
    let mut sets = Vec::with_capacity(u.set.len());
    for (p, v) in &u.set {
        sets.push((p, value(v, old, values)?));
    }
    let mut new = old.clone();
    for (p, v) in sets {
        set_path(&mut new, p, v)?;
    }
    let mut removes: Vec<&Path> = u.remove.iter().collect();
    // Higher list indices first, so removing l[1] and l[2] removes the
    // elements the expression names.
    removes.sort_by(|a, b| cmp_path(b, a));
    for p in removes {
        remove_path(&mut new, p);
    }
    for (p, v) in &u.add {
        let delta = value(v, old, values)?;
        let merged = match (get_path(old, p), delta) {
            (None, AttributeValue::N(n)) => {
                AttributeValue::N(arith::add("0", &n, false).map_err(invalid)?)
            }
            (
                None,
                set @ (AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)),
            ) => set,
            (Some(AttributeValue::N(a)), AttributeValue::N(b)) => {
                AttributeValue::N(arith::add(a, &b, false).map_err(invalid)?)
            }
            (Some(cur), d) => set_union(cur, &d)?,
            (None, d) => return Err(wrong_type("ADD", &d)),
        };
        set_path(&mut new, p, merged)?;
    }
    for (p, v) in &u.delete {
        let gone = value(v, old, values)?;
        match get_path(old, p) {
            None => {}
            Some(cur) => match set_difference(cur, &gone)? {
                Some(left) => set_path(&mut new, p, left)?,
                None => remove_path(&mut new, p),
            },
        }
    }
    Ok(new)
}

fn wrong_type(op: &str, v: &AttributeValue) -> ExpressionError {
    invalid(format!(
        "Incorrect operand type for operator or function; operator: {op}, operand type: {}",
        type_name(v)
    ))
}

fn value(op: &Operand, item: &Attrs, values: &Values) -> Result<AttributeValue, ExpressionError> {
    let absent = || {
        invalid("The provided expression refers to an attribute that does not exist in the item")
    };
    match op {
        Operand::Path(p) => get_path(item, p).cloned().ok_or_else(absent),
        Operand::Value(v) => values.get(v).cloned().ok_or_else(absent),
        Operand::Size(_) => Err(invalid(
            "The function is not allowed in an update expression; function: size",
        )),
        Operand::IfNotExists(p, v) => match get_path(item, p) {
            Some(x) => Ok(x.clone()),
            None => value(v, item, values),
        },
        Operand::ListAppend(a, b) => match (value(a, item, values)?, value(b, item, values)?) {
            (AttributeValue::L(mut x), AttributeValue::L(y)) => {
                x.extend(y);
                Ok(AttributeValue::L(x))
            }
            (AttributeValue::L(_), other) | (other, _) => Err(wrong_type("list_append", &other)),
        },
        Operand::Plus(a, b) | Operand::Minus(a, b) => {
            let sub = matches!(op, Operand::Minus(..));
            match (value(a, item, values)?, value(b, item, values)?) {
                (AttributeValue::N(x), AttributeValue::N(y)) => {
                    Ok(AttributeValue::N(arith::add(&x, &y, sub).map_err(invalid)?))
                }
                (AttributeValue::N(_), other) | (other, _) => {
                    Err(wrong_type(if sub { "-" } else { "+" }, &other))
                }
            }
        }
    }
}

fn set_union(
    cur: &AttributeValue,
    add: &AttributeValue,
) -> Result<AttributeValue, ExpressionError> {
    use AttributeValue as V;
    Ok(match (cur, add) {
        (V::Ss(a), V::Ss(b)) => V::Ss(union(a, b, |x, y| x == y)),
        (V::Ns(a), V::Ns(b)) => V::Ns(union(a, b, |x, y| number_key(x) == number_key(y))),
        (V::Bs(a), V::Bs(b)) => V::Bs(union(a, b, |x, y| x == y)),
        _ => return Err(wrong_type("ADD", add)),
    })
}

fn union<T: Clone>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = a.to_vec();
    for e in b {
        if !out.iter().any(|x| eq(x, e)) {
            out.push(e.clone());
        }
    }
    out
}

/// `cur` minus `gone`; `None` when nothing is left (the attribute is removed).
fn set_difference(
    cur: &AttributeValue,
    gone: &AttributeValue,
) -> Result<Option<AttributeValue>, ExpressionError> {
    use AttributeValue as V;
    let left = match (cur, gone) {
        (V::Ss(a), V::Ss(b)) => V::Ss(a.iter().filter(|x| !b.contains(x)).cloned().collect()),
        (V::Ns(a), V::Ns(b)) => V::Ns(
            a.iter()
                .filter(|x| !b.iter().any(|y| number_key(x) == number_key(y)))
                .cloned()
                .collect(),
        ),
        (V::Bs(a), V::Bs(b)) => V::Bs(a.iter().filter(|x| !b.contains(x)).cloned().collect()),
        _ => return Err(wrong_type("DELETE", gone)),
    };
    let empty = matches!(&left, V::Ss(v) if v.is_empty())
        || matches!(&left, V::Ns(v) if v.is_empty())
        || matches!(&left, V::Bs(v) if v.is_empty());
    Ok((!empty).then_some(left))
}

fn cmp_path(a: &Path, b: &Path) -> std::cmp::Ordering {
    for (x, y) in a.0.iter().zip(&b.0) {
        let o = match (x, y) {
            (PathElem::Attr(p), PathElem::Attr(q)) => p.cmp(q),
            (PathElem::Index(p), PathElem::Index(q)) => p.cmp(q),
            (PathElem::Attr(_), PathElem::Index(_)) => std::cmp::Ordering::Less,
            (PathElem::Index(_), PathElem::Attr(_)) => std::cmp::Ordering::Greater,
        };
        if o.is_ne() {
            return o;
        }
    }
    a.0.len().cmp(&b.0.len())
}

/// The container holding the last element of `path`.
fn parent_mut<'a>(item: &'a mut Attrs, path: &Path) -> Option<&'a mut AttributeValue> {
    let (first, rest) = path.0.split_first()?;
    let PathElem::Attr(n) = first else {
        return None;
    };
    let mut cur = item.get_mut(n)?;
    for e in rest.iter().take(rest.len().saturating_sub(1)) {
        cur = match (e, cur) {
            (PathElem::Attr(n), AttributeValue::M(m)) => m.get_mut(n)?,
            (PathElem::Index(i), AttributeValue::L(l)) => l.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn set_path(item: &mut Attrs, path: &Path, v: AttributeValue) -> Result<(), ExpressionError> {
    if let [PathElem::Attr(n)] = path.0.as_slice() {
        item.insert(n.clone(), v);
        return Ok(());
    }
    let bad =
        || invalid("The document path provided in the update expression is invalid for update");
    let parent = parent_mut(item, path).ok_or_else(bad)?;
    match (path.0.last(), parent) {
        (Some(PathElem::Attr(n)), AttributeValue::M(m)) => {
            m.insert(n.clone(), v);
        }
        (Some(PathElem::Index(i)), AttributeValue::L(l)) => match l.get_mut(*i) {
            Some(slot) => *slot = v,
            None => l.push(v),
        },
        _ => return Err(bad()),
    }
    Ok(())
}

fn remove_path(item: &mut Attrs, path: &Path) {
    if let [PathElem::Attr(n)] = path.0.as_slice() {
        item.remove(n);
        return;
    }
    match (path.0.last(), parent_mut(item, path)) {
        (Some(PathElem::Attr(n)), Some(AttributeValue::M(m))) => {
            m.remove(n);
        }
        (Some(PathElem::Index(i)), Some(AttributeValue::L(l))) if *i < l.len() => {
            l.remove(*i);
        }
        _ => {}
    }
}

/// The attributes of `item` named by `paths` (ProjectionExpression): nested
/// maps keep only the projected keys; list elements are kept in order,
/// compacted.
pub(crate) fn project(item: &Attrs, paths: &[Path]) -> Attrs {
    let mut out = Attrs::new();
    for p in paths {
        if let Some(v) = get_path(item, p) {
            insert_projected(&mut out, &p.0, v.clone());
        }
    }
    out
}

fn insert_projected(out: &mut Attrs, elems: &[PathElem], v: AttributeValue) {
    let Some((PathElem::Attr(n), rest)) = elems.split_first() else {
        return;
    };
    if rest.is_empty() {
        out.insert(n.clone(), v);
        return;
    }
    let slot = out.entry(n.clone()).or_insert_with(|| match rest.first() {
        Some(PathElem::Index(_)) => AttributeValue::L(Vec::new()),
        _ => AttributeValue::M(Default::default()),
    });
    insert_nested(slot, rest, v);
}

fn insert_nested(slot: &mut AttributeValue, elems: &[PathElem], v: AttributeValue) {
    let Some((first, rest)) = elems.split_first() else {
        *slot = v;
        return;
    };
    let fresh = || match rest.first() {
        Some(PathElem::Index(_)) => AttributeValue::L(Vec::new()),
        _ => AttributeValue::M(Default::default()),
    };
    match (first, slot) {
        (PathElem::Attr(n), AttributeValue::M(m)) => {
            if rest.is_empty() {
                m.insert(n.clone(), v);
            } else {
                insert_nested(m.entry(n.clone()).or_insert_with(fresh), rest, v);
            }
        }
        (PathElem::Index(_), AttributeValue::L(l)) => {
            if rest.is_empty() {
                l.push(v);
            } else {
                l.push(fresh());
                if let Some(last) = l.last_mut() {
                    insert_nested(last, rest, v);
                }
            }
        }
        _ => {}
    }
}
