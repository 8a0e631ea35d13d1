//! The required literals of [`crate::prefilter`], found at the quotes they
//! are anchored at.
//!
//! Every literal is anchored at a quote: the `"` before an exact string (its
//! closing quote included) or a prefix, the `"` after a suffix. So
//! [`crate::quotes`] offers the quotes whose neighbouring bytes could begin
//! or end one (SIMD bit masks, 64 bytes at a time, stopping at a `\`), and
//! at each, the literals whose first byte (after a quote) or last byte
//! (before one) stand there are compared in full. Most of a city-lots
//! event's bytes (a polygon's coordinates) hold no quote and cost a few
//! instructions per 64 bytes, where a search for the literals' own bytes
//! (`aho-corasick`'s SIMD "Teddy", which this replaced) costs about a cycle
//! per byte.

use crate::quotes::{Anchors, Seen, each_quote};

/// How [`Anchored::each_after`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// The callback asked to stop at the literal after the `"` at this position.
    Stopped(usize),
    /// A `\` at this position (quotes in the 64 bytes before it may not
    /// have been looked at).
    Backslash(usize),
    /// Every literal to the end of the bytes was given, and there is no `\`.
    End,
}

/// The literals, by the quote they are anchored at.
#[derive(Debug, Clone)]
pub(crate) struct Anchored {
    /// Exact strings (with their closing quote) and prefixes, the bytes
    /// right after a `"`: grouped by first byte.
    after: ByByte,
    /// Suffixes, the bytes right before a `"` (without it): grouped by last byte.
    before: ByByte,
    /// The bytes next to a quote that `after` or `before` may start or end at.
    anchors: Anchors,
    /// `after`'s literals in one flat list when there are at most
    /// [`FEW`] (the look-ahead's names, most often), for
    /// [`Anchored::each_after`]: each compared by its first word where
    /// eight bytes remain, without the dependent loads of a group lookup.
    few: Vec<Literal>,
}

/// The most literals [`Anchored::each_after`] compares one by one.
const FEW: usize = 8;

/// Byte strings grouped by one of their bytes.
#[derive(Debug, Clone)]
struct ByByte {
    /// Per byte value, 1 + its group's index in `groups`; 0 for none.
    slot: [u16; 256],
    groups: Vec<Vec<Literal>>,
}

/// A byte string, with its first and last eight bytes as words: most
/// candidates differ from it there, and two word compares are cheaper than
/// a call to `memcmp`.
#[derive(Debug, Clone)]
struct Literal {
    bytes: Box<[u8]>,
    head: u64,
    tail: u64,
    /// The bits of `head` that are the literal's (all for eight bytes or more).
    mask: u64,
    /// Its index in the list given to [`Anchored::new`].
    index: usize,
}

/// The first eight bytes of `bytes` as a word (zeros past their end).
fn word(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    let n = bytes.len().min(8);
    word[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(word)
}

impl Literal {
    fn new(bytes: &[u8], index: usize) -> Self {
        Self {
            index,
            mask: match bytes.len() {
                n @ 0..8 => (1u64 << (8 * n)) - 1,
                _ => u64::MAX,
            },
            bytes: bytes.into(),
            head: word(bytes),
            tail: word(
                bytes
                    .get(bytes.len().saturating_sub(8)..)
                    .unwrap_or_default(),
            ),
        }
    }

    /// Whether `hay` holds this literal at `at`, given `first`, the word
    /// of the eight bytes at `at` (so at least eight remain).
    #[inline(always)]
    fn is_at_word(&self, hay: &[u8], at: usize, first: u64) -> bool {
        let n = self.bytes.len();
        if first & self.mask != self.head {
            return false;
        }
        if n <= 8 {
            return true;
        }
        let Some(window) = hay.get(at..at.saturating_add(n)) else {
            return false;
        };
        window.last_chunk::<8>().map(|w| u64::from_le_bytes(*w)) == Some(self.tail)
            && (n <= 16 || window.get(8..n - 8) == self.bytes.get(8..n - 8))
    }

    /// Whether `hay` holds this literal at `at`.
    #[inline(always)]
    fn is_at(&self, hay: &[u8], at: usize) -> bool {
        let n = self.bytes.len();
        let Some(window) = hay.get(at..at.saturating_add(n)) else {
            return false;
        };
        if n < 8 {
            // Four to seven bytes: two overlapping four-byte words (the
            // first four of `head`, the last four of `tail`), not a loop.
            if let (Some(first), Some(last)) = (window.first_chunk::<4>(), window.last_chunk::<4>())
            {
                return u64::from(u32::from_le_bytes(*first)) == self.head & 0xffff_ffff
                    && u64::from(u32::from_le_bytes(*last))
                        == self.tail >> (8 * (n - 4)) & 0xffff_ffff;
            }
            return window.iter().zip(&self.bytes).all(|(a, b)| a == b);
        }
        let word = |from: usize| {
            window
                .get(from..from + 8)
                .and_then(|w| w.try_into().ok())
                .map(u64::from_le_bytes)
        };
        word(0) == Some(self.head)
            && word(n - 8) == Some(self.tail)
            && (n <= 16 || window.get(8..n - 8) == self.bytes.get(8..n - 8))
    }
}

impl ByByte {
    fn new() -> Self {
        Self {
            slot: [0; 256],
            groups: Vec::new(),
        }
    }

    fn add(&mut self, key: u8, bytes: &[u8], index: usize) {
        let slot = &mut self.slot[usize::from(key)];
        if *slot == 0 {
            self.groups.push(Vec::new());
            *slot = u16::try_from(self.groups.len()).unwrap_or(u16::MAX);
        }
        if let Some(group) = self.groups.get_mut(usize::from(*slot) - 1) {
            group.push(Literal::new(bytes, index));
        }
    }

    /// Every byte string.
    fn literals(&self) -> impl Iterator<Item = &[u8]> {
        self.groups
            .iter()
            .flatten()
            .map(|literal| &literal.bytes[..])
    }

    /// The group of byte strings keyed by `key` (often empty).
    #[inline(always)]
    fn group(&self, key: u8) -> &[Literal] {
        match self.slot[usize::from(key)] {
            0 => &[],
            slot => self
                .groups
                .get(usize::from(slot) - 1)
                .map_or(&[], Vec::as_slice),
        }
    }
}

impl Anchored {
    /// For literals that start right after a quote (`after`: exact strings
    /// with their closing quote, prefixes), and literals that end right
    /// before one (`before`: suffixes, without it). Empty literals are left out.
    pub(crate) fn new(after: &[&[u8]], before: &[&[u8]]) -> Self {
        let mut anchored = Self {
            after: ByByte::new(),
            before: ByByte::new(),
            anchors: Anchors::new([], []),
            few: Vec::new(),
        };
        for (index, literal) in after.iter().enumerate() {
            if let Some(&first) = literal.first() {
                anchored.after.add(first, literal, index);
            }
        }
        for (index, literal) in before.iter().enumerate() {
            if let Some(&last) = literal.last() {
                anchored.before.add(last, literal, index);
            }
        }
        anchored.anchors = Anchors::new(anchored.after.literals(), anchored.before.literals());
        if after.len() <= FEW {
            anchored.few = (after.iter().enumerate())
                .filter(|(_, literal)| !literal.is_empty())
                .map(|(index, literal)| Literal::new(literal, index))
                .collect();
        }
        anchored
    }

    /// Whether `bytes` hold no `\` and none of the literals at its quote.
    pub(crate) fn holds_none(&self, bytes: &[u8]) -> bool {
        each_quote(bytes, &self.anchors, |quote| self.at_quote(bytes, quote)) == Seen::End
    }

    /// Gives `found` each quote at or after `from` that a literal of
    /// `after` starts right after (its position, and the literal's index in
    /// `after`), in order, until it returns `true` or a `\` at or after
    /// `from` is met (quotes in the 64 bytes before the `\` may not have
    /// been given). Literals of `before` are not looked for.
    pub(crate) fn each_after(
        &self,
        bytes: &[u8],
        from: usize,
        mut found: impl FnMut(usize, usize) -> bool,
    ) -> After {
        let rest = bytes.get(from..).unwrap_or_default();
        let at_quote = |quote: usize| {
            self.after_at(rest, quote + 1)
                .is_some_and(|index| found(from + quote, index))
        };
        match each_quote(rest, &self.anchors, at_quote) {
            Seen::Stopped(quote) => After::Stopped(from + quote),
            Seen::Backslash(at) => After::Backslash(from + at),
            Seen::End => After::End,
        }
    }

    /// The index of the literal of `after` that `hay` holds at `at`, if any:
    /// from the flat list by the word at `at` where there is one and eight
    /// bytes remain, else from the literals of `hay[at]`'s group.
    #[inline(always)]
    fn after_at(&self, hay: &[u8], at: usize) -> Option<usize> {
        if !self.few.is_empty()
            && let Some(first) = (hay.get(at..at.saturating_add(8)))
                .and_then(|w| w.first_chunk::<8>())
                .map(|w| u64::from_le_bytes(*w))
        {
            return (self.few.iter())
                .find(|l| l.is_at_word(hay, at, first))
                .map(|l| l.index);
        }
        let &first = hay.get(at)?;
        (self.after.group(first).iter())
            .find(|l| l.is_at(hay, at))
            .map(|l| l.index)
    }

    /// Whether a literal starts right after, or ends right before, the `"` at `quote`.
    #[inline(always)]
    fn at_quote(&self, bytes: &[u8], quote: usize) -> bool {
        let after = quote + 1;
        if let Some(&first) = bytes.get(after)
            && self
                .after
                .group(first)
                .iter()
                .any(|l| l.is_at(bytes, after))
        {
            return true;
        }
        if let Some(&last) = quote.checked_sub(1).and_then(|at| bytes.get(at))
            && (self.before.group(last).iter()).any(|l| {
                quote
                    .checked_sub(l.bytes.len())
                    .is_some_and(|at| l.is_at(bytes, at))
            })
        {
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The literal found after a quote (by the flat list where there
        /// are few, else by the groups) is the first of the list that the
        /// bytes hold there, as read literally; literals of every length
        /// (the flat list's word, tail and middle compares), near the
        /// bytes' end too.
        #[test]
        fn the_literal_after_a_quote_is_the_first_that_stands_there(
            literals in prop::collection::vec(
                prop::collection::vec(prop::sample::select(b"ab\"c".to_vec()), 0..20),
                0..12,
            ),
            pieces in prop::collection::vec((any::<prop::sample::Index>(), 0usize..4, any::<u8>()), 0..8),
        ) {
            // The bytes: copies of the literals, some with one byte changed
            // (first, last or in the middle), so that most differ from a
            // literal in one place only.
            let mut hay = Vec::new();
            for (pick, change, byte) in pieces {
                let Some(literal) = (!literals.is_empty()).then(|| pick.get(&literals)) else {
                    break;
                };
                let mut piece = literal.clone();
                let n = piece.len();
                let at = match change {
                    0 => None,
                    1 => Some(0),
                    2 => n.checked_sub(1),
                    _ => Some(n / 2),
                };
                if let Some(b) = at.and_then(|at| piece.get_mut(at)) {
                    *b = b"ab\"c"[usize::from(byte % 4)];
                }
                hay.extend_from_slice(&piece);
                hay.push(byte % 4);
            }
            let list: Vec<&[u8]> = literals.iter().map(Vec::as_slice).collect();
            let anchored = Anchored::new(&list, &[]);
            for at in 0..=hay.len() + 1 {
                let want = literals.iter().position(|literal| {
                    !literal.is_empty() && hay.get(at..).is_some_and(|rest| rest.starts_with(literal))
                });
                prop_assert_eq!(anchored.after_at(&hay, at), want, "at {}", at);
            }
        }
    }

    #[test]
    fn finds_literals_of_every_length_at_their_quotes_only() {
        let long = b"abcdefghijklmnopqrs\"";
        let anchored = Anchored::new(
            &[&b"ab\""[..], long, b"abcdefghij", b"pqrst\""],
            &[&b"yz"[..]],
        );
        for (event, none) in [
            (&br#"{"k": "ab"}"#[..], false),
            (br#"{"k": "abc"}"#, true),
            (br#"{"k": "xab"}"#, true),
            (br#"{"k": "abcdefghijklmnopqrs"}"#, false),
            // The first and last eight bytes equal, one in the middle not.
            (br#"{"k": "abcdefghiXklmnopqrs"}"#, true),
            // Not the long literal, but the prefix.
            (br#"{"k": "abcdefghijklmnopqr"}"#, false),
            (br#"{"abcdefghijk": 1}"#, false),
            (br#"{"abcdefghi": 1}"#, true),
            (br#"{"k": "xyz"}"#, false),
            (br#"{"k": "xy"}"#, true),
            (br#"{"k": "a\"b"}"#, false),
            // Four to seven bytes: the first four and the last four.
            (br#"{"k": "pqrst"}"#, false),
            (br#"{"k": "pqrsX"}"#, true),
            (br#"{"k": "Xqrst"}"#, true),
            (br#"{"k": "pqXst"}"#, true),
            (br#"{"k": "pqrs"}"#, true),
        ] {
            assert_eq!(
                anchored.holds_none(event),
                none,
                "{}",
                String::from_utf8_lossy(event)
            );
        }
    }
}
