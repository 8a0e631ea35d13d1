//! Helpers shared by the integration tests.
#![allow(clippy::unwrap_used, dead_code)]

use serde_json::Value;
use ttlstream_filters::{Dialect, Matcher, Pattern};

/// Whether `pattern` (EventBridge dialect: the full language) matches `event`.
pub fn hit(pattern: &str, event: &Value) -> bool {
    let pattern = Pattern::parse_with(pattern, Dialect::EventBridge)
        .unwrap_or_else(|e| panic!("pattern {pattern}: {e}"));
    let m = Matcher::new([((), pattern)]);
    let by_value = !m.matches_value(event).is_empty();
    let by_bytes = !m.matches(event.to_string().as_bytes()).unwrap().is_empty();
    assert_eq!(
        by_value, by_bytes,
        "matches and matches_value disagree on {event}"
    );
    by_value
}

/// Assert `pattern` matches every event in `yes` and none in `no`.
pub fn check(pattern: &str, yes: &[Value], no: &[Value]) {
    for event in yes {
        assert!(hit(pattern, event), "{pattern} should match {event}");
    }
    for event in no {
        assert!(!hit(pattern, event), "{pattern} should not match {event}");
    }
}
