//! The string tests at one path answered together, for
//! [`crate::compile::TrieNode::matching_tests`]: a string value is looked
//! up among the exact strings (and, lower-cased, among the
//! `equals-ignore-case` operands) by a hash of its first and last eight
//! bytes and its length, instead of running each test, so a value that
//! matches nothing costs a hash and, most often, one empty slot.
//!
//! Each kind keeps the semantics of [`Test::matches`]: an exact string and a
//! prefix compare bytes; `equals-ignore-case` compares an ASCII value's bytes
//! lower-cased with the lower-cased operand (a value with other characters
//! is left to the tests one by one); `anything-but` a list of strings holds
//! for every string but those; `exists` for every string; tests no string
//! can satisfy (numbers, `null`, booleans) give nothing, and every other
//! kind runs as before.

use crate::compile::Test;
use crate::lex::splat;

/// Byte strings of one kind, found by a hash of their words and length;
/// each with the test bits a value equal to it sets and clears.
#[derive(Debug, Clone, Default)]
struct Entries {
    list: Vec<Entry>,
    /// Open addressing: per slot, 1 + an index into `list` (0: empty), at
    /// most a quarter full, so a value equal to none most often meets an
    /// empty slot at once (one branch the CPU predicts, where a loop over
    /// the entries of its length ended after a varying count).
    slots: Vec<u16>,
}

#[derive(Debug, Clone)]
struct Entry {
    bytes: Box<[u8]>,
    words: Words,
    set: u64,
    clear: u64,
}

/// A byte string's first eight bytes and last eight (zeros past its end):
/// most strings are told apart by these two words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Words {
    head: u64,
    tail: u64,
}

impl Words {
    #[inline]
    fn of(bytes: &[u8]) -> Self {
        let n = bytes.len();
        if let (Some(head), Some(tail)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
            return Self {
                head: u64::from_le_bytes(*head),
                tail: u64::from_le_bytes(*tail),
            };
        }
        // Shorter: two overlapping loads (their common bytes are the same),
        // not a copy of unknown length (a `memcpy` call).
        let word = if let (Some(low), Some(high)) =
            (bytes.first_chunk::<4>(), bytes.last_chunk::<4>())
        {
            u64::from(u32::from_le_bytes(*low))
                | u64::from(u32::from_le_bytes(*high)) << (8 * (n - 4))
        } else if let (Some(low), Some(high)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>())
        {
            u64::from(u16::from_le_bytes(*low))
                | u64::from(u16::from_le_bytes(*high)) << (8 * (n - 2))
        } else {
            bytes.first().map_or(0, |&b| u64::from(b))
        };
        Self {
            head: word,
            tail: word,
        }
    }

    /// Both words with ASCII upper-case letters lower-cased (the bytes
    /// must be ASCII: no carry leaves a byte).
    #[inline]
    fn folded(self) -> Self {
        let fold = |word: u64| {
            let at_least_a = word.wrapping_add(splat(0x80 - b'A'));
            let past_z = word.wrapping_add(splat(0x80 - b'Z' - 1));
            word | ((at_least_a & !past_z & splat(0x80)) >> 2)
        };
        Self {
            head: fold(self.head),
            tail: fold(self.tail),
        }
    }

    /// Whether the bytes they came from are ASCII, for at most 16 bytes.
    #[inline]
    fn ascii(self) -> bool {
        (self.head | self.tail) & splat(0x80) == 0
    }
}

impl Entries {
    fn add(&mut self, bytes: &[u8], set: u64, clear: u64) {
        if let Some(entry) = self.list.iter_mut().find(|e| *e.bytes == *bytes) {
            entry.set |= set;
            entry.clear |= clear;
            return;
        }
        self.list.push(Entry {
            bytes: bytes.into(),
            words: Words::of(bytes),
            set,
            clear,
        });
    }

    fn finish(&mut self) {
        let size = (4 * self.list.len()).next_power_of_two().max(8);
        self.slots = vec![0; size];
        for (i, entry) in self.list.iter().enumerate() {
            let mut slot = slot_of(entry.words, entry.bytes.len(), size);
            while self.slots[slot] != 0 {
                slot = (slot + 1) & (size - 1);
            }
            self.slots[slot] = u16::try_from(i + 1).unwrap_or(0);
        }
    }

    /// The entry `len` bytes long with words `words` for which `equal`
    /// holds (it compares what the words leave out), if any.
    #[inline]
    fn find(&self, words: Words, len: usize, equal: impl Fn(&Entry) -> bool) -> Option<&Entry> {
        let size = self.slots.len();
        if size == 0 {
            return None;
        }
        let mut slot = slot_of(words, len, size);
        loop {
            let index = usize::from(*self.slots.get(slot)?);
            let entry = self.list.get(index.checked_sub(1)?)?;
            if entry.words == words && entry.bytes.len() == len && equal(entry) {
                return Some(entry);
            }
            slot = (slot + 1) & (size - 1);
        }
    }
}

/// The slot of a string with words `words`, `len` bytes long, in a table
/// of `size` slots (a power of two).
#[inline]
fn slot_of(words: Words, len: usize, size: usize) -> usize {
    let hash =
        (words.head ^ words.tail.rotate_left(29) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (hash >> 40) as usize & (size - 1)
}

/// The string tests of one path (at most 64, one bit each).
#[derive(Debug, Clone)]
pub(crate) struct StringTests {
    /// Tests every string satisfies, unless an exact entry clears them.
    default: u64,
    exact: Entries,
    /// `equals-ignore-case` operands (lower-cased).
    folded: Entries,
    prefixes: Vec<Prefix>,
    /// The tests of other kinds, run one by one.
    rest: u64,
}

/// A prefix and its test bit.
#[derive(Debug, Clone)]
struct Prefix {
    bytes: Box<[u8]>,
    /// Up to 8 bytes: their word, and the mask of its bytes.
    head: u64,
    mask: u64,
    bit: u64,
}

impl Prefix {
    fn new(bytes: &[u8], bit: u64) -> Self {
        let mask = match bytes.len() {
            0 => 0,
            n @ 1..8 => (1u64 << (8 * n)) - 1,
            _ => u64::MAX,
        };
        Self {
            bytes: bytes.into(),
            head: Words::of(bytes).head & mask,
            mask,
            bit,
        }
    }

    /// Whether `bytes` (whose first word is `head`) start with it.
    #[inline]
    fn starts(&self, bytes: &[u8], head: u64) -> bool {
        if self.bytes.len() <= 8 {
            bytes.len() >= self.bytes.len() && head & self.mask == self.head
        } else {
            bytes.starts_with(&self.bytes)
        }
    }
}

/// Whether `bytes` equal `entry`'s, given that their words and lengths do.
#[inline]
fn same(entry: &Entry, bytes: &[u8]) -> bool {
    bytes.len() <= 16 || *entry.bytes == *bytes
}

impl StringTests {
    /// For `tests` (at most 64), when some are of the kinds answered
    /// together.
    pub(crate) fn new(tests: &[Test]) -> Option<Self> {
        if tests.len() > 64 {
            return None;
        }
        let mut strings = Self {
            default: 0,
            exact: Entries::default(),
            folded: Entries::default(),
            prefixes: Vec::new(),
            rest: 0,
        };
        for (i, test) in tests.iter().enumerate() {
            let bit = 1u64 << i;
            match test {
                Test::String(s) => strings.exact.add(s.as_bytes(), bit, 0),
                Test::EqualsIgnoreCase(lower) => strings.folded.add(lower.as_bytes(), bit, 0),
                Test::Prefix(p) => strings.prefixes.push(Prefix::new(p.as_bytes(), bit)),
                Test::Any => strings.default |= bit,
                Test::Null | Test::Bool(_) | Test::Number(..) | Test::Numeric(..) => {}
                Test::Not(inner) => match inner.as_ref() {
                    Test::String(s) => {
                        strings.default |= bit;
                        strings.exact.add(s.as_bytes(), 0, bit);
                    }
                    Test::AnyOf(list) if list.iter().all(|t| matches!(t, Test::String(_))) => {
                        strings.default |= bit;
                        for t in list {
                            if let Test::String(s) = t {
                                strings.exact.add(s.as_bytes(), 0, bit);
                            }
                        }
                    }
                    _ => strings.rest |= bit,
                },
                _ => strings.rest |= bit,
            }
        }
        if strings.rest.count_ones() as usize == tests.len() {
            return None;
        }
        strings.exact.finish();
        strings.folded.finish();
        Some(strings)
    }

    /// The bits of the tests `text` satisfies, where `run(i)` runs test
    /// `i` on it (for the kinds not answered here); `None` when the tests
    /// must all run one by one (a value with non-ASCII characters and some
    /// `equals-ignore-case` test).
    #[inline]
    pub(crate) fn matching(&self, text: &str, run: impl Fn(usize) -> bool) -> Option<u64> {
        let bytes = text.as_bytes();
        let words = Words::of(bytes);
        let mut bits = self.default;
        if let Some(entry) = self.exact.find(words, bytes.len(), |e| same(e, bytes)) {
            bits = (bits | entry.set) & !entry.clear;
        }
        if !self.folded.list.is_empty() {
            // Lower-casing other characters may change the length.
            let ascii = if bytes.len() <= 16 {
                words.ascii()
            } else {
                bytes.is_ascii()
            };
            if !ascii {
                return None;
            }
            let lower = words.folded();
            // Operands are distinct once lower-cased: at most one is equal.
            let folded = self.folded.find(lower, bytes.len(), |e| {
                bytes.len() <= 16
                    || (bytes.iter())
                        .zip(&e.bytes)
                        .all(|(a, b)| a.to_ascii_lowercase() == *b)
            });
            bits |= folded.map_or(0, |e| e.set);
        }
        for prefix in &self.prefixes {
            bits |= u64::from(prefix.starts(bytes, words.head)) * prefix.bit;
        }
        let mut rest = self.rest;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            bits |= u64::from(run(i)) << i;
            rest &= rest - 1;
        }
        Some(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Scalar;
    use proptest::prelude::*;
    use std::borrow::Cow;

    /// Tests of every kind over a few short words (upper, lower and
    /// non-ASCII), so values often meet them.
    fn test_strategy() -> impl Strategy<Value = Test> {
        let word = || prop::sample::select(vec!["a", "ab", "AB", "é", "abcdefghijklmnopqr", ""]);
        prop_oneof![
            word().prop_map(|w| Test::String(w.to_owned())),
            word().prop_map(|w| Test::EqualsIgnoreCase(w.to_lowercase())),
            word().prop_map(|w| Test::Prefix(w.to_owned())),
            word().prop_map(|w| Test::Suffix(w.to_owned())),
            word().prop_map(|w| Test::PrefixIgnoreCase(w.to_lowercase())),
            prop::collection::vec(word(), 1..3).prop_map(|ws| Test::Not(Box::new(Test::AnyOf(
                ws.into_iter().map(|w| Test::String(w.to_owned())).collect()
            )))),
            word().prop_map(|w| Test::Not(Box::new(Test::String(w.to_owned())))),
            word().prop_map(|w| Test::Not(Box::new(Test::Prefix(w.to_owned())))),
            Just(Test::Any),
            Just(Test::Null),
            Just(Test::Numeric(Some((0, true)), None)),
        ]
    }

    proptest! {
        /// The bits answered together are those of running each test.
        #[test]
        fn answers_as_each_test(
            tests in prop::collection::vec(test_strategy(), 1..12),
            parts in prop::collection::vec(
                prop::sample::select(vec!["a", "A", "b", "B", "é", "É", "cdefghijklmnopqr", "\u{1F600}"]),
                0..5,
            ),
        ) {
            let text = parts.concat();
            let value = Scalar::String(Cow::Borrowed(&text));
            let want = tests
                .iter()
                .enumerate()
                .fold(0u64, |bits, (i, t)| bits | u64::from(t.matches(&value)) << i);
            if let Some(strings) = StringTests::new(&tests)
                && let Some(got) = strings.matching(&text, |i| tests[i].matches(&value))
            {
                prop_assert_eq!(got, want, "{:?} on {:?}", tests, text);
            }
        }
    }

    proptest! {
        /// Up to 64 exact and `equals-ignore-case` operands (many sharing
        /// a length, so the lookup's table probes past taken slots), and
        /// values equal to one of them, cased otherwise, or near them.
        #[test]
        fn finds_among_many_operands(
            words in prop::collection::vec("[a-cA-C]{0,3}|[a-c]{15,20}", 1..64),
            pick in any::<prop::sample::Index>(),
            change in 0..4u8,
        ) {
            let tests: Vec<Test> = words
                .iter()
                .enumerate()
                .map(|(i, w)| if i % 2 == 0 {
                    Test::String(w.clone())
                } else {
                    Test::EqualsIgnoreCase(w.to_lowercase())
                })
                .collect();
            let mut text = pick.get(&words).clone();
            match change {
                1 => text = text.to_uppercase(),
                2 => text.push('a'),
                3 => { text.pop(); }
                _ => {}
            }
            let value = Scalar::String(Cow::Borrowed(&text));
            let want = tests
                .iter()
                .enumerate()
                .fold(0u64, |bits, (i, t)| bits | u64::from(t.matches(&value)) << i);
            let strings = StringTests::new(&tests);
            prop_assert!(strings.is_some());
            let got = strings.and_then(|s| s.matching(&text, |i| tests[i].matches(&value)));
            prop_assert_eq!(got, Some(want), "{:?} on {:?}", tests, text);
        }
    }

    #[test]
    fn words_hold_the_first_and_last_eight_bytes() {
        let text = b"abcdefghijklmnopq";
        for n in 0..=text.len() {
            let bytes = &text[..n];
            let word = |part: &[u8]| {
                (part.iter().enumerate()).fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i))
            };
            let words = Words::of(bytes);
            assert_eq!(words.head, word(&bytes[..n.min(8)]), "{n}");
            assert_eq!(words.tail, word(&bytes[n.saturating_sub(8)..]), "{n}");
        }
    }

    #[test]
    fn folds_only_ascii_capitals() {
        let words = Words::of(b"Az@[`{09");
        assert_eq!(words.folded(), Words::of(b"az@[`{09"));
    }
}
