//! Required literals: a quick "nothing can match" for most events, before
//! they are read, for [`crate::Matcher::matches`].
//!
//! A string value equal to `s` is written in an event's bytes as `"s"`
//! unless the writer used an escape, and an escape needs a `\`. So in an
//! event with no `\`, a pattern that needs the exact string `s` at some field
//! finds the bytes `"s"`; a `prefix` `p` finds `"p`, a `suffix` `p` finds
//! `p"`. Each branch of a pattern needs every one of its conditions that
//! cannot hold by absence, so one condition whose tests all give a literal
//! gives the branch a set of literals, one of which must appear. When every
//! branch of every pattern has such a set, an event that starts with `{`,
//! ends with `}`, and holds no `\` and none of the literals matches nothing.
//!
//! Tests without a literal (numbers, `numeric`, `equals-ignore-case`,
//! `anything-but`, `exists`, `wildcard`, `cidr`, booleans, `null`, an empty
//! prefix or suffix) give none, and a branch made only of them leaves the
//! matcher without a prefilter. A value holding `"`, `\` or a control
//! character is always written with an escape, so it needs a `\` and adds no
//! literal.
//!
//! The literals are looked for with `aho-corasick`'s packed searcher (its
//! SIMD "Teddy", up to some dozens of literals, where the CPU has SSSE3,
//! AVX2 or NEON; without it there is no prefilter), the `\` with `memchr`.
//! Its automaton with its own prefilters was slower: every literal begins or
//! ends with `"`, the commonest byte of JSON, and its rare-byte guesses do
//! not fit JSON either (on the 10-pattern stream-filter set of
//! `examples/bench.rs` the search took about half of the matching time).
//!
//! Why it is kept: on the TTL pattern and corpus (a) of `examples/bench.rs`
//! (200,000 stream records, 10 % TTL deletions) it rejects the 90 % of
//! records that are not TTL deletions without reading them, and a record
//! costs about 70 % less CPU than without it (0.57-0.61 against 1.94 µs per
//! record, medians of 5 passes, on the shared 2-core development VM under
//! load 8; "without" measured by adding a pattern that needs no literal and
//! names no other field). See `filters/PATTERNS.md`, "Event bytes", for what
//! `matches` then leaves unchecked.

use aho_corasick::packed;

use crate::compile::{Condition, Test};

/// The literals some branch of every pattern needs one of; see the module
/// documentation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefilter {
    /// Whether every branch needs a literal (or an escape): else it never rejects.
    active: bool,
    /// The literals' searcher; `None` when there are no literals (every
    /// branch needs an escape).
    literals: Option<packed::Searcher>,
}

impl Prefilter {
    /// The prefilter for the branches of all patterns (`rules`, in groups).
    pub(crate) fn new<'r>(rules: impl IntoIterator<Item = &'r Vec<Vec<Condition>>>) -> Self {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        for branch in rules.into_iter().flatten() {
            let Some(needed) = branch_literals(branch) else {
                return Self::default();
            };
            for literal in needed {
                if !literals.contains(&literal) {
                    literals.push(literal);
                }
            }
        }
        if literals.is_empty() {
            return Self {
                active: true,
                literals: None,
            };
        }
        match packed::Searcher::new(&literals) {
            Some(searcher) => Self {
                active: true,
                literals: Some(searcher),
            },
            // Too many literals for it, or no SIMD: no prefilter.
            None => Self::default(),
        }
    }

    /// Whether no pattern can match `bytes`: they look like one object (`{`
    /// first, `}` last), hold no `\`, and none of the required literals.
    pub(crate) fn rejects(&self, bytes: &[u8]) -> bool {
        self.active
            && (self.literals.as_ref()).is_none_or(|literals| literals.find(bytes).is_none())
            && memchr::memchr(b'\\', bytes).is_none()
            && bytes.trim_ascii_start().first() == Some(&b'{')
            && bytes.trim_ascii_end().last() == Some(&b'}')
    }
}

/// The literals one of which `branch` needs; `None` if it needs none. Of the
/// conditions with literals, the one whose shortest literal is longest (the
/// rarest, likely); an empty set (the branch needs an escape) beats all.
fn branch_literals(branch: &[Condition]) -> Option<Vec<Vec<u8>>> {
    branch
        .iter()
        .filter(|condition| !condition.absent_ok)
        .filter_map(|condition| {
            let mut set = Vec::new();
            for test in &condition.tests {
                set.extend(test_literal(test)?);
            }
            Some(set)
        })
        .max_by_key(|set| set.iter().map(Vec::len).min().unwrap_or(usize::MAX))
}

/// The literal a value matching `test` shows in unescaped bytes: `Some(None)`
/// when such a value is always escaped, `None` when there is no literal.
fn test_literal(test: &Test) -> Option<Option<Vec<u8>>> {
    let (text, quote_before, quote_after) = match test {
        Test::String(s) => (s, true, true),
        Test::Prefix(p) if !p.is_empty() => (p, true, false),
        Test::Suffix(p) if !p.is_empty() => (p, false, true),
        _ => return None,
    };
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        return Some(None);
    }
    let mut literal = Vec::with_capacity(text.len() + 2);
    if quote_before {
        literal.push(b'"');
    }
    literal.extend_from_slice(text.as_bytes());
    if quote_after {
        literal.push(b'"');
    }
    Some(Some(literal))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::compile::{Branches, Trie, compile};
    use crate::pattern::Pattern;
    use proptest::prelude::*;

    fn rules<S: AsRef<str>>(patterns: &[S]) -> Vec<Branches> {
        let mut trie = Trie::new();
        patterns
            .iter()
            .map(|p| compile(&Pattern::parse(p.as_ref()).unwrap(), &mut trie))
            .collect()
    }

    fn prefilter(patterns: &[&str]) -> Prefilter {
        Prefilter::new(&rules(patterns))
    }

    /// Words for values and keys: literals, parts of them, longer strings
    /// holding them, a quote and an escape.
    const WORDS: &[&str] = &[
        "ab", "a", "b", "abc", "xab", "17TH", "T", "", "q\\\"", "\\u0061b", ":", "é",
    ];

    fn test() -> impl Strategy<Value = String> {
        let word = || prop::sample::select(WORDS);
        prop_oneof![
            word().prop_map(|w| format!(r#""{w}""#)),
            word().prop_map(|w| format!(r#"{{"prefix": "{w}"}}"#)),
            word().prop_map(|w| format!(r#"{{"suffix": "{w}"}}"#)),
            Just(r#"{"numeric": [">", 1]}"#.to_owned()),
        ]
    }

    fn patterns() -> impl Strategy<Value = Vec<String>> {
        let field = prop::sample::select(&["a", "b", "ab"][..]);
        let pattern = (field, prop::collection::vec(test(), 1..3))
            .prop_map(|(f, tests)| format!(r#"{{"{f}": [{}]}}"#, tests.join(", ")));
        prop::collection::vec(pattern, 1..4)
    }

    /// An event's bytes: members with keys and string values made of
    /// `WORDS`, numbers and nested objects, sometimes with junk at either end.
    fn event() -> impl Strategy<Value = Vec<u8>> {
        let text =
            prop::collection::vec(prop::sample::select(WORDS), 0..3).prop_map(|w| w.concat());
        let value = prop_oneof![
            text.clone().prop_map(|t| format!(r#""{t}""#)),
            Just("12".to_owned()),
            text.clone().prop_map(|t| format!(r#"{{"a": "{t}"}}"#)),
            text.clone().prop_map(|t| format!(r#"["{t}", "b"]"#)),
        ];
        let member = (text, value).prop_map(|(k, v)| format!(r#""{k}": {v}"#));
        let junk = || prop::sample::select(&["", "", "", " ", "x", "\"", "}"][..]);
        (junk(), prop::collection::vec(member, 0..5), junk()).prop_map(|(head, members, tail)| {
            format!("{head}{{{}}}{tail}", members.join(", ")).into_bytes()
        })
    }

    proptest! {
        /// The prefilter never rejects an event some pattern matches.
        #[test]
        fn never_hides_a_match(patterns in patterns(), event in event()) {
            if prefilter(&patterns.iter().map(String::as_str).collect::<Vec<_>>()).rejects(&event) {
                let parsed: Vec<_> = patterns.iter().map(|p| Pattern::parse(p).unwrap()).collect();
                let matcher = crate::Matcher::new(parsed.into_iter().enumerate());
                let ids = matcher.matches_strict(&event).unwrap_or_default();
                prop_assert!(ids.is_empty(), "rejected, but {:?} match", ids);
            }
        }
    }

    #[test]
    fn rejects_only_events_without_any_required_literal_or_backslash() {
        let p = prefilter(&[
            r#"{"a": ["xyz"], "n": [1]}"#,
            r#"{"$or": [{"b": [{"prefix": "pre"}]}, {"c": [{"suffix": "fix"}]}]}"#,
        ]);
        for (event, rejected) in [
            (&br#"{"a": "xy", "b": "xyzw"}"#[..], true),
            // Anywhere: it is a test of the bytes, not of the field.
            (br#"{"b": "xyz"}"#, false),
            (br#"{"a": "xyz"}"#, false),
            (br#"{"a": "wxyz"}"#, true),
            (br#"{"a": "\u0078yz"}"#, false),
            (br#"{"b": "prefect"}"#, false),
            (br#"{"b": "apre"}"#, true),
            (br#"{"c": "suffix"}"#, false),
            (br#"{"c": "fixed"}"#, true),
            // Not one object: left to the reader, which reports the fault.
            (br#"{"a": "xy""#, false),
            (br#"["a"]"#, false),
        ] {
            assert_eq!(
                p.rejects(event),
                rejected,
                "{}",
                String::from_utf8_lossy(event)
            );
        }
    }

    #[test]
    fn patterns_without_literals_disable_it() {
        for pattern in [
            r#"{"a": [{"numeric": [">", 1]}]}"#,
            r#"{"a": [{"exists": false}]}"#,
            r#"{"a": ["x", {"equals-ignore-case": "y"}]}"#,
            r#"{"a": [{"prefix": ""}]}"#,
        ] {
            let p = prefilter(&[r#"{"a": ["x"]}"#, pattern]);
            assert!(!p.rejects(br#"{"a": "y"}"#), "{pattern}");
        }
        // A value that is always escaped needs a backslash.
        let p = prefilter(&[r#"{"a": ["q\"uote"]}"#]);
        assert!(p.rejects(br#"{"a": "quote"}"#));
        assert!(!p.rejects(br#"{"a": "q\"uote"}"#));
    }
}
