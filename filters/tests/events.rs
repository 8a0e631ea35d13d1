//! Malformed events are errors, never panics.
#![allow(clippy::unwrap_used)]

use ttlstream_filters::{EventError, Matcher, Pattern};

fn matcher() -> Matcher<u8> {
    Matcher::new([(1, Pattern::parse(r#"{"a": ["x"]}"#).unwrap())])
}

#[test]
fn malformed_json_reports_line_and_column() {
    let err = matcher()
        .matches(b"{\n  \"a\": \"x\",\n  oops\n}")
        .unwrap_err();
    assert!(
        matches!(
            err,
            EventError::Json {
                line: 3,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("line 3 column 3"), "{err}");
}

#[test]
fn truncated_empty_and_binary_inputs_are_errors() {
    let m = matcher();
    for bad in [
        &b""[..],
        b"{",
        b"{\"a\":",
        b"\xff\xfe",
        b"{\"a\": \"x\"} trailing",
        b"nul",
    ] {
        assert!(
            matches!(m.matches(bad), Err(EventError::Json { .. })),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn non_object_events_are_errors() {
    let m = matcher();
    for (bad, found) in [
        (&b"[]"[..], "an array"),
        (b"\"x\"", "a string"),
        (b"3", "a number"),
        (b"null", "null"),
    ] {
        assert_eq!(m.matches(bad), Err(EventError::NotAnObject { found }));
    }
}

#[test]
fn deeply_nested_event_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        matcher().matches(deep.as_bytes()),
        Err(EventError::Json { .. })
    ));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    assert!(matches!(
        matcher().matches(deep_object.as_bytes()),
        Err(EventError::Json { .. })
    ));
}

#[test]
fn valid_event_still_matches_after_errors() {
    let m = matcher();
    assert!(m.matches(b"{").is_err());
    assert_eq!(m.matches(br#"{"a": "x"}"#).unwrap(), vec![1]);
}
