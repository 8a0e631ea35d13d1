//! Filter-file errors name the filter and the path inside it; limits are enforced.
#![allow(clippy::unwrap_used)]

use ttlstream_filters::{Dialect, Pattern, PatternError, parse_filter_file};

fn file_rejects(text: &str, path: &str, reason: &str) {
    let err = parse_filter_file(text).expect_err(text);
    assert_eq!(err.path(), path, "{text}: {err}");
    let message = err.to_string();
    assert!(message.starts_with(&format!("{path}: ")), "{message}");
    assert!(
        message.contains(reason),
        "{text}: {message:?} lacks {reason:?}"
    );
}

#[test]
fn filter_criteria_errors_name_the_filter_and_the_path_inside_it() {
    file_rejects(
        r#"{"Filters": [{"Pattern": "{\"eventName\": [\"REMOVE\"]}"}, {"Pattern": "{\"userIdentity\": {\"type\": \"Service\"}}"}]}"#,
        "Filters[1].Pattern: $.userIdentity.type",
        "must be an object or an array, found a string",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": "{\"eventName\": [\"REMOVE\"]"}]}"#,
        "Filters[0].Pattern",
        "not valid JSON at line 1 column 24: EOF while parsing an object",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": {"eventName": ["REMOVE"]}}]}"#,
        "Filters[0].Pattern",
        "must be a string holding the pattern as JSON text, found an object",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": 5}]}"#,
        "Filters[0].Pattern",
        "found a number",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": "[1]"}]}"#,
        "Filters[0].Pattern: $",
        "must be a JSON object, found an array",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": "{}", "Extra": 1}]}"#,
        "Filters[0].Extra",
        "unknown key",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": "{}"}], "Other": 1}"#,
        "Other",
        "unknown key",
    );
    file_rejects(r#"{"Filters": []}"#, "Filters", "is empty");
    file_rejects(
        r#"{"Filters": [{"Pattern": "{}"}]}"#,
        "Filters[0].Pattern: $",
        "empty objects",
    );
    file_rejects(
        r#"{"Filters": [{"Pattern": "{\"a\": [{\"wildcard\": \"x*\"}]}"}]}"#,
        "Filters[0].Pattern: $.a[0]",
        "operator \"wildcard\" is not supported by the lambda dialect",
    );
    file_rejects("{\"Filters\": [", "$", "not valid JSON at line 1 column 13");
}

#[test]
fn limits_are_enforced_with_clear_errors() {
    let six = format!(
        r#"{{"Filters": [{}]}}"#,
        [r#"{"Pattern": "{\"a\": [\"x\"]}"}"#; 6].join(",")
    );
    file_rejects(&six, "Filters", "6 filters given; at most 5 are allowed");

    let long_value = "x".repeat(4100);
    let long =
        serde_json::json!({"Filters": [{"Pattern": format!(r#"{{"a": ["{long_value}"]}}"#)}]})
            .to_string();
    file_rejects(
        &long,
        "Filters[0].Pattern",
        "characters long; the lambda limit is 4096",
    );

    let bare = format!(r#"{{"a": ["{}"]}}"#, "x".repeat(2100));
    assert!(
        Pattern::parse(&bare).is_ok(),
        "2100 characters is within Lambda's 4096"
    );
    let err = Pattern::parse_with(&bare, Dialect::EventBridge).unwrap_err();
    assert!(
        matches!(err, PatternError::TooLong { max: 2048, .. }),
        "{err:?}"
    );

    let deep = format!("{}[\"x\"]{}", "{\"a\":".repeat(70), "}".repeat(70));
    let err = Pattern::parse(&deep).unwrap_err();
    assert!(
        matches!(err, PatternError::TooDeep { max: 64, .. }),
        "{err:?}"
    );

    // 2 x 2 x ... (11 times) = 2048 branches > 1024.
    let or = r#"{"$or": [{"a": ["1"]}, {"b": ["2"]}]}"#;
    let mut fields = Vec::new();
    for i in 0..11 {
        fields.push(format!(r#""f{i}": {or}"#));
    }
    let wide = format!("{{{}}}", fields.join(","));
    let err = Pattern::parse_with(&wide, Dialect::EventBridge).unwrap_err();
    assert!(
        matches!(err, PatternError::TooManyBranches { max: 1024, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("$or expands to more than 1024"),
        "{err}"
    );
}
