//! [`super::each_quote`] with AVX-512 (`avx512bw`): 64 bytes in one
//! register, compares straight into 64-bit masks. Half the instructions of
//! the AVX2 body per block: a block with no quote and no `\` costs a load,
//! two compares and a branch (after one such, the next whole blocks go two
//! at a time); at a quote, a place with a few bytes costs two
//! shuffles and one test (the AVX2 body needs four shuffles and six more
//! instructions to make a mask).

use std::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_cmpeq_epi8_mask,
    _mm512_loadu_si512, _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_srli_epi16,
    _mm512_test_epi8_mask,
};

use super::{Anchors, DEPTH, Place, Seen, neighboured, offer, padded};

/// A [`Place`] as vectors.
#[derive(Clone, Copy)]
enum Simd {
    Any,
    One(__m512i),
    Few { low: __m512i, high: __m512i },
}

#[target_feature(enable = "avx512bw")]
#[inline]
fn simd(place: &Place) -> Simd {
    match place {
        Place::Any => Simd::Any,
        Place::One(b) => Simd::One(_mm512_set1_epi8(b.cast_signed())),
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
                low: _mm512_broadcast_i32x4(low),
                high: _mm512_broadcast_i32x4(high),
            }
        }
    }
}

/// The bytes of a block (`block`, its low and high `nibbles`) in the set of `place`.
#[target_feature(enable = "avx512bw")]
#[inline]
fn members(block: __m512i, nibbles: [__m512i; 2], place: Simd) -> u64 {
    match place {
        Simd::Any => u64::MAX,
        Simd::One(b) => _mm512_cmpeq_epi8_mask(block, b),
        Simd::Few { low, high } => _mm512_test_epi8_mask(
            _mm512_shuffle_epi8(low, nibbles[0]),
            _mm512_shuffle_epi8(high, nibbles[1]),
        ),
    }
}

/// The quotes of `quotes` whose neighbours may stand at `places`
/// (`after`: the bytes after each quote, else those before it); past the
/// block's ends, any byte may stand.
#[target_feature(enable = "avx512bw")]
#[inline]
fn keep(
    quotes: u64,
    block: __m512i,
    nibbles: [__m512i; 2],
    places: [Simd; DEPTH],
    after: bool,
) -> u64 {
    let members = places.map(|place| members(block, nibbles, place));
    neighboured(quotes, members, after)
}

/// See [`super::each_quote`].
#[target_feature(enable = "avx512bw")]
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
#[target_feature(enable = "avx512bw")]
fn blocks(bytes: &[u8], anchors: &Anchors, mut at_quote: impl FnMut(usize) -> bool) -> Seen {
    let Some(last) = bytes.len().checked_sub(64) else {
        return Seen::End;
    };
    let after = anchors
        .after
        .as_ref()
        .map(|p| p.each_ref().map(|p| simd(p)));
    let before = anchors
        .before
        .as_ref()
        .map(|p| p.each_ref().map(|p| simd(p)));
    let quote = _mm512_set1_epi8(b'"'.cast_signed());
    let backslash = _mm512_set1_epi8(b'\\'.cast_signed());
    let nibble = _mm512_set1_epi8(0x0f);
    let (mut start, mut fresh) = (0, u64::MAX);
    loop {
        // SAFETY: `start <= last`, so 64 bytes from `start` are within
        // `bytes`; the load is unaligned.
        #[allow(unsafe_code)]
        let block = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(start).cast()) };
        let quotes = _mm512_cmpeq_epi8_mask(block, quote);
        let backslashes = _mm512_cmpeq_epi8_mask(block, backslash);
        if quotes | backslashes != 0 {
            if backslashes != 0 {
                // The first: one in bytes already seen would have ended the scan.
                return Seen::Backslash(start + backslashes.trailing_zeros() as usize);
            }
            let quotes = quotes & fresh;
            let nibbles = [
                _mm512_and_si512(block, nibble),
                _mm512_and_si512(_mm512_srli_epi16::<4>(block), nibble),
            ];
            let mut candidates = 0;
            if let Some(places) = &after {
                candidates |= keep(quotes, block, nibbles, *places, true);
            }
            if let Some(places) = &before {
                candidates |= keep(quotes, block, nibbles, *places, false);
            }
            if let Some(stopped) = offer(start, candidates, &mut at_quote) {
                return stopped;
            }
        } else {
            // Most of a polygon's coordinates: the next whole blocks (none
            // past `last`, so none overlaps one seen) two at a time while
            // they hold neither a quote nor a `\`.
            while start + 128 <= last {
                // SAFETY: `start + 128 <= last`, so the 128 bytes from
                // `start + 64` are within `bytes`; the loads are unaligned.
                #[allow(unsafe_code)]
                let (one, two) = unsafe {
                    (
                        _mm512_loadu_si512(bytes.as_ptr().add(start + 64).cast()),
                        _mm512_loadu_si512(bytes.as_ptr().add(start + 128).cast()),
                    )
                };
                let any = _mm512_cmpeq_epi8_mask(one, quote)
                    | _mm512_cmpeq_epi8_mask(one, backslash)
                    | _mm512_cmpeq_epi8_mask(two, quote)
                    | _mm512_cmpeq_epi8_mask(two, backslash);
                if any != 0 {
                    break;
                }
                start += 128;
            }
        }
        if start == last {
            return Seen::End;
        }
        start += 64;
        if start > last {
            // The bytes of the last block before `start` were seen.
            fresh = u64::MAX << (start - last);
            start = last;
        }
    }
}
