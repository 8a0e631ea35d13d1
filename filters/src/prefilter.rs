//! Required literals: a quick "nothing can match" for most events, before
//! any scan, for [`crate::Matcher::matches`].
//!
//! A string value equal to `s` is written in an event's bytes as `"s"` unless
//! the writer used an escape, and an escape needs a `\`. So in an event with
//! no `\`, a pattern that matches the exact string `s` at some field finds
//! the bytes `"s"`; a `prefix` `p` finds `"p`, a `suffix` `p` finds `p"`.
//! Each branch of a pattern needs every one of its conditions (those without
//! `{"exists": false}`), so one condition whose tests all give a literal
//! gives the branch a set of literals, one of which must appear. When every
//! branch of every pattern has such a set, an event that holds none of the
//! literals and no `\` matches nothing, and is not read further.
//!
//! Tests without a literal (numbers, `numeric`, `equals-ignore-case`,
//! `anything-but`, `exists`, `wildcard`, `cidr`, booleans, `null`, an empty
//! prefix or suffix) give none: a branch made only of them, and so the
//! whole matcher, has no prefilter. A value holding `"`, `\` or a control
//! character is always escaped, so it needs a `\` and gives an empty set.
//!
//! One literal is looked for with `memchr`'s `memmem`; several, at the
//! quotes they are anchored at ([`crate::anchored`]): both cost less per
//! byte than one SIMD "Teddy" search for all the literals' bytes, which
//! this replaced.

use crate::anchored::Anchored;
use crate::compile::{Condition, Test};
use crate::quotes::prefetch;

/// A byte string that must appear, maybe right after a `"`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Needle {
    bytes: Vec<u8>,
    quote_before: bool,
}

/// The required literals of a whole matcher; see the module documentation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefilter {
    /// `None` when some branch has no required literal: never rejects.
    search: Option<Search>,
}

/// How the literals are looked for.
#[derive(Debug, Clone)]
enum Search {
    /// One literal: `memchr`'s `memmem` (two of its rarer bytes compared at
    /// each position, cheaper than reading every quote's neighbours).
    One {
        finder: Box<memchr::memmem::Finder<'static>>,
        quote_before: bool,
    },
    /// Several: at each quote that may anchor one, see [`crate::anchored`].
    Quotes(Box<Anchored>),
}

impl Prefilter {
    /// The prefilter for `rules` (each a pattern's branches); one that never
    /// rejects when some branch has no required literal.
    pub(crate) fn new<'r>(rules: impl IntoIterator<Item = &'r [Vec<Condition>]>) -> Self {
        let Some(needles) = needles(rules) else {
            return Self::default();
        };
        if let [one] = &needles[..] {
            return Self {
                search: Some(Search::One {
                    finder: Box::new(memchr::memmem::Finder::new(&one.bytes).into_owned()),
                    quote_before: one.quote_before,
                }),
            };
        }
        let mut after = Vec::new();
        let mut before = Vec::new();
        for Needle {
            bytes,
            quote_before,
        } in &needles
        {
            if *quote_before {
                after.push(&bytes[..]);
            } else if let Some((b'"', text)) = bytes.split_last() {
                before.push(text);
            } else {
                // Not anchored at a quote (`test_needles` makes none such).
                return Self::default();
            }
        }
        Self {
            search: Some(Search::Quotes(Box::new(Anchored::new(&after, &before)))),
        }
    }

    /// Whether no pattern can match `bytes`: they look like one object (`{`
    /// first, `}` last), hold no `\`, and none of the required literals.
    pub(crate) fn rejects(&self, bytes: &[u8]) -> bool {
        let Some(search) = &self.search else {
            return false;
        };
        prefetch(bytes);
        let none = match search {
            Search::One {
                finder,
                quote_before,
            } => {
                let mut hits = finder.find_iter(bytes);
                !hits.any(|at| !quote_before || at.checked_sub(1).map(|q| bytes[q]) == Some(b'"'))
                    && memchr::memchr(b'\\', bytes).is_none()
            }
            Search::Quotes(anchored) => anchored.holds_none(bytes),
        };
        none
            // The shape last: the search has brought both ends into the cache.
            && bytes.trim_ascii_start().first() == Some(&b'{')
            && bytes.trim_ascii_end().last() == Some(&b'}')
    }
}

/// The literals of which every branch of `rules` needs one; `None` if some
/// branch has none.
fn needles<'r>(rules: impl IntoIterator<Item = &'r [Vec<Condition>]>) -> Option<Vec<Needle>> {
    let mut needles: Vec<Needle> = Vec::new();
    for branches in rules {
        for branch in branches {
            for needle in branch_needles(branch)? {
                if !needles.contains(&needle) {
                    needles.push(needle);
                }
            }
        }
    }
    Some(needles)
}

/// Some literal of which a branch needs; `None` if it has none. Of the
/// conditions with literals, the one whose shortest literal is longest (the
/// rarest, likely): an empty set (the branch needs an escape) beats all.
fn branch_needles(branch: &[Condition]) -> Option<Vec<Needle>> {
    branch
        .iter()
        .filter(|condition| !condition.absent_ok)
        .filter_map(|condition| {
            let mut set = Vec::new();
            for test in &condition.tests {
                set.extend(test_needles(test)?);
            }
            Some(set)
        })
        .max_by_key(|set| {
            set.iter()
                .map(|n| n.bytes.len())
                .min()
                .unwrap_or(usize::MAX)
        })
}

/// The literals one of which a value matching `test` shows in unescaped
/// bytes; `None` if there are none such.
fn test_needles(test: &Test) -> Option<Vec<Needle>> {
    let (text, quote_before, quote_after) = match test {
        Test::String(s) => (s, true, true),
        Test::Prefix(p) if !p.is_empty() => (p, true, false),
        Test::Suffix(p) if !p.is_empty() => (p, false, true),
        _ => return None,
    };
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        // Always written with an escape: the search for `\` covers it.
        return Some(Vec::new());
    }
    let mut bytes = text.as_bytes().to_vec();
    if quote_after {
        bytes.push(b'"');
    }
    Some(vec![Needle {
        bytes,
        quote_before,
    }])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::compile::{PathTrie, compile};
    use crate::pattern::Pattern;
    use proptest::prelude::*;

    fn rules<S: AsRef<str>>(patterns: &[S]) -> Vec<Vec<Vec<Condition>>> {
        let mut trie = PathTrie::new();
        patterns
            .iter()
            .map(|p| compile(&Pattern::parse(p.as_ref()).unwrap(), &mut trie))
            .collect()
    }

    fn prefilter(patterns: &[&str]) -> Prefilter {
        Prefilter::new(rules(patterns).iter().map(Vec::as_slice))
    }

    /// The documented test, read literally: the bytes look like one object,
    /// hold no `\`, and no required literal at any position (after a `"`
    /// where it needs one).
    fn rejects_by_definition(needles: Option<&[Needle]>, bytes: &[u8]) -> bool {
        let Some(needles) = needles else {
            return false;
        };
        let found = needles.iter().any(|n| {
            (0..bytes.len()).any(|i| {
                bytes[i..].starts_with(&n.bytes)
                    && (!n.quote_before || i > 0 && bytes[i - 1] == b'"')
            })
        });
        !found
            && !bytes.contains(&b'\\')
            && bytes.trim_ascii_start().first() == Some(&b'{')
            && bytes.trim_ascii_end().last() == Some(&b'}')
    }

    /// Words for values and keys: literals, parts of them, longer strings
    /// holding them, a quote and an escape.
    const WORDS: &[&str] = &[
        "ab",
        "a",
        "b",
        "abc",
        "xab",
        "17TH",
        "T",
        "",
        "q\\\"",
        "\\u0061b",
        ":",
        "é",
        // Longer than the eight-byte words `anchored` compares first.
        "abcdefghij",
        "abcdefghijklmnopqrs",
        "abcdefghiXklmnopqrs",
        "abcdefghijklmnopqrs.x",
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
        /// The quote-anchored search decides as the literal reading of the
        /// documentation (the old byte search for every literal), and never
        /// rejects an event some pattern matches.
        #[test]
        fn decides_as_the_definition_and_never_hides_a_match(
            patterns in patterns(),
            event in event(),
        ) {
            let rules = rules(&patterns);
            let prefilter = Prefilter::new(rules.iter().map(Vec::as_slice));
            let needles = needles(rules.iter().map(Vec::as_slice));
            let rejected = prefilter.rejects(&event);
            prop_assert_eq!(rejected, rejects_by_definition(needles.as_deref(), &event));
            if rejected {
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
            // Not one object: left to the walk, which reports the fault.
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
    fn a_failed_quote_check_does_not_hide_a_literal_at_the_same_place() {
        // `ab"` (suffix) and `ab"` preceded by a quote (exact) start together.
        let p = prefilter(&[r#"{"a": ["ab"]}"#, r#"{"b": [{"suffix": "ab"}]}"#]);
        assert!(!p.rejects(br#"{"b": "xab"}"#));
        assert!(p.rejects(br#"{"b": "xa"}"#));
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
