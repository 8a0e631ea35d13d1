//! Malformed events are errors, never panics.
#![allow(clippy::unwrap_used)]

use ttlstream_filters::{EventError, Matcher, Pattern};

fn matcher() -> Matcher<u8> {
    Matcher::new([(1, Pattern::parse(r#"{"a": ["x"]}"#).unwrap())])
}

#[test]
fn malformed_json_reports_line_and_column() {
    let m = matcher();
    let before_the_field = b"{\n  \"b\": 1,\n  oops,\n  \"a\": \"x\"\n}";
    let after_the_field = b"{\n  \"a\": \"x\",\n  oops\n}";
    for err in [
        m.matches(before_the_field).unwrap_err(),
        m.matches_strict(before_the_field).unwrap_err(),
        m.matches_strict(after_the_field).unwrap_err(),
    ] {
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
}

#[test]
fn lazy_matching_checks_only_what_it_reads() {
    let m = matcher();
    // Read and checked: every key of an object along named fields, values at
    // named fields, the structure around them, and the end of the event.
    for bad in [
        &br#"{"a": "x" "b": 1}"#[..],
        br#"{"b": "unterminated, "a": "x"}"#,
        br#"{"a": "x", "b": 1"#,
        br#"{"a": "x"}}"#,
        br#"{"a": "x", oops}"#,
        br#"{"a": "\q"}"#,
    ] {
        assert!(m.matches(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        assert!(m.matches_strict(bad).is_err());
    }
    // Skimmed: the contents of values no pattern names (by quotes and brackets).
    for (unchecked, hit) in [
        (&br#"{"a": "y", "b": [1,,2], "c": "x"}"#[..], false),
        (br#"{"b": {"c" 1, tru], "a": "x"}"#, true),
        (br#"{"b": [1, 2}, "a": "x"}"#, true),
        (br#"{"b": "\q\u12", "a": "x"}"#, true),
    ] {
        let got = m.matches(unchecked);
        assert_eq!(
            got,
            Ok(if hit { vec![1] } else { vec![] }),
            "{}",
            String::from_utf8_lossy(unchecked)
        );
        assert!(m.matches_strict(unchecked).is_err());
    }
    // Not read at all: `{` first, `}` last, no backslash and no `"x"`, which
    // the only pattern needs: nothing can match (the prefilter).
    for unread in [&br#"{"a": "y", oops}"#[..], br#"{"a" "y"}"#] {
        assert_eq!(
            m.matches(unread),
            Ok(vec![]),
            "{}",
            String::from_utf8_lossy(unread)
        );
        assert!(m.matches_strict(unread).is_err());
    }
    // A later occurrence of a named key is read too (repeated keys all count).
    assert_eq!(m.matches(br#"{"a": "y", "b": 1, "a": "x"}"#), Ok(vec![1]));
    assert_eq!(
        m.matches(br#"{"a": "y", "b": 1, "\u0061": "x"}"#),
        Ok(vec![1])
    );
}

#[test]
fn truncated_empty_and_binary_inputs_are_errors() {
    let m = matcher();
    for bad in [
        &b"{\"b\": 1, \"a\": \"x\""[..],
        b"{\"a\": \"x\", \"b\": [",
        b"",
        b"{",
        b"{\"a\": \"x\"} trailing",
        b"{\"a\":",
        b"\xff\xfe",
        b"nul",
    ] {
        for got in [m.matches(bad), m.matches_strict(bad)] {
            assert!(
                matches!(got, Err(EventError::Json { .. })),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
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
