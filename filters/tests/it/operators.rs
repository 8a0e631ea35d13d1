//! Every operator of the full (EventBridge) language: matching and not matching.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::check;
use serde_json::json;
use ttlstream_filters::{Dialect, Matcher, Pattern};

#[test]
fn prefix_and_suffix_match_strings_only() {
    check(
        r#"{"time": [{"prefix": "2017-10-02"}]}"#,
        &[
            json!({"time": "2017-10-02T18:43:48Z"}),
            json!({"time": "2017-10-02"}),
        ],
        &[
            json!({"time": "2017-10-03T00:00:00Z"}),
            json!({"time": "x2017-10-02"}),
            json!({"time": 2017}),
        ],
    );
    check(
        r#"{"FileName": [{"suffix": ".png"}]}"#,
        &[
            json!({"FileName": "image.png"}),
            json!({"FileName": ".png"}),
        ],
        &[
            json!({"FileName": "image.PNG"}),
            json!({"FileName": "image.png.txt"}),
        ],
    );
    check(
        r#"{"n": [{"prefix": "1"}]}"#,
        &[json!({"n": "12"})],
        &[json!({"n": 12})],
    );
    check(
        r#"{"s": [{"prefix": ""}]}"#,
        &[json!({"s": ""}), json!({"s": "x"})],
        &[json!({"s": 1}), json!({"s": null})],
    );
}

#[test]
fn equals_ignore_case_and_its_prefix_suffix_forms() {
    check(
        r#"{"name": [{"equals-ignore-case": "alice"}]}"#,
        &[
            json!({"name": "Alice"}),
            json!({"name": "ALICE"}),
            json!({"name": "alice"}),
        ],
        &[json!({"name": "Alice "}), json!({"name": "alicia"})],
    );
    check(
        r#"{"service": [{"prefix": {"equals-ignore-case": "EventB"}}]}"#,
        &[
            json!({"service": "eventbridge"}),
            json!({"service": "EVENTB"}),
        ],
        &[json!({"service": "event-bridge"})],
    );
    check(
        r#"{"FileName": [{"suffix": {"equals-ignore-case": ".png"}}]}"#,
        &[json!({"FileName": "a.PNG"}), json!({"FileName": "b.png"})],
        &[json!({"FileName": "a.jpg"})],
    );
    check(
        r#"{"name": [{"equals-ignore-case": "ÉCOLE"}]}"#,
        &[json!({"name": "école"})],
        &[json!({"name": "ecole"})],
    );
}

#[test]
fn anything_but_values_and_lists() {
    check(
        r#"{"state": [{"anything-but": "initializing"}]}"#,
        &[
            json!({"state": "running"}),
            json!({"state": "Initializing"}),
            json!({"state": 5}),
            json!({"state": null}),
        ],
        &[
            json!({"state": "initializing"}),
            json!({}),
            json!({"state": {"x": 1}}),
        ],
    );
    check(
        r#"{"state": [{"anything-but": ["stopped", "overloaded"]}]}"#,
        &[json!({"state": "running"})],
        &[json!({"state": "stopped"}), json!({"state": "overloaded"})],
    );
    check(
        r#"{"x-limit": [{"anything-but": [100, 200.0]}]}"#,
        &[json!({"x-limit": 150}), json!({"x-limit": "100"})],
        &[
            json!({"x-limit": 100}),
            json!({"x-limit": 100.0}),
            json!({"x-limit": 200}),
        ],
    );
    // An array in the event matches when any element is not excluded.
    check(
        r#"{"tags": [{"anything-but": "red"}]}"#,
        &[json!({"tags": ["red", "blue"]})],
        &[json!({"tags": ["red"]}), json!({"tags": []})],
    );
}

#[test]
fn anything_but_prefix_suffix_ignore_case_and_wildcard() {
    check(
        r#"{"Region": [{"anything-but": {"prefix": "us-"}}]}"#,
        &[
            json!({"Region": "eu-west-1"}),
            json!({"Region": "US-east-1"}),
        ],
        &[json!({"Region": "us-east-1"})],
    );
    check(
        r#"{"FileName": [{"anything-but": {"suffix": ".png"}}]}"#,
        &[json!({"FileName": "a.jpg"})],
        &[json!({"FileName": "a.png"})],
    );
    check(
        r#"{"state": [{"anything-but": {"equals-ignore-case": ["Stopped", "overloaded"]}}]}"#,
        &[json!({"state": "running"})],
        &[json!({"state": "STOPPED"}), json!({"state": "Overloaded"})],
    );
    check(
        r#"{"FilePath": [{"anything-but": {"wildcard": "*/lib/*"}}]}"#,
        &[json!({"FilePath": "/usr/bin/x"})],
        &[json!({"FilePath": "/usr/lib/x"})],
    );
}

/// "Content filtering in Amazon EventBridge event patterns", section
/// "Anything-but matching": `prefix`, `suffix` and `wildcard` take a list of
/// values as well as one (`{"anything-but": {"prefix": ["us-", "eu-"]}}`;
/// `aws/event-ruler` `JsonRuleCompiler.processAnythingButValuesSetMatchExpression`).
#[test]
fn anything_but_takes_lists_of_prefixes_suffixes_and_wildcards() {
    check(
        r#"{"Region": [{"anything-but": {"prefix": ["us-", "eu-"]}}]}"#,
        &[
            json!({"Region": "ap-south-1"}),
            json!({"Region": "US-east-1"}),
        ],
        &[
            json!({"Region": "us-east-1"}),
            json!({"Region": "eu-west-1"}),
        ],
    );
    check(
        r#"{"FileName": [{"anything-but": {"suffix": [".png", ".jpg"]}}]}"#,
        &[json!({"FileName": "a.gif"})],
        &[json!({"FileName": "a.png"}), json!({"FileName": "b.jpg"})],
    );
    check(
        r#"{"FilePath": [{"anything-but": {"wildcard": ["*/lib/*", "*/bin/*"]}}]}"#,
        &[json!({"FilePath": "/usr/share/x"})],
        &[
            json!({"FilePath": "/usr/lib/x"}),
            json!({"FilePath": "/usr/bin/x"}),
        ],
    );
    // A list of one is the single value.
    check(
        r#"{"Region": [{"anything-but": {"prefix": ["us-"]}}]}"#,
        &[json!({"Region": "eu-west-1"})],
        &[json!({"Region": "us-east-1"})],
    );
}

#[test]
fn numeric_comparisons_and_ranges() {
    check(
        r#"{"c": [{"numeric": [">", 0, "<=", 5]}]}"#,
        &[
            json!({"c": 5}),
            json!({"c": 0.000_001}),
            json!({"c": 5.0}),
            json!({"c": [9, 3]}),
        ],
        &[
            json!({"c": 0}),
            json!({"c": 5.000_001}),
            json!({"c": "3"}),
            json!({"c": -1}),
            json!({}),
        ],
    );
    check(
        r#"{"c": [{"numeric": [">=", 10, "<", 20]}]}"#,
        &[json!({"c": 10}), json!({"c": 19.999_999})],
        &[json!({"c": 20})],
    );
    check(
        r#"{"c": [{"numeric": ["<", 10]}]}"#,
        &[json!({"c": -5e9}), json!({"c": 9})],
        &[json!({"c": 10})],
    );
    check(
        r#"{"c": [{"numeric": ["<=", 10]}]}"#,
        &[json!({"c": 10})],
        &[json!({"c": 10.000_001})],
    );
    check(
        r#"{"c": [{"numeric": [">", 10]}]}"#,
        &[json!({"c": 5e9})],
        &[json!({"c": 10}), json!({"c": 6e9})],
    );
    check(
        r#"{"c": [{"numeric": [">=", 10]}]}"#,
        &[json!({"c": 10})],
        &[json!({"c": 9.999_999})],
    );
    check(
        r#"{"c": [{"numeric": ["=", 301.8]}]}"#,
        &[json!({"c": 301.8}), json!({"c": 3.018e2})],
        &[json!({"c": 301.81}), json!({"c": "301.8"})],
    );
}

#[test]
fn exists_inside_nested_objects() {
    check(
        r#"{"detail": {"state": [{"exists": true}]}}"#,
        &[json!({"detail": {"state": "x"}})],
        &[json!({"detail": {}}), json!({"detail": "state"})],
    );
}

#[test]
fn wildcard_matches_whole_strings() {
    check(
        r#"{"EventBusArn": [{"wildcard": "arn:aws:events:us-east-1:*:event-bus/*"}]}"#,
        &[json!({"EventBusArn": "arn:aws:events:us-east-1:123456789012:event-bus/default"})],
        &[json!({"EventBusArn": "arn:aws:events:us-west-2:123456789012:event-bus/default"})],
    );
    check(
        r#"{"k": [{"wildcard": "a\\*b"}]}"#,
        &[json!({"k": "a*b"})],
        &[json!({"k": "axb"})],
    );
    check(
        r#"{"k": [{"wildcard": "*"}]}"#,
        &[json!({"k": ""}), json!({"k": "x"})],
        &[json!({"k": 1})],
    );
}

#[test]
fn cidr_matches_ipv4_and_ipv6_strings() {
    check(
        r#"{"sourceIPAddress": [{"cidr": "10.0.0.0/24"}]}"#,
        &[json!({"sourceIPAddress": "10.0.0.255"})],
        &[
            json!({"sourceIPAddress": "10.0.1.0"}),
            json!({"sourceIPAddress": "::1"}),
            json!({"sourceIPAddress": "x"}),
        ],
    );
    check(
        r#"{"ip": [{"cidr": "2001:db8::/32"}]}"#,
        &[json!({"ip": "2001:db8::ff00:42:8329"})],
        &[json!({"ip": "2001:db9::1"}), json!({"ip": "10.0.0.1"})],
    );
}

#[test]
fn or_across_fields_combines_with_and() {
    let pattern = r#"{"source": ["aws.cloudwatch"], "$or": [
        {"metricName": ["CPUUtilization", "ReadLatency"]},
        {"metricType": ["MetricType"], "namespace": ["AWS/EC2", "AWS/ES"]},
        {"scope": ["Service"]}]}"#;
    check(
        pattern,
        &[
            json!({"source": "aws.cloudwatch", "metricName": "ReadLatency"}),
            json!({"source": "aws.cloudwatch", "metricType": "MetricType", "namespace": "AWS/ES"}),
            json!({"source": "aws.cloudwatch", "scope": "Service"}),
        ],
        &[
            json!({"source": "aws.ec2", "scope": "Service"}),
            json!({"source": "aws.cloudwatch", "metricType": "MetricType"}),
            json!({"source": "aws.cloudwatch"}),
        ],
    );
}

#[test]
fn or_nests_inside_objects_and_inside_or() {
    let pattern = r#"{"detail": {"$or": [
        {"c-count": [{"numeric": [">", 0, "<=", 5]}]},
        {"$or": [{"d-count": [{"numeric": ["<", 10]}]}, {"x-limit": [{"anything-but": [100]}]}]}]}}"#;
    check(
        pattern,
        &[
            json!({"detail": {"c-count": 3}}),
            json!({"detail": {"d-count": 1}}),
            json!({"detail": {"x-limit": 5}}),
        ],
        &[
            json!({"detail": {"c-count": 9, "d-count": 10, "x-limit": 100}}),
            json!({"c-count": 3}),
        ],
    );
}

#[test]
fn fields_from_different_array_elements_never_combine() {
    let pattern = r#"{"items": {"color": ["red"], "size": ["L"]}}"#;
    check(
        pattern,
        &[json!({"items": [{"color": "blue", "size": "L"}, {"color": "red", "size": "L"}]})],
        &[json!({"items": [{"color": "red", "size": "S"}, {"color": "blue", "size": "L"}]})],
    );
    // Fields outside the array combine with any element.
    check(
        r#"{"id": ["1"], "items": {"color": ["red"]}}"#,
        &[json!({"id": "1", "items": [{"color": "blue"}, {"color": "red"}]})],
        &[json!({"id": "2", "items": [{"color": "red"}]})],
    );
    // Nested arrays: both values must come from one inner object.
    check(
        r#"{"a": {"b": {"x": [1], "y": [2]}}}"#,
        &[json!({"a": [{"b": [{"x": 1, "y": 2}]}]})],
        &[
            json!({"a": [{"b": [{"x": 1}, {"y": 2}]}]}),
            json!({"a": [{"b": [{"x": 1}]}, {"b": [{"y": 2}]}]}),
        ],
    );
    // Two separate arrays are independent.
    check(
        r#"{"p": {"x": [1]}, "q": {"y": [2]}}"#,
        &[json!({"p": [{"x": 0}, {"x": 1}], "q": [{"y": 2}, {"y": 3}]})],
        &[],
    );
}

#[test]
fn same_field_in_pattern_and_or_branch_must_hold_both() {
    // ttlstream ANDs them (see PATTERNS.md: AWS's compiler lets the later key win).
    check(
        r#"{"a": [{"prefix": "x"}], "$or": [{"a": ["xy"]}, {"b": ["1"]}]}"#,
        &[json!({"a": "xy"}), json!({"a": "xz", "b": "1"})],
        &[json!({"a": "zz", "b": "1"}), json!({"a": "xz"})],
    );
}

#[test]
fn numbers_near_numeric_bounds_agree_between_bytes_and_values() {
    // The byte scanner judges most numbers by their leading digits and keys
    // the rest in one pass; `matches_value` keys the parsed `f64`.
    let pattern =
        r#"{"c": [{"numeric": [">=", -122.5, "<", -122.496]}, {"numeric": ["=", 37.5]}]}"#;
    let m = Matcher::new([(
        (),
        Pattern::parse_with(pattern, Dialect::EventBridge).unwrap(),
    )]);
    let mut texts: Vec<String> = [
        "-122.5",
        "-122.500000",
        "-122.500000267552821",
        "-122.500001",
        "-122.5000009999999999",
        "-122.496",
        "-122.496000736745813",
        "-122.495999999",
        "-122.4959999999999999",
        "-122",
        "-123",
        "37.5",
        "37.5000001",
        "37.499999",
        "-122.49800000000000000000001",
        "-1.22498e2",
        "0",
        "-0.0",
        "12345678901234567890",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for i in 0..3000u64 {
        let digits = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 10_000_000_000_000_000;
        texts.push(format!("-122.49{digits:016}"));
        texts.push(format!("-122.50{:04}", i));
        texts.push(format!("-122.4959{:012}", i * 7919));
    }
    for text in &texts {
        let event = format!(r#"{{"c": [[{text}, 37.1, 0.0]], "d": 1}}"#);
        let value: serde_json::Value = serde_json::from_str(&event).unwrap();
        let by_value = !m.matches_value(&value).is_empty();
        let by_bytes = !m.matches(event.as_bytes()).unwrap().is_empty();
        let strictly = !m.matches_strict(event.as_bytes()).unwrap().is_empty();
        assert_eq!(by_bytes, by_value, "{text}");
        assert_eq!(strictly, by_value, "{text}");
        // Compact, as the router writes events: read by the numeric-array
        // fast path where the CPU has SIMD.
        let compact = format!(r#"{{"c":[[{text},37.1,0.0]],"d":1}}"#);
        let by_compact = !m.matches(compact.as_bytes()).unwrap().is_empty();
        assert_eq!(by_compact, by_value, "{text}");
    }
    // The documented key rounding: just below the bound has the bound's key.
    let hit = |text: &str| {
        !m.matches(format!(r#"{{"c": [{text}]}}"#).as_bytes())
            .unwrap()
            .is_empty()
    };
    assert!(hit("-122.500000267552821"));
    assert!(!hit("-122.496000736745813"));
    assert!(!hit("-122.500001"));
    assert!(hit("-122.4960009"));
}

#[test]
fn many_tests_at_one_path_are_each_seen() {
    // Up to 64 tests at a path, a value's satisfied tests are kept as bits;
    // past 64 every pattern's tests run again. Both sides of that line.
    for count in [63usize, 64, 65, 70] {
        let patterns: Vec<(usize, Pattern)> = (0..count)
            .map(|i| {
                let text = match i % 3 {
                    0 => format!(r#"{{"a": ["v{i}"], "b": [{{"anything-but": ["x{i}"]}}]}}"#),
                    1 => format!(r#"{{"a": [{{"prefix": "p{i}-"}}]}}"#),
                    _ => format!(r#"{{"a": [{{"numeric": [">", {i}, "<=", {}]}}]}}"#, i + 1),
                };
                (i, Pattern::parse_with(&text, Dialect::EventBridge).unwrap())
            })
            .collect();
        let matcher = Matcher::new(patterns);
        for i in 0..count {
            let value = match i % 3 {
                0 => json!(format!("v{i}")),
                1 => json!(format!("p{i}-rest")),
                _ => json!(i as f64 + 0.5),
            };
            for (event, want) in [
                (json!({"a": [0, value.clone()], "b": "y"}), vec![i]),
                (
                    json!({"a": value.clone(), "b": format!("x{i}")}),
                    if i % 3 == 0 { vec![] } else { vec![i] },
                ),
                (json!({"a": "none"}), vec![]),
            ] {
                let bytes = event.to_string();
                assert_eq!(
                    matcher.matches(bytes.as_bytes()).unwrap(),
                    want,
                    "{count}: {event}"
                );
                assert_eq!(matcher.matches_value(&event), want, "{count}: {event}");
            }
        }
    }
}
