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
//! One `aho-corasick` search (`memchr`'s `memmem` for one literal, SIMD
//! "Teddy" for a few) looks for every literal at once; a literal that begins
//! with a quote is searched without it (the SIMD search keys on its first
//! bytes, and `"` is everywhere in JSON), and the quote is checked at a hit.

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::compile::{Condition, Test};

/// A byte string that must appear, maybe right after a `"`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Needle {
    bytes: Vec<u8>,
    quote_before: bool,
}

/// The required literals of a whole matcher; see the module documentation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefilter {
    searcher: Option<AhoCorasick>,
    /// Per searcher pattern: whether a `"` must come just before the hit.
    quote_before: Vec<bool>,
}

impl Prefilter {
    /// The prefilter for `rules` (each a pattern's branches); one that never
    /// rejects when some branch has no required literal.
    pub(crate) fn new<'r>(rules: impl IntoIterator<Item = &'r [Vec<Condition>]>) -> Self {
        let mut needles: Vec<Needle> = Vec::new();
        for branches in rules {
            for branch in branches {
                let Some(set) = branch_needles(branch) else {
                    return Self::default();
                };
                for needle in set {
                    if !needles.contains(&needle) {
                        needles.push(needle);
                    }
                }
            }
        }
        // Leftmost-first reports, of the literals that start at one position,
        // the one listed first: list those without a quote check first, so
        // that a failed quote check at a position rules out every literal there.
        needles.sort_by_key(|n| n.quote_before);
        let searcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(needles.iter().map(|n| &n.bytes));
        let Ok(searcher) = searcher else {
            return Self::default();
        };
        Self {
            searcher: Some(searcher),
            quote_before: needles.iter().map(|n| n.quote_before).collect(),
        }
    }

    /// Whether no pattern can match `bytes`: they look like one object (`{`
    /// first, `}` last), hold no `\`, and none of the required literals.
    pub(crate) fn rejects(&self, bytes: &[u8]) -> bool {
        let Some(searcher) = &self.searcher else {
            return false;
        };
        let mut from = 0;
        while let Some(hit) = searcher.find(Input::new(bytes).span(from..bytes.len())) {
            let start = hit.start();
            let quote_before = self.quote_before.get(hit.pattern().as_usize()) == Some(&true);
            if !quote_before || (start > 0 && bytes[start - 1] == b'"') {
                return false;
            }
            from = start + 1;
        }
        // The shape last: the search has brought both ends into the cache.
        memchr::memchr(b'\\', bytes).is_none()
            && bytes.trim_ascii_start().first() == Some(&b'{')
            && bytes.trim_ascii_end().last() == Some(&b'}')
    }
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

    fn prefilter(patterns: &[&str]) -> Prefilter {
        let mut trie = PathTrie::new();
        let rules: Vec<_> = patterns
            .iter()
            .map(|p| compile(&Pattern::parse(p).unwrap(), &mut trie))
            .collect();
        Prefilter::new(rules.iter().map(Vec::as_slice))
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
