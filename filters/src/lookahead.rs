//! Whether the rest of an event can still hold a value some pattern names,
//! for [`crate::scan`]'s early stop.
//!
//! A field name can be reached only through its key, and a key that decodes to
//! `name` is written either as `"name"` or with an escape. So when the bytes
//! after the walk's position hold neither a `\` nor `"name"` for any name the
//! walk could still meet there, nothing after it can add a value: the walk
//! stops reading. One `aho-corasick` searcher (SIMD "Teddy" for few names)
//! looks for all the quoted names at once, `memchr` for `\`, and each next
//! hit is remembered until the walk passes it, so each byte is searched about
//! twice.

use aho_corasick::packed::{Config, MatchKind, Searcher};

/// The field names of a [`crate::compile::PathTrie`], and a searcher for
/// them, quoted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    ids: std::collections::HashMap<String, u32>,
    /// Name id of each searcher pattern.
    pattern_names: Vec<u32>,
    /// Each name and its closing quote (`STREET"`): the opening quote is
    /// checked after a hit, so that the SIMD search keys on the name's bytes.
    quoted: Vec<Vec<u8>>,
    searcher: Option<Searcher>,
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
            self.pattern_names.push(id);
        }
        self.searcher = None;
        id
    }

    /// Build the searcher over every name interned so far.
    pub(crate) fn finish(&mut self) {
        // `None` without SIMD support or past the packed searcher's limits
        // (about 100 names): then the walk never stops early.
        self.searcher = Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .builder()
            .extend(&self.quoted)
            .build();
    }

    /// The first quoted name at or after `from`: `(position, name id)`;
    /// `Err` when there is no searcher.
    fn find(&self, bytes: &[u8], from: usize) -> Result<Option<(usize, u32)>, ()> {
        let searcher = self.searcher.as_ref().ok_or(())?;
        // The name starts after its opening quote, at `from + 1` or later.
        let mut from = from.saturating_add(1).min(bytes.len());
        loop {
            let Some(m) = searcher.find_in(bytes, aho_corasick::Span::from(from..bytes.len()))
            else {
                return Ok(None);
            };
            // The opening quote, just before the hit.
            if let Some(quote) = m.start().checked_sub(1).filter(|&q| bytes[q] == b'"') {
                let name = self.pattern_names.get(m.pattern().as_usize());
                return Ok(Some((quote, name.copied().unwrap_or(u32::MAX))));
            }
            from = m.start() + 1;
        }
    }
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
    name: Hit<u32>,
    backslash: Hit<()>,
}

impl Default for Lookahead {
    fn default() -> Self {
        Self {
            name: Hit::UNKNOWN,
            backslash: Hit::UNKNOWN,
        }
    }
}

impl Lookahead {
    /// Whether, at or after `pos`, `bytes` hold a `\` or a quoted name for
    /// which `wanted` holds.
    pub(crate) fn ahead(
        &mut self,
        names: &Names,
        bytes: &[u8],
        mut pos: usize,
        wanted: impl Fn(u32) -> bool,
    ) -> bool {
        let start = pos;
        loop {
            if !self.name.holds(pos) {
                let Ok(hit) = names.find(bytes, pos) else {
                    return true;
                };
                self.name = Hit { from: pos, hit };
            }
            match self.name.hit {
                None => break,
                Some((_, name)) if wanted(name) => return true,
                Some((at, _)) => pos = at + 1,
            }
        }
        if !self.backslash.holds(start) {
            let hit = bytes
                .get(start..)
                .and_then(|rest| memchr::memchr(b'\\', rest));
            self.backslash = Hit {
                from: start,
                hit: hit.map(|i| (start + i, ())),
            };
        }
        self.backslash.hit.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
