//! The reference evaluator: the pattern language's semantics as a short,
//! obviously correct program, slow on purpose.
//!
//! [`matches()`] is the executable statement of what [`crate::Matcher`] must
//! answer. It follows AWS's description of its own matcher literally, without
//! the matcher's trie, compiled tests or search:
//!
//! 1. The event is flattened into its scalar values, each with its field
//!    path (the keys from the top, joined with `.`) and its trail (which
//!    element of which array it lies in). Objects and empty arrays are not
//!    values.
//! 2. The pattern is expanded through its `$or`s into branches; a branch is
//!    a list of (field path, match values), its paths joined with `.` too,
//!    so `{"a": {"b": ...}}` and `{"a.b": ...}` name the same field, as do
//!    the event keys (`aws/event-ruler` README, "Caveat: Compiled rules and
//!    JSON keys with dots").
//! 3. A branch holds when its conditions, taken in the order of their
//!    paths, can each be satisfied in turn: by a value at its path that one
//!    of its match values accepts and that lies, in every array, in the
//!    element the values chosen before it lie in; or, for a condition with
//!    `{"exists": false}`, by there being no value at its path that lies
//!    outside every array or in those elements. This is the walk of AWS's
//!    matcher (`aws/event-ruler`: `GenericMachine` sorts a rule's keys,
//!    `ACFinder` walks them keeping an `ArrayMembership`).
//! 4. The pattern matches when one branch holds.
//!
//! Each match value is decided by `value_matches`, one `match` arm per
//! operator, with the rules of "Content filtering in Amazon EventBridge event
//! patterns" and "Comparison operators for use in event patterns in Amazon
//! EventBridge" (numbers compare by `aws/event-ruler`'s key,
//! `(long) (1e6 * (5e9 + n))`, within `-5e9..=5e9`).
//!
//! The search in step 3 tries every combination of values, so its time grows
//! exponentially with the number of array-held values a branch can choose
//! from: use it on small events, as the tests and the fuzz target do.

use std::net::IpAddr;

use serde_json::{Number, Value};

use crate::pattern::{
    AnythingBut, FieldPattern, Literal, NumericRange, ObjectPattern, Pattern, ValuePattern,
};

/// Whether `pattern` matches `event`, by the semantics stated in the module
/// documentation. A non-object event has no values.
#[must_use]
pub fn matches(pattern: &Pattern, event: &Value) -> bool {
    let mut leaves = Vec::new();
    if let Value::Object(_) = event {
        flatten(event, None, &mut Vec::new(), &mut 0, &mut leaves);
    }
    branches(&pattern.root, None).into_iter().any(|mut branch| {
        branch.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
        walk(&branch, &leaves, &mut Vec::new())
    })
}

/// `(array, element index)` for each array enclosing a value, outermost first.
type Trail = Vec<(usize, usize)>;

/// One scalar value of the event.
struct Leaf<'e> {
    path: String,
    trail: Trail,
    value: &'e Value,
}

/// `prefix.name`, or `name` at the top.
fn join(prefix: Option<&str>, name: &str) -> String {
    match prefix {
        Some(prefix) => format!("{prefix}.{name}"),
        None => name.to_owned(),
    }
}

fn flatten<'e>(
    value: &'e Value,
    path: Option<&str>,
    trail: &mut Trail,
    arrays: &mut usize,
    out: &mut Vec<Leaf<'e>>,
) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                flatten(child, Some(&join(path, key)), trail, arrays, out);
            }
        }
        Value::Array(items) => {
            *arrays += 1;
            let array = *arrays;
            for (i, item) in items.iter().enumerate() {
                trail.push((array, i));
                flatten(item, path, trail, arrays, out);
                trail.pop();
            }
        }
        scalar => out.push(Leaf {
            path: path.unwrap_or_default().to_owned(),
            trail: trail.clone(),
            value: scalar,
        }),
    }
}

/// A branch: (field path, match values) per field, ANDed.
type Branch<'p> = Vec<(String, &'p [ValuePattern])>;

/// Every branch of `object`, whose fields lie under `prefix`.
fn branches<'p>(object: &'p ObjectPattern, prefix: Option<&str>) -> Vec<Branch<'p>> {
    let mut all: Vec<Branch<'p>> = vec![Vec::new()];
    for (name, field) in &object.fields {
        let path = join(prefix, name);
        let inner = match field {
            FieldPattern::Values(values) => vec![vec![(path, values.as_slice())]],
            FieldPattern::Object(inner) => branches(inner, Some(&path)),
        };
        all = product(&all, &inner);
    }
    if let Some(alternatives) = &object.any_of {
        let any: Vec<Branch<'p>> = alternatives
            .iter()
            .flat_map(|a| branches(a, prefix))
            .collect();
        all = product(&all, &any);
    }
    all
}

/// Every concatenation of one branch of `a` with one of `b`.
fn product<'p>(a: &[Branch<'p>], b: &[Branch<'p>]) -> Vec<Branch<'p>> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            out.push(x.iter().chain(y).cloned().collect());
        }
    }
    out
}

/// Whether the conditions of `branch`, in order, can each be satisfied by a
/// value compatible with the values `chosen` before it, or by absence.
fn walk<'l>(
    branch: &[(String, &[ValuePattern])],
    leaves: &'l [Leaf<'_>],
    chosen: &mut Vec<&'l Trail>,
) -> bool {
    let Some(((path, values), rest)) = branch.split_first() else {
        return true;
    };
    let absent = ValuePattern::Exists(false);
    let at: Vec<&Leaf<'_>> = leaves.iter().filter(|leaf| leaf.path == *path).collect();
    let fits = |trail: &Trail, chosen: &[&Trail]| chosen.iter().all(|c| compatible(c, trail));
    for leaf in &at {
        let accepted = values
            .iter()
            .any(|value| *value != absent && value_matches(value, leaf.value));
        if accepted && fits(&leaf.trail, chosen) {
            chosen.push(&leaf.trail);
            let holds = walk(rest, leaves, chosen);
            chosen.pop();
            if holds {
                return true;
            }
        }
    }
    values.contains(&absent)
        && at.iter().all(|leaf| !fits(&leaf.trail, chosen))
        && walk(rest, leaves, chosen)
}

/// Two values are compatible unless they lie in different elements of one array.
fn compatible(a: &Trail, b: &Trail) -> bool {
    a.iter()
        .all(|(array, i)| b.iter().all(|(other, j)| array != other || i == j))
}

/// AWS's comparison key of a number, `None` outside `-5e9..=5e9`.
#[allow(clippy::cast_possible_truncation)]
fn key(n: f64) -> Option<i64> {
    (-5e9..=5e9)
        .contains(&n)
        .then_some((1e6 * (5e9 + n)) as i64)
}

fn number_key(n: &Number) -> Option<i64> {
    n.as_f64().and_then(key)
}

/// Whether the match value `pattern` accepts the scalar event value `event`.
fn value_matches(pattern: &ValuePattern, event: &Value) -> bool {
    let text = event.as_str();
    let lower = || text.map(str::to_lowercase);
    match pattern {
        ValuePattern::Exact(Literal::Null) => event.is_null(),
        ValuePattern::Exact(Literal::Bool(b)) => event.as_bool() == Some(*b),
        ValuePattern::Exact(Literal::String(s)) => text == Some(s.as_str()),
        ValuePattern::Exact(Literal::Number(n)) => match event {
            Value::Number(m) => {
                n == m || (number_key(n).is_some() && number_key(n) == number_key(m))
            }
            _ => false,
        },
        ValuePattern::Prefix(p) => text.is_some_and(|s| s.starts_with(p.as_str())),
        ValuePattern::Suffix(p) => text.is_some_and(|s| s.ends_with(p.as_str())),
        ValuePattern::EqualsIgnoreCase(p) => lower() == Some(p.to_lowercase()),
        ValuePattern::PrefixIgnoreCase(p) => {
            lower().is_some_and(|s| s.starts_with(&p.to_lowercase()))
        }
        ValuePattern::SuffixIgnoreCase(p) => {
            lower().is_some_and(|s| s.ends_with(&p.to_lowercase()))
        }
        ValuePattern::Wildcard(w) => text.is_some_and(|s| glob(w.text(), s)),
        ValuePattern::Cidr(c) => text.is_some_and(|s| in_block(c.text(), s)),
        ValuePattern::Exists(exists) => *exists,
        ValuePattern::Numeric(range) => {
            let Some(k) = event.as_number().and_then(number_key) else {
                return false;
            };
            let bound = |n: f64| key(n).unwrap_or(-1);
            match range {
                NumericRange::Equals(n) => k == bound(*n),
                NumericRange::Range { low, high } => {
                    low.is_none_or(|(n, inclusive)| {
                        if inclusive {
                            k >= bound(n)
                        } else {
                            k > bound(n)
                        }
                    }) && high.is_none_or(|(n, inclusive)| {
                        if inclusive {
                            k <= bound(n)
                        } else {
                            k < bound(n)
                        }
                    })
                }
            }
        }
        ValuePattern::AnythingBut(but) => !match but {
            AnythingBut::Strings(list) => text.is_some_and(|s| list.iter().any(|x| x == s)),
            AnythingBut::Numbers(list) => event
                .as_number()
                .and_then(number_key)
                .is_some_and(|k| list.iter().any(|n| key(*n) == Some(k))),
            AnythingBut::IgnoreCase(list) => {
                lower().is_some_and(|s| list.iter().any(|x| x.to_lowercase() == s))
            }
            AnythingBut::Prefix(list) => {
                text.is_some_and(|s| list.iter().any(|p| s.starts_with(p.as_str())))
            }
            AnythingBut::Suffix(list) => {
                text.is_some_and(|s| list.iter().any(|p| s.ends_with(p.as_str())))
            }
            AnythingBut::Wildcard(list) => {
                text.is_some_and(|s| list.iter().any(|w| glob(w.text(), s)))
            }
        },
    }
}

/// Whether `s` matches the wildcard `pattern` (`*` any run of characters,
/// `\*` a star, `\\` a backslash), by backtracking.
fn glob(pattern: &str, s: &str) -> bool {
    // `None` stands for `*`.
    let mut tokens = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => tokens.push(chars.next()),
            '*' => tokens.push(None),
            c => tokens.push(Some(c)),
        }
    }
    let s: Vec<char> = s.chars().collect();
    glob_tokens(&tokens, &s)
}

fn glob_tokens(tokens: &[Option<char>], s: &[char]) -> bool {
    match tokens.split_first() {
        None => s.is_empty(),
        Some((None, rest)) => (0..=s.len()).any(|i| glob_tokens(rest, &s[i..])),
        Some((Some(c), rest)) => s.first() == Some(c) && glob_tokens(rest, &s[1..]),
    }
}

/// Whether `s` is an IP address in the CIDR block `block` (same family).
fn in_block(block: &str, s: &str) -> bool {
    let Some((net, len)) = block.split_once('/') else {
        return false;
    };
    let (Ok(net), Ok(len), Ok(ip)) = (
        net.parse::<IpAddr>(),
        len.parse::<u32>(),
        s.parse::<IpAddr>(),
    ) else {
        return false;
    };
    let same_prefix = |a: u128, b: u128, width: u32| {
        let shift = width - len.min(width);
        a.checked_shr(shift).unwrap_or(0) == b.checked_shr(shift).unwrap_or(0)
    };
    match (net, ip) {
        (IpAddr::V4(net), IpAddr::V4(ip)) => {
            same_prefix(u32::from(net).into(), u32::from(ip).into(), 32)
        }
        (IpAddr::V6(net), IpAddr::V6(ip)) => same_prefix(u128::from(net), u128::from(ip), 128),
        _ => false,
    }
}
