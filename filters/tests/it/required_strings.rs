//! `Pattern::required_strings`: when it names a set, no event without one of
//! those strings at the path matches (checked against the matcher on
//! generated patterns and events).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use ttlstream_filters::{Dialect, Matcher, Pattern, parse_filter_file};

const WORDS: &[&str] = &["REMOVE", "INSERT", "remove", "RE", ""];

fn word() -> impl Strategy<Value = Value> {
    prop::sample::select(WORDS).prop_map(|s| json!(s))
}

fn match_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => word(),
        1 => Just(json!(5)),
        1 => Just(Value::Null),
        1 => word().prop_map(|s| json!({"prefix": s})),
        1 => word().prop_map(|s| json!({"anything-but": s})),
        1 => word().prop_map(|s| json!({"equals-ignore-case": s})),
        1 => any::<bool>().prop_map(|b| json!({"exists": b})),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b"]).prop_map(str::to_owned)
}

fn pattern(depth: u32) -> BoxedStrategy<Value> {
    common::pattern_object(depth, name, match_value, 3, 0.4, 3)
}

fn event_value(depth: u32) -> BoxedStrategy<Value> {
    let scalar = prop_oneof![4 => word(), 1 => Just(json!(5)), 1 => Just(Value::Null)];
    if depth == 0 {
        return scalar.boxed();
    }
    let names = prop::sample::select(vec!["a", "b"]).prop_map(str::to_owned);
    prop_oneof![
        3 => scalar,
        2 => prop::collection::btree_map(names, event_value(depth - 1), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        1 => prop::collection::vec(event_value(depth - 1), 0..3).prop_map(Value::Array),
    ]
    .boxed()
}

fn event() -> impl Strategy<Value = Value> {
    let names = prop::sample::select(vec!["a", "b"]).prop_map(str::to_owned);
    prop::collection::btree_map(names, event_value(2), 0..3)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// Every scalar at `path`, through arrays at any level (as matching reads).
fn values_at<'v>(value: &'v Value, path: &[&str], out: &mut Vec<&'v Value>) {
    match (value, path.split_first()) {
        (Value::Array(items), _) => items.iter().for_each(|v| values_at(v, path, out)),
        (Value::Object(map), Some((head, rest))) => {
            if let Some(v) = map.get(*head) {
                values_at(v, rest, out);
            }
        }
        (_, None) => out.push(value),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn an_event_without_a_required_string_never_matches(
        pattern_json in pattern(2),
        event in event(),
        nested in any::<bool>(),
    ) {
        let Ok(pattern) = Pattern::from_value_with(&pattern_json, Dialect::EventBridge) else {
            return Ok(());
        };
        let path: &[&str] = if nested { &["b", "a"] } else { &["a"] };
        let Some(required) = pattern.required_strings(path) else {
            return Ok(());
        };
        let mut found = Vec::new();
        values_at(&event, path, &mut found);
        let has_one = found
            .iter()
            .any(|v| v.as_str().is_some_and(|s| required.contains(s)));
        prop_assume!(!has_one);
        let matcher = Matcher::new([(0u8, pattern)]);
        let text = event.to_string();
        prop_assert!(matcher.matches(text.as_bytes()).unwrap().is_empty(), "pattern {} event {}", pattern_json, event);
        prop_assert!(matcher.matches_strict(text.as_bytes()).unwrap().is_empty(), "pattern {} event {}", pattern_json, event);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Top-level members the pattern does not name never change the outcome.
    #[test]
    fn members_no_pattern_names_do_not_change_a_match(
        pattern_json in pattern(2),
        event in event(),
    ) {
        let Ok(pattern) = Pattern::from_value_with(&pattern_json, Dialect::EventBridge) else {
            return Ok(());
        };
        let named = pattern.top_level_fields();
        let Value::Object(members) = &event else { unreachable!() };
        let kept: Map<String, Value> = members
            .iter()
            .filter(|(name, _)| named.contains(name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let kept = Value::Object(kept).to_string();
        let matcher = Matcher::new([(0u8, pattern)]);
        prop_assert_eq!(
            matcher.matches(event.to_string().as_bytes()).unwrap(),
            matcher.matches(kept.as_bytes()).unwrap(),
            "pattern {} event {} kept {}", pattern_json, event, kept
        );
    }
}

#[test]
fn top_level_fields_include_or_alternatives() {
    let pattern = Pattern::parse_with(
        r#"{"a": {"x": ["1"]}, "$or": [{"b": ["2"]}, {"c": {"d": [{"exists": true}]}}]}"#,
        Dialect::EventBridge,
    )
    .unwrap();
    assert_eq!(
        pattern.top_level_fields().into_iter().collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
}

fn required(pattern: &str, path: &[&str]) -> Option<BTreeSet<String>> {
    Pattern::parse_with(pattern, Dialect::EventBridge)
        .unwrap()
        .required_strings(path)
}

fn set(words: &[&str]) -> Option<BTreeSet<String>> {
    Some(words.iter().map(|s| (*s).to_owned()).collect())
}

#[test]
fn the_ttl_filter_requires_remove_and_its_identity() {
    let file = r#"{"Filters": [{"Pattern": "{\"eventName\":[\"REMOVE\"],\"userIdentity\":{\"type\":[\"Service\"],\"principalId\":[\"dynamodb.amazonaws.com\"]}}"}]}"#;
    let pattern = parse_filter_file(file).unwrap().remove(0);
    assert_eq!(pattern.required_strings(&["eventName"]), set(&["REMOVE"]));
    assert_eq!(
        pattern.required_strings(&["userIdentity", "type"]),
        set(&["Service"])
    );
    assert_eq!(pattern.required_strings(&["dynamodb"]), None);
    assert_eq!(pattern.required_strings(&[]), None);
}

#[test]
fn only_arrays_of_exact_strings_require() {
    let path = &["eventName"];
    assert_eq!(
        required(r#"{"eventName": ["REMOVE", "MODIFY"]}"#, path),
        set(&["MODIFY", "REMOVE"])
    );
    assert_eq!(
        required(r#"{"eventName": ["REMOVE", {"prefix": "I"}]}"#, path),
        None
    );
    assert_eq!(required(r#"{"eventName": ["REMOVE", null]}"#, path), None);
    assert_eq!(
        required(r#"{"eventName": [{"anything-but": "INSERT"}]}"#, path),
        None
    );
    assert_eq!(required(r#"{"eventName": {"x": ["REMOVE"]}}"#, path), None);
    assert_eq!(required(r#"{"eventSource": ["aws:dynamodb"]}"#, path), None);
}

#[test]
fn an_or_requires_what_every_branch_requires() {
    let path = &["eventName"];
    assert_eq!(
        required(
            r#"{"$or": [{"eventName": ["REMOVE"]}, {"eventName": ["MODIFY"], "x": ["1"]}]}"#,
            path
        ),
        set(&["MODIFY", "REMOVE"])
    );
    assert_eq!(
        required(
            r#"{"$or": [{"eventName": ["REMOVE"]}, {"x": ["1"]}]}"#,
            path
        ),
        None
    );
    assert_eq!(
        required(
            r#"{"eventName": ["REMOVE"], "$or": [{"x": ["1"]}, {"y": ["2"]}]}"#,
            path
        ),
        set(&["REMOVE"])
    );
}
