//! Property: the compiled `Matcher` agrees with the reference evaluator
//! (`ttlstream_filters::reference`), on its bytes (compact and pretty, lazy
//! and strict) and its `Value` entry point, and `to_json` round-trips.
#![allow(clippy::unwrap_used)]

use crate::common;
use ttlstream_filters::reference;

use proptest::prelude::*;
use serde_json::{Value, json};
use ttlstream_filters::{Dialect, Matcher, Pattern};

/// Field names, one with a dot: `a.b` names the same field as `a` then `b`.
const NAMES: &[&str] = &["a", "b", "c", "a.b"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(str::to_owned)
}

fn text() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        "x",
        "xy",
        "X",
        "yx",
        "",
        "Xy",
        "10.0.0.1",
        "10.0.1.9",
        "2001:db8::1",
    ])
    .prop_map(|s| json!(s))
}

fn number() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(-2),
        json!(0),
        json!(1),
        json!(1.5),
        json!(300),
        json!(300.0),
        json!(3e2),
        json!(7e9),
    ])
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        text(),
        number(),
        Just(json!(true)),
        Just(json!(false)),
        Just(Value::Null)
    ]
}

fn in_range() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![json!(-2), json!(0), json!(1), json!(1.5), json!(300)])
}

fn operator() -> impl Strategy<Value = Value> {
    let words = || prop::sample::select(vec!["x", "X", "y", "xy", "10."]);
    let globs = prop::sample::select(vec!["x*", "*y", "*", "x*y", "\\*", "*x*"]);
    let ops = prop::sample::select(vec!["=", "<", "<=", ">", ">="]);
    prop_oneof![
        words().prop_map(|s| json!({"prefix": s})),
        words().prop_map(|s| json!({"suffix": s})),
        words().prop_map(|s| json!({"equals-ignore-case": s})),
        words().prop_map(|s| json!({"prefix": {"equals-ignore-case": s}})),
        words().prop_map(|s| json!({"suffix": {"equals-ignore-case": s}})),
        globs.clone().prop_map(|s| json!({"wildcard": s})),
        text().prop_map(|s| json!({"anything-but": s})),
        prop::collection::vec(text(), 1..3).prop_map(|l| json!({"anything-but": l})),
        in_range().prop_map(|n| json!({"anything-but": n})),
        prop::collection::vec(in_range(), 1..3).prop_map(|l| json!({"anything-but": l})),
        words().prop_map(|s| json!({"anything-but": {"prefix": s}})),
        words().prop_map(|s| json!({"anything-but": {"suffix": s}})),
        words().prop_map(|s| json!({"anything-but": {"equals-ignore-case": [s]}})),
        globs
            .clone()
            .prop_map(|s| json!({"anything-but": {"wildcard": s}})),
        prop::collection::vec(words(), 1..3).prop_map(|l| json!({"anything-but": {"prefix": l}})),
        prop::collection::vec(words(), 1..3).prop_map(|l| json!({"anything-but": {"suffix": l}})),
        prop::collection::vec(globs, 1..3).prop_map(|l| json!({"anything-but": {"wildcard": l}})),
        (ops, in_range()).prop_map(|(op, n)| json!({"numeric": [op, n]})),
        (in_range(), in_range(), any::<bool>(), any::<bool>()).prop_map(|(a, b, lo, hi)| {
            json!({"numeric": [if lo { ">=" } else { ">" }, a, if hi { "<=" } else { "<" }, b]})
        }),
        any::<bool>().prop_map(|b| json!({"exists": b})),
        prop::sample::select(vec![
            "10.0.0.0/24",
            "10.0.0.1/32",
            "0.0.0.0/0",
            "2001:db8::/32"
        ])
        .prop_map(|c| json!({"cidr": c})),
    ]
}

fn match_value() -> impl Strategy<Value = Value> {
    prop_oneof![2 => scalar(), 3 => operator()]
}

/// A pattern object: 1..3 fields (arrays of values or nested objects), maybe a `$or`.
fn pattern(depth: u32) -> BoxedStrategy<Value> {
    common::pattern_object(depth, name, match_value, 4, 0.3, 4)
}

fn event_value(depth: u32) -> BoxedStrategy<Value> {
    if depth == 0 {
        return scalar().boxed();
    }
    prop_oneof![
        3 => scalar(),
        2 => prop::collection::btree_map(name(), event_value(depth - 1), 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        2 => prop::collection::vec(event_value(depth - 1), 0..4).prop_map(Value::Array),
    ]
    .boxed()
}

fn event() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(name(), event_value(3), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn one_pattern_agrees_with_reference(pattern_json in pattern(2), events in prop::collection::vec(event(), 1..6)) {
        let parsed = Pattern::from_value_with(&pattern_json, Dialect::EventBridge);
        // A generated numeric range may be empty (low >= high): AWS rejects it too.
        prop_assume!(parsed.is_ok());
        let parsed = parsed.unwrap();
        let matcher = Matcher::new([(0u8, parsed.clone())]);
        for event in &events {
            let expected = reference::matches(&parsed, event);
            let by_value = !matcher.matches_value(event).is_empty();
            let by_bytes = !matcher.matches(event.to_string().as_bytes()).unwrap().is_empty();
            let pretty = serde_json::to_string_pretty(event).unwrap();
            let by_pretty_bytes = !matcher.matches(pretty.as_bytes()).unwrap().is_empty();
            let strictly = !matcher.matches_strict(event.to_string().as_bytes()).unwrap().is_empty();
            prop_assert_eq!(by_value, expected, "matches_value, pattern {} event {}", pattern_json, event);
            prop_assert_eq!(by_bytes, expected, "matches, pattern {} event {}", pattern_json, event);
            prop_assert_eq!(by_pretty_bytes, expected, "matches, pattern {} event {}", pattern_json, pretty);
            prop_assert_eq!(strictly, expected, "matches_strict, pattern {} event {}", pattern_json, event);
        }
        // An event cut short never matches, and reading it whole is an error.
        for event in &events {
            let compact = event.to_string();
            let cut = &compact.as_bytes()[..compact.len() - 1];
            prop_assert!(matcher.matches(cut).is_ok_and(|ids| ids.is_empty()) || matcher.matches(cut).is_err());
            prop_assert!(matcher.matches_strict(cut).is_err());
        }
        // Normal form round-trips.
        let normal = parsed.to_json();
        let reparsed = Pattern::from_value_with(&normal, Dialect::EventBridge).unwrap();
        prop_assert_eq!(&reparsed, &parsed, "normal form {}", normal);
    }

    #[test]
    fn many_patterns_report_each_matching_id_once_in_first_insertion_order(
        entries in prop::collection::vec((0u8..4, pattern(1)), 1..6),
        event in event(),
    ) {
        let mut patterns = Vec::new();
        for (id, json) in &entries {
            let parsed = Pattern::from_value_with(json, Dialect::EventBridge);
            prop_assume!(parsed.is_ok());
            patterns.push((*id, parsed.unwrap()));
        }
        let matcher = Matcher::new(patterns.clone());
        let mut expected: Vec<u8> = Vec::new();
        let mut first_seen: Vec<u8> = Vec::new();
        for (id, _) in &entries {
            if !first_seen.contains(id) {
                first_seen.push(*id);
            }
        }
        for id in first_seen {
            if patterns.iter().any(|(i, p)| *i == id && reference::matches(p, &event)) {
                expected.push(id);
            }
        }
        prop_assert_eq!(matcher.matches_value(&event), expected.clone());
        prop_assert_eq!(matcher.matches_strict(event.to_string().as_bytes()).unwrap(), expected.clone());
        prop_assert_eq!(matcher.matches(event.to_string().as_bytes()).unwrap(), expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let matcher = Matcher::new([(0u8, Pattern::parse(r#"{"a": ["x"], "b": {"c": [{"exists": false}]}}"#).unwrap())]);
        let lazy = matcher.matches(&bytes);
        // Whatever strict mode accepts, lazy mode accepts with the same answer.
        if let Ok(ids) = matcher.matches_strict(&bytes) {
            prop_assert_eq!(lazy, Ok(ids));
        }
    }

    #[test]
    fn arbitrary_pattern_text_never_panics(text in "[\\[\\]{}\":,a-c0-9 .*$-]{0,40}") {
        let _ = Pattern::parse_with(&text, Dialect::EventBridge);
        let _ = ttlstream_filters::parse_filter_file(&text);
    }
}
