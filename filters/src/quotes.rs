//! The quotes of an event at which some literal may be anchored, in order,
//! for [`crate::prefilter`], stopping at the first `\`.
//!
//! [`Anchors`] hold, for each of the first [`DEPTH`] bytes after a quote
//! and before one, the set of bytes that may stand there ([`Place`]: any
//! byte, one byte, or a few as a pair of 16-entry tables indexed by a byte's
//! low and high nibble, one bit per byte value, as in the "Teddy" search).
//! Where the CPU has AVX-512BW or AVX2 (detected at run time, the first
//! preferred: [`avx512`] takes half the instructions), 64 bytes at a time:
//! compares show whether a block holds a quote or a backslash at all (the
//! common case in a polygon's coordinates: no, a few instructions per 64
//! bytes), and for a block that holds quotes, compares or two shuffles per
//! place give the bytes in each set as bit masks; shifted and ANDed with the
//! quote mask, they leave the few quotes whose neighbours could begin or end
//! a literal. Elsewhere `memchr2` finds every quote, and every one is a
//! candidate.

/// How many bytes on each side of a quote the sets constrain.
pub(crate) const DEPTH: usize = 3;

/// The bytes that may stand at one place next to a quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Any byte (some literal ends before this place).
    Any,
    /// Only this byte.
    One(u8),
    /// `b` may stand here when `low[b & 15] & high[b >> 4] != 0`: one bit
    /// per byte value, shared by every eighth value, so exact up to eight
    /// values and a superset past them.
    Few { low: [u8; 16], high: [u8; 16] },
}

impl Place {
    /// The place for the bytes `bytes` (one or more).
    fn new(bytes: &[u8]) -> Self {
        match bytes {
            &[b] => Self::One(b),
            bytes => {
                let (mut low, mut high) = ([0; 16], [0; 16]);
                for (i, &b) in bytes.iter().enumerate() {
                    let bit = 1 << (i % 8);
                    low[usize::from(b & 15)] |= bit;
                    high[usize::from(b >> 4)] |= bit;
                }
                Self::Few { low, high }
            }
        }
    }

    #[cfg(test)]
    fn contains(&self, b: u8) -> bool {
        match self {
            Self::Any => true,
            Self::One(one) => b == *one,
            Self::Few { low, high } => low[usize::from(b & 15)] & high[usize::from(b >> 4)] != 0,
        }
    }
}

/// The bytes that may stand next to a quote some literal is anchored at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchors {
    /// Place `k`: the `k + 1`-th byte after the quote; `None` if no literal
    /// starts after a quote.
    after: Option<[Place; DEPTH]>,
    /// Place `k`: the `k + 1`-th byte before the quote; `None` if no literal
    /// ends before a quote.
    before: Option<[Place; DEPTH]>,
}

impl Anchors {
    /// For literals that start right after a quote (`after`), and literals
    /// that end right before one (`before`, given in their own order).
    pub(crate) fn new<'a>(
        after: impl IntoIterator<Item = &'a [u8]>,
        before: impl IntoIterator<Item = &'a [u8]>,
    ) -> Self {
        Self {
            after: places(after.into_iter().map(<[u8]>::to_vec)),
            before: places(
                before
                    .into_iter()
                    .map(|l| l.iter().rev().copied().collect()),
            ),
        }
    }

    /// Whether the quote at `quote` may anchor a literal (the reference for
    /// the SIMD masks).
    #[cfg(test)]
    fn candidate(&self, bytes: &[u8], quote: usize) -> bool {
        let after = self.after.is_some_and(|places| {
            (0..DEPTH).all(|k| {
                bytes
                    .get(quote + 1 + k)
                    .is_none_or(|&b| places[k].contains(b))
            })
        });
        let before = self.before.is_some_and(|places| {
            (0..DEPTH).all(|k| {
                quote
                    .checked_sub(1 + k)
                    .is_none_or(|at| places[k].contains(bytes[at]))
            })
        });
        after || before
    }
}

/// The places of `literals` (each nearest the quote first); `None` for no
/// literals. A literal shorter than [`DEPTH`] lets any byte stand past its end.
fn places(literals: impl Iterator<Item = Vec<u8>>) -> Option<[Place; DEPTH]> {
    let literals: Vec<Vec<u8>> = literals.collect();
    if literals.is_empty() {
        return None;
    }
    Some(std::array::from_fn(|k| {
        let mut bytes = Vec::new();
        for literal in &literals {
            let Some(&b) = literal.get(k) else {
                return Place::Any;
            };
            if !bytes.contains(&b) {
                bytes.push(b);
            }
        }
        Place::new(&bytes)
    }))
}

/// How [`each_quote`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// The callback returned `true` for the quote at this position.
    Stopped(usize),
    /// The first `\` of the bytes is at this position (quotes after the
    /// start of its 64-byte block may not have been seen).
    Backslash(usize),
    /// Every candidate quote was seen, and there is no `\`.
    End,
}

/// Calls `at_quote` with the position of each `"` in `bytes` that may
/// anchor a literal of `anchors` (a superset: every quote with such
/// neighbours, maybe others), in increasing order, until it returns `true`;
/// stops early at a `\`. See [`Seen`].
#[inline]
pub(crate) fn each_quote(
    bytes: &[u8],
    anchors: &Anchors,
    at_quote: impl FnMut(usize) -> bool,
) -> Seen {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw") {
        // SAFETY: AVX-512BW was detected on this CPU just above, the
        // feature `avx512::each_quote` is compiled for.
        #[allow(unsafe_code)]
        return unsafe { avx512::each_quote(bytes, anchors, at_quote) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this CPU just above, the feature
        // `avx2::each_quote` is compiled for.
        #[allow(unsafe_code)]
        return unsafe { avx2::each_quote(bytes, anchors, at_quote) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = anchors;
    portable(bytes, at_quote)
}

/// Asks for the cache lines of (the first 2 KiB of) `bytes` at once: an
/// event is read from memory once, and the SIMD scans otherwise wait for one
/// line after another. A hint only (nothing where the CPU has no such
/// instruction).
#[inline]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    avx2::prefetch(bytes);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// [`each_quote`] with `memchr2`, every quote a candidate: the body where
/// AVX2 is missing.
fn portable(bytes: &[u8], mut at_quote: impl FnMut(usize) -> bool) -> Seen {
    for at in memchr::memchr2_iter(b'"', b'\\', bytes) {
        if bytes[at] == b'\\' {
            return Seen::Backslash(at);
        }
        if at_quote(at) {
            return Seen::Stopped(at);
        }
    }
    Seen::End
}

/// The quotes of `quotes` (a 64-byte block's bits) whose neighbours may
/// stand at the anchors' places, given `members[k]`: the block's bytes that
/// may stand `k + 1` bytes after a quote (`after`), else before it. Past the
/// block's ends, any byte may stand. Shared by the SIMD bodies.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn neighboured(quotes: u64, members: [u64; DEPTH], after: bool) -> u64 {
    // The byte `k + 1` after bit `i` is bit `i + k + 1`.
    let [one, two, three] = members;
    if after {
        quotes
            & (one >> 1 | !(u64::MAX >> 1))
            & (two >> 2 | !(u64::MAX >> 2))
            & (three >> 3 | !(u64::MAX >> 3))
    } else {
        quotes
            & (one << 1 | !(u64::MAX << 1))
            & (two << 2 | !(u64::MAX << 2))
            & (three << 3 | !(u64::MAX << 3))
    }
}

/// Offers the quotes of `candidates` (bits of the block at `start`) to
/// `at_quote` in order; `Some(Seen::Stopped)` when it says stop. Shared by
/// the SIMD bodies.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn offer(
    start: usize,
    mut candidates: u64,
    at_quote: &mut impl FnMut(usize) -> bool,
) -> Option<Seen> {
    while candidates != 0 {
        let quote = start + candidates.trailing_zeros() as usize;
        if at_quote(quote) {
            return Some(Seen::Stopped(quote));
        }
        candidates &= candidates - 1;
    }
    None
}

/// `bytes` padded with zeros to 64 when shorter (a zero is neither quote nor
/// backslash; next to a real quote it counts as any byte), for the SIMD
/// bodies, which read 64 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn padded(bytes: &[u8]) -> Option<[u8; 64]> {
    let rest = 64usize.checked_sub(bytes.len()).filter(|&rest| rest > 0)?;
    let mut padded = [0u8; 64];
    padded[..64 - rest].copy_from_slice(bytes);
    Some(padded)
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    /// The quotes `each_quote` offers, and how it ended.
    fn offered(bytes: &[u8], anchors: &Anchors) -> (Vec<usize>, Seen) {
        let mut seen = Vec::new();
        let end = each_quote(bytes, anchors, |at| {
            seen.push(at);
            false
        });
        (seen, end)
    }

    #[test]
    fn offers_every_quote_a_literal_may_start_or_end_at() {
        let anchors = Anchors::new([&b"MARKET\""[..], b"17TH\""], [&b"ST"[..]]);
        let event = br#"{"STREET":"MARKET","A":"17TH","B":"1","C":"MAST","D":"MA"}"#;
        let (seen, end) = offered(event, &anchors);
        assert_eq!(end, Seen::End);
        let want: Vec<usize> = (0..event.len())
            .filter(|&q| event[q] == b'"' && anchors.candidate(event, q))
            .collect();
        assert!(want.iter().all(|q| seen.contains(q)), "{seen:?} {want:?}");
        // `"MARKET`, `"17TH` and the quote after `MAST`; not `"STREET`,
        // `"1"`, `"MAST` or `"MA"` (only their first two bytes as `MARKET`'s).
        let at = |text: &str| {
            let from = event.windows(text.len()).position(|w| w == text.as_bytes());
            from.unwrap()
        };
        let want = vec![at(r#""MARKET"#), at(r#""17TH"#), at(r#"T","D""#) + 1];
        // Only the AVX2 path narrows by the anchors' neighbours; the portable
        // one (other CPUs) offers every quote, the superset checked above.
        if uses_avx2() {
            assert_eq!(seen, want);
        }
    }

    fn uses_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    #[test]
    fn stops_when_told_and_at_a_backslash() {
        let anchors = Anchors::new([&b"a"[..]], []);
        let bytes = br#"{"a":"a","a":"b"}"#.repeat(20);
        let mut count = 0;
        let end = each_quote(&bytes, &anchors, |_| {
            count += 1;
            count == 3
        });
        assert_eq!((end, count), (Seen::Stopped(9), 3));
        for at in [0, 10, 63, 64, 130, bytes.len() - 1] {
            let mut with = bytes.clone();
            with[at] = b'\\';
            assert_eq!(offered(&with, &anchors).1, Seen::Backslash(at), "at {at}");
            assert_eq!(portable(&with, |_| false), Seen::Backslash(at), "at {at}");
        }
    }

    fn literal() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(b"ab\"xy\x80\xff:1".to_vec()), 0..4)
    }

    proptest! {
        /// Every quote whose neighbours begin or end a literal is offered, in
        /// order, by the SIMD path as by the portable one.
        #[test]
        fn offers_a_superset_of_the_anchoring_quotes(
            after in prop::collection::vec(literal(), 0..12),
            before in prop::collection::vec(literal(), 0..12),
            bytes in prop::collection::vec(
                prop::sample::select(b"ab\"xy\x80\xff:1\0{}".to_vec()), 0..300),
        ) {
            let anchors = Anchors::new(
                after.iter().map(Vec::as_slice),
                before.iter().map(Vec::as_slice),
            );
            let (seen, end) = offered(&bytes, &anchors);
            prop_assert_eq!(end, Seen::End);
            prop_assert!(seen.windows(2).all(|w| w[0] < w[1]));
            for q in 0..bytes.len() {
                let anchoring = bytes[q] == b'"'
                    && (after.iter().any(|l| bytes[q + 1..].starts_with(l))
                        || before.iter().any(|l| bytes[..q].ends_with(l)));
                if anchoring {
                    prop_assert!(anchors.candidate(&bytes, q));
                    prop_assert!(seen.contains(&q), "quote {} not offered", q);
                }
                if seen.contains(&q) {
                    prop_assert_eq!(bytes[q], b'"');
                }
            }
            let mut all = Vec::new();
            portable(&bytes, |q| { all.push(q); false });
            let quotes: Vec<usize> = (0..bytes.len()).filter(|&q| bytes[q] == b'"').collect();
            prop_assert_eq!(all, quotes);
        }

        /// As below, over long runs without a quote (a polygon's
        /// coordinates, which the AVX-512 body passes two blocks at a
        /// time) with a few quotes and maybe a `\` anywhere in them.
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn the_simd_bodies_agree_across_long_runs_without_quotes(
            len in 0usize..700,
            quotes in prop::collection::vec(0usize..700, 0..4),
            backslash in prop::option::weighted(0.3, 0usize..700),
        ) {
            if !(std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx2"))
            {
                return Ok(());
            }
            let mut bytes: Vec<u8> = b"[-122.4,37.7],".iter().copied().cycle().take(len).collect();
            for at in quotes.into_iter().filter(|&at| at + 3 < len) {
                bytes[at..at + 3].copy_from_slice(b"\"ab");
            }
            if let Some(at) = backslash.filter(|&at| at < len) {
                bytes[at] = b'\\';
            }
            let anchors = Anchors::new([&b"ab"[..], b"x"], [&b"ab"[..]]);
            simd_bodies_agree(&bytes, &anchors)?;
        }

        /// The AVX-512 and AVX2 bodies offer the same quotes and end the
        /// same way (as the portable one: at a `\`, or the end), where the
        /// CPU has both.
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn the_simd_bodies_agree(
            after in prop::collection::vec(literal(), 0..12),
            before in prop::collection::vec(literal(), 0..12),
            bytes in prop::collection::vec(
                prop::sample::select(b"ab\"xy\x80\xff:1\0{}".to_vec()), 0..300),
            backslash in prop::option::weighted(0.3, 0..300usize),
        ) {
            if !(std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx2"))
            {
                return Ok(());
            }
            let mut bytes = bytes;
            if let Some(at) = backslash.filter(|&at| at < bytes.len()) {
                bytes[at] = b'\\';
            }
            let anchors = Anchors::new(
                after.iter().map(Vec::as_slice),
                before.iter().map(Vec::as_slice),
            );
            simd_bodies_agree(&bytes, &anchors)?;
        }
    }

    /// The AVX-512 and AVX2 bodies offer the same quotes of `bytes` and end
    /// the same way, as the portable one ends. Call only where the CPU has
    /// AVX-512BW and AVX2.
    #[cfg(target_arch = "x86_64")]
    fn simd_bodies_agree(bytes: &[u8], anchors: &Anchors) -> Result<(), TestCaseError> {
        let (mut wide, mut narrow) = (Vec::new(), Vec::new());
        // SAFETY: the callers detected both features.
        #[allow(unsafe_code)]
        let ends = unsafe {
            (
                avx512::each_quote(bytes, anchors, |q| {
                    wide.push(q);
                    false
                }),
                avx2::each_quote(bytes, anchors, |q| {
                    narrow.push(q);
                    false
                }),
            )
        };
        prop_assert_eq!(wide, narrow);
        prop_assert_eq!(ends.0, ends.1);
        prop_assert_eq!(ends.0, portable(bytes, |_| false));
        Ok(())
    }
}
