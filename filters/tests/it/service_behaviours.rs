//! Behaviours the AWS pages leave open, taken from AWS's open-source matcher
//! (`aws/event-ruler`); `filters/PATTERNS.md`, "Service behaviours", lists
//! them with their sources.
#![allow(clippy::unwrap_used)]

use crate::common::check;

use serde_json::json;
use ttlstream_filters::Pattern;

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
