//! Exact values, nesting, OR within a field, AND across fields, arrays, exists.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::check;
use serde_json::json;

#[test]
fn strings_match_exactly_and_case_sensitively() {
    check(
        r#"{"eventName": ["REMOVE"]}"#,
        &[
            json!({"eventName": "REMOVE"}),
            json!({"eventName": "REMOVE", "x": 1}),
        ],
        &[
            json!({"eventName": "remove"}),
            json!({"eventName": "REMOVE "}),
            json!({"eventName": ["INSERT"]}),
            json!({"other": "REMOVE"}),
            json!({}),
        ],
    );
}

#[test]
fn empty_string_matches_only_empty_string() {
    check(
        r#"{"LastName": [""]}"#,
        &[json!({"LastName": ""})],
        &[
            json!({"LastName": " "}),
            json!({"LastName": null}),
            json!({}),
        ],
    );
}

#[test]
fn numbers_match_numerically() {
    // AWS compares numbers by value (to six decimals, within ±5e9):
    // 300 matches 300.0 and 3e2, but never the string "300".
    check(
        r#"{"n": [300]}"#,
        &[
            json!({"n": 300}),
            json!({"n": 300.0}),
            json!({"n": 3e2}),
            json!({"n": 300.000_000_1}),
        ],
        &[
            json!({"n": "300"}),
            json!({"n": 301}),
            json!({"n": 300.001}),
            json!({"n": -300}),
        ],
    );
    check(
        r#"{"n": [1.5]}"#,
        &[json!({"n": 1.5}), json!({"n": 1.50})],
        &[json!({"n": 1})],
    );
    check(
        r#"{"n": [0]}"#,
        &[json!({"n": 0}), json!({"n": -0.0})],
        &[json!({"n": false}), json!({"n": null})],
    );
}

#[test]
fn numbers_outside_the_comparable_range_match_by_equal_value() {
    // An AWS account id is beyond 5e9: it still matches itself exactly.
    check(
        r#"{"account": [123456789012]}"#,
        &[json!({"account": 123_456_789_012_u64})],
        &[
            json!({"account": 123_456_789_013_u64}),
            json!({"account": "123456789012"}),
        ],
    );
}

#[test]
fn booleans_and_null_match_only_themselves() {
    check(
        r#"{"b": [true]}"#,
        &[json!({"b": true})],
        &[json!({"b": false}), json!({"b": "true"}), json!({"b": 1})],
    );
    check(
        r#"{"b": [false]}"#,
        &[json!({"b": false})],
        &[json!({"b": true}), json!({"b": null}), json!({})],
    );
    check(
        r#"{"u": [null]}"#,
        &[json!({"u": null})],
        &[
            json!({"u": "null"}),
            json!({"u": false}),
            json!({"u": ""}),
            json!({}),
        ],
    );
}

#[test]
fn values_in_one_array_are_ored() {
    check(
        r#"{"eventName": ["INSERT", "MODIFY", 5, null]}"#,
        &[
            json!({"eventName": "INSERT"}),
            json!({"eventName": "MODIFY"}),
            json!({"eventName": 5}),
            json!({"eventName": null}),
        ],
        &[json!({"eventName": "REMOVE"}), json!({"eventName": 6})],
    );
}

#[test]
fn fields_are_anded_at_every_level() {
    let pattern = r#"{"a": ["1"], "b": {"c": ["2"], "d": {"e": [3]}}}"#;
    check(
        pattern,
        &[json!({"a": "1", "b": {"c": "2", "d": {"e": 3}}, "z": 0})],
        &[
            json!({"a": "1", "b": {"c": "2", "d": {"e": 4}}}),
            json!({"a": "1", "b": {"c": "2"}}),
            json!({"b": {"c": "2", "d": {"e": 3}}}),
            json!({"a": "1", "b": "2"}),
        ],
    );
}

#[test]
fn an_event_array_matches_when_any_element_matches() {
    check(
        r#"{"tags": ["red"]}"#,
        &[
            json!({"tags": ["blue", "red"]}),
            json!({"tags": [["red"]]}),
            json!({"tags": "red"}),
        ],
        &[
            json!({"tags": []}),
            json!({"tags": ["blue"]}),
            json!({"tags": [{"red": 1}]}),
        ],
    );
    check(
        r#"{"items": {"sku": ["A"]}}"#,
        &[json!({"items": [{"sku": "B"}, {"sku": "A"}]})],
        &[json!({"items": [{"sku": "B"}]}), json!({"items": []})],
    );
}

#[test]
fn exists_true_needs_a_leaf_value_and_exists_false_needs_none() {
    // AWS: "exists matching only works on leaf nodes. It does not work on
    // intermediate nodes." A null value is a value.
    check(
        r#"{"a": [{"exists": true}]}"#,
        &[
            json!({"a": 1}),
            json!({"a": null}),
            json!({"a": ""}),
            json!({"a": [1]}),
        ],
        &[
            json!({}),
            json!({"a": {"b": 1}}),
            json!({"a": []}),
            json!({"b": 1}),
        ],
    );
    check(
        r#"{"a": [{"exists": false}]}"#,
        &[
            json!({}),
            json!({"a": {"b": 1}}),
            json!({"a": []}),
            json!({"b": 1}),
        ],
        &[json!({"a": 1}), json!({"a": null}), json!({"a": [1]})],
    );
}

#[test]
fn exists_false_combines_with_other_fields() {
    // "a user's REMOVE": no userIdentity at all.
    check(
        r#"{"eventName": ["REMOVE"], "userIdentity": {"type": [{"exists": false}]}}"#,
        &[json!({"eventName": "REMOVE"})],
        &[
            json!({"eventName": "REMOVE", "userIdentity": {"type": "Service"}}),
            json!({"eventName": "INSERT"}),
        ],
    );
    check(
        r#"{"a": ["x", {"exists": false}]}"#,
        &[json!({}), json!({"a": "x"})],
        &[json!({"a": "y"})],
    );
}

#[test]
fn dynamodb_json_is_matched_as_written() {
    // Lambda matches the record as delivered: attribute values keep their
    // DynamoDB-JSON type keys, and N values are strings.
    let record = json!({"eventName": "REMOVE", "dynamodb": {"OldImage": {
        "status": {"S": "expired"}, "count": {"N": "5"}, "flags": {"L": [{"S": "a"}, {"S": "b"}]}}}});
    check(
        r#"{"dynamodb": {"OldImage": {"status": {"S": ["expired"]}}}}"#,
        std::slice::from_ref(&record),
        &[],
    );
    check(
        r#"{"dynamodb": {"OldImage": {"count": {"N": ["5"]}}}}"#,
        std::slice::from_ref(&record),
        &[],
    );
    check(
        r#"{"dynamodb": {"OldImage": {"count": {"N": [5]}}}}"#,
        &[],
        std::slice::from_ref(&record),
    );
    check(
        r#"{"dynamodb": {"OldImage": {"flags": {"L": {"S": ["b"]}}}}}"#,
        &[record],
        &[],
    );
}
