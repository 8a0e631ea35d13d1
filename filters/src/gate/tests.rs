#![allow(clippy::unwrap_used)]

use super::*;
use crate::compile::{PathTrie, compile};
use crate::event::Scalar;
use crate::pattern::Pattern;

/// The trie of `pattern` (one path `c`) and that path's node.
fn trie(pattern: &str) -> (PathTrie, usize) {
    let mut trie = PathTrie::new();
    let pattern = Pattern::parse_with(pattern, crate::Dialect::EventBridge).unwrap();
    for condition in compile(&pattern, &mut trie).concat() {
        trie.add_tests(&condition);
    }
    trie.finish();
    let node = trie.node(PathTrie::ROOT).children.get(b"c").unwrap();
    (trie, node)
}

/// The bits of the tests at `node` that `text` (a JSON number) satisfies,
/// from its exact key.
fn exact_tests(trie: &PathTrie, node: usize, text: &str) -> u64 {
    let number: serde_json::Number = serde_json::from_str(text).unwrap();
    trie.node(node)
        .matching_tests(&Scalar::from_number(&number))
}

#[test]
fn judged_numbers_agree_with_their_exact_keys() {
    let (trie, node) = trie(
        r#"{"c": [{"numeric": [">=", -122.5, "<", -122.496]}, {"numeric": [">", -122.4985, "<=", -122.47]},
            {"numeric": ["=", -122.49]}, "x"]}"#,
    );
    let gate = trie.node(node).gate().unwrap();
    let mut judged = [0usize; 3];
    let mut state: u64 = 7;
    for i in 0..200_000u64 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // Values from -122.53 to -122.44, a quarter within a few keys of a
        // bound (where the keys' rounding decides), with 0 to 15 digits.
        let bound = [
            500_000_000_000_000u64,
            496_000_000_000_000,
            498_500_000_000_000,
            470_000_000_000_000,
            490_000_000_000_000,
        ][i as usize % 5];
        let offset = (state >> 11) % 4_000_000_000
            * [1, 1_000, 1_000_000, 1_000_000_000][(state & 3) as usize];
        let fraction = if state >> 63 == 1 {
            bound.saturating_add(offset % 30_000_000_000_000)
        } else {
            bound.saturating_sub(offset % 30_000_000_000_000)
        };
        let digits = (state >> 5) as usize % 16;
        let fraction = format!("{fraction:015}");
        let text = format!("-122.{}", &fraction[..15 - digits]);
        let text = text.trim_end_matches('.');
        let bytes = format!("[{text},0]");
        let want = exact_tests(&trie, node, text);
        match gate.judge(bytes.as_bytes(), 1) {
            Judged::Far => {
                assert_eq!(want, 0, "{text}");
                judged[0] += 1;
            }
            Judged::Tests(tests) => {
                assert_eq!(tests, want, "{text}");
                judged[1] += 1;
            }
            Judged::Unknown => judged[2] += 1,
        }
    }
    // Numbers ten keys or more from every bound are judged without
    // their keys, far or within ranges.
    assert!(judged[0] > 20_000 && judged[1] > 20_000, "{judged:?}");
}

#[test]
fn the_one_word_test_answers_what_the_judgement_finds_from_one_word() {
    let (trie, node) = trie(r#"{"c": [{"numeric": [">=", -122.41, "<", -122.406]}]}"#);
    let gate = trie.node(node).gate().unwrap();
    let one = gate.one_word().unwrap();
    let bytes = |text: &str| format!("{text},0,0,0,0");
    let word = |text: &str| crate::lex::word_at(bytes(text).as_bytes(), 0).unwrap();
    for (text, want) in [
        ("-122.3712345", Some(Judged::Far)),
        ("-122.999", Some(Judged::Far)),
        ("-122.000", Some(Judged::Far)),
        ("-122.4081234", Some(Judged::Tests(1))),
        ("-122.5", None),
        ("-122.50", None),
        ("-122.4091", None),
        ("-122.4061", None),
        ("-123.9", None),
    ] {
        assert_eq!(one.judge(word(text)), want, "{text}");
        if let Some(want) = want {
            assert_eq!(gate.judge(bytes(text).as_bytes(), 0), want, "{text}");
        }
    }
}

proptest::proptest! {
    /// The gated walk's judgement by fraction digits ([`Gate::judge`]) and
    /// its passing over numbers that satisfy only tests a kept number
    /// satisfies, against strict and `Value` matching: up to four patterns
    /// (overlapping or nested ranges, exact numbers, one pattern with two
    /// ranges) over one array of numbers near their bounds (a few keys to
    /// a few hundred away, 0 to 15 fraction digits, either side).
    #[test]
    fn judged_arrays_agree_with_strict_reading(
        ranges in proptest::collection::vec((0u64..40_000, 0u64..8_000, 0usize..3), 1..5),
        numbers in proptest::collection::vec((0usize..8, -2_000i64..2_000, 0u64..1_000_000_000, 0usize..16), 1..20),
    ) {
        // Bounds in millionths below -122 (`-122.012345`).
        let text = |millionths: u64| format!("-122.{millionths:06}");
        let patterns: Vec<String> = ranges
            .iter()
            .map(|&(low, width, kind)| match kind {
                0 => format!(
                    r#"{{"c": [{{"numeric": [">", {}, "<=", {}]}}]}}"#,
                    text(low + width),
                    text(low)
                ),
                1 => format!(r#"{{"c": [{}]}}"#, text(low)),
                _ => format!(
                    r#"{{"c": [{{"numeric": [">=", {}, "<", {}]}}, {{"numeric": [">=", {}, "<", {}]}}]}}"#,
                    text(low + 2 * width),
                    text(low + width),
                    text(low + width / 2),
                    text(low)
                ),
            })
            .collect();
        // An empty range (`width` 0) is not a pattern.
        let matcher = crate::Matcher::new(patterns.iter().enumerate().filter_map(|(i, p)| {
            Some((i, Pattern::parse_with(p, crate::Dialect::EventBridge).ok()?))
        }));
        let bounds: Vec<u64> = ranges
            .iter()
            .flat_map(|&(low, width, _)| [low, low + width / 2, low + width, low + 2 * width])
            .collect();
        let mut array = Vec::new();
        for (bound, near, tail, digits) in numbers {
            // A bound moved by `near` hundred-millionths, then more digits.
            let units = (bounds[bound % bounds.len()] * 100).saturating_add_signed(near);
            let digits_text = format!("{units:08}{tail:09}");
            let number = format!("-122.{}", &digits_text[..digits.min(17)]);
            array.push(number.trim_end_matches('.').to_owned());
        }
        let event = format!(r#"{{"c":[[{}],37.5],"d":1}}"#, array.join(","));
        let lazy = matcher.matches(event.as_bytes()).unwrap();
        let strict = matcher.matches_strict(event.as_bytes()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&event).unwrap();
        proptest::prop_assert_eq!(&lazy, &strict, "{}", event);
        proptest::prop_assert_eq!(&lazy, &matcher.matches_value(&value), "{}", event);
    }

    /// A number judged by its first three fraction digits alone (a cell
    /// every fraction of which satisfies the same tests,
    /// [`GateText::cells`]) is judged exactly as by its fractions: up to
    /// four ranges or exact numbers around one or two integer parts, either
    /// sign, and numbers anywhere near them with 0 to 15 fraction digits.
    #[test]
    fn cells_judge_as_the_fractions_do(
        whole in -3i64..3,
        ranges in proptest::collection::vec((0u64..2_000_000, 0u64..400_000, 0usize..3), 1..5),
        numbers in proptest::collection::vec((-1i64..2, 0u64..1_000_000_000_000_000, 0usize..16), 1..40),
        near_bounds in proptest::collection::vec((0usize..8, -300_000i64..300_000, 0u64..10_000_000, 0usize..16), 1..40),
    ) {
        // A value `whole` and `millionths` (below 2, so two integer parts).
        let value = |millionths: u64| {
            let (int, frac) = (millionths / 1_000_000, millionths % 1_000_000);
            if whole < 0 {
                format!("-{}.{frac:06}", whole.unsigned_abs() + int)
            } else {
                format!("{}.{frac:06}", whole.unsigned_abs() + int)
            }
        };
        let tests: Vec<String> = ranges
            .iter()
            .map(|&(low, width, kind)| {
                let (a, b) = (value(low), value(low + width));
                let (a, b) = if whole < 0 { (b, a) } else { (a, b) };
                match kind {
                    0 => format!(r#"{{"numeric": [">=", {a}, "<", {b}]}}"#),
                    1 => format!(r#"{{"numeric": [">", {a}, "<=", {b}]}}"#),
                    _ => a,
                }
            })
            .collect();
        let (trie, node) = trie(&format!(r#"{{"c": [{}]}}"#, tests.join(",")));
        let Some(gate) = trie.node(node).gate() else {
            return Ok(());
        };
        let reference = gate.without_cells();
        let mut texts = Vec::new();
        for (int, digits, count) in numbers {
            let int = whole + int;
            let sign = if int < 0 || (int == 0 && whole < 0) { "-" } else { "" };
            let digits = format!("{digits:018}");
            texts.push(format!("{sign}{}.{}", int.unsigned_abs(), &digits[..count.max(1)]));
        }
        // Numbers within 0.003 of a bound (where cells straddle a range's
        // end), moving away from `whole` as the bounds do.
        let bounds: Vec<u64> = ranges.iter().flat_map(|&(low, width, _)| [low, low + width]).collect();
        for (bound, near, tail, count) in near_bounds {
            let units = (bounds[bound % bounds.len()] * 100).saturating_add_signed(near);
            let int = whole.unsigned_abs() + units / 100_000_000;
            let digits = format!("{:08}{tail:07}", units % 100_000_000);
            let sign = if whole < 0 { "-" } else { "" };
            texts.push(format!("{sign}{int}.{}", &digits[..count.max(1)]));
        }
        for number in texts {
            // Eight bytes after the `.` at least: the fractions need them.
            let bytes = format!("[{number},0,0,0,0,0]");
            let judged = gate.judge(bytes.as_bytes(), 1);
            proptest::prop_assert_eq!(
                judged,
                reference.judge(bytes.as_bytes(), 1),
                "{} in {:?}",
                number,
                tests
            );
            // The one-word test of a one-text gate, also when the number
            // ends (`]`) within the three digits' bytes.
            for bytes in [bytes.clone(), format!("[{number}]]],0")] {
                let word = crate::lex::word_at(bytes.as_bytes(), 1).unwrap();
                if let Some(one) = gate.one_word()
                    && let Some(judged) = one.judge(word)
                {
                    proptest::prop_assert_eq!(
                        judged,
                        gate.judge(bytes.as_bytes(), 1),
                        "{} in {:?}",
                        bytes,
                        tests
                    );
                }
            }
        }
    }
}
