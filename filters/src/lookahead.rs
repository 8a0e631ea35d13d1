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
//! a `\`. The first question scans the rest of the event once and keeps
//! every quoted name it meets with its position (up to [`HITS`]; then, or
//! past a `\`, the scan resumes when the walk gets there), and the walk's
//! later questions are answered from that list: one scan per event where
//! there was one per object member (six on a city-lots feature). The mask
//! search replaced an `aho-corasick` "Teddy" search for the names plus a `memchr`
//! for `\`: two passes, each about a cycle per byte where the quote masks
//! skip a polygon's coordinates at a few instructions per 64 bytes.

use crate::anchored::{After, Anchored};

/// The field names of a [`crate::compile::PathTrie`], and a searcher for
/// them, quoted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    ids: std::collections::HashMap<String, u32>,
    /// Name id of each searched literal.
    literal_names: Vec<u32>,
    /// Each name's length in bytes, by id.
    lens: Vec<usize>,
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
        self.lens.push(name.len());
        // A name with `"`, `\` or a control character is written with an
        // escape: the search for `\` finds it.
        if !name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            self.quoted.push(format!("{name}\"").into_bytes());
            self.literal_names.push(id);
        }
        self.searcher = None;
        id
    }

    /// The length in bytes of the name with id `id`.
    pub(crate) fn len(&self, id: u32) -> Option<usize> {
        self.lens.get(id as usize).copied()
    }

    /// Build the searcher over every name interned so far.
    pub(crate) fn finish(&mut self) {
        let quoted: Vec<&[u8]> = self.quoted.iter().map(Vec::as_slice).collect();
        self.searcher = Some(Box::new(Anchored::new(&quoted, &[])));
    }

    /// The quoted names at or after `from` into `scan` (see [`Lookahead`]);
    /// `Err` before [`Names::finish`].
    fn scan(&self, bytes: &[u8], from: usize, scan: &mut Lookahead) -> Result<(), ()> {
        let searcher = self.searcher.as_ref().ok_or(())?;
        let hits = &mut scan.hits;
        hits.clear();
        let ended = searcher.each_after(bytes, from, |quote, index| {
            let name = self.literal_names.get(index).copied();
            hits.push((quote, name.unwrap_or(u32::MAX)));
            hits.len() == HITS
        });
        scan.from = from;
        scan.cursor = 0;
        scan.beyond = match ended {
            After::Stopped(quote) => Beyond::Full(quote + 1),
            After::Backslash(at) => Beyond::Backslash(at),
            After::End => Beyond::Nothing,
        };
        Ok(())
    }
}

/// The most quoted names one scan keeps (a city-lots feature holds six of
/// the mixed set's).
const HITS: usize = 32;

/// What lies after the last hit of a [`Lookahead`]'s scan.
#[derive(Clone, Copy)]
enum Beyond {
    /// Nothing: no quoted name and no `\` to the end of the bytes.
    Nothing,
    /// A `\` at this position, and no quoted name between the last hit and
    /// it (quoted names after it not looked for).
    Backslash(usize),
    /// The hits are full; the bytes from this position were not looked at.
    Full(usize),
}

/// Per-event search state: the quoted names ahead, found by one scan of
/// the rest of the event (quote masks, 64 bytes at a time) and answered
/// from as the walk moves on, rather than one search per object member.
pub(crate) struct Lookahead {
    /// Where the last scan started (`usize::MAX` before the first).
    from: usize,
    /// Every quoted name from `from` on, in order, up to `beyond`: its opening
    /// quote and its name id.
    hits: Vec<(usize, u32)>,
    /// The first hit not before the walk's last position.
    cursor: usize,
    beyond: Beyond,
}

impl Default for Lookahead {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Lookahead {
    /// A fresh search state, its hits kept in `hits` (a buffer from
    /// [`Lookahead::take_buffer`], emptied).
    pub(crate) fn new(mut hits: Vec<(usize, u32)>) -> Self {
        hits.clear();
        Self {
            from: usize::MAX,
            hits,
            cursor: 0,
            beyond: Beyond::Nothing,
        }
    }

    /// The hits' buffer, for the next event's [`Lookahead::new`] (this
    /// look-ahead left with none).
    pub(crate) fn take_buffer(&mut self) -> Vec<(usize, u32)> {
        std::mem::take(&mut self.hits)
    }

    /// The index of the first hit at or after `pos` (`hits.len()` for
    /// none), from the cursor on (`pos` not before the cursor's last
    /// position).
    #[inline]
    fn first_from(&self, pos: usize) -> usize {
        let mut i = self.cursor;
        while self.hits.get(i).is_some_and(|&(at, _)| at < pos) {
            i += 1;
        }
        i
    }

    /// The opening quote of the next quoted name at or after `pos`, when the
    /// last scan found it from at or before `pos`: between `pos` and it
    /// lie no `\` and no quoted name of any field (whether wanted or not).
    /// With its name id. The cursor moves to it (the walk asks at
    /// increasing positions: the next question starts there).
    #[inline]
    pub(crate) fn name_at(&mut self, pos: usize) -> Option<(usize, u32)> {
        if self.from > pos || self.went_back(pos) {
            return None;
        }
        self.cursor = self.first_from(pos);
        self.hits.get(self.cursor).copied()
    }

    /// Whether `pos` lies at or before the hit before the cursor.
    #[inline]
    fn went_back(&self, pos: usize) -> bool {
        (self.cursor.checked_sub(1))
            .and_then(|last| self.hits.get(last))
            .is_some_and(|&(at, _)| at >= pos)
    }

    /// Whether, at or after `pos`, `bytes` hold a `\` or a quoted name for
    /// which `wanted` holds: `None` if not, else `Some(until)`, a position
    /// not before `pos` at which such a `\` or name's opening quote stands.
    /// So the answer is also yes at every position from `pos` to `until`
    /// (for the same `wanted`, or one that holds for more names), and the
    /// walk need not ask again before it passes `until`.
    pub(crate) fn ahead(
        &mut self,
        names: &Names,
        bytes: &[u8],
        pos: usize,
        wanted: impl Fn(u32) -> bool,
    ) -> Option<usize> {
        if self.went_back(pos) {
            self.cursor = 0;
        }
        if self.from > pos && names.scan(bytes, pos, self).is_err() {
            return Some(pos);
        }
        loop {
            self.cursor = self.first_from(pos);
            let backslash = match self.beyond {
                // At or after `pos`: it counts whatever the names.
                Beyond::Backslash(at) if at >= pos => Some(at),
                _ => None,
            };
            // The last wanted name: the answer holds up to it.
            if let Some(&(at, _)) = (self.hits.get(self.cursor..).unwrap_or_default().iter())
                .rev()
                .find(|&&(_, name)| wanted(name))
            {
                return Some(backslash.map_or(at, |slash| slash.max(at)));
            }
            let from = match self.beyond {
                Beyond::Nothing => return None,
                Beyond::Backslash(at) if at >= pos => return Some(at),
                Beyond::Backslash(_) => pos,
                Beyond::Full(resume) => resume.max(pos),
            };
            if names.scan(bytes, from, self).is_err() {
                return Some(pos);
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

    /// The opening quote of the first quoted name of `names` at or after
    /// `pos`, when no `\\` comes before it.
    fn next_name_by_definition(names: &[(&str, bool)], bytes: &[u8], pos: usize) -> Option<usize> {
        let rest = bytes.get(pos..).unwrap_or_default();
        let q = (0..rest.len()).find(|&q| {
            rest[q] == b'\\'
                || rest[q] == b'"'
                    && names.iter().any(|&(name, _)| {
                        !name.contains('"')
                            && rest[q + 1..].starts_with(format!("{name}\"").as_bytes())
                    })
        })?;
        (rest[q] == b'"').then_some(pos + q)
    }

    /// Events dense with quoted names: more than one scan keeps.
    fn dense_case() -> impl Strategy<Value = (Vec<(&'static str, bool)>, Vec<u8>, Vec<usize>)> {
        const WORDS: &[&str] = &["a", "ab", "\"a\"", "\"ab\"", "\"b\":", "\"", ":"];
        let names = prop::collection::vec((prop::sample::select(&WORDS[..2]), any::<bool>()), 1..3);
        // At most one `\\` (a scan ends at one).
        let bytes = (
            prop::collection::vec(prop::sample::select(WORDS), 0..200),
            any::<Option<usize>>(),
        )
            .prop_map(|(mut words, backslash)| {
                if let Some(at) = backslash {
                    words.insert(at % (words.len() + 1), "\\");
                }
                words.concat().into_bytes()
            });
        let positions = prop::collection::vec(0..800usize, 1..12);
        (names, bytes, positions)
    }

    /// Asks a walk's look-ahead at `positions` (sorted here) as the walk
    /// asks, and a fresh one at each: every answer as the definition, and
    /// each next name the walk is told of the first one ahead, with its id
    /// that of the name standing there.
    fn answers_as_the_definition_at(
        pairs: &[(&str, bool)],
        bytes: &[u8],
        mut positions: Vec<usize>,
    ) -> Result<(), TestCaseError> {
        let mut names = Names::default();
        let ids: Vec<u32> = pairs.iter().map(|&(name, _)| names.intern(name)).collect();
        names.finish();
        let wanted = |id: u32| ids.iter().zip(pairs).any(|(&i, &(_, w))| i == id && w);
        positions.sort_unstable();
        let mut walk = Lookahead::default();
        for &pos in &positions {
            let want = ahead_by_definition(pairs, bytes, pos);
            let until = walk.ahead(&names, bytes, pos, wanted);
            prop_assert_eq!(until.is_some(), want, "at {}", pos);
            // Yes up to `until` (the definition's answer can only turn
            // from yes to no as the position grows).
            if let Some(until) = until {
                prop_assert!(until >= pos, "until {} before {}", until, pos);
                prop_assert!(ahead_by_definition(pairs, bytes, until), "until {}", until);
            }
            let mut fresh = Lookahead::default();
            let afresh = fresh.ahead(&names, bytes, pos, wanted);
            prop_assert_eq!(afresh.is_some(), want, "afresh at {}", pos);
            if let Some(until) = afresh {
                prop_assert!(
                    ahead_by_definition(pairs, bytes, until),
                    "afresh until {}",
                    until
                );
            }
            if let Some((at, id)) = walk.name_at(pos) {
                prop_assert_eq!(
                    Some(at),
                    next_name_by_definition(pairs, bytes, pos),
                    "next after {}",
                    pos
                );
                let name = ids
                    .iter()
                    .zip(pairs)
                    .find(|(i, _)| **i == id)
                    .map(|(_, &(name, _))| name);
                let stands = name.is_some_and(|name| {
                    bytes[at + 1..].starts_with(format!("{name}\"").as_bytes())
                });
                prop_assert!(stands, "name {} at {}", id, at);
                prop_assert_eq!(names.len(id), name.map(str::len));
            }
        }
        Ok(())
    }

    proptest! {
        /// With more quoted names than one scan keeps (and `\\`s among
        /// them), asked at increasing positions: every answer as the
        /// definition, and each next name the walk is told of the first
        /// one ahead.
        #[test]
        fn answers_as_the_definition_past_a_full_scan((pairs, bytes, positions) in dense_case()) {
            answers_as_the_definition_at(&pairs, &bytes, positions)?;
        }

        /// The quote-mask search answers as the definition, asked at
        /// increasing positions (as the walk asks, the remembered hit
        /// reused) and afresh.
        #[test]
        fn answers_as_the_definition((pairs, bytes, positions) in case()) {
            answers_as_the_definition_at(&pairs, &bytes, positions)?;
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
        assert!(ahead.ahead(&names, bytes, 0, only(a)).is_some());
        assert!(ahead.ahead(&names, bytes, 2, only(a)).is_some());
        assert!(ahead.ahead(&names, bytes, 17, only(a)).is_some());
        assert!(ahead.ahead(&names, bytes, 22, only(b)).is_some());
        assert!(ahead.ahead(&names, bytes, 22, only(a)).is_none());
        assert!(ahead.ahead(&names, bytes, 30, only(b)).is_none());
        // A search starting inside a quoted name does not find it.
        assert!(ahead.ahead(&names, bytes, 30, only(b)).is_none());
        let mut fresh = Lookahead::default();
        assert!(fresh.ahead(&names, bytes, 30, only(b)).is_none());
        assert!(fresh.ahead(&names, bytes, 29, only(b)).is_some());
        // Before the `\` at 16, it counts whatever the names.
        assert!(ahead.ahead(&names, bytes, 10, |_| false).is_some());
        assert!(ahead.ahead(&names, bytes, 17, |_| false).is_none());
    }
}
