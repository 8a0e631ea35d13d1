//! Parsers for the four DynamoDB expression grammars, built with `winnow`.
//!
//! Grammar (keywords case-insensitive; function names as written; the
//! precedence is DynamoDB's, "Comparison operator and function reference":
//! comparisons, `IN`, `BETWEEN` and functions bind tightest, then `NOT`,
//! `AND`, `OR`; parentheses override):
//!
//! ```text
//! condition  = and ("OR" and)*
//! and        = not ("AND" not)*
//! not        = "NOT" not | primary
//! primary    = "(" condition ")" | function | operand tail
//! function   = attribute_exists(path) | attribute_not_exists(path)
//!            | attribute_type(path, operand) | begins_with(path, operand)
//!            | contains(path, operand)
//! tail       = cmp operand | "BETWEEN" operand "AND" operand | "IN" "(" operand ("," operand)* ")"
//! operand    = size(path) | :value | path
//! path       = name ("." name | "[" digits "]")*      name = identifier | #placeholder
//! update     = (SET set ("," set)* | REMOVE path ("," path)* | ADD path value ("," ...)*
//!              | DELETE path value ("," ...)*)+
//! set        = path "=" value ("+" | "-") value?
//! value      = if_not_exists(path, value) | list_append(value, value) | :value | path
//! projection = path ("," path)*
//! ```
//!
//! After a token commits to a rule (an operator, a keyword, a function's
//! `(`), the parser cuts: the error then points at the offending token.
//!
//! ## Bounded by design
//!
//! Expression text is untrusted, and a parser that recurses once per `(`
//! overflows a thread's stack on a few thousand of them. So:
//!
//! * the condition grammar is parsed without recursion: `condition.rs`
//!   keeps pending `(`, `NOT`, `AND` and `OR` on a heap stack;
//! * update values nest only through `if_not_exists` / `list_append`, at
//!   most [`MAX_FUNCTION_NESTING`] deep, checked before each descent;
//! * every grammar counts its operators and stops at DynamoDB's limit of
//!   [`MAX_OPERATORS`] ("Constraints in Amazon DynamoDB", "Expression
//!   parameters"), which also bounds the depth of every tree that later
//!   code (placeholder resolution, evaluation) walks recursively.

mod condition;
mod update;

pub(crate) use update::Clause;

use super::ast::{Condition, Operand, Path, PathElem};
use std::cell::Cell;
use winnow::ascii::{digit1, multispace0};
use winnow::combinator::{
    alt, cut_err, delimited, eof, opt, preceded, repeat, separated, terminated,
};
use winnow::error::{ContextError, ErrMode, ParserError};
use winnow::prelude::*;
use winnow::stream::{Stateful, Stream};
use winnow::token::{literal, take_while};

/// Most operators one expression may hold: DynamoDB counts comparators,
/// `BETWEEN`, `IN`, `AND`, `OR` and `NOT` in conditions, and `+`, `-` and
/// functions in an UpdateExpression ("Constraints in Amazon DynamoDB":
/// "The maximum number of operators or functions allowed in an
/// UpdateExpression is 300").
pub const MAX_OPERATORS: usize = 300;

/// How deep `if_not_exists` / `list_append` calls may nest inside one
/// another in an UpdateExpression. DynamoDB bounds them only by the 300
/// operators; this parser descends once per call, so it stops at 64.
pub const MAX_FUNCTION_NESTING: usize = 64;

type PResult<T> = ModalResult<T>;

/// The parser input: the text and the expression's limits.
pub(crate) type Input<'a> = Stateful<&'a str, &'a Budget>;

/// What one expression has used of its limits while parsing.
#[derive(Default)]
pub(crate) struct Budget {
    operators: Cell<usize>,
    nesting: Cell<usize>,
    /// Why parsing stopped, when it is not a syntax error.
    failure: Cell<Option<ParseError>>,
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("operators", &self.operators.get())
            .field("nesting", &self.nesting.get())
            .finish_non_exhaustive()
    }
}

impl Budget {
    /// Counts one operator; fails (cut) past [`MAX_OPERATORS`].
    fn operator(&self, i: &Input<'_>) -> PResult<()> {
        let n = self.operators.get() + 1;
        self.operators.set(n);
        if n > MAX_OPERATORS {
            return self.stop(i, ParseError::TooManyOperators { count: n });
        }
        Ok(())
    }

    /// Enters one function call; fails (cut) past [`MAX_FUNCTION_NESTING`].
    fn enter(&self, i: &Input<'_>) -> PResult<()> {
        let n = self.nesting.get() + 1;
        self.nesting.set(n);
        if n > MAX_FUNCTION_NESTING {
            return self.stop(i, ParseError::NestedTooDeep);
        }
        Ok(())
    }

    /// Stops parsing (cut) for `why`.
    fn stop<T>(&self, i: &Input<'_>, why: ParseError) -> PResult<T> {
        self.failure.set(Some(why));
        Err(ErrMode::from_input(i).cut())
    }

    fn leave(&self) {
        self.nesting.set(self.nesting.get().saturating_sub(1));
    }
}

/// Why an expression did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// A syntax error at this byte offset of the text (or its end).
    Syntax {
        /// Byte offset of the offending token.
        offset: usize,
    },
    /// More than [`MAX_OPERATORS`] operators; `count` is where parsing stopped.
    TooManyOperators {
        /// Operators counted (one past the limit).
        count: usize,
    },
    /// Function calls nested deeper than [`MAX_FUNCTION_NESTING`].
    NestedTooDeep,
    /// Parentheses directly around a parenthesized condition, `((a = :v))`.
    RedundantParentheses,
    /// A call of a function DynamoDB does not have.
    UnknownFunction {
        /// The name as written.
        name: String,
    },
}

/// Parses a ConditionExpression, FilterExpression or KeyConditionExpression.
pub(crate) fn condition(text: &str) -> Result<Condition, ParseError> {
    run(text, condition::condition)
}

/// Parses an UpdateExpression (clauses not yet checked for repetition).
pub(crate) fn update(text: &str) -> Result<Vec<Clause>, ParseError> {
    run(text, |i: &mut Input<'_>| {
        repeat(1.., update::clause).parse_next(i)
    })
}

/// Parses a ProjectionExpression.
pub(crate) fn projection(text: &str) -> Result<Vec<Path>, ParseError> {
    run(text, |i: &mut Input<'_>| {
        separated(1.., preceded(multispace0, path), comma).parse_next(i)
    })
}

fn run<T>(
    text: &str,
    mut p: impl for<'a> FnMut(&mut Input<'a>) -> PResult<T>,
) -> Result<T, ParseError> {
    let budget = Budget::default();
    let input = Stateful {
        input: text,
        state: &budget,
    };
    terminated(|i: &mut Input<'_>| p(i), (multispace0, eof))
        .parse(input)
        .map_err(|e| {
            budget
                .failure
                .take()
                .unwrap_or(ParseError::Syntax { offset: e.offset() })
        })
}

/// A syntax error (cut) at the current position.
fn fail<T>(i: &Input<'_>) -> PResult<T> {
    Err(ErrMode::<ContextError>::from_input(i).cut())
}

fn tok<'a>(t: &'static str) -> impl Parser<Input<'a>, &'a str, ErrMode<ContextError>> {
    preceded(multispace0, literal(t))
}

fn comma(i: &mut Input<'_>) -> PResult<()> {
    tok(",").void().parse_next(i)
}

fn close(i: &mut Input<'_>) -> PResult<()> {
    tok(")").void().parse_next(i)
}

fn word<'a>(i: &mut Input<'a>) -> PResult<&'a str> {
    (
        take_while(1, |c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(0.., |c: char| c.is_ascii_alphanumeric() || c == '_'),
    )
        .take()
        .parse_next(i)
}

fn keyword<'a>(kw: &'static str) -> impl Parser<Input<'a>, (), ErrMode<ContextError>> {
    preceded(
        multispace0,
        word.verify(move |w: &str| w.eq_ignore_ascii_case(kw)),
    )
    .void()
}

fn function<'a>(name: &'static str) -> impl Parser<Input<'a>, (), ErrMode<ContextError>> {
    (
        preceded(multispace0, word.verify(move |w: &str| w == name)),
        tok("("),
    )
        .void()
}

fn name(i: &mut Input<'_>) -> PResult<String> {
    alt((
        (
            "#",
            take_while(1.., |c: char| c.is_ascii_alphanumeric() || c == '_'),
        )
            .take(),
        word,
    ))
    .map(str::to_string)
    .parse_next(i)
}

fn path(i: &mut Input<'_>) -> PResult<Path> {
    let first = name.parse_next(i)?;
    let mut elems = vec![PathElem::Attr(first)];
    let rest: Vec<PathElem> = repeat(
        0..,
        alt((
            preceded(".", cut_err(name)).map(PathElem::Attr),
            delimited(
                "[",
                cut_err(delimited(
                    multispace0,
                    digit1.try_map(str::parse::<usize>),
                    multispace0,
                )),
                cut_err("]"),
            )
            .map(PathElem::Index),
        )),
    )
    .parse_next(i)?;
    elems.extend(rest);
    Ok(Path(elems))
}

fn ws_path(i: &mut Input<'_>) -> PResult<Path> {
    preceded(multispace0, path).parse_next(i)
}

/// Fails with [`ParseError::UnknownFunction`] when a call of a function
/// not in `known` starts here (a name followed by `(`); consumes nothing.
fn no_unknown_function(i: &mut Input<'_>, known: &[&str]) -> PResult<()> {
    let start = i.checkpoint();
    let call = opt((multispace0, word, multispace0, "(")).parse_next(i)?;
    i.reset(&start);
    match call {
        Some((_, name, _, _)) if !known.contains(&name) => {
            let name = name.to_string();
            i.state.stop(i, ParseError::UnknownFunction { name })
        }
        _ => Ok(()),
    }
}

fn value_ref(i: &mut Input<'_>) -> PResult<Operand> {
    preceded(
        multispace0,
        (
            ":",
            take_while(1.., |c: char| c.is_ascii_alphanumeric() || c == '_'),
        )
            .take(),
    )
    .map(|s: &str| Operand::Value(s.to_string()))
    .parse_next(i)
}

#[cfg(test)]
mod tests;
