//! Whether the rest of an event can still hold a value some pattern names,
//! for [`crate::scan`]'s early stop.
//!
//! A field name can be reached only through its key, and a key that decodes to
//! `name` is written either as `"name"` or with an escape. So when the bytes
//! after the walk's position hold neither a `\` nor `"name"` for any name the
//! walk could still meet there, nothing after it can add a value: the walk
//! stops reading. The quoted names (`STREET"`, right after a `"`) are looked
//! for as the prefilter looks for its literals ([`crate::anchored`]: quote
//! and backslash bit masks 64 bytes at a time, names compared only at the
//! quotes whose next bytes could begin one), in one pass that also stops at
//! a `\`; each next hit is remembered until the walk passes it. This
//! replaced an `aho-corasick` "Teddy" search for the names plus a `memchr`
//! for `\`: two passes, each about a cycle per byte where the quote masks
//! skip a polygon's coordinates at a few instructions per 64 bytes.

use crate::anchored::{Anchored, First};

/// The field names of a [`crate::compile::PathTrie`], and a searcher for
/// them, quoted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    ids: std::collections::HashMap<String, u32>,
    /// Name id of each searched literal.
    literal_names: Vec<u32>,
    /// Each name and its closing quote (`STREET"`), found right after an
    /// opening quote.
    quoted: Vec<Vec<u8>>,
    searcher: Option<Box<Anchored>>,
}

impl Names {
    /// The id of `name`, interned on first sight. Call [`Names::finish`] after the last.
    pub(crate) fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(name.to_owned(), id);
        // A name with `"`, `\` or a control character is written with an
        // escape: the search for `\` finds it.
        if !name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            self.quoted.push(format!("{name}\"").into_bytes());
            self.literal_names.push(id);
        }
        self.searcher = None;
        id
    }

    /// Build the searcher over every name interned so far.
    pub(crate) fn finish(&mut self) {
        let quoted: Vec<&[u8]> = self.quoted.iter().map(Vec::as_slice).collect();
        self.searcher = Some(Box::new(Anchored::new(&quoted, &[])));
    }

    /// The first quoted name at or after `from` (its opening quote's
    /// position and its name id), or the first `\` if that comes first;
    /// `Err` before [`Names::finish`].
    fn find(&self, bytes: &[u8], from: usize) -> Result<Option<(usize, Next)>, ()> {
        let searcher = self.searcher.as_ref().ok_or(())?;
        Ok(match searcher.first_after(bytes, from) {
            First::Literal { quote, index } => {
                let name = self.literal_names.get(index).copied();
                Some((quote, Next::Name(name.unwrap_or(u32::MAX))))
            }
            First::Backslash(at) => Some((at, Next::Backslash)),
            First::None => None,
        })
    }
}

/// What comes next in an event's bytes.
#[derive(Clone, Copy)]
enum Next {
    /// A quoted name, by id.
    Name(u32),
    /// A `\`.
    Backslash,
}

/// A remembered search: the first hit at or after `from` (`None`: no hit
/// from `from` to the end).
#[derive(Clone, Copy)]
struct Hit<T> {
    from: usize,
    hit: Option<(usize, T)>,
}

impl<T: Copy> Hit<T> {
    const UNKNOWN: Self = Self {
        from: usize::MAX,
        hit: None,
    };

    /// Whether the remembered answer holds for a search from `pos`.
    fn holds(&self, pos: usize) -> bool {
        self.from <= pos && self.hit.is_none_or(|(at, _)| at >= pos)
    }
}

/// Per-event search state.
pub(crate) struct Lookahead {
    next: Hit<Next>,
}

impl Default for Lookahead {
    fn default() -> Self {
        Self { next: Hit::UNKNOWN }
    }
}

impl Lookahead {
    /// The opening quote of the next quoted name at or after `pos`, when the
    /// last search found it from at or before `pos`: between `pos` and it
    /// lie no `\` and no quoted name of any field (whether wanted or not).
    pub(crate) fn name_at(&self, pos: usize) -> Option<usize> {
        match self.next.hit {
            Some((at, Next::Name(_))) if self.next.holds(pos) => Some(at),
            _ => None,
        }
    }

    /// Whether, at or after `pos`, `bytes` hold a `\` or a quoted name for
    /// which `wanted` holds.
    pub(crate) fn ahead(
        &mut self,
        names: &Names,
        bytes: &[u8],
        mut pos: usize,
        wanted: impl Fn(u32) -> bool,
    ) -> bool {
        loop {
            if !self.next.holds(pos) {
                let Ok(hit) = names.find(bytes, pos) else {
                    return true;
                };
                self.next = Hit { from: pos, hit };
            }
            match self.next.hit {
                None => return false,
                // At or after `pos`: the remembered hit is not before it.
                Some((_, Next::Backslash)) => return true,
                Some((_, Next::Name(name))) if wanted(name) => return true,
                Some((at, Next::Name(_))) => pos = at + 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The documented answer, read literally: a `\` at or after `pos`, or
    /// a `"` at or after `pos` followed by a wanted name and a `"`.
    fn ahead_by_definition(names: &[(&str, bool)], bytes: &[u8], pos: usize) -> bool {
        let rest = bytes.get(pos..).unwrap_or_default();
        rest.contains(&b'\\')
            || (0..rest.len()).any(|q| {
                rest[q] == b'"'
                    && names.iter().any(|&(name, wanted)| {
                        // A name with a quote is written with an escape.
                        wanted
                            && !name.contains('"')
                            && rest[q + 1..].starts_with(format!("{name}\"").as_bytes())
                    })
            })
    }

    /// Names, bytes made of them, and where the walk asks.
    fn case() -> impl Strategy<Value = (Vec<(&'static str, bool)>, Vec<u8>, Vec<usize>)> {
        const WORDS: &[&str] = &[
            "a", "ab", "b", "STREET", "q\"t", "xSTREET", "\"", "\\", ":", "1",
        ];
        let names = prop::collection::vec((prop::sample::select(&WORDS[..6]), any::<bool>()), 0..4);
        // Long enough to cross 64-byte blocks.
        let bytes = prop::collection::vec(prop::sample::select(WORDS), 0..150)
            .prop_map(|words| words.concat().into_bytes());
        let positions = prop::collection::vec(0..400usize, 1..8);
        (names, bytes, positions)
    }

    proptest! {
        /// The quote-mask search answers as the definition, asked at
        /// increasing positions (as the walk asks, the remembered hit
        /// reused) and afresh.
        #[test]
        fn answers_as_the_definition((pairs, bytes, mut positions) in case()) {
            let mut names = Names::default();
            let ids: Vec<u32> = pairs.iter().map(|&(name, _)| names.intern(name)).collect();
            names.finish();
            let wanted = |id: u32| ids.iter().zip(&pairs).any(|(&i, &(_, w))| i == id && w);
            positions.sort_unstable();
            let mut walk = Lookahead::default();
            for &pos in &positions {
                let want = ahead_by_definition(&pairs, &bytes, pos);
                prop_assert_eq!(walk.ahead(&names, &bytes, pos, wanted), want, "at {}", pos);
                let mut fresh = Lookahead::default();
                prop_assert_eq!(fresh.ahead(&names, &bytes, pos, wanted), want, "afresh at {}", pos);
            }
        }
    }

    #[test]
    fn finds_wanted_names_and_backslashes_ahead_only() {
        let mut names = Names::default();
        let a = names.intern("a");
        assert_eq!(names.intern("a"), a);
        let b = names.intern("b");
        names.intern("q\"uote");
        names.finish();
        let bytes = br#"{"a": 1, "b": "x\"", "a": 2, "b": 3}"#;
        let mut ahead = Lookahead::default();
        let only = |id: u32| move |n: u32| n == id;
        assert!(ahead.ahead(&names, bytes, 0, only(a)));
        assert!(ahead.ahead(&names, bytes, 2, only(a)));
        assert!(ahead.ahead(&names, bytes, 17, only(a)));
        assert!(ahead.ahead(&names, bytes, 22, only(b)));
        assert!(!ahead.ahead(&names, bytes, 22, only(a)));
        assert!(!ahead.ahead(&names, bytes, 30, only(b)));
        // A search starting inside a quoted name does not find it.
        assert!(!ahead.ahead(&names, bytes, 30, only(b)));
        let mut fresh = Lookahead::default();
        assert!(!fresh.ahead(&names, bytes, 30, only(b)));
        assert!(fresh.ahead(&names, bytes, 29, only(b)));
        // Before the `\` at 16, it counts whatever the names.
        assert!(ahead.ahead(&names, bytes, 10, |_| false));
        assert!(!ahead.ahead(&names, bytes, 17, |_| false));
    }
}
