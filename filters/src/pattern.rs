//! The pattern AST: what [`crate::parse`] produces and [`crate::compile`] consumes.
//!
//! The AST is normalised: object fields are sorted by name, `anything-but`
//! holds a list even when written with one value, and a `numeric` expression
//! is a pair of optional bounds. [`Pattern::to_json`] writes this normal form
//! back as JSON, which parses to an equal [`Pattern`].

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::cidr::Cidr;
use crate::wildcard::Wildcard;

/// One parsed, validated event pattern (a JSON object).
///
/// Build one with [`Pattern::parse`] / [`Pattern::parse_with`] from JSON text,
/// or [`Pattern::from_value`] from a parsed value; read a whole filter file
/// with [`crate::parse_filter_file`]. Compile many into a [`crate::Matcher`].
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub(crate) root: ObjectPattern,
}

/// An object level of a pattern: named fields (ANDed) plus an optional `$or`.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct ObjectPattern {
    /// Fields by name; every one must match.
    pub(crate) fields: BTreeMap<String, FieldPattern>,
    /// `$or` alternatives at this level; at least one must match (with `fields`).
    pub(crate) any_of: Option<Vec<ObjectPattern>>,
}

/// What a pattern says about one field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FieldPattern {
    /// A nested object: the field's value is matched field by field.
    Object(ObjectPattern),
    /// An array of match values: the field matches if any one matches.
    Values(Vec<ValuePattern>),
}

/// A literal value to match exactly.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Literal {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
}

/// One element of a field's match-value array.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ValuePattern {
    /// `"text"`, `300`, `true`, `null`.
    Exact(Literal),
    /// `{"prefix": "text"}`.
    Prefix(String),
    /// `{"prefix": {"equals-ignore-case": "text"}}`.
    PrefixIgnoreCase(String),
    /// `{"suffix": "text"}`.
    Suffix(String),
    /// `{"suffix": {"equals-ignore-case": "text"}}`.
    SuffixIgnoreCase(String),
    /// `{"equals-ignore-case": "text"}`.
    EqualsIgnoreCase(String),
    /// `{"wildcard": "a*b"}`.
    Wildcard(Wildcard),
    /// `{"anything-but": ...}`.
    AnythingBut(AnythingBut),
    /// `{"numeric": [...]}`.
    Numeric(NumericRange),
    /// `{"exists": true|false}`.
    Exists(bool),
    /// `{"cidr": "10.0.0.0/24"}`.
    Cidr(Cidr),
}

/// The forms of `anything-but`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AnythingBut {
    /// `{"anything-but": "a"}` or `["a", "b"]`.
    Strings(Vec<String>),
    /// `{"anything-but": 1}` or `[1, 2]`.
    Numbers(Vec<f64>),
    /// `{"anything-but": {"equals-ignore-case": "a" | ["a", "b"]}}`.
    IgnoreCase(Vec<String>),
    /// `{"anything-but": {"prefix": "a" | ["a", "b"]}}`.
    Prefix(Vec<String>),
    /// `{"anything-but": {"suffix": "a" | ["a", "b"]}}`.
    Suffix(Vec<String>),
    /// `{"anything-but": {"wildcard": "a*" | ["a*", "b*"]}}`.
    Wildcard(Vec<Wildcard>),
}

/// A `numeric` expression: `=`, one bound, or a lower and an upper bound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NumericRange {
    /// `["=", n]`.
    Equals(f64),
    /// `[">", a]`, `["<=", b]`, `[">=", a, "<", b]`, ...
    Range {
        /// `(value, inclusive)` of the lower bound.
        low: Option<(f64, bool)>,
        /// `(value, inclusive)` of the upper bound.
        high: Option<(f64, bool)>,
    },
}

impl Pattern {
    /// The pattern in normal form: fields sorted by name, `anything-but` as a
    /// list, every operator in its canonical shape.
    ///
    /// Parsing the result with the same [`crate::Dialect`] gives a [`Pattern`]
    /// equal to `self`. (EventBridge accepts every operator but, by default,
    /// only 2048 characters: a long Lambda pattern may exceed it.)
    #[must_use]
    pub fn to_json(&self) -> Value {
        object_json(&self.root)
    }
}

fn object_json(object: &ObjectPattern) -> Value {
    let mut map = Map::new();
    for (name, field) in &object.fields {
        let value = match field {
            FieldPattern::Object(inner) => object_json(inner),
            FieldPattern::Values(values) => Value::Array(values.iter().map(value_json).collect()),
        };
        map.insert(name.clone(), value);
    }
    if let Some(any_of) = &object.any_of {
        map.insert(
            "$or".to_owned(),
            Value::Array(any_of.iter().map(object_json).collect()),
        );
    }
    Value::Object(map)
}

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// One operand as a string, several as a list (both shapes parse back the same).
fn one_or_list(list: &[String]) -> Value {
    match list {
        [one] => json!(one),
        list => json!(list),
    }
}

fn value_json(value: &ValuePattern) -> Value {
    match value {
        ValuePattern::Exact(Literal::Null) => Value::Null,
        ValuePattern::Exact(Literal::Bool(b)) => Value::Bool(*b),
        ValuePattern::Exact(Literal::Number(n)) => Value::Number(n.clone()),
        ValuePattern::Exact(Literal::String(s)) => Value::String(s.clone()),
        ValuePattern::Prefix(s) => json!({ "prefix": s }),
        ValuePattern::PrefixIgnoreCase(s) => json!({ "prefix": { "equals-ignore-case": s } }),
        ValuePattern::Suffix(s) => json!({ "suffix": s }),
        ValuePattern::SuffixIgnoreCase(s) => json!({ "suffix": { "equals-ignore-case": s } }),
        ValuePattern::EqualsIgnoreCase(s) => json!({ "equals-ignore-case": s }),
        ValuePattern::Wildcard(w) => json!({ "wildcard": w.text() }),
        ValuePattern::Exists(b) => json!({ "exists": b }),
        ValuePattern::Cidr(c) => json!({ "cidr": c.text() }),
        ValuePattern::AnythingBut(but) => {
            let inner = match but {
                AnythingBut::Strings(list) => json!(list),
                AnythingBut::Numbers(list) => {
                    Value::Array(list.iter().map(|n| number(*n)).collect())
                }
                AnythingBut::IgnoreCase(list) => json!({ "equals-ignore-case": list }),
                AnythingBut::Prefix(list) => json!({ "prefix": one_or_list(list) }),
                AnythingBut::Suffix(list) => json!({ "suffix": one_or_list(list) }),
                AnythingBut::Wildcard(list) => {
                    let texts: Vec<String> = list.iter().map(|w| w.text().to_owned()).collect();
                    json!({ "wildcard": one_or_list(&texts) })
                }
            };
            json!({ "anything-but": inner })
        }
        ValuePattern::Numeric(NumericRange::Equals(n)) => json!({ "numeric": ["=", number(*n)] }),
        ValuePattern::Numeric(NumericRange::Range { low, high }) => {
            let mut terms = Vec::new();
            if let Some((n, inclusive)) = low {
                terms.push(json!(if *inclusive { ">=" } else { ">" }));
                terms.push(number(*n));
            }
            if let Some((n, inclusive)) = high {
                terms.push(json!(if *inclusive { "<=" } else { "<" }));
                terms.push(number(*n));
            }
            json!({ "numeric": terms })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Found by the fuzz target: without correctly rounded float parsing the
    /// shortest form of a parsed number can parse back one ULP away.
    #[test]
    fn normal_form_numbers_parse_back_to_the_same_value() {
        let pattern = Pattern::parse(r#"{"n": [30222222222.602222222220, 0.1, 1e300]}"#).unwrap();
        let again = Pattern::parse(&pattern.to_json().to_string()).unwrap();
        assert_eq!(again, pattern);
    }
}
