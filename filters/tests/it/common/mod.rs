//! Helpers shared by the integration tests.
#![allow(clippy::unwrap_used, dead_code)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use ttlstream_filters::{Dialect, Matcher, Pattern};

/// Whether `pattern` (EventBridge dialect: the full language) matches
/// `event`, by the matcher's bytes and `Value` entry points, which must agree
/// with each other and with the reference evaluator.
pub fn hit(pattern: &str, event: &Value) -> bool {
    let parsed = Pattern::parse_with(pattern, Dialect::EventBridge)
        .unwrap_or_else(|e| panic!("pattern {pattern}: {e}"));
    let by_reference = ttlstream_filters::reference::matches(&parsed, event);
    let m = Matcher::new([((), parsed)]);
    let by_value = !m.matches_value(event).is_empty();
    let by_bytes = !m.matches(event.to_string().as_bytes()).unwrap().is_empty();
    assert_eq!(
        by_value, by_bytes,
        "matches and matches_value disagree on {event}"
    );
    assert_eq!(
        by_bytes, by_reference,
        "the matcher and the reference evaluator disagree: {pattern} on {event}"
    );
    by_bytes
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

/// A generated pattern object, `depth` levels of nesting at most: 1..3 fields
/// named by `name`, each an array of 1..`max_values` values from `value` or
/// (above depth 0, a quarter of the time) a nested object; above depth 0,
/// with probability `or_weight`, a `$or` of 2..`max_alternatives` objects.
pub fn pattern_object<N, V>(
    depth: u32,
    name: fn() -> N,
    value: fn() -> V,
    max_values: usize,
    or_weight: f64,
    max_alternatives: usize,
) -> BoxedStrategy<Value>
where
    N: Strategy<Value = String> + 'static,
    V: Strategy<Value = Value> + 'static,
{
    let nested =
        |depth| pattern_object(depth, name, value, max_values, or_weight, max_alternatives);
    let leaf = prop::collection::vec(value(), 1..max_values).prop_map(Value::Array);
    let field = if depth == 0 {
        leaf.boxed()
    } else {
        prop_oneof![3 => leaf, 1 => nested(depth - 1)].boxed()
    };
    let fields = prop::collection::btree_map(name(), field, 1..3);
    let or = if depth == 0 {
        Just(None).boxed()
    } else {
        let alternatives = prop::collection::vec(nested(depth - 1), 2..max_alternatives);
        prop::option::weighted(or_weight, alternatives).boxed()
    };
    (fields, or)
        .prop_map(|(fields, or)| {
            let mut map: Map<String, Value> = fields.into_iter().collect();
            if let Some(alternatives) = or {
                map.insert("$or".to_owned(), Value::Array(alternatives));
            }
            Value::Object(map)
        })
        .boxed()
}
