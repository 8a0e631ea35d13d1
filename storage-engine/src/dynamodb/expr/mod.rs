//! DynamoDB expressions: parsing (with `winnow`), placeholder substitution,
//! evaluation of conditions, application of updates and projections.
//!
//! Reproduces the DynamoDB Developer Guide pages "Condition expressions",
//! "Update expressions", "Key condition expressions for query", "Filter
//! expressions for query", "Projection expressions" and "Comparison
//! operator and function reference". Expression text is user input: every
//! function here returns an error for bad input and never panics.

mod apply;
mod arith;
mod ast;
mod eval;
mod key_condition;
pub(crate) mod legacy;
mod parse;
mod resolve;

pub use crate::error::expression::{ExpressionError, ExpressionKind};
pub use parse::{MAX_FUNCTION_NESTING, MAX_OPERATORS};

/// Longest expression text, in bytes ("Constraints in Amazon DynamoDB",
/// "Expression parameters": "The maximum length of any expression string
/// is 4 KB").
pub const MAX_EXPRESSION_BYTES: usize = 4096;

/// Refuses an expression longer than [`MAX_EXPRESSION_BYTES`], before it
/// is parsed, with DynamoDB's message.
fn check_length(kind: ExpressionKind, text: &str) -> Result<(), ExpressionError> {
    if text.len() > MAX_EXPRESSION_BYTES {
        return Err(ExpressionError::invalid(
            kind,
            format!(
                "Expression size has exceeded the maximum allowed size; expression size: {}",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// The error of a text that did not parse, worded as DynamoDB's.
fn parse_error(kind: ExpressionKind, text: &str, e: parse::ParseError) -> ExpressionError {
    match e {
        parse::ParseError::Syntax { offset } => ExpressionError::syntax(kind, text, offset),
        parse::ParseError::TooManyOperators { count } => ExpressionError::invalid(
            kind,
            format!("The expression contains too many operators; operator count: {count}"),
        ),
        parse::ParseError::RedundantParentheses => {
            ExpressionError::invalid(kind, "The expression has redundant parentheses;")
        }
        parse::ParseError::UnknownFunction { name } => {
            ExpressionError::invalid(kind, format!("Invalid function name; function: {name}"))
        }
        parse::ParseError::NestedTooDeep => ExpressionError::invalid(
            kind,
            format!(
                "Function calls are nested more than {MAX_FUNCTION_NESTING} deep (a limit of this server)"
            ),
        ),
    }
}

pub(crate) use apply::project;
pub(crate) use ast::{Comparator, Condition, Path, UpdateExpr};
pub(crate) use eval::{Attrs, Values, compare};
pub(crate) use key_condition::{KeyCondition, SortCondition};
pub(crate) use resolve::Placeholders;

/// Parses and resolves a condition-grammar expression (ConditionExpression,
/// FilterExpression or KeyConditionExpression).
///
/// # Errors
///
/// [`ExpressionError::Syntax`], [`ExpressionError::UndefinedName`],
/// [`ExpressionError::UndefinedValue`], [`ExpressionError::Invalid`] (IN
/// with more than 100 operands).
pub(crate) fn compile_condition(
    kind: ExpressionKind,
    text: &str,
    ph: &mut Placeholders<'_>,
) -> Result<Condition, ExpressionError> {
    check_length(kind, text)?;
    let mut c = parse::condition(text).map_err(|e| parse_error(kind, text, e))?;
    ph.condition(kind, &mut c)?;
    Ok(c)
}

/// Parses and resolves an UpdateExpression and checks its paths do not overlap.
///
/// # Errors
///
/// As [`compile_condition`]; [`ExpressionError::Invalid`] for a clause
/// given twice or overlapping paths.
pub(crate) fn compile_update(
    text: &str,
    ph: &mut Placeholders<'_>,
) -> Result<UpdateExpr, ExpressionError> {
    let kind = ExpressionKind::UpdateExpression;
    check_length(kind, text)?;
    let clauses = parse::update(text).map_err(|e| parse_error(kind, text, e))?;
    let mut u = parse::Clause::merge(clauses).map_err(|kw| {
        ExpressionError::invalid(
            kind,
            format!("The \"{kw}\" section can only be used once in an update expression"),
        )
    })?;
    ph.update(&mut u)?;
    apply::check_overlaps(&u)?;
    Ok(u)
}

/// Parses and resolves a ProjectionExpression.
///
/// # Errors
///
/// [`ExpressionError::Syntax`], [`ExpressionError::UndefinedName`];
/// [`ExpressionError::Invalid`] for two paths that overlap (`a, a` or `a,
/// a.b`) or conflict (`a.b, a[0]`), as DynamoDB answers.
pub(crate) fn compile_projection(
    text: &str,
    ph: &mut Placeholders<'_>,
) -> Result<Vec<Path>, ExpressionError> {
    let kind = ExpressionKind::ProjectionExpression;
    check_length(kind, text)?;
    let mut paths = parse::projection(text).map_err(|e| parse_error(kind, text, e))?;
    for p in &mut paths {
        ph.path(kind, p)?;
    }
    apply::check_paths(kind, &paths.iter().collect::<Vec<_>>())?;
    Ok(paths)
}

/// Evaluates a compiled condition against `item` (absent = empty).
///
/// # Errors
///
/// [`ExpressionError::Invalid`] for operand type errors found at evaluation.
pub(crate) fn evaluate(
    kind: ExpressionKind,
    cond: &Condition,
    item: Option<&Attrs>,
    values: &Values,
) -> Result<bool, ExpressionError> {
    let empty = Attrs::new();
    eval::eval(kind, cond, item.unwrap_or(&empty), values)
}

/// `old` with the update applied.
///
/// # Errors
///
/// [`ExpressionError::Invalid`] for type errors or invalid paths.
pub(crate) fn apply_update(
    u: &UpdateExpr,
    old: &Attrs,
    values: &Values,
) -> Result<Attrs, ExpressionError> {
    apply::apply(u, old, values)
}

#[cfg(test)]
mod tests;
