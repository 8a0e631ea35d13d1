//! Behaviours the AWS pages leave open, taken from AWS's open-source matcher
//! (`aws/event-ruler`); `filters/PATTERNS.md`, "Service behaviours", lists
//! them with their sources.
#![allow(clippy::unwrap_used)]

use crate::common::check;

use serde_json::json;
use ttlstream_filters::{Dialect, Pattern, PatternError};

/// `aws/event-ruler` README, "Caveat: Compiled rules and JSON keys with
/// dots": the rule compiler joins a path's names with `.`, so both rules
/// below "will match against" both events.
#[test]
fn keys_with_dots_and_nested_objects_name_the_same_field() {
    let events = [
        json!({"detail": {"state": {"status": "running"}}}),
        json!({"detail": {"state.status": "running"}}),
    ];
    let others = [
        json!({"detail": {"state": {"status": "stopped"}}}),
        json!({"detail": {"state.statu": "running"}}),
        json!({"detail": {"state": {"status.x": "running"}}}),
    ];
    for pattern in [
        r#"{"detail": {"state": {"status": ["running"]}}}"#,
        r#"{"detail": {"state.status": ["running"]}}"#,
        r#"{"detail.state.status": ["running"]}"#,
    ] {
        check(pattern, &events, &others);
    }
    // A dotted top-level field is tested through its first name.
    let pattern = Pattern::parse(r#"{"detail.state": ["x"], "source": ["y"]}"#).unwrap();
    assert_eq!(
        pattern.top_level_fields().into_iter().collect::<Vec<_>>(),
        ["detail", "source"]
    );
}

/// `{"exists": false}` inside arrays: AWS's matcher walks a rule's fields in
/// the order of their joined names and judges an absence against the array
/// elements of the values chosen so far (`GenericMachine.addPatternRule`
/// sorts the keys; `ACFinder.tryMustNotExistMatch` and
/// `NameState.getNameTransitions` check absence with the `ArrayMembership`
/// so far).
#[test]
fn exists_false_inside_arrays_of_arrays_is_judged_per_element() {
    // `a.b` sorts before `a.c`: `c` must be absent from the element that
    // holds the chosen `b`.
    check(
        r#"{"a": {"b": ["x"], "c": [{"exists": false}]}}"#,
        &[
            json!({"a": [[{"b": "x", "c": 1}], [{"b": "x"}]]}),
            json!({"a": [[{"b": "x"}, {"c": 1}]]}),
            json!({"a": [[{"b": "x"}]]}),
        ],
        &[
            json!({"a": [[{"b": "x", "c": 1}]]}),
            json!({"a": [[{"b": "x", "c": null}], [{"b": "y"}]]}),
            // Outside every array, `c` lies with every element.
            json!({"a": [[{"b": "x"}]], "a.c": 1}),
        ],
    );
    // `a.b` sorts before `a.c` here too, but the absence is `b`'s: it is
    // judged before any `c` is chosen, so a `b` anywhere fails it.
    check(
        r#"{"a": {"b": [{"exists": false}], "c": ["x"]}}"#,
        &[json!({"a": [[{"c": "x"}], [{"c": "y"}]]})],
        &[
            json!({"a": [[{"b": 1}], [{"c": "x"}]]}),
            json!({"a": [[{"b": 1, "c": "y"}], [{"c": "x"}]]}),
        ],
    );
}

/// Inside `$or`, AWS's rule compiler rejects a field named like an operator
/// ("... is Ruler reserved fieldName which cannot be used inside $or.",
/// `JsonRuleCompiler.parseObjectInsideOrRelationship`; the list is
/// `Constants.RESERVED_FIELD_NAMES_IN_OR_RELATIONSHIP`), at any depth of the
/// alternative; outside `$or` such a name is an ordinary field.
#[test]
fn reserved_words_cannot_name_fields_inside_or() {
    for (text, path, field) in [
        (
            r#"{"$or": [{"prefix": ["x"]}, {"b": ["y"]}]}"#,
            "$.$or[0].prefix",
            "prefix",
        ),
        (
            r#"{"$or": [{"b": ["y"]}, {"numeric": ["x"]}]}"#,
            "$.$or[1].numeric",
            "numeric",
        ),
        (
            r#"{"$or": [{"a": {"exists": ["x"]}}, {"b": ["y"]}]}"#,
            "$.$or[0].a.exists",
            "exists",
        ),
        (
            r#"{"$or": [{"anything-but": ["x"]}, {"b": ["y"]}]}"#,
            "$.$or[0].anything-but",
            "anything-but",
        ),
        (
            r#"{"$or": [{"=": ["x"]}, {"b": ["y"]}]}"#,
            r#"$.$or[0]["="]"#,
            "=",
        ),
        (
            r#"{"$or": [{"exactly": ["x"]}, {"b": ["y"]}]}"#,
            "$.$or[0].exactly",
            "exactly",
        ),
        (
            r#"{"x": {"$or": [{"b": ["y"]}, {"$or": [{"c": ["1"]}, {"wildcard": ["2"]}]}]}}"#,
            "$.x.$or[1].$or[1].wildcard",
            "wildcard",
        ),
    ] {
        for dialect in [Dialect::Lambda, Dialect::EventBridge] {
            let err = Pattern::parse_with(text, dialect).unwrap_err();
            assert!(
                matches!(&err, PatternError::ReservedFieldName { .. }),
                "{text}: {err:?}"
            );
            assert_eq!(err.path(), path, "{text}");
            assert_eq!(
                err.to_string(),
                format!("{path}: {field:?} is a reserved word and cannot name a field inside $or"),
            );
        }
    }
    // Outside `$or`, an operator name is a field like any other.
    check(
        r#"{"prefix": ["x"], "$or": [{"a": ["1"]}, {"b": ["2"]}]}"#,
        &[json!({"prefix": "x", "a": "1"})],
        &[json!({"prefix": "y", "a": "1"})],
    );
    // `$or` inside `$or` is a nested `$or`, never a field name.
    check(
        r#"{"$or": [{"$or": [{"a": ["1"]}, {"b": ["2"]}]}, {"c": ["3"]}]}"#,
        &[json!({"b": "2"}), json!({"c": "3"})],
        &[json!({"$or": "1"}), json!({"a": "2"})],
    );
    let err = Pattern::parse(r#"{"$or": [{"$or": {"a": ["1"]}}, {"c": ["3"]}]}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "$.$or[0].$or: bad $or: must be an array of objects"
    );
}

/// "Comparison operators for use in event patterns in Amazon EventBridge",
/// "Wildcards and event pattern complexity": a rule whose wildcards are too
/// complex is rejected when it is created. The measure is `aws/event-ruler`'s
/// `MachineComplexityEvaluator`: the most wildcard-pattern prefixes that one
/// input value can match at once (its tests: `*a*a*a*` has complexity 7, as
/// `aaa` matches all seven of its prefixes). The limit is 100, the one
/// event-ruler's tests evaluate with.
#[test]
fn wildcards_that_make_a_rule_too_complex_are_rejected() {
    let stars = |count: usize| format!("*{}", "a*".repeat(count));
    // `*a*...a*` with 49 `a`s: 99 prefixes, all matched by 49 `a`s.
    let fine = format!(r#"{{"a": [{{"wildcard": "{}"}}]}}"#, stars(49));
    assert!(Pattern::parse_with(&fine, Dialect::EventBridge).is_ok());
    let too_complex = format!(r#"{{"a": [{{"wildcard": "{}"}}]}}"#, stars(50));
    let err = Pattern::parse_with(&too_complex, Dialect::EventBridge).unwrap_err();
    assert!(
        matches!(&err, PatternError::WildcardComplexity { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "$.a: rule is too complex: its wildcards at this field have complexity 101, above the limit of 100 (use fewer wildcard characters, or fewer repeated characters after one)"
    );
    // The wildcards of one field add up, across `$or` alternatives too.
    let split = format!(
        r#"{{"$or": [{{"a": [{{"wildcard": "{}"}}]}}, {{"a": [{{"wildcard": "{}"}}]}}]}}"#,
        stars(25),
        "*b*".to_owned() + &"a*".repeat(25)
    );
    let err = Pattern::parse_with(&split, Dialect::EventBridge).unwrap_err();
    assert_eq!(err.path(), "$.$or[0].a");
    // Different fields are measured apart.
    let apart = format!(
        r#"{{"a": [{{"wildcard": "{}"}}], "b": [{{"wildcard": "{}"}}]}}"#,
        stars(49),
        stars(49)
    );
    assert!(Pattern::parse_with(&apart, Dialect::EventBridge).is_ok());
}
