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

use super::ast::{Comparator, Condition, Operand, Path, PathElem, UpdateExpr};
use winnow::ascii::{digit1, multispace0};
use winnow::combinator::{
    alt, cut_err, delimited, eof, opt, preceded, repeat, separated, terminated,
};
use winnow::error::{ContextError, ErrMode};
use winnow::prelude::*;
use winnow::token::{literal, take_while};

type PResult<T> = ModalResult<T>;

/// A syntax error: byte offset into the expression where parsing failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// Byte offset of the offending token (or the end of the text).
    pub offset: usize,
}

/// Parses a ConditionExpression, FilterExpression or KeyConditionExpression.
pub(crate) fn condition(text: &str) -> Result<Condition, SyntaxError> {
    run(text, or_cond)
}

/// Parses an UpdateExpression (clauses not yet checked for repetition).
pub(crate) fn update(text: &str) -> Result<Vec<Clause>, SyntaxError> {
    run(text, |i: &mut &str| repeat(1.., clause).parse_next(i))
}

/// Parses a ProjectionExpression.
pub(crate) fn projection(text: &str) -> Result<Vec<Path>, SyntaxError> {
    run(text, |i: &mut &str| {
        separated(1.., preceded(multispace0, path), comma).parse_next(i)
    })
}

fn run<'a, T>(
    text: &'a str,
    mut p: impl Parser<&'a str, T, ErrMode<ContextError>>,
) -> Result<T, SyntaxError> {
    terminated(|i: &mut &'a str| p.parse_next(i), (multispace0, eof))
        .parse(text)
        .map_err(|e| SyntaxError { offset: e.offset() })
}

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

fn tok<'a>(t: &'static str) -> impl Parser<&'a str, &'a str, ErrMode<ContextError>> {
    preceded(multispace0, literal(t))
}

fn comma(i: &mut &str) -> PResult<()> {
    tok(",").void().parse_next(i)
}

fn word<'a>(i: &mut &'a str) -> PResult<&'a str> {
    (
        take_while(1, |c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(0.., |c: char| c.is_ascii_alphanumeric() || c == '_'),
    )
        .take()
        .parse_next(i)
}

fn keyword<'a>(kw: &'static str) -> impl Parser<&'a str, (), ErrMode<ContextError>> {
    preceded(
        multispace0,
        word.verify(move |w: &str| w.eq_ignore_ascii_case(kw)),
    )
    .void()
}

fn function<'a>(name: &'static str) -> impl Parser<&'a str, (), ErrMode<ContextError>> {
    (
        preceded(multispace0, word.verify(move |w: &str| w == name)),
        tok("("),
    )
        .void()
}

fn name(i: &mut &str) -> PResult<String> {
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

fn path(i: &mut &str) -> PResult<Path> {
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

fn ws_path(i: &mut &str) -> PResult<Path> {
    preceded(multispace0, path).parse_next(i)
}

fn value_ref(i: &mut &str) -> PResult<Operand> {
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

/// A condition operand: `size(path)`, `:value` or a path.
fn operand(i: &mut &str) -> PResult<Operand> {
    alt((
        preceded(function("size"), cut_err(terminated(ws_path, tok(")")))).map(Operand::Size),
        value_ref,
        ws_path.map(Operand::Path),
    ))
    .parse_next(i)
}

fn comparator(i: &mut &str) -> PResult<Comparator> {
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

fn or_cond(i: &mut &str) -> PResult<Condition> {
    let first = and_cond.parse_next(i)?;
    let rest: Vec<Condition> =
        repeat(0.., preceded(keyword("OR"), cut_err(and_cond))).parse_next(i)?;
    Ok(rest
        .into_iter()
        .fold(first, |a, b| Condition::Or(Box::new(a), Box::new(b))))
}

fn and_cond(i: &mut &str) -> PResult<Condition> {
    let first = not_cond.parse_next(i)?;
    let rest: Vec<Condition> =
        repeat(0.., preceded(keyword("AND"), cut_err(not_cond))).parse_next(i)?;
    Ok(rest
        .into_iter()
        .fold(first, |a, b| Condition::And(Box::new(a), Box::new(b))))
}

fn not_cond(i: &mut &str) -> PResult<Condition> {
    alt((
        preceded(keyword("NOT"), cut_err(not_cond)).map(|c| Condition::Not(Box::new(c))),
        primary,
    ))
    .parse_next(i)
}

fn primary(i: &mut &str) -> PResult<Condition> {
    alt((
        preceded(tok("("), cut_err(terminated(or_cond, tok(")")))),
        function_cond,
        comparison,
    ))
    .parse_next(i)
}

fn close(i: &mut &str) -> PResult<()> {
    tok(")").void().parse_next(i)
}

fn function_cond(i: &mut &str) -> PResult<Condition> {
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

fn comparison(i: &mut &str) -> PResult<Condition> {
    let left = operand.parse_next(i)?;
    alt((
        (comparator, cut_err(operand)).map(|(c, r)| Condition::Compare(left.clone(), c, r)),
        preceded(
            keyword("BETWEEN"),
            cut_err((operand, preceded(keyword("AND"), operand))),
        )
        .map(|(lo, hi)| Condition::Between(left.clone(), lo, hi)),
        preceded(
            keyword("IN"),
            cut_err(delimited(tok("("), separated(1.., operand, comma), close)),
        )
        .map(|list: Vec<Operand>| Condition::In(left.clone(), list)),
    ))
    .parse_next(i)
}

/// An update-expression value: a term, optionally `+`/`-` another term.
fn update_value(i: &mut &str) -> PResult<Operand> {
    let left = update_term.parse_next(i)?;
    let op = opt(alt((tok("+"), tok("-")))).parse_next(i)?;
    match op {
        None => Ok(left),
        Some(sign) => {
            let right = cut_err(update_term).parse_next(i)?;
            Ok(if sign == "+" {
                Operand::Plus(Box::new(left), Box::new(right))
            } else {
                Operand::Minus(Box::new(left), Box::new(right))
            })
        }
    }
}

fn update_term(i: &mut &str) -> PResult<Operand> {
    alt((
        preceded(
            function("if_not_exists"),
            cut_err((terminated(ws_path, comma), terminated(update_value, close))),
        )
        .map(|(p, v)| Operand::IfNotExists(p, Box::new(v))),
        preceded(
            function("list_append"),
            cut_err((
                terminated(update_value, comma),
                terminated(update_value, close),
            )),
        )
        .map(|(a, b)| Operand::ListAppend(Box::new(a), Box::new(b))),
        value_ref,
        ws_path.map(Operand::Path),
    ))
    .parse_next(i)
}

fn path_value(i: &mut &str) -> PResult<(Path, Operand)> {
    (ws_path, cut_err(update_term)).parse_next(i)
}

fn clause(i: &mut &str) -> PResult<Clause> {
    alt((
        preceded(
            keyword("SET"),
            cut_err(separated(
                1..,
                (ws_path, preceded(cut_err(tok("=")), cut_err(update_value))),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Path {
        path.parse(s).expect("path")
    }

    #[test]
    fn paths_parse_nested_elements() {
        assert_eq!(
            p("a.#b[0].c").0,
            vec![
                PathElem::Attr("a".into()),
                PathElem::Attr("#b".into()),
                PathElem::Index(0),
                PathElem::Attr("c".into()),
            ]
        );
        assert_eq!(p("a[1][2]").to_string(), "a[1][2]");
    }

    #[test]
    fn precedence_is_not_and_or() {
        let c = condition("a = :x OR b = :y AND NOT c = :z").expect("parse");
        assert!(matches!(c, Condition::Or(_, ref r) if matches!(**r, Condition::And(_, _))));
        let c = condition("(a = :x OR b = :y) AND c = :z").expect("parse");
        assert!(matches!(c, Condition::And(_, _)));
        let c = condition("a between :lo and :hi and b in (:x, :y)").expect("parse");
        assert!(matches!(c, Condition::And(ref l, _) if matches!(**l, Condition::Between(..))));
    }

    #[test]
    fn functions_parse() {
        for text in [
            "attribute_exists(a.b)",
            "attribute_not_exists(#n)",
            "attribute_type(a, :t)",
            "begins_with(a, :p)",
            "contains(a, :v)",
            "size(a) > :n",
            "attribute_not_exists(expiresAt) OR expiresAt > :now",
        ] {
            assert!(condition(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn syntax_errors_point_at_the_token() {
        assert_eq!(condition("a = = :v"), Err(SyntaxError { offset: 4 }));
        assert_eq!(condition("a = :v AND"), Err(SyntaxError { offset: 10 }));
        assert_eq!(condition("a = :v )").map_err(|e| e.offset), Err(7));
        assert!(condition("").is_err());
        assert!(condition("begins_with(a").is_err());
    }

    #[test]
    fn update_clauses_parse() {
        let clauses =
            update("SET a = :v, b = if_not_exists(b, :z) + :one REMOVE c[1] ADD n :d DELETE s :e")
                .expect("parse");
        let u = Clause::merge(clauses).expect("merge");
        assert_eq!(u.set.len(), 2);
        assert_eq!(u.remove.len(), 1);
        assert_eq!(u.add.len(), 1);
        assert_eq!(u.delete.len(), 1);
        let twice = update("SET a = :v SET b = :w").expect("parse");
        assert_eq!(Clause::merge(twice), Err("SET"));
        assert!(update("SET a :v").is_err());
        assert!(update("set l = list_append(l, :x)").is_ok());
    }

    #[test]
    fn projections_parse() {
        assert_eq!(projection("a, b.c, #d[0]").expect("parse").len(), 3);
        assert!(projection("a,").is_err());
    }
}
