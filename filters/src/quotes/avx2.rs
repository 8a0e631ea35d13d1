//! [`super::each_quote`] with AVX2: 64 bytes as two 32-byte halves.

use std::arch::x86_64::{
    __m256i, _MM_HINT_T0, _mm_loadu_si128, _mm_prefetch, _mm256_and_si256,
    _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_shuffle_epi8,
    _mm256_srli_epi16, _mm256_testz_si256,
};

use super::{Anchors, DEPTH, Place, Seen, neighboured, offer, padded};

/// How many bytes of an event [`prefetch`] asks for.
const PREFETCH: usize = 2048;

/// See [`super::prefetch`].
#[inline]
pub(super) fn prefetch(bytes: &[u8]) {
    // From the first byte: for `Matcher::matches_each`'s next event, its
    // first line is the one the scan waits for first (skipping it, as an
    // earlier version did, left one memory latency per event).
    for line in (0..bytes.len().min(PREFETCH)).step_by(64) {
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
    let members = places.map(|place| members(halves, nibbles, place));
    neighboured(quotes, members, after)
}

#[target_feature(enable = "avx2")]
pub(super) fn each_quote(
    bytes: &[u8],
    anchors: &Anchors,
    at_quote: impl FnMut(usize) -> bool,
) -> Seen {
    if let Some(padded) = padded(bytes) {
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
        let backslashes = mask(backslashes);
        if backslashes != 0 {
            // The first: one in bytes already seen would have ended the scan.
            return Seen::Backslash(start + backslashes.trailing_zeros() as usize);
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
        if let Some(stopped) = offer(start, candidates, &mut at_quote) {
            return stopped;
        }
    }
    Seen::End
}
