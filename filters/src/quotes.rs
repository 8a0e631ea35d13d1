//! The quotes of an event at which some literal may be anchored, in order,
//! for [`crate::prefilter`], stopping at the first `\`.
//!
//! [`Anchors`] hold, for each of the first [`DEPTH`] bytes after a quote
//! and before one, the set of bytes that may stand there ([`Place`]: any
//! byte, one byte, or a few as a pair of 16-entry tables indexed by a byte's
//! low and high nibble, one bit per byte value, as in the "Teddy" search).
//! Where the CPU has AVX2 (detected at run time), 64 bytes at a time:
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
    /// The callback returned `true` for some quote.
    Stopped,
    /// The bytes hold a `\` (quotes after the start of its 64-byte block may
    /// not have been seen).
    Backslash,
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
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this CPU just above, the feature
        // `x86::each_quote` is compiled for.
        #[allow(unsafe_code)]
        return unsafe { x86::each_quote(bytes, anchors, at_quote) };
    }
    portable(bytes, at_quote)
}

/// Asks for the cache lines of (the first 2 KiB of) `bytes` at once: an
/// event is read from memory once, and the SIMD scans otherwise wait for one
/// line after another. A hint only (nothing where the CPU has no such
/// instruction).
#[inline]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    x86::prefetch(bytes);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// [`each_quote`] with `memchr2`, every quote a candidate: the body where
/// AVX2 is missing.
fn portable(bytes: &[u8], mut at_quote: impl FnMut(usize) -> bool) -> Seen {
    for at in memchr::memchr2_iter(b'"', b'\\', bytes) {
        if bytes[at] == b'\\' {
            return Seen::Backslash;
        }
        if at_quote(at) {
            return Seen::Stopped;
        }
    }
    Seen::End
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, _MM_HINT_T0, _mm_loadu_si128, _mm_prefetch, _mm256_and_si256,
        _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_shuffle_epi8,
        _mm256_srli_epi16, _mm256_testz_si256,
    };

    use super::{Anchors, DEPTH, Place, Seen};

    /// How many bytes of an event [`prefetch`] asks for.
    const PREFETCH: usize = 2048;

    /// See [`super::prefetch`].
    #[inline]
    pub(super) fn prefetch(bytes: &[u8]) {
        for line in (64..bytes.len().min(PREFETCH)).step_by(64) {
            // SAFETY: a prefetch is only a hint; it reads nothing and cannot
            // fault, and `line` is within `bytes`.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().add(line).cast());
            }
        }
    }

    /// A [`Place`] as vectors.
    #[derive(Clone, Copy)]
    enum Simd {
        Any,
        One(__m256i),
        Few { low: __m256i, high: __m256i },
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn simd(place: &Place) -> Simd {
        match place {
            Place::Any => Simd::Any,
            Place::One(b) => Simd::One(_mm256_set1_epi8(b.cast_signed())),
            Place::Few { low, high } => {
                // SAFETY: each table is 16 readable bytes; the loads are unaligned.
                #[allow(unsafe_code)]
                let (low, high) = unsafe {
                    (
                        _mm_loadu_si128(low.as_ptr().cast()),
                        _mm_loadu_si128(high.as_ptr().cast()),
                    )
                };
                Simd::Few {
                    low: _mm256_broadcastsi128_si256(low),
                    high: _mm256_broadcastsi128_si256(high),
                }
            }
        }
    }

    /// The 64 bytes of `chunk`, loaded as two halves.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(chunk: &[u8; 64]) -> [__m256i; 2] {
        let at = chunk.as_ptr();
        // SAFETY: `chunk` is 64 readable bytes, so `at` and `at + 32` each
        // start 32 of them; the loads are unaligned.
        #[allow(unsafe_code)]
        unsafe {
            [
                _mm256_loadu_si256(at.cast()),
                _mm256_loadu_si256(at.add(32).cast()),
            ]
        }
    }

    /// The bit mask of two halves' compare results (bit `i` for byte `i`).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn mask(halves: [__m256i; 2]) -> u64 {
        let low = u64::from(_mm256_movemask_epi8(halves[0]).cast_unsigned());
        let high = u64::from(_mm256_movemask_epi8(halves[1]).cast_unsigned());
        low | high << 32
    }

    /// Per half, where it equals `b` (bytes of all ones).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn equal(halves: [__m256i; 2], b: __m256i) -> [__m256i; 2] {
        [
            _mm256_cmpeq_epi8(halves[0], b),
            _mm256_cmpeq_epi8(halves[1], b),
        ]
    }

    /// The bytes of a block (`halves`, and their low and high `nibbles`) in the set of `place`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn members(halves: [__m256i; 2], nibbles: [[__m256i; 2]; 2], place: Simd) -> u64 {
        match place {
            Simd::Any => u64::MAX,
            Simd::One(b) => mask(equal(halves, b)),
            Simd::Few { low, high } => {
                let [lows, highs] = nibbles;
                let hit = [
                    _mm256_and_si256(
                        _mm256_shuffle_epi8(low, lows[0]),
                        _mm256_shuffle_epi8(high, highs[0]),
                    ),
                    _mm256_and_si256(
                        _mm256_shuffle_epi8(low, lows[1]),
                        _mm256_shuffle_epi8(high, highs[1]),
                    ),
                ];
                // Nonzero bytes: the least of each and 1 is 1.
                let one = _mm256_set1_epi8(1);
                mask(equal(
                    [_mm256_min_epu8(hit[0], one), _mm256_min_epu8(hit[1], one)],
                    one,
                ))
            }
        }
    }

    /// The quotes of `quotes` whose neighbours may stand at `places`
    /// (`after`: the bytes after each quote, else those before it); past
    /// the block's ends, any byte may stand.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn keep(
        quotes: u64,
        halves: [__m256i; 2],
        nibbles: [[__m256i; 2]; 2],
        places: [Simd; DEPTH],
        after: bool,
    ) -> u64 {
        // The byte `k + 1` after bit `i` is bit `i + k + 1`.
        let [one, two, three] = places.map(|place| members(halves, nibbles, place));
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

    #[target_feature(enable = "avx2")]
    pub(super) fn each_quote(
        bytes: &[u8],
        anchors: &Anchors,
        at_quote: impl FnMut(usize) -> bool,
    ) -> Seen {
        if let Some(rest) = 64usize.checked_sub(bytes.len()).filter(|&rest| rest > 0) {
            // Fewer than 64 bytes, padded with zeros (neither quote nor
            // backslash; a zero next to a real quote counts as any byte).
            let mut padded = [0u8; 64];
            padded[..64 - rest].copy_from_slice(bytes);
            return blocks(&padded, anchors, at_quote);
        }
        blocks(bytes, anchors, at_quote)
    }

    /// [`each_quote`] over at least 64 bytes: 64 at a time, the last block
    /// overlapping the one before it (its bytes already seen masked off).
    #[target_feature(enable = "avx2")]
    fn blocks(bytes: &[u8], anchors: &Anchors, mut at_quote: impl FnMut(usize) -> bool) -> Seen {
        let after = anchors
            .after
            .as_ref()
            .map(|p| p.each_ref().map(|p| simd(p)));
        let before = anchors
            .before
            .as_ref()
            .map(|p| p.each_ref().map(|p| simd(p)));
        let quote = _mm256_set1_epi8(b'"'.cast_signed());
        let backslash = _mm256_set1_epi8(b'\\'.cast_signed());
        let nibble = _mm256_set1_epi8(0x0f);
        // Each block's start, and the bits of its bytes not yet seen: the
        // last block ends with the bytes.
        let full = bytes.len() / 64;
        let rest = bytes.len() % 64;
        let last = (rest > 0).then(|| (bytes.len() - 64, u64::MAX << (64 - rest)));
        for (start, fresh) in (0..full).map(|i| (i * 64, u64::MAX)).chain(last) {
            let Some(Ok(chunk)) = bytes.get(start..start + 64).map(<&[u8; 64]>::try_from) else {
                break;
            };
            let halves = load(chunk);
            let quotes = equal(halves, quote);
            let backslashes = equal(halves, backslash);
            let any = _mm256_or_si256(
                _mm256_or_si256(quotes[0], quotes[1]),
                _mm256_or_si256(backslashes[0], backslashes[1]),
            );
            if _mm256_testz_si256(any, any) != 0 {
                continue;
            }
            if mask(backslashes) != 0 {
                return Seen::Backslash;
            }
            let quotes = mask(quotes) & fresh;
            if quotes == 0 {
                continue;
            }
            let nibbles = [
                [
                    _mm256_and_si256(halves[0], nibble),
                    _mm256_and_si256(halves[1], nibble),
                ],
                [
                    _mm256_and_si256(_mm256_srli_epi16(halves[0], 4), nibble),
                    _mm256_and_si256(_mm256_srli_epi16(halves[1], 4), nibble),
                ],
            ];
            let mut candidates = 0;
            if let Some(places) = &after {
                candidates |= keep(quotes, halves, nibbles, *places, true);
            }
            if let Some(places) = &before {
                candidates |= keep(quotes, halves, nibbles, *places, false);
            }
            while candidates != 0 {
                if at_quote(start + candidates.trailing_zeros() as usize) {
                    return Seen::Stopped;
                }
                candidates &= candidates - 1;
            }
        }
        Seen::End
    }
}

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
        assert_eq!(seen, want);
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
        assert_eq!((end, count), (Seen::Stopped, 3));
        for at in [0, 10, 63, 64, 130, bytes.len() - 1] {
            let mut with = bytes.clone();
            with[at] = b'\\';
            assert_eq!(offered(&with, &anchors).1, Seen::Backslash, "at {at}");
            assert_eq!(portable(&with, |_| false), Seen::Backslash, "at {at}");
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
    }
}
