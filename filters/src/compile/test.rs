//! One compiled match value ([`Test`]) and what it accepts.
//!
//! Each [`ValuePattern`] of a pattern's match-value array becomes one test,
//! except `{"exists": false}`, which is not a test of a value (see
//! [`super::Condition::absent_ok`]). A test looks at one scalar value of the
//! event; which values a condition sees, and how array elements combine, is
//! [`crate::matching`]'s business.

use std::borrow::Cow;

use crate::cidr::Cidr;
use crate::number;
use crate::pattern::{AnythingBut, Literal, NumericRange, ValuePattern};
use crate::wildcard::Wildcard;

/// A scalar value of an event, as the tests see it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    /// A number: its comparison key ([`number::key`], `None` outside
    /// `-5e9..=5e9`) and the number itself, for exact matches outside that
    /// range.
    Number {
        key: Option<i64>,
        number: serde_json::Number,
    },
    /// Borrowed from the event where it needs no unescaping.
    String(Cow<'a, str>),
}

impl Scalar<'_> {
    /// A JSON number as a scalar.
    pub(crate) fn number(number: serde_json::Number) -> Self {
        Self::Number {
            key: number::json_key(&number),
            number,
        }
    }
}

/// One compiled match value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Test {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An exact number: equal keys, or (out of numeric range) equal JSON numbers.
    Number {
        number: serde_json::Number,
        key: Option<i64>,
    },
    /// An exact string.
    String(String),
    Prefix(String),
    Suffix(String),
    /// The operand lower-cased.
    EqualsIgnoreCase(String),
    /// The operand lower-cased.
    PrefixIgnoreCase(String),
    /// The operand lower-cased.
    SuffixIgnoreCase(String),
    Wildcard(Wildcard),
    /// Bounds as keys: `(key, inclusive)`.
    Numeric {
        low: Option<(i64, bool)>,
        high: Option<(i64, bool)>,
    },
    Cidr(Cidr),
    /// `{"exists": true}`: any value.
    Exists,
    /// `anything-but`: any value that none of these accepts.
    AnythingBut(Vec<Test>),
}

impl Test {
    /// The test for one match value; `None` for `{"exists": false}`.
    pub(crate) fn new(value: &ValuePattern) -> Option<Test> {
        Some(match value {
            ValuePattern::Exists(false) => return None,
            ValuePattern::Exists(true) => Test::Exists,
            ValuePattern::Exact(Literal::Null) => Test::Null,
            ValuePattern::Exact(Literal::Bool(b)) => Test::Bool(*b),
            ValuePattern::Exact(Literal::Number(n)) => Test::Number {
                number: n.clone(),
                key: number::json_key(n),
            },
            ValuePattern::Exact(Literal::String(s)) => Test::String(s.clone()),
            ValuePattern::Prefix(s) => Test::Prefix(s.clone()),
            ValuePattern::Suffix(s) => Test::Suffix(s.clone()),
            ValuePattern::EqualsIgnoreCase(s) => Test::EqualsIgnoreCase(s.to_lowercase()),
            ValuePattern::PrefixIgnoreCase(s) => Test::PrefixIgnoreCase(s.to_lowercase()),
            ValuePattern::SuffixIgnoreCase(s) => Test::SuffixIgnoreCase(s.to_lowercase()),
            ValuePattern::Wildcard(w) => Test::Wildcard(w.clone()),
            ValuePattern::Cidr(c) => Test::Cidr(c.clone()),
            ValuePattern::Numeric(NumericRange::Equals(n)) => Test::Numeric {
                low: bound(*n, true),
                high: bound(*n, true),
            },
            ValuePattern::Numeric(NumericRange::Range { low, high }) => Test::Numeric {
                low: low.and_then(|(n, inclusive)| bound(n, inclusive)),
                high: high.and_then(|(n, inclusive)| bound(n, inclusive)),
            },
            ValuePattern::AnythingBut(but) => Test::AnythingBut(match but {
                AnythingBut::Strings(list) => list.iter().cloned().map(Test::String).collect(),
                AnythingBut::Numbers(list) => list
                    .iter()
                    .map(|n| Test::Numeric {
                        low: bound(*n, true),
                        high: bound(*n, true),
                    })
                    .collect(),
                AnythingBut::IgnoreCase(list) => list
                    .iter()
                    .map(|s| Test::EqualsIgnoreCase(s.to_lowercase()))
                    .collect(),
                AnythingBut::Prefix(list) => list.iter().cloned().map(Test::Prefix).collect(),
                AnythingBut::Suffix(list) => list.iter().cloned().map(Test::Suffix).collect(),
                AnythingBut::Wildcard(list) => list.iter().cloned().map(Test::Wildcard).collect(),
            }),
        })
    }

    /// Whether `value` satisfies this test.
    pub(crate) fn matches(&self, value: &Scalar<'_>) -> bool {
        match (self, value) {
            (Self::Exists, _) => true,
            (Self::AnythingBut(tests), v) => !tests.iter().any(|t| t.matches(v)),
            (Self::Null, Scalar::Null) => true,
            (Self::Bool(a), Scalar::Bool(b)) => a == b,
            // Within range equal numbers have equal keys; outside it, only
            // equal JSON numbers are equal.
            (Self::Number { number, key }, Scalar::Number { key: k, number: m }) => match key {
                Some(_) => key == k,
                None => number == m,
            },
            (Self::Numeric { low, high }, Scalar::Number { key: Some(k), .. }) => {
                low.is_none_or(|(l, inclusive)| if inclusive { *k >= l } else { *k > l })
                    && high.is_none_or(|(h, inclusive)| if inclusive { *k <= h } else { *k < h })
            }
            (Self::String(a), Scalar::String(b)) => {
                a.len() == b.len() && super::starts_with(b.as_bytes(), a.as_bytes())
            }
            (Self::Prefix(p), Scalar::String(s)) => super::starts_with(s.as_bytes(), p.as_bytes()),
            (Self::Suffix(p), Scalar::String(s)) => s.ends_with(p.as_str()),
            (Self::EqualsIgnoreCase(p), Scalar::String(s)) => s.to_lowercase() == *p,
            (Self::PrefixIgnoreCase(p), Scalar::String(s)) => {
                s.to_lowercase().starts_with(p.as_str())
            }
            (Self::SuffixIgnoreCase(p), Scalar::String(s)) => {
                s.to_lowercase().ends_with(p.as_str())
            }
            (Self::Wildcard(w), Scalar::String(s)) => w.matches(s),
            (Self::Cidr(c), Scalar::String(s)) => c.contains(s),
            _ => false,
        }
    }
}

/// A numeric bound as a key. Parsing checked the range, so the key exists;
/// `-1` keeps a wrong-but-safe bound rather than panic.
fn bound(n: f64, inclusive: bool) -> Option<(i64, bool)> {
    Some((number::key(n).unwrap_or(-1), inclusive))
}
