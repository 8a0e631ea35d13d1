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
fn deep_nesting_never_overflows_the_stack() {
    let n = 100_000;
    // A deep array at the top is valid JSON but not an object.
    let deep_array = format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(
        matcher().matches(deep_array.as_bytes()),
        Err(EventError::NotAnObject { found: "an array" })
    );
    // Deep nesting under a field no pattern names is skipped without recursion.
    let deep_unnamed = format!(
        "{{\"a\": \"x\", \"b\": {}1{}}}",
        "{\"b\":".repeat(n),
        "}".repeat(n)
    );
    assert_eq!(matcher().matches(deep_unnamed.as_bytes()), Ok(vec![1]));
    // Deep nesting under a named field hits serde_json's recursion limit: an error.
    let deep_named = format!("{{\"a\": {}\"x\"{}}}", "[".repeat(n), "]".repeat(n));
    let err = matcher().matches(deep_named.as_bytes()).unwrap_err();
    assert!(matches!(&err, EventError::Json { .. }), "{err:?}");
    assert!(
        err.to_string().contains("recursion limit exceeded"),
        "{err}"
    );
}

#[test]
fn valid_event_still_matches_after_errors() {
    let m = matcher();
    assert!(m.matches(b"{").is_err());
    assert_eq!(m.matches(br#"{"a": "x"}"#).unwrap(), vec![1]);
}
