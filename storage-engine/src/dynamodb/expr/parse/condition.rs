//! The condition grammar (`condition` in the module documentation), parsed
//! without recursion: operator precedence with an explicit stack.
//!
//! Pending `(`, `NOT`, `AND` and `OR` wait on a heap stack until their
//! operands are complete; a leaf (a comparison, `BETWEEN`, `IN` or a
//! function) is parsed by the small non-recursive parsers below. So
//! `((((a = :v))))` costs one stack entry per parenthesis, never a frame.

use super::{
    Input, PResult, ParseError, close, comma, cut_err, fail, function, keyword,
    no_unknown_function, tok, value_ref, ws_path,
};
use crate::dynamodb::expr::ast::{Comparator, Condition, Operand};
use winnow::ascii::multispace0;
use winnow::combinator::{alt, delimited, opt, preceded, separated, terminated};
use winnow::prelude::*;

/// What waits on the stack for its operands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// `(`: closed by `)`.
    Open,
    /// `NOT`: applies to the next complete operand.
    Not,
    /// `AND`: its left operand is on the output stack.
    And,
    /// `OR`: its left operand is on the output stack.
    Or,
}

impl Pending {
    /// Binding strength: `NOT` > `AND` > `OR`; `(` stops every reduction.
    fn precedence(self) -> u8 {
        match self {
            Self::Open => 0,
            Self::Or => 1,
            Self::And => 2,
            Self::Not => 3,
        }
    }
}

/// The functions of the condition grammar.
const FUNCTIONS: [&str; 6] = [
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "size",
];

/// A whole condition: `and ("OR" and)*`, `NOT`s and parentheses included.
/// Parentheses directly around a parenthesized condition are refused, as
/// DynamoDB refuses them.
pub(super) fn condition(i: &mut Input<'_>) -> PResult<Condition> {
    let mut stack: Vec<Pending> = Vec::new();
    // Each finished operand, and whether it is a parenthesized group.
    let mut out: Vec<Condition> = Vec::new();
    let mut grouped: Vec<bool> = Vec::new();
    loop {
        // An operand is expected: `NOT`, `(` or a leaf.
        if opt(keyword("NOT")).parse_next(i)?.is_some() {
            i.state.operator(i)?;
            stack.push(Pending::Not);
            continue;
        }
        if opt(tok("(")).parse_next(i)?.is_some() {
            stack.push(Pending::Open);
            continue;
        }
        out.push(cut_err(leaf).parse_next(i)?);
        grouped.push(false);
        // An operand is complete: `AND`, `OR`, `)` or the end follows.
        loop {
            multispace0.parse_next(i)?;
            if opt(keyword("AND")).parse_next(i)?.is_some() {
                i.state.operator(i)?;
                reduce(&mut stack, &mut out, &mut grouped, Pending::And);
                stack.push(Pending::And);
                break;
            }
            if opt(keyword("OR")).parse_next(i)?.is_some() {
                i.state.operator(i)?;
                reduce(&mut stack, &mut out, &mut grouped, Pending::Or);
                stack.push(Pending::Or);
                break;
            }
            if stack.contains(&Pending::Open) && opt(tok(")")).parse_next(i)?.is_some() {
                reduce(&mut stack, &mut out, &mut grouped, Pending::Open);
                stack.pop();
                if let Some(g) = grouped.last_mut() {
                    if *g {
                        return i.state.stop(i, ParseError::RedundantParentheses);
                    }
                    *g = true;
                }
                continue;
            }
            reduce(&mut stack, &mut out, &mut grouped, Pending::Open);
            if !stack.is_empty() {
                // An unclosed `(`: the error is where `)` was wanted.
                return fail(i);
            }
            return match out.pop() {
                Some(c) if out.is_empty() => Ok(c),
                _ => fail(i),
            };
        }
    }
}

/// Applies the operators on top of `stack` that bind at least as tightly
/// as `next` (all of them down to the nearest `(` for [`Pending::Open`]).
fn reduce(
    stack: &mut Vec<Pending>,
    out: &mut Vec<Condition>,
    grouped: &mut Vec<bool>,
    next: Pending,
) {
    while let Some(&top) = stack.last() {
        if top == Pending::Open || top.precedence() < next.precedence().max(1) {
            return;
        }
        stack.pop();
        let Some(right) = out.pop() else { return };
        grouped.pop();
        let made = match top {
            Pending::Not => Condition::Not(Box::new(right)),
            Pending::And | Pending::Or => {
                let Some(left) = out.pop() else { return };
                grouped.pop();
                if top == Pending::And {
                    Condition::And(Box::new(left), Box::new(right))
                } else {
                    Condition::Or(Box::new(left), Box::new(right))
                }
            }
            Pending::Open => return,
        };
        out.push(made);
        grouped.push(false);
    }
}

/// A condition without logical operators: a function or a comparison.
fn leaf(i: &mut Input<'_>) -> PResult<Condition> {
    alt((function_cond, comparison)).parse_next(i)
}

/// A condition operand: `size(path)`, `:value` or a path.
fn operand(i: &mut Input<'_>) -> PResult<Operand> {
    no_unknown_function(i, &FUNCTIONS)?;
    alt((
        preceded(function("size"), cut_err(terminated(ws_path, close))).map(Operand::Size),
        value_ref,
        ws_path.map(Operand::Path),
    ))
    .parse_next(i)
}

fn comparator(i: &mut Input<'_>) -> PResult<Comparator> {
    alt((
        tok("<=").value(Comparator::Le),
        tok("<>").value(Comparator::Ne),
        tok(">=").value(Comparator::Ge),
        tok("<").value(Comparator::Lt),
        tok(">").value(Comparator::Gt),
        tok("=").value(Comparator::Eq),
    ))
    .parse_next(i)
}

fn function_cond(i: &mut Input<'_>) -> PResult<Condition> {
    alt((
        preceded(
            function("attribute_exists"),
            cut_err(terminated(ws_path, close)),
        )
        .map(Condition::Exists),
        preceded(
            function("attribute_not_exists"),
            cut_err(terminated(ws_path, close)),
        )
        .map(Condition::NotExists),
        preceded(
            function("attribute_type"),
            cut_err((terminated(ws_path, comma), terminated(operand, close))),
        )
        .map(|(p, t)| Condition::AttributeType(p, t)),
        preceded(
            function("begins_with"),
            cut_err((terminated(ws_path, comma), terminated(operand, close))),
        )
        .map(|(p, v)| Condition::BeginsWith(Operand::Path(p), v)),
        preceded(
            function("contains"),
            cut_err((terminated(ws_path, comma), terminated(operand, close))),
        )
        .map(|(p, v)| Condition::Contains(Operand::Path(p), v)),
    ))
    .parse_next(i)
}

/// `operand cmp operand`, `operand BETWEEN a AND b` or `operand IN (...)`:
/// one operator each.
fn comparison(i: &mut Input<'_>) -> PResult<Condition> {
    let left = operand.parse_next(i)?;
    if let Some(c) = opt(comparator).parse_next(i)? {
        i.state.operator(i)?;
        let right = cut_err(operand).parse_next(i)?;
        return Ok(Condition::Compare(left, c, right));
    }
    if opt(keyword("BETWEEN")).parse_next(i)?.is_some() {
        i.state.operator(i)?;
        let (lo, hi) = cut_err((operand, preceded(keyword("AND"), operand))).parse_next(i)?;
        return Ok(Condition::Between(left, lo, hi));
    }
    if opt(keyword("IN")).parse_next(i)?.is_some() {
        i.state.operator(i)?;
        let list: Vec<Operand> =
            cut_err(delimited(tok("("), separated(1.., operand, comma), close)).parse_next(i)?;
        return Ok(Condition::In(left, list));
    }
    fail(i)
}
