#![allow(clippy::unwrap_used)]

use super::*;
use crate::compile::{Condition, Test, compile};
use crate::pattern::Pattern;

fn values<'a>(pattern: &str, event: &'a [u8]) -> Result<Vec<Scalar<'a>>, EventError> {
    let mut trie = PathTrie::new();
    // Keep every value at a named path, whatever the pattern's tests.
    for condition in compile(&Pattern::parse(pattern).unwrap(), &mut trie).concat() {
        trie.add_tests(&Condition {
            tests: vec![Test::Any],
            ..condition
        });
    }
    trie.finish();
    let mut leaves = Leaves::new(trie.path_count());
    collect_bytes(event, &trie, Check::Strict, &mut leaves)?;
    Ok(leaves.into_values())
}

#[test]
fn only_named_fields_are_collected() {
    let got = values(
        r#"{"a": {"b": ["x"]}}"#,
        br#"{"z": [1, {"b": 2}], "a": {"b": "v", "c": 3}}"#,
    );
    assert_eq!(got.unwrap(), vec![Scalar::String("v".into())]);
}

#[test]
fn escaped_keys_are_decoded_and_repeated_keys_all_seen() {
    let got = values(
        r#"{"a\"b": ["x"]}"#,
        br#"{"a\"b": "one", "a\u0022b": "two"}"#,
    );
    assert_eq!(
        got.unwrap(),
        vec![Scalar::String("one".into()), Scalar::String("two".into())]
    );
}

#[test]
fn compact_number_arrays_read_by_masks_agree_with_strict_reading() {
    // `Walk::numbers` reads these (lazy mode, where the CPU has SIMD);
    // strict mode reads them value by value.
    let pattern = r#"{"c": [{"numeric": [">=", -122.5, "<", -122.496]}, {"numeric": ["=", 5]}],
        "d": {"e": [{"numeric": ["<", 0]}]}}"#;
    let pattern = Pattern::parse_with(pattern, crate::Dialect::EventBridge).unwrap();
    let matcher = crate::Matcher::new([(0, pattern)]);
    let pieces: [&str; 16] = [
        "[",
        "]",
        ",",
        "-",
        ".",
        "0",
        "1",
        "5",
        "-122.5",
        "-122.4999",
        "37.25",
        "-0.5",
        "1e5",
        " ",
        "00",
        "\"x\"",
    ];
    let mut state: u64 = 3;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as usize
    };
    let (mut ok, mut failed, mut hits) = (0, 0, 0);
    for round in 0..30_000 {
        let mut array = String::from("[");
        for _ in 0..next() % 24 {
            // Mostly well-formed: a number, a comma, or a nested array.
            match next() % 16 {
                0 => array.push_str(pieces[next() % pieces.len()]),
                8..=11 => array.push_str("[-122.4985,37.1,0.0],"),
                1 | 2 => array.push_str("[-122.4985,37.1,0.0],"),
                3 => array.push_str("-122.49712345678901,"),
                4 => array.push_str(&format!("{}.{},", next() % 400, next())),
                5 => array.push_str(&format!("-{}", next() % 130)),
                _ => array.push(','),
            }
        }
        if round % 4 != 3 {
            array = array.trim_end_matches(',').to_owned();
            array.push(']');
        }
        let event = if round % 3 == 0 {
            format!(r#"{{"d":{{"e":{array},"e":1}},"c":{array},"c":1}}"#)
        } else {
            // A later `"c"` keeps the lazy walk from stopping early.
            format!(r#"{{"c":{array},"c":1}}"#)
        };
        let lazy = matcher.matches(event.as_bytes());
        let strict = matcher.matches_strict(event.as_bytes());
        assert_eq!(lazy.is_ok(), strict.is_ok(), "{event}: {lazy:?} {strict:?}");
        if let (Ok(lazy), Ok(strict)) = (lazy, strict) {
            assert_eq!(lazy, strict, "{event}");
            ok += 1;
            hits += lazy.len();
        } else {
            failed += 1;
        }
    }
    assert!(
        ok > 2000 && failed > 2000 && hits > 300,
        "{ok} {failed} {hits}"
    );
}

#[test]
fn misplaced_signs_and_dots_are_errors_wherever_the_blocks_split() {
    // The first pass checks `-` and `.` by 64-byte blocks: put each
    // fault on every side of a block boundary, in numbers far from the
    // range (passed over unless the fault is seen).
    let pattern = r#"{"c": [{"numeric": [">", 1000, "<", 1001]}]}"#;
    let pattern = Pattern::parse_with(pattern, crate::Dialect::EventBridge).unwrap();
    let matcher = crate::Matcher::new([(0, pattern)]);
    for bad in [
        "5.", "5.,1", "-", "1-2", "--1", ".5", "-.5", "5..1", "1.2.3",
    ] {
        for k in 1..140 {
            let event = format!(r#"{{"c":[{},{bad}],"c":1}}"#, "1".repeat(k));
            let lazy = matcher.matches(event.as_bytes());
            let strict = matcher.matches_strict(event.as_bytes());
            assert!(lazy.is_err() && strict.is_err(), "{event}: {lazy:?}");
        }
    }
}

#[test]
fn a_path_combined_with_itself_keeps_its_numbers_apart() {
    // Two conditions at `c` in one branch: one number must satisfy both
    // (two numbers are always two elements of an array), so the gated
    // walk (which drops the elements) is not used there; a path met
    // once per branch takes it.
    let pattern = r#"{"c": [{"numeric": [">", 1, "<", 2]}],
        "$or": [{"c": [{"numeric": [">", 1.9, "<", 3]}]}, {"x": ["y"]}]}"#;
    let pattern = Pattern::parse_with(pattern, crate::Dialect::EventBridge).unwrap();
    let combined = crate::Matcher::new([(0, pattern)]);
    let single = r#"{"c": [{"numeric": [">", 1, "<", 2]}]}"#;
    let single = Pattern::parse_with(single, crate::Dialect::EventBridge).unwrap();
    let single = crate::Matcher::new([(0, single)]);
    for (event, together, alone) in [
        (r#"{"c":[[1.5,2.5]]}"#, false, true),
        (r#"{"c":[[1.5],[2.5]]}"#, false, true),
        (r#"{"c":[[5,5],[1.95,7]]}"#, true, true),
        (r#"{"c":[[5,2.5],[5,5]]}"#, false, false),
        (r#"{"c":[]}"#, false, false),
    ] {
        for (matcher, want) in [(&combined, together), (&single, alone)] {
            let value: serde_json::Value = serde_json::from_str(event).unwrap();
            let lazy = matcher.matches(event.as_bytes()).unwrap();
            assert_eq!(lazy, matcher.matches_strict(event.as_bytes()).unwrap());
            assert_eq!(lazy, matcher.matches_value(&value));
            assert_eq!(!lazy.is_empty(), want, "{event}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// The gated walk ([`Walk::gated`], lazy mode) against strict
    /// reading and `serde_json`'s value: arrays of numbers near and far
    /// from the ranges (integer parts through the gate or next to it),
    /// nested, with faults (misplaced delimiters, signs and dots,
    /// leading zeros, exponents, blanks) anywhere, so at every place
    /// against the 64-byte blocks. A malformed array gives the error the
    /// delimiter walk ([`Walk::numbers`]) gives: it is read by that walk
    /// in a matcher whose branch has `c` twice (no gate there).
    #[test]
    fn gated_arrays_agree_with_strict_reading(
        pieces in proptest::collection::vec(0usize..40, 0..80),
        lead in 0usize..70,
        tests in 0usize..3,
    ) {
        let numeric = [
            r#"[{"numeric": [">=", -122.5, "<", -122.496]}, {"numeric": [">", 37.7, "<=", 37.7004]}]"#,
            r#"[{"numeric": [">", 0, "<", 0.5]}, {"numeric": ["=", 12]}]"#,
            r#"[{"numeric": [">=", -1.25, "<", 3]}]"#,
        ][tests];
        let pattern = format!(r#"{{"c": {numeric}}}"#);
        let pattern = Pattern::parse_with(&pattern, crate::Dialect::EventBridge).unwrap();
        let matcher = crate::Matcher::new([(0, pattern)]);
        let ungated = format!(r#"{{"c": {numeric}, "$or": [{{"c": {numeric}}}, {{"zz": ["y"]}}]}}"#);
        let ungated = Pattern::parse_with(&ungated, crate::Dialect::EventBridge).unwrap();
        let ungated = crate::Matcher::new([(0, ungated)]);
        let words = [
            "[", "]", ",", "-", ".", "0", "1", "12", "-122.4985", "-122.49", "-122", "-1220.5",
            "37.7002", "37.70041", "0.25", "-0.5", "-0", "00", "01", "1e5", " ", "\"x\"",
            "[-122.4985,37.7002,0.0],", "[-122.4975,37.8,0.0],", "[12,0.25,-1.5],", "-122.49712345678901,",
            "1.2.3", "-.5", ".5", "5.", "[1,[2,[3]]],", "2.999999,", "-1.25,", "3,", "12.0000001,",
            "123456789012345678901234567890123456789,", "-122.500000000000000000000000000001,",
            "[],", "[[]],", "0.0,",
        ];
        // A leading number of `lead` digits moves the rest across the
        // 64-byte blocks one byte at a time.
        let mut array = String::from("[");
        if lead > 0 {
            array.push_str(&"7".repeat(lead));
            array.push(',');
        }
        for piece in pieces {
            array.push_str(words[piece]);
        }
        let trimmed = array.trim_end_matches(',').to_owned() + "]";
        for array in [trimmed, array] {
            let event = format!(r#"{{"c":{array},"d":1}}"#);
            let lazy = matcher.matches(event.as_bytes());
            let walked = ungated.matches(event.as_bytes());
            match (lazy, walked) {
                (Ok(lazy), Ok(_)) => {
                    // Lazy reading stops after `c`: what follows may be
                    // malformed (`[0],,`) for strict reading and serde.
                    if let Ok(strict) = matcher.matches_strict(event.as_bytes()) {
                        let value: serde_json::Value = serde_json::from_str(&event).unwrap();
                        proptest::prop_assert_eq!(&lazy, &strict, "{}", event);
                        proptest::prop_assert_eq!(&lazy, &matcher.matches_value(&value), "{}", event);
                    }
                }
                (Err(lazy), Err(walked)) => {
                    proptest::prop_assert_eq!(lazy.to_string(), walked.to_string(), "{}", event);
                }
                (lazy, walked) => proptest::prop_assert!(false, "{}: {:?} {:?}", event, lazy, walked),
            }
        }
    }
}

proptest::proptest! {
    /// [`far_number`]'s fixed-point judgement (numbers in compact
    /// arrays) against keying every number exactly (strict mode) and
    /// against `serde_json`'s value: numbers close to the bounds or whole
    /// steps from them (other integer parts, `-0` and `0`), with up to
    /// 18 fraction digits, either sign, and an integer part up to nine
    /// digits.
    #[test]
    fn fixed_point_far_numbers_agree_with_exact_keys(
        low in proptest::prop_oneof![-2_000_000_000i64..2_000_000_000, -3_000_000i64..3_000_000],
        width in 0i64..5_000,
        inclusive in proptest::bool::ANY,
        scale in 0u32..4,
        numbers in proptest::collection::vec((-3i64..3, -2i64..=2, 0u64..1_000_000_000_000, 0usize..19, proptest::bool::ANY), 1..8),
    ) {
        // Bounds with six decimals: `low` in millionths, times 10^scale.
        let factor = 10i64.pow(scale);
        let (low, high) = (low * factor, (low + width) * factor);
        let text = |millionths: i64| {
            let sign = if millionths < 0 { "-" } else { "" };
            let m = millionths.unsigned_abs();
            format!("{sign}{}.{:06}", m / 1_000_000, m % 1_000_000)
        };
        let (above, below) = if inclusive { (">=", "<=") } else { (">", "<") };
        let pattern = format!(
            r#"{{"c": [{{"numeric": ["{above}", {}, "{below}", {}]}}]}}"#,
            text(low),
            text(high)
        );
        let Ok(pattern) = Pattern::parse_with(&pattern, crate::Dialect::EventBridge) else {
            return Ok(());
        };
        let matcher = crate::Matcher::new([(0, pattern)]);
        for (near, steps, tail, digits, at_high) in numbers {
            // A bound moved by `near` millionths and whole `steps`
            // (other integer parts), then more digits.
            let bound = if at_high { high } else { low };
            let base = text(bound + near + steps * 1_000_000);
            let tail = format!("{tail:012}");
            let number = format!("{base}{}", &tail[..digits.min(12)]);
            let event = format!(r#"{{"c":[[{number},37.1,0.0],[{number}]],"d":1}}"#);
            let lazy = matcher.matches(event.as_bytes()).unwrap();
            let strict = matcher.matches_strict(event.as_bytes()).unwrap();
            let value: serde_json::Value = serde_json::from_str(&event).unwrap();
            proptest::prop_assert_eq!(&lazy, &strict, "{}", event);
            proptest::prop_assert_eq!(&lazy, &matcher.matches_value(&value), "{}", event);
        }
    }
}

proptest::proptest! {
    /// Plain members passed in one go ([`Lexer::skip_plain_members`],
    /// lazy mode) leave every result as the strict walk's: generated
    /// objects mix plain members with blanks, escapes (also in keys the
    /// patterns name), numbers, literals, nested objects, and keys and
    /// values equal to the names and strings the patterns look for.
    #[test]
    fn plain_members_passed_at_once_agree_with_strict_reading(
        members in proptest::collection::vec((0usize..14, 0usize..10), 0..12),
        nested in proptest::collection::vec((0usize..14, 0usize..10), 0..6),
        blank in 0usize..4,
    ) {
        const KEYS: [&str; 14] = [
            "a", "b", "c", "MAPBLKLOT", "STREET", "STREETS", "x\\u0061", "b\\\"",
            "", "ST", "abcdefghijklmnop", "d", "a ", "\\u0062",
        ];
        const VALUES: [&str; 10] = [
            "\"x\"", "\"STREET\"", "\"b\"", "\"\"", "1.5", "null", "{\"b\":\"x\"}",
            "\"a\\\"b\"", "\"0123456789abcdef\"", "[\"x\",{\"b\":\"x\"}]",
        ];
        let sep = [",", ",", ", ", ",\n"][blank];
        let object = |members: &[(usize, usize)], inner: &str| {
            let mut parts: Vec<String> = members
                .iter()
                .map(|&(k, v)| format!("\"{}\":{}", KEYS[k], VALUES[v]))
                .collect();
            parts.insert(parts.len() / 2, format!("\"a\":{inner}"));
            format!("{{{}}}", parts.join(sep))
        };
        let event = object(&members, &object(&nested, "\"x\""));
        let patterns = [
            r#"{"a": {"b": ["x"]}}"#,
            r#"{"STREET": ["x", "STREET"]}"#,
            r#"{"a": {"STREET": ["STREET"], "c": ["x"]}}"#,
        ];
        let matcher = crate::Matcher::new(
            patterns.iter().enumerate().map(|(i, p)| (i, Pattern::parse(p).unwrap())),
        );
        let lazy = matcher.matches(event.as_bytes());
        let strict = matcher.matches_strict(event.as_bytes());
        proptest::prop_assert!(strict.is_ok(), "{}: {:?}", event, strict);
        proptest::prop_assert_eq!(lazy.ok(), strict.ok(), "{}", event);
    }
}

#[test]
fn syntax_errors_in_skipped_fields_are_still_errors() {
    let err = values(r#"{"a": ["x"]}"#, br#"{"z": [1, }, "a": "x"}"#).unwrap_err();
    assert!(matches!(err, EventError::Json { line: 1, .. }), "{err:?}");
}

proptest::proptest! {
    /// A short ASCII body is taken as text without `from_utf8`, and
    /// exactly then: the same text as `from_utf8` gives, and `None` for a
    /// body over 16 bytes or with a byte of 0x80 or more (at every place,
    /// across the two words' overlap).
    #[test]
    fn short_ascii_bodies_are_text_as_from_utf8_reads_them(
        pieces in proptest::collection::vec(proptest::sample::select(vec![
            "a", "Z", "0", " ", "\u{7f}", "\u{0}", "é", "\u{ff}", "€", "\u{80}",
        ]), 0..20),
    ) {
        let text = pieces.concat();
        let body = text.as_bytes();
        let ascii = body.len() <= 16 && body.is_ascii();
        let fast = short_ascii(body);
        proptest::prop_assert_eq!(fast.is_some(), ascii, "{:?}", text);
        if let Some(fast) = fast {
            proptest::prop_assert_eq!(Some(fast), std::str::from_utf8(body).ok());
        }
    }
}

#[test]
fn the_walk_hands_its_buffers_back_after_an_error_too() {
    let mut trie = PathTrie::new();
    for condition in compile(&Pattern::parse(r#"{"a": ["x"]}"#).unwrap(), &mut trie).concat() {
        trie.add_tests(&condition);
    }
    trie.finish();
    // Nested arrays and objects, so the trail and the open objects hold
    // something, then a fault: the lazy walk reads to it (no `}` at the end).
    let event = br#"{"b": {"c": 1}, "a": [["x"]], "d": [1,"#;
    for check in [Check::Lazy, Check::Strict] {
        let mut leaves = Leaves::new(trie.path_count());
        leaves.spare = (
            Vec::with_capacity(8),
            Vec::with_capacity(8),
            Vec::with_capacity(8),
            None,
        );
        assert!(collect_bytes(event, &trie, check, &mut leaves).is_err());
        let (trail, open, hits, _) = &leaves.spare;
        let kept = [trail.capacity(), open.capacity(), hits.capacity()];
        assert!(kept.iter().all(|&c| c >= 8), "{check:?}: {kept:?}");
    }
}
