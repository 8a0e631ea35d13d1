//! The UpdateExpression grammar (`update`, `set`, `value` in the module
//! documentation). Values nest only through `if_not_exists` and
//! `list_append`; each call is counted against
//! [`MAX_FUNCTION_NESTING`](super::MAX_FUNCTION_NESTING) before the parser
//! descends into it, and as an operator, as DynamoDB counts functions in an
//! UpdateExpression.

use super::{
    Input, PResult, close, comma, cut_err, function, keyword, no_unknown_function, tok, value_ref,
    ws_path,
};
use crate::dynamodb::expr::ast::{Operand, Path, UpdateExpr};
use winnow::combinator::{alt, opt, preceded, separated, terminated};
use winnow::prelude::*;

/// One update clause as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Clause {
    /// `SET ...`
    Set(Vec<(Path, Operand)>),
    /// `REMOVE ...`
    Remove(Vec<Path>),
    /// `ADD ...`
    Add(Vec<(Path, Operand)>),
    /// `DELETE ...`
    Delete(Vec<(Path, Operand)>),
}

impl Clause {
    /// Merges clauses into one [`UpdateExpr`]; `Err(keyword)` if a clause
    /// keyword appears twice.
    pub(crate) fn merge(clauses: Vec<Clause>) -> Result<UpdateExpr, &'static str> {
        let mut out = UpdateExpr::default();
        let mut seen = [false; 4];
        for c in clauses {
            let (slot, name) = match &c {
                Clause::Set(_) => (0, "SET"),
                Clause::Remove(_) => (1, "REMOVE"),
                Clause::Add(_) => (2, "ADD"),
                Clause::Delete(_) => (3, "DELETE"),
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(name);
            }
            match c {
                Clause::Set(v) => out.set = v,
                Clause::Remove(v) => out.remove = v,
                Clause::Add(v) => out.add = v,
                Clause::Delete(v) => out.delete = v,
            }
        }
        Ok(out)
    }
}

/// One clause: a keyword and its comma-separated actions.
pub(super) fn clause(i: &mut Input<'_>) -> PResult<Clause> {
    alt((
        preceded(
            keyword("SET"),
            cut_err(separated(
                1..,
                (ws_path, preceded(cut_err(tok("=")), cut_err(value))),
                comma,
            )),
        )
        .map(Clause::Set),
        preceded(keyword("REMOVE"), cut_err(separated(1.., ws_path, comma))).map(Clause::Remove),
        preceded(keyword("ADD"), cut_err(separated(1.., path_value, comma))).map(Clause::Add),
        preceded(
            keyword("DELETE"),
            cut_err(separated(1.., path_value, comma)),
        )
        .map(Clause::Delete),
    ))
    .parse_next(i)
}

fn path_value(i: &mut Input<'_>) -> PResult<(Path, Operand)> {
    (ws_path, cut_err(term)).parse_next(i)
}

/// An update value: a term, optionally `+`/`-` another term (one operator).
fn value(i: &mut Input<'_>) -> PResult<Operand> {
    let left = term.parse_next(i)?;
    let Some(sign) = opt(alt((tok("+"), tok("-")))).parse_next(i)? else {
        return Ok(left);
    };
    i.state.operator(i)?;
    let right = cut_err(term).parse_next(i)?;
    Ok(if sign == "+" {
        Operand::Plus(Box::new(left), Box::new(right))
    } else {
        Operand::Minus(Box::new(left), Box::new(right))
    })
}

/// A function call, a `:value` or a path.
fn term(i: &mut Input<'_>) -> PResult<Operand> {
    if opt(function("if_not_exists")).parse_next(i)?.is_some() {
        let (p, v) = nested(i, |i| {
            cut_err((terminated(ws_path, comma), terminated(value, close))).parse_next(i)
        })?;
        return Ok(Operand::IfNotExists(p, Box::new(v)));
    }
    if opt(function("list_append")).parse_next(i)?.is_some() {
        let (a, b) = nested(i, |i| {
            cut_err((terminated(value, comma), terminated(value, close))).parse_next(i)
        })?;
        return Ok(Operand::ListAppend(Box::new(a), Box::new(b)));
    }
    no_unknown_function(i, &["if_not_exists", "list_append", "size"])?;
    alt((value_ref, ws_path.map(Operand::Path))).parse_next(i)
}

/// Parses a function's arguments one nesting level down, after checking
/// the level is allowed and counting the call as an operator.
fn nested<T>(
    i: &mut Input<'_>,
    arguments: impl FnOnce(&mut Input<'_>) -> PResult<T>,
) -> PResult<T> {
    i.state.operator(i)?;
    i.state.enter(i)?;
    let out = arguments(i);
    i.state.leave();
    out
}
