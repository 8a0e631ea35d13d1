//! Fuzz target: arbitrary pattern text and event bytes never panic.
//!
//! Input layout: a pattern (or FilterCriteria file), a NUL byte, then event
//! bytes. Both dialects parse the pattern; when it is valid, the strict
//! raw-byte matcher must agree with the reference evaluator
//! (`ttlstream_filters::reference`, the semantics as code) and with the
//! parsed-`Value` matcher on every event that is a JSON object without
//! repeated keys, malformed events must be errors in strict mode, and
//! whatever strict mode accepts, the lazy `matches` must accept with the
//! same ids (lazy mode reads less, so it may accept malformed bytes it never
//! reads; that is not checked).

#![no_main]

use libfuzzer_sys::fuzz_target;
use ttlstream_filters::{Dialect, Matcher, parse_filter_file_with, reference};

/// Events up to this size are also matched by the reference evaluator, whose
/// search is exponential in the number of array-held values it can choose.
const REFERENCE_MAX_BYTES: usize = 256;

fuzz_target!(|data: &[u8]| {
    let (pattern, event) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(pattern) = std::str::from_utf8(pattern) else {
        return;
    };
    for dialect in [Dialect::Lambda, Dialect::EventBridge] {
        let Ok(patterns) = parse_filter_file_with(pattern, dialect) else {
            continue;
        };
        // The normal form parses back to the same patterns.
        for p in &patterns {
            let text = p.to_json().to_string();
            let again = ttlstream_filters::Pattern::parse_with(&text, dialect);
            assert_eq!(again.as_ref().ok(), Some(p), "normal form {text}");
        }
        let matcher = Matcher::new(patterns.iter().cloned().enumerate());
        let from_bytes = matcher.matches_strict(event);
        let lazy = matcher.matches(event);
        if let Ok(ids) = &from_bytes {
            assert_eq!(lazy.as_ref(), Ok(ids), "lazy and strict disagree");
        }
        match serde_json::from_slice::<serde_json::Value>(event) {
            Ok(value) => {
                if value.is_object() && !has_repeated_keys(event) {
                    let ids = from_bytes.as_ref().expect("valid JSON object event");
                    assert_eq!(ids, &matcher.matches_value(&value));
                    if event.len() <= REFERENCE_MAX_BYTES {
                        let expected: Vec<usize> = (0..patterns.len())
                            .filter(|&i| reference::matches(&patterns[i], &value))
                            .collect();
                        assert_eq!(ids, &expected, "matcher and reference disagree");
                    }
                }
            }
            // Skipped fields are syntax-checked: malformed JSON is an error.
            // Not checked in a skipped field (as in serde_json's `IgnoredAny`):
            // nesting past the recursion limit, invalid UTF-8 and lone
            // surrogate escapes inside strings, numbers too large for f64.
            Err(e) if !is_unchecked_when_skipped(&e.to_string()) => {
                assert!(from_bytes.is_err(), "accepted malformed event: {e}");
            }
            Err(_) => {}
        }
    }
});

/// Errors `Matcher::matches` reports only along named paths.
fn is_unchecked_when_skipped(message: &str) -> bool {
    [
        "recursion limit",
        "unicode code point",
        "surrogate",
        "hex escape",
        "number out of range",
    ]
    .iter()
    .any(|m| message.contains(m))
}

/// Whether some object in `event` repeats a key (`Value` keeps only the last).
fn has_repeated_keys(event: &[u8]) -> bool {
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    use std::collections::HashSet;
    struct Check(bool);
    impl<'de> Visitor<'de> for &mut Check {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("json")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key) {
                    self.0 = true;
                }
                map.next_value_seed(Seed(self))?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Seed(self))?.is_some() {}
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    struct Seed<'a>(&'a mut Check);
    impl<'de> serde::de::DeserializeSeed<'de> for Seed<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self.0)
        }
    }
    let mut check = Check(false);
    let mut de = serde_json::Deserializer::from_slice(event);
    // Unparseable tails are irrelevant: the caller already parsed the event.
    let _ = de.deserialize_any(&mut check);
    check.0
}
