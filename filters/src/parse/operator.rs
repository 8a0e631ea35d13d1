//! Operator objects (`{"prefix": "x"}`, `{"numeric": [...]}`, ...) -> [`ValuePattern`]s.
//!
//! An operator object has exactly one key. Accepted shapes follow "Comparison
//! operators for use in event patterns in Amazon EventBridge" and AWS's rule
//! compiler (`aws/event-ruler`, `JsonRuleCompiler`).

use serde_json::{Map, Value};

use crate::cidr::Cidr;
use crate::error::{PatternError, json_type};
use crate::number;
use crate::parse::Rules;
use crate::path;
use crate::pattern::{AnythingBut, NumericRange, ValuePattern};
use crate::wildcard::Wildcard;

const KNOWN: &[&str] = &[
    "prefix",
    "suffix",
    "equals-ignore-case",
    "anything-but",
    "numeric",
    "exists",
    "wildcard",
    "cidr",
];

/// Parse one `{"operator": operand}` object found at `at`.
pub(crate) fn parse_operator(
    map: &Map<String, Value>,
    at: &str,
    rules: &Rules,
) -> Result<ValuePattern, PatternError> {
    let mut entries = map.iter();
    let (Some((name, operand)), None) = (entries.next(), entries.next()) else {
        return Err(PatternError::OperatorArity {
            path: at.to_owned(),
            count: map.len(),
        });
    };
    if !KNOWN.contains(&name.as_str()) {
        return Err(PatternError::UnknownOperator {
            path: at.to_owned(),
            operator: name.clone(),
        });
    }
    rules.require(at, name)?;
    let here = path::child(at, name);
    match name.as_str() {
        "prefix" | "suffix" => parse_affix(name, operand, &here, rules),
        "equals-ignore-case" => Ok(ValuePattern::EqualsIgnoreCase(string(
            name, operand, &here,
        )?)),
        "wildcard" => Ok(ValuePattern::Wildcard(wildcard(operand, &here)?)),
        "cidr" => {
            let text = string(name, operand, &here)?;
            let cidr = Cidr::parse(&text).map_err(|reason| PatternError::Cidr {
                path: here,
                value: text.clone(),
                reason,
            })?;
            Ok(ValuePattern::Cidr(cidr))
        }
        "exists" => match operand {
            Value::Bool(b) => Ok(ValuePattern::Exists(*b)),
            other => Err(bad(name, "true or false", other, &here)),
        },
        "numeric" => match operand {
            Value::Array(terms) => Ok(ValuePattern::Numeric(parse_numeric(terms, &here)?)),
            other => Err(bad(
                name,
                "an array such as [\">\", 0, \"<=\", 5]",
                other,
                &here,
            )),
        },
        _ => parse_anything_but(operand, &here, rules),
    }
}

fn bad(operator: &str, expected: &'static str, found: &Value, at: &str) -> PatternError {
    PatternError::BadOperand {
        path: at.to_owned(),
        operator: operator.to_owned(),
        expected,
        found: json_type(found).to_owned(),
    }
}

fn string(operator: &str, operand: &Value, at: &str) -> Result<String, PatternError> {
    match operand {
        Value::String(s) => Ok(s.clone()),
        other => Err(bad(operator, "a string", other, at)),
    }
}

fn wildcard(operand: &Value, at: &str) -> Result<Wildcard, PatternError> {
    let text = string("wildcard", operand, at)?;
    Wildcard::parse(&text).map_err(|reason| PatternError::Wildcard {
        path: at.to_owned(),
        value: text.clone(),
        reason,
    })
}

/// `{"prefix": "x"}` or `{"prefix": {"equals-ignore-case": "x"}}`, same for suffix.
fn parse_affix(
    name: &str,
    operand: &Value,
    at: &str,
    rules: &Rules,
) -> Result<ValuePattern, PatternError> {
    const EXPECTED: &str = "a string or {\"equals-ignore-case\": \"...\"}";
    let prefix = name == "prefix";
    match operand {
        Value::String(s) if prefix => Ok(ValuePattern::Prefix(s.clone())),
        Value::String(s) => Ok(ValuePattern::Suffix(s.clone())),
        Value::Object(inner) => {
            let mut entries = inner.iter();
            match (entries.next(), entries.next()) {
                (Some((key, value)), None) if key == "equals-ignore-case" => {
                    rules.require(at, &format!("{name}/equals-ignore-case"))?;
                    let here = path::child(at, key);
                    let s = string(key, value, &here)?;
                    Ok(if prefix {
                        ValuePattern::PrefixIgnoreCase(s)
                    } else {
                        ValuePattern::SuffixIgnoreCase(s)
                    })
                }
                _ => Err(PatternError::BadOperand {
                    path: at.to_owned(),
                    operator: name.to_owned(),
                    expected: EXPECTED,
                    found: "an object with other keys".to_owned(),
                }),
            }
        }
        other => Err(bad(name, EXPECTED, other, at)),
    }
}

/// A number for a numeric comparison: must lie in AWS's comparable range.
fn comparable(value: &Value, at: &str, what: &str) -> Result<f64, PatternError> {
    let n = value.as_f64().ok_or_else(|| PatternError::Numeric {
        path: at.to_owned(),
        reason: format!("{what} must be a number, found {}", json_type(value)),
    })?;
    if number::key(n).is_none() {
        return Err(PatternError::NumberOutOfRange {
            path: at.to_owned(),
            value: n,
        });
    }
    Ok(n)
}

/// `["=", n]`, `["<", n]`, `["<=", n]`, `[">", a]`, `[">=", a]`,
/// `[">" | ">=", a, "<" | "<=", b]`.
fn parse_numeric(terms: &[Value], at: &str) -> Result<NumericRange, PatternError> {
    let fail = |reason: String| PatternError::Numeric {
        path: at.to_owned(),
        reason,
    };
    let op = |i: usize| -> Result<&str, PatternError> {
        match terms.get(i) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(other) => Err(fail(format!(
                "term {i} must be an operator (=, <, <=, >, >=), found {}",
                json_type(other)
            ))),
            None => Err(fail("it is empty".to_owned())),
        }
    };
    let num = |i: usize, op: &str| -> Result<f64, PatternError> {
        match terms.get(i) {
            Some(value) => comparable(value, &path::index(at, i), &format!("the value of {op}")),
            None => Err(fail(format!("{op} has no value after it"))),
        }
    };
    let first = op(0)?;
    let a = num(1, first)?;
    let single_only = |range: NumericRange| {
        if terms.len() == 2 {
            Ok(range)
        } else {
            Err(fail(format!(
                "{first} takes one value; only > or >= may be followed by < or <="
            )))
        }
    };
    match first {
        "=" => single_only(NumericRange::Equals(a)),
        "<" | "<=" => single_only(NumericRange::Range {
            low: None,
            high: Some((a, first == "<=")),
        }),
        ">" | ">=" => {
            let low = Some((a, first == ">="));
            if terms.len() == 2 {
                return Ok(NumericRange::Range { low, high: None });
            }
            let second = op(2)?;
            if second != "<" && second != "<=" {
                return Err(fail(format!(
                    "the upper bound operator must be < or <=, found {second:?}"
                )));
            }
            let b = num(3, second)?;
            if terms.len() > 4 {
                return Err(fail(
                    "too many terms; at most [\">\", a, \"<\", b]".to_owned(),
                ));
            }
            if a >= b {
                return Err(PatternError::EmptyRange {
                    path: at.to_owned(),
                    low: a,
                    high: b,
                });
            }
            Ok(NumericRange::Range {
                low,
                high: Some((b, second == "<=")),
            })
        }
        other => Err(fail(format!(
            "unknown operator {other:?}; use =, <, <=, > or >="
        ))),
    }
}

fn parse_anything_but(
    operand: &Value,
    at: &str,
    rules: &Rules,
) -> Result<ValuePattern, PatternError> {
    const NAME: &str = "anything-but";
    const EXPECTED: &str = "a string, a number, a non-empty array of strings or of numbers, or an object with prefix, suffix, equals-ignore-case or wildcard";
    let but = match operand {
        Value::String(s) => AnythingBut::Strings(vec![s.clone()]),
        Value::Number(_) => AnythingBut::Numbers(vec![comparable(operand, at, "the value")?]),
        Value::Array(items) => anything_but_list(items, at)?,
        Value::Object(inner) => {
            let mut entries = inner.iter();
            let (Some((key, value)), None) = (entries.next(), entries.next()) else {
                return Err(PatternError::OperatorArity {
                    path: at.to_owned(),
                    count: inner.len(),
                });
            };
            let here = path::child(at, key);
            match key.as_str() {
                "prefix" | "suffix" | "equals-ignore-case" | "wildcard" => {
                    rules.require(at, &format!("{NAME}/{key}"))?;
                }
                _ => {
                    return Err(PatternError::UnknownOperator {
                        path: at.to_owned(),
                        operator: format!("{NAME}/{key}"),
                    });
                }
            }
            match key.as_str() {
                "prefix" => AnythingBut::Prefix(affix_list(key, value, &here)?),
                "suffix" => AnythingBut::Suffix(affix_list(key, value, &here)?),
                "wildcard" => AnythingBut::Wildcard(one_or_many(
                    "anything-but/wildcard",
                    value,
                    &here,
                    wildcard,
                )?),
                _ => AnythingBut::IgnoreCase(ignore_case_list(value, &here)?),
            }
        }
        other => return Err(bad(NAME, EXPECTED, other, at)),
    };
    Ok(ValuePattern::AnythingBut(but))
}

/// A string or a non-empty array of them, each read by `read` at its path.
fn one_or_many<T>(
    operator: &str,
    value: &Value,
    at: &str,
    read: impl Fn(&Value, &str) -> Result<T, PatternError>,
) -> Result<Vec<T>, PatternError> {
    match value {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| read(item, &path::index(at, i)))
            .collect(),
        Value::Array(_) => Err(PatternError::BadOperand {
            path: at.to_owned(),
            operator: operator.to_owned(),
            expected: "a non-empty string or a non-empty array of them",
            found: "an empty array".to_owned(),
        }),
        one => Ok(vec![read(one, at)?]),
    }
}

/// The operand of `anything-but`'s `prefix` or `suffix`: one non-empty
/// string or a non-empty array of them (`aws/event-ruler`: "Null
/// prefix/suffix not allowed").
fn affix_list(key: &str, value: &Value, at: &str) -> Result<Vec<String>, PatternError> {
    let operator = format!("anything-but/{key}");
    one_or_many(&operator, value, at, |item, here| {
        let s = string(key, item, here)?;
        if s.is_empty() {
            return Err(PatternError::BadOperand {
                path: here.to_owned(),
                operator: operator.clone(),
                expected: "a non-empty string",
                found: "an empty string".to_owned(),
            });
        }
        Ok(s)
    })
}

fn anything_but_list(items: &[Value], at: &str) -> Result<AnythingBut, PatternError> {
    let mixed = || PatternError::BadOperand {
        path: at.to_owned(),
        operator: "anything-but".to_owned(),
        expected: "a non-empty array of only strings or only numbers",
        found: "a mixed, empty or non-scalar array".to_owned(),
    };
    if items.iter().all(Value::is_string) && !items.is_empty() {
        Ok(AnythingBut::Strings(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ))
    } else if items.iter().all(Value::is_number) && !items.is_empty() {
        let numbers = items
            .iter()
            .enumerate()
            .map(|(i, v)| comparable(v, &path::index(at, i), "the value"))
            .collect::<Result<_, _>>()?;
        Ok(AnythingBut::Numbers(numbers))
    } else {
        Err(mixed())
    }
}

fn ignore_case_list(value: &Value, at: &str) -> Result<Vec<String>, PatternError> {
    const EXPECTED: &str = "a string or a non-empty array of strings";
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(bad("anything-but/equals-ignore-case", EXPECTED, other, at)),
            })
            .collect(),
        other => Err(bad("anything-but/equals-ignore-case", EXPECTED, other, at)),
    }
}
