//! A small, obviously-correct reference evaluator for event patterns.
//!
//! It works on the pattern's JSON directly (no AST, no compilation, no trie):
//! expand `$or` into branches, list every scalar of the event with its path
//! and array trail, then try every combination of one value per field.
#![allow(clippy::unwrap_used, dead_code)]

use std::net::IpAddr;

use serde_json::{Map, Number, Value};

type Path = Vec<String>;
type Trail = Vec<(usize, usize)>;

struct Leaf {
    path: Path,
    trail: Trail,
    value: Value,
}

/// Whether `pattern` (a valid pattern's JSON) matches `event` (a JSON object).
pub fn matches(pattern: &Value, event: &Value) -> bool {
    let mut leaves = Vec::new();
    collect(event, &mut Vec::new(), &mut Vec::new(), &mut 0, &mut leaves);
    let Value::Object(map) = pattern else {
        return false;
    };
    branches(map, &[])
        .iter()
        .any(|branch| branch_matches(branch, &leaves))
}

fn collect(v: &Value, path: &mut Path, trail: &mut Trail, arrays: &mut usize, out: &mut Vec<Leaf>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                path.push(k.clone());
                collect(child, path, trail, arrays, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            *arrays += 1;
            let id = *arrays;
            for (i, item) in items.iter().enumerate() {
                trail.push((id, i));
                collect(item, path, trail, arrays, out);
                trail.pop();
            }
        }
        scalar => out.push(Leaf {
            path: path.clone(),
            trail: trail.clone(),
            value: scalar.clone(),
        }),
    }
}

type Branch = Vec<(Path, Vec<Value>)>;

fn product(a: &[Branch], b: &[Branch]) -> Vec<Branch> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            out.push(x.iter().chain(y).cloned().collect());
        }
    }
    out
}

fn branches(object: &Map<String, Value>, prefix: &[String]) -> Vec<Branch> {
    let mut acc: Vec<Branch> = vec![Vec::new()];
    for (k, v) in object {
        if k == "$or" {
            let all: Vec<Branch> = v
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|alt| branches(alt.as_object().unwrap(), prefix))
                .collect();
            acc = product(&acc, &all);
            continue;
        }
        let mut path = prefix.to_vec();
        path.push(k.clone());
        match v {
            Value::Array(values) => {
                for b in &mut acc {
                    b.push((path.clone(), values.clone()));
                }
            }
            Value::Object(inner) => acc = product(&acc, &branches(inner, &path)),
            _ => unreachable!("valid patterns only"),
        }
    }
    acc
}

fn branch_matches(branch: &Branch, leaves: &[Leaf]) -> bool {
    let absent = serde_json::json!({"exists": false});
    let mut candidates: Vec<Vec<&Leaf>> = Vec::new();
    for (path, values) in branch {
        let at: Vec<&Leaf> = leaves.iter().filter(|l| &l.path == path).collect();
        if at.is_empty() {
            if values.contains(&absent) {
                continue;
            }
            return false;
        }
        candidates.push(
            at.into_iter()
                .filter(|l| {
                    values
                        .iter()
                        .any(|p| *p != absent && value_matches(p, &l.value))
                })
                .collect(),
        );
    }
    any_combination(&candidates, &mut Vec::new())
}

/// Try every combination; accept one whose members are pairwise compatible.
fn any_combination<'a>(candidates: &[Vec<&'a Leaf>], chosen: &mut Vec<&'a Leaf>) -> bool {
    match candidates.split_first() {
        None => chosen
            .iter()
            .all(|a| chosen.iter().all(|b| compatible(&a.trail, &b.trail))),
        Some((first, rest)) => first.iter().any(|leaf| {
            chosen.push(leaf);
            let ok = any_combination(rest, chosen);
            chosen.pop();
            ok
        }),
    }
}

/// Two values are compatible unless they lie in different elements of one array.
fn compatible(a: &Trail, b: &Trail) -> bool {
    a.iter()
        .all(|(array, i)| b.iter().all(|(other, j)| array != other || i == j))
}

fn key(x: f64) -> Option<i64> {
    (-5e9..=5e9)
        .contains(&x)
        .then_some((1e6 * (5e9 + x)) as i64)
}

fn num_key(n: &Number) -> Option<i64> {
    key(n.as_f64().unwrap())
}

fn value_matches(p: &Value, e: &Value) -> bool {
    match p {
        Value::Object(op) => {
            let (name, operand) = op.iter().next().unwrap();
            operator_matches(name, operand, e)
        }
        Value::Number(n) => match e {
            Value::Number(m) => n == m || (num_key(n).is_some() && num_key(n) == num_key(m)),
            _ => false,
        },
        other => other == e,
    }
}

fn lower(s: &Value) -> String {
    s.as_str().unwrap().to_lowercase()
}

fn operator_matches(name: &str, operand: &Value, e: &Value) -> bool {
    let s = e.as_str();
    match name {
        "exists" => operand == &Value::Bool(true),
        "prefix" => match operand {
            Value::String(p) => s.is_some_and(|s| s.starts_with(p.as_str())),
            o => s.is_some_and(|s| {
                s.to_lowercase()
                    .starts_with(&lower(&o["equals-ignore-case"]))
            }),
        },
        "suffix" => match operand {
            Value::String(p) => s.is_some_and(|s| s.ends_with(p.as_str())),
            o => s.is_some_and(|s| s.to_lowercase().ends_with(&lower(&o["equals-ignore-case"]))),
        },
        "equals-ignore-case" => s.is_some_and(|s| s.to_lowercase() == lower(operand)),
        "wildcard" => s.is_some_and(|s| wildcard(operand.as_str().unwrap(), s)),
        "cidr" => s.is_some_and(|s| cidr(operand.as_str().unwrap(), s)),
        "numeric" => match e {
            Value::Number(n) => num_key(n).is_some_and(|k| {
                operand.as_array().unwrap().chunks(2).all(|term| {
                    let bound = num_key(term[1].as_number().unwrap()).unwrap();
                    match term[0].as_str().unwrap() {
                        "=" => k == bound,
                        "<" => k < bound,
                        "<=" => k <= bound,
                        ">" => k > bound,
                        ">=" => k >= bound,
                        _ => unreachable!(),
                    }
                })
            }),
            _ => false,
        },
        "anything-but" => !excluded(operand, e),
        _ => unreachable!("unknown operator {name}"),
    }
}

/// Whether `e` is what an `anything-but` operand excludes.
fn excluded(operand: &Value, e: &Value) -> bool {
    match operand {
        Value::Array(list) => list.iter().any(|x| excluded(x, e)),
        Value::String(_) => operand == e,
        Value::Number(n) => {
            matches!(e, Value::Number(m) if num_key(m).is_some() && num_key(n) == num_key(m))
        }
        Value::Object(op) => {
            let (name, inner) = op.iter().next().unwrap();
            match name.as_str() {
                "equals-ignore-case" => match inner {
                    Value::Array(list) => list.iter().any(|x| operator_matches(name, x, e)),
                    x => operator_matches(name, x, e),
                },
                _ => operator_matches(name, inner, e),
            }
        }
        _ => unreachable!(),
    }
}

/// Backtracking glob: `*` any run, `\*` and `\\` literal.
fn wildcard(pattern: &str, s: &str) -> bool {
    let mut tokens = Vec::new(); // None = star
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => tokens.push(Some(chars.next().unwrap())),
            '*' => tokens.push(None),
            c => tokens.push(Some(c)),
        }
    }
    let s: Vec<char> = s.chars().collect();
    glob(&tokens, &s)
}

fn glob(tokens: &[Option<char>], s: &[char]) -> bool {
    match tokens.split_first() {
        None => s.is_empty(),
        Some((None, rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        Some((Some(c), rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

fn cidr(block: &str, s: &str) -> bool {
    let (addr, len) = block.split_once('/').unwrap();
    let len: u32 = len.parse().unwrap();
    match (addr.parse::<IpAddr>().unwrap(), s.parse::<IpAddr>()) {
        (IpAddr::V4(net), Ok(IpAddr::V4(ip))) => {
            let shift = 32 - len;
            u32::from(net).checked_shr(shift).unwrap_or(0)
                == u32::from(ip).checked_shr(shift).unwrap_or(0)
        }
        (IpAddr::V6(net), Ok(IpAddr::V6(ip))) => {
            let shift = 128 - len;
            u128::from(net).checked_shr(shift).unwrap_or(0)
                == u128::from(ip).checked_shr(shift).unwrap_or(0)
        }
        _ => false,
    }
}
