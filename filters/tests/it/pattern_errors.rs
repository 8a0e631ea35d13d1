//! Every invalid pattern is rejected with the JSON path and the reason.
#![allow(clippy::unwrap_used)]

use ttlstream_filters::{Dialect, Pattern, PatternError};

/// Parse `text` (EventBridge: the full language), expect an error at `path`
/// whose message contains `reason`.
fn rejects(text: &str, path: &str, reason: &str) -> PatternError {
    let err = Pattern::parse_with(text, Dialect::EventBridge)
        .expect_err(&format!("{text} should be rejected"));
    assert_eq!(err.path(), path, "{text}: {err}");
    let message = err.to_string();
    assert!(message.starts_with(&format!("{path}: ")), "{message}");
    assert!(
        message.contains(reason),
        "{text}: {message:?} lacks {reason:?}"
    );
    err
}

#[test]
fn structure_errors_name_their_path() {
    rejects(r#"["a"]"#, "$", "must be a JSON object, found an array");
    rejects("{}", "$", "empty objects are not allowed");
    rejects(r#"{"a": {}}"#, "$.a", "empty objects are not allowed");
    rejects(
        r#"{"userIdentity": {"type": "Service"}}"#,
        "$.userIdentity.type",
        "must be an object or an array, found a string",
    );
    rejects(r#"{"a": 5}"#, "$.a", "found a number");
    rejects(r#"{"a": null}"#, "$.a", "found null");
    rejects(r#"{"a": true}"#, "$.a", "found a boolean");
    rejects(
        r#"{"a": {"b": []}}"#,
        "$.a.b",
        "empty arrays are not allowed",
    );
    rejects(r#"{"a": ["x", ["y"]]}"#, "$.a[1]", "found an array");
    rejects(
        r#"{"we.ird": 1}"#,
        "$[\"we.ird\"]",
        "must be an object or an array",
    );
}

#[test]
fn operator_errors_name_their_path() {
    rejects(
        r#"{"a": [{"nope": 1}]}"#,
        "$.a[0]",
        "unknown operator \"nope\"",
    );
    rejects(r#"{"a": [{}]}"#, "$.a[0]", "exactly one key, found 0");
    rejects(
        r#"{"a": [{"prefix": "x", "suffix": "y"}]}"#,
        "$.a[0]",
        "exactly one key, found 2",
    );
    rejects(
        r#"{"a": [{"exists": "yes"}]}"#,
        "$.a[0].exists",
        "expects true or false, found a string",
    );
    rejects(
        r#"{"a": [{"exists": 1}]}"#,
        "$.a[0].exists",
        "found a number",
    );
    rejects(
        r#"{"a": [{"prefix": 5}]}"#,
        "$.a[0].prefix",
        "found a number",
    );
    rejects(
        r#"{"a": [{"prefix": {"nope": "x"}}]}"#,
        "$.a[0].prefix",
        "other keys",
    );
    rejects(
        r#"{"a": [{"suffix": ["x"]}]}"#,
        "$.a[0].suffix",
        "found an array",
    );
    rejects(
        r#"{"a": [{"equals-ignore-case": 1}]}"#,
        "$.a[0].equals-ignore-case",
        "expects a string",
    );
    rejects(
        r#"{"a": [{"wildcard": "a**b"}]}"#,
        "$.a[0].wildcard",
        "consecutive wildcard",
    );
    rejects(
        r#"{"a": [{"wildcard": "a\\b"}]}"#,
        "$.a[0].wildcard",
        "may be escaped",
    );
    rejects(
        r#"{"a": [{"cidr": "10.0.0.0"}]}"#,
        "$.a[0].cidr",
        "no /prefix-length",
    );
    rejects(
        r#"{"a": [{"cidr": "10.0.0.0/40"}]}"#,
        "$.a[0].cidr",
        "longer than the address",
    );
    rejects(
        r#"{"a": [{"cidr": "banana/8"}]}"#,
        "$.a[0].cidr",
        "not IPv4 or IPv6",
    );
}

#[test]
fn numeric_errors_name_their_path() {
    rejects(
        r#"{"n": [{"numeric": 5}]}"#,
        "$.n[0].numeric",
        "expects an array",
    );
    rejects(
        r#"{"n": [{"numeric": []}]}"#,
        "$.n[0].numeric",
        "it is empty",
    );
    rejects(
        r#"{"n": [{"numeric": [5]}]}"#,
        "$.n[0].numeric",
        "term 0 must be an operator",
    );
    rejects(
        r#"{"n": [{"numeric": ["!=", 5]}]}"#,
        "$.n[0].numeric",
        "unknown operator \"!=\"",
    );
    rejects(
        r#"{"n": [{"numeric": [">"]}]}"#,
        "$.n[0].numeric",
        "> has no value after it",
    );
    rejects(
        r#"{"n": [{"numeric": [">", "5"]}]}"#,
        "$.n[0].numeric[1]",
        "must be a number, found a string",
    );
    rejects(
        r#"{"n": [{"numeric": ["=", 5, "<", 6]}]}"#,
        "$.n[0].numeric",
        "= takes one value",
    );
    rejects(
        r#"{"n": [{"numeric": ["<", 5, ">", 1]}]}"#,
        "$.n[0].numeric",
        "< takes one value",
    );
    rejects(
        r#"{"n": [{"numeric": [">", 0, ">", 6]}]}"#,
        "$.n[0].numeric",
        "must be < or <=",
    );
    rejects(
        r#"{"n": [{"numeric": [">", 0, "<", 6, 7]}]}"#,
        "$.n[0].numeric",
        "too many terms",
    );
    rejects(
        r#"{"n": [{"numeric": [">", 5, "<", 5]}]}"#,
        "$.n[0].numeric",
        "lower bound 5 is not below upper bound 5",
    );
    rejects(
        r#"{"n": [{"numeric": [">", 6e9]}]}"#,
        "$.n[0].numeric[1]",
        "outside the numeric range",
    );
    rejects(
        r#"{"n": [{"numeric": ["<", 1, "<", 2]}]}"#,
        "$.n[0].numeric",
        "< takes one value",
    );
}

#[test]
fn anything_but_errors_name_their_path() {
    rejects(
        r#"{"a": [{"anything-but": ["x", 1]}]}"#,
        "$.a[0].anything-but",
        "only strings or only numbers",
    );
    rejects(
        r#"{"a": [{"anything-but": []}]}"#,
        "$.a[0].anything-but",
        "non-empty array",
    );
    rejects(
        r#"{"a": [{"anything-but": null}]}"#,
        "$.a[0].anything-but",
        "found null",
    );
    rejects(
        r#"{"a": [{"anything-but": [true]}]}"#,
        "$.a[0].anything-but",
        "only strings or only numbers",
    );
    rejects(
        r#"{"a": [{"anything-but": {"nope": "x"}}]}"#,
        "$.a[0].anything-but",
        "unknown operator \"anything-but/nope\"",
    );
    rejects(
        r#"{"a": [{"anything-but": {"prefix": ""}}]}"#,
        "$.a[0].anything-but.prefix",
        "a non-empty string",
    );
    rejects(
        r#"{"a": [{"anything-but": {"prefix": "x", "suffix": "y"}}]}"#,
        "$.a[0].anything-but",
        "exactly one key",
    );
    rejects(
        r#"{"a": [{"anything-but": {"equals-ignore-case": 5}}]}"#,
        "$.a[0].anything-but.equals-ignore-case",
        "found a number",
    );
    rejects(
        r#"{"a": [{"anything-but": 6e9}]}"#,
        "$.a[0].anything-but",
        "outside the numeric range",
    );
    rejects(
        r#"{"a": [{"anything-but": {"prefix": []}}]}"#,
        "$.a[0].anything-but.prefix",
        "a non-empty string or a non-empty array of them",
    );
    rejects(
        r#"{"a": [{"anything-but": {"suffix": ["x", ""]}}]}"#,
        "$.a[0].anything-but.suffix[1]",
        "a non-empty string",
    );
    rejects(
        r#"{"a": [{"anything-but": {"prefix": ["x", 1]}}]}"#,
        "$.a[0].anything-but.prefix[1]",
        "found a number",
    );
    rejects(
        r#"{"a": [{"anything-but": {"wildcard": ["x*", "y**"]}}]}"#,
        "$.a[0].anything-but.wildcard[1]",
        "consecutive wildcard characters",
    );
}

#[test]
fn or_errors_name_their_path() {
    rejects(
        r#"{"$or": {"a": ["x"]}}"#,
        "$.$or",
        "must be an array of objects",
    );
    rejects(r#"{"$or": [{"a": ["x"]}]}"#, "$.$or", "at least 2 objects");
    rejects(
        r#"{"$or": [{"a": ["x"]}, "b"]}"#,
        "$.$or[1]",
        "each $or alternative must be a JSON object",
    );
    rejects(
        r#"{"d": {"$or": [{"a": ["x"]}, {}]}}"#,
        "$.d.$or[1]",
        "empty objects",
    );
    rejects(
        r#"{"$or": [{"a": ["x"]}, {"b": "y"}]}"#,
        "$.$or[1].b",
        "must be an object or an array",
    );
}

#[test]
fn lambda_dialect_names_the_operator_it_lacks() {
    for (text, path, operator) in [
        (r#"{"a": [{"wildcard": "x*"}]}"#, "$.a[0]", "wildcard"),
        (r#"{"a": [{"cidr": "10.0.0.0/8"}]}"#, "$.a[0]", "cidr"),
        (
            r#"{"a": [{"anything-but": {"prefix": "x"}}]}"#,
            "$.a[0].anything-but",
            "anything-but/prefix",
        ),
        (
            r#"{"a": [{"anything-but": {"suffix": "x"}}]}"#,
            "$.a[0].anything-but",
            "anything-but/suffix",
        ),
        (
            r#"{"a": [{"anything-but": {"equals-ignore-case": "x"}}]}"#,
            "$.a[0].anything-but",
            "anything-but/equals-ignore-case",
        ),
        (
            r#"{"a": [{"anything-but": {"wildcard": "x*"}}]}"#,
            "$.a[0].anything-but",
            "anything-but/wildcard",
        ),
    ] {
        let err = Pattern::parse(text).unwrap_err();
        assert!(
            matches!(
                &err,
                PatternError::UnsupportedOperator {
                    dialect: Dialect::Lambda,
                    ..
                }
            ),
            "{text}: {err:?}"
        );
        assert_eq!(err.path(), path);
        assert_eq!(
            err.to_string(),
            format!("{path}: operator {operator:?} is not supported by the lambda dialect")
        );
        assert!(
            Pattern::parse_with(text, Dialect::EventBridge).is_ok(),
            "{text}"
        );
    }
}

/// "Comparison operators for use in event patterns in Amazon EventBridge":
/// "Begins with (ignore case)" and "Ends with (ignore case)" have "Pipe
/// support: Yes", the column the Lambda dialect follows.
#[test]
fn lambda_dialect_accepts_prefix_and_suffix_ignoring_case() {
    for text in [
        r#"{"service": [{"prefix": {"equals-ignore-case": "eventb"}}]}"#,
        r#"{"service": [{"suffix": {"equals-ignore-case": "tBridge"}}]}"#,
    ] {
        let pattern = Pattern::parse(text);
        assert!(pattern.is_ok(), "{text}: {pattern:?}");
    }
}

#[test]
fn invalid_json_text_gives_line_and_column() {
    let err = Pattern::parse("{\"a\": [\"x\",]}").unwrap_err();
    assert!(
        matches!(
            err,
            PatternError::Json {
                line: 1,
                column: 12,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("$: not valid JSON at line 1 column 12: "),
        "{err}"
    );
}
