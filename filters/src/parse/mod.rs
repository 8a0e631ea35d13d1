//! Stage 1, parse: pattern JSON -> a validated [`Pattern`] (objects, fields,
//! `$or`, match-value arrays).
//!
//! Operator objects (`{"prefix": ...}`, `{"numeric": [...]}`, ...) are parsed
//! in [`operator`], filter files in [`filter_file`]. The rules follow AWS's
//! rule compiler (`aws/event-ruler`, `JsonRuleCompiler`): a pattern is a
//! non-empty object; a field is a non-empty object or a non-empty array; an
//! array holds strings, numbers, booleans, `null` or one-key operator
//! objects; `$or` is an array of at least two non-empty objects.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::error::{PatternError, json_type, strip_position};
use crate::limits::Limits;
use crate::path;
use crate::pattern::{FieldPattern, Literal, ObjectPattern, Pattern, ValuePattern};
use crate::wildcard::Wildcard;

pub(crate) mod filter_file;
mod operator;

/// What parsing is checked against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub(crate) dialect: Dialect,
    pub(crate) limits: Limits,
}

impl Rules {
    /// Reject `operator` if the dialect lacks it.
    pub(crate) fn require(&self, path: &str, operator: &str) -> Result<(), PatternError> {
        if self.dialect.supports(operator) {
            Ok(())
        } else {
            Err(PatternError::UnsupportedOperator {
                path: path.to_owned(),
                operator: operator.to_owned(),
                dialect: self.dialect,
            })
        }
    }
}

impl Pattern {
    /// Parse the JSON text of one pattern object with the default
    /// [`Dialect::Lambda`] and its default [`Limits`].
    ///
    /// ```
    /// let pattern = ttlstream_filters::Pattern::parse(r#"{"eventName": ["REMOVE"]}"#)?;
    /// assert_eq!(pattern.to_json(), serde_json::json!({"eventName": ["REMOVE"]}));
    /// # Ok::<(), ttlstream_filters::PatternError>(())
    /// ```
    ///
    /// # Errors
    /// [`PatternError::Json`] if `text` is not JSON; otherwise as [`Pattern::from_value`].
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        Self::parse_with(text, Dialect::default())
    }

    /// Parse the JSON text of one pattern object for `dialect`, with that
    /// dialect's default [`Limits`].
    ///
    /// # Errors
    /// As [`Pattern::parse`]; an operator the dialect lacks is
    /// [`PatternError::UnsupportedOperator`].
    pub fn parse_with(text: &str, dialect: Dialect) -> Result<Pattern, PatternError> {
        Self::parse_with_limits(text, dialect, Limits::for_dialect(dialect))
    }

    /// Parse the JSON text of one pattern object for `dialect` with explicit `limits`.
    ///
    /// # Errors
    /// As [`Pattern::parse_with`].
    pub fn parse_with_limits(
        text: &str,
        dialect: Dialect,
        limits: Limits,
    ) -> Result<Pattern, PatternError> {
        let value: Value = serde_json::from_str(text).map_err(|err| PatternError::Json {
            path: "$".to_owned(),
            line: err.line(),
            column: err.column(),
            message: strip_position(&err),
        })?;
        Self::from_value_with_limits(&value, dialect, limits)
    }

    /// Build a pattern from an already-parsed JSON value, with the default
    /// [`Dialect::Lambda`] and its default [`Limits`].
    ///
    /// # Errors
    /// Every variant names the path of the offending node:
    /// [`PatternError::NotAnObject`] (the pattern, or a `$or` element, is not an
    /// object), [`PatternError::EmptyObject`], [`PatternError::NotObjectOrArray`]
    /// (a field holds a scalar), [`PatternError::EmptyArray`],
    /// [`PatternError::NestedArray`], [`PatternError::OperatorArity`],
    /// [`PatternError::UnknownOperator`], [`PatternError::UnsupportedOperator`],
    /// [`PatternError::BadOperand`] (e.g. `exists` with a non-boolean),
    /// [`PatternError::Numeric`], [`PatternError::NumberOutOfRange`],
    /// [`PatternError::EmptyRange`], [`PatternError::Cidr`],
    /// [`PatternError::Wildcard`], [`PatternError::Or`], and the limits
    /// [`PatternError::TooLong`], [`PatternError::TooDeep`],
    /// [`PatternError::TooManyBranches`].
    pub fn from_value(value: &Value) -> Result<Pattern, PatternError> {
        Self::from_value_with(value, Dialect::default())
    }

    /// Build a pattern from a JSON value for `dialect`, with its default [`Limits`].
    ///
    /// # Errors
    /// As [`Pattern::from_value`].
    pub fn from_value_with(value: &Value, dialect: Dialect) -> Result<Pattern, PatternError> {
        Self::from_value_with_limits(value, dialect, Limits::for_dialect(dialect))
    }

    /// Build a pattern from a JSON value for `dialect` with explicit `limits`.
    ///
    /// # Errors
    /// As [`Pattern::from_value`].
    pub fn from_value_with_limits(
        value: &Value,
        dialect: Dialect,
        limits: Limits,
    ) -> Result<Pattern, PatternError> {
        let rules = Rules { dialect, limits };
        let Value::Object(map) = value else {
            return Err(PatternError::NotAnObject {
                path: "$".to_owned(),
                what: "a pattern",
                found: json_type(value),
            });
        };
        let (root, _branches) = parse_object(map, "$", 1, false, &rules)?;
        let chars = value.to_string().chars().count();
        if chars > limits.max_pattern_chars {
            return Err(PatternError::TooLong {
                path: "$".to_owned(),
                chars,
                max: limits.max_pattern_chars,
                dialect,
            });
        }
        wildcard_complexity(&root, &limits)?;
        Ok(Pattern { root })
    }
}

/// The field names AWS's rule compiler reserves inside `$or`: its operator
/// names, numeric comparison operators and words kept for future operators
/// (`aws/event-ruler`, `Constants.RESERVED_FIELD_NAMES_IN_OR_RELATIONSHIP`).
const RESERVED_IN_OR: &[&str] = &[
    "exactly",
    "equals-ignore-case",
    "prefix",
    "suffix",
    "anything-but",
    "exists",
    "wildcard",
    "numeric",
    "cidr",
    "=",
    "<",
    "<=",
    ">",
    ">=",
    "regex",
    "not-wildcard",
    "not-equals-ignore-case",
    "date-after",
    "date-on-or-after",
    "date-before",
    "date-on-or-before",
    "in-date-range",
    "ip-address-in-range",
    "ip-address-not-in-range",
];

/// Parse one object level (`inside_or`: within a `$or` alternative); returns
/// it and how many `$or` branches it expands to.
fn parse_object(
    map: &Map<String, Value>,
    at: &str,
    depth: usize,
    inside_or: bool,
    rules: &Rules,
) -> Result<(ObjectPattern, usize), PatternError> {
    if depth > rules.limits.max_depth {
        return Err(PatternError::TooDeep {
            path: at.to_owned(),
            max: rules.limits.max_depth,
        });
    }
    if map.is_empty() {
        return Err(PatternError::EmptyObject {
            path: at.to_owned(),
        });
    }
    let mut fields = BTreeMap::new();
    let mut any_of = None;
    let mut branches: usize = 1;
    for (name, value) in map {
        let here = path::child(at, name);
        if inside_or && RESERVED_IN_OR.contains(&name.as_str()) {
            return Err(PatternError::ReservedFieldName {
                path: here,
                field: name.clone(),
            });
        }
        if name == "$or" {
            rules.require(&here, "$or")?;
            let (alternatives, count) = parse_or(value, &here, depth, rules)?;
            any_of = Some(alternatives);
            branches = bounded(branches, count, &here, rules)?;
            continue;
        }
        let field = match value {
            Value::Object(inner) => {
                let (object, count) = parse_object(inner, &here, depth + 1, inside_or, rules)?;
                branches = bounded(branches, count, &here, rules)?;
                FieldPattern::Object(object)
            }
            Value::Array(items) => FieldPattern::Values(parse_values(items, &here, rules)?),
            other => {
                return Err(PatternError::NotObjectOrArray {
                    path: here,
                    field: name.clone(),
                    found: json_type(other),
                });
            }
        };
        fields.insert(name.clone(), field);
    }
    Ok((ObjectPattern { fields, any_of }, branches))
}

/// `a * b`, or [`PatternError::TooManyBranches`] if it passes the limit.
fn bounded(a: usize, b: usize, at: &str, rules: &Rules) -> Result<usize, PatternError> {
    let max = rules.limits.max_branches;
    match a.checked_mul(b) {
        Some(n) if n <= max => Ok(n),
        _ => Err(PatternError::TooManyBranches {
            path: at.to_owned(),
            max,
        }),
    }
}

fn parse_or(
    value: &Value,
    at: &str,
    depth: usize,
    rules: &Rules,
) -> Result<(Vec<ObjectPattern>, usize), PatternError> {
    let Value::Array(items) = value else {
        return Err(PatternError::Or {
            path: at.to_owned(),
            reason: "must be an array of objects",
        });
    };
    if items.len() < 2 {
        return Err(PatternError::Or {
            path: at.to_owned(),
            reason: "must hold at least 2 objects",
        });
    }
    let mut alternatives = Vec::with_capacity(items.len());
    let mut total: usize = 0;
    for (i, item) in items.iter().enumerate() {
        let here = path::index(at, i);
        let Value::Object(map) = item else {
            return Err(PatternError::NotAnObject {
                path: here,
                what: "each $or alternative",
                found: json_type(item),
            });
        };
        let (object, count) = parse_object(map, &here, depth + 1, true, rules)?;
        total = total.saturating_add(count);
        if total > rules.limits.max_branches {
            return Err(PatternError::TooManyBranches {
                path: at.to_owned(),
                max: rules.limits.max_branches,
            });
        }
        alternatives.push(object);
    }
    Ok((alternatives, total))
}

fn parse_values(
    items: &[Value],
    at: &str,
    rules: &Rules,
) -> Result<Vec<ValuePattern>, PatternError> {
    if items.is_empty() {
        return Err(PatternError::EmptyArray {
            path: at.to_owned(),
        });
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let here = path::index(at, i);
            Ok(match item {
                Value::Null => ValuePattern::Exact(Literal::Null),
                Value::Bool(b) => ValuePattern::Exact(Literal::Bool(*b)),
                Value::Number(n) => ValuePattern::Exact(Literal::Number(n.clone())),
                Value::String(s) => ValuePattern::Exact(Literal::String(s.clone())),
                Value::Array(_) => return Err(PatternError::NestedArray { path: here }),
                Value::Object(map) => operator::parse_operator(map, &here, rules)?,
            })
        })
        .collect()
}

/// Reject the pattern if the `wildcard`s at one field are too complex
/// ([`Limits::max_wildcard_complexity`]). Fields are told apart as AWS's
/// matcher tells them, by their names joined with `.`, so the wildcards of
/// every `$or` alternative at one field count together.
fn wildcard_complexity(root: &ObjectPattern, limits: &Limits) -> Result<(), PatternError> {
    let mut fields: Vec<(String, String, Vec<&Wildcard>)> = Vec::new();
    collect_wildcards(root, "$", None, &mut fields);
    for (_, at, wildcards) in fields {
        let complexity = crate::wildcard::complexity(&wildcards, limits.max_wildcard_complexity);
        if complexity > limits.max_wildcard_complexity {
            return Err(PatternError::WildcardComplexity {
                path: at,
                complexity,
                max: limits.max_wildcard_complexity,
            });
        }
    }
    Ok(())
}

/// The `wildcard` operands of `object` (at JSON path `at`, its fields named
/// below `prefix`), per field: `(joined name, JSON path of its first
/// occurrence, operands)`.
fn collect_wildcards<'p>(
    object: &'p ObjectPattern,
    at: &str,
    prefix: Option<&str>,
    fields: &mut Vec<(String, String, Vec<&'p Wildcard>)>,
) {
    for (name, field) in &object.fields {
        let here = path::child(at, name);
        let joined = prefix.map_or_else(|| name.clone(), |prefix| format!("{prefix}.{name}"));
        match field {
            FieldPattern::Object(inner) => collect_wildcards(inner, &here, Some(&joined), fields),
            FieldPattern::Values(values) => {
                let wildcards: Vec<&Wildcard> = (values.iter())
                    .filter_map(|value| match value {
                        ValuePattern::Wildcard(w) => Some(w),
                        _ => None,
                    })
                    .collect();
                if wildcards.is_empty() {
                    continue;
                }
                match fields.iter_mut().find(|(known, ..)| *known == joined) {
                    Some((_, _, all)) => all.extend(wildcards),
                    None => fields.push((joined, here, wildcards)),
                }
            }
        }
    }
    for (i, alternative) in object.any_of.iter().flatten().enumerate() {
        let here = path::index(&path::child(at, "$or"), i);
        collect_wildcards(alternative, &here, prefix, fields);
    }
}
