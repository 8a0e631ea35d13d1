//! The AVX2 bodies: a block's classes ([`super::Classifier::block`]), and
//! the first pass ([`super::Classifier::compact_array`]) and the gated pass
//! ([`super::Classifier::gated_numbers`]) as `#[target_feature]` functions
//! around the shared rules (`compact_array_with`, `gated_numbers_with`),
//! the AVX2 classification inlined into them.

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_sub_epi8,
};

use super::Block;
use super::compact::{KEPT_BLOCKS, Kept, compact_array_with};
use super::gated::{Gated, gated_numbers_with};
use crate::gate::Gate;

/// The classes of 32 bytes, as 32-bit masks.
#[target_feature(enable = "avx2")]
#[inline]
fn half(chunk: &[u8; 32]) -> [u32; 6] {
    // SAFETY: `chunk` is 32 readable bytes; the load is unaligned.
    #[allow(unsafe_code)]
    let v: __m256i = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
    let splat = |b: u8| _mm256_set1_epi8(b.cast_signed());
    let mask = |m: __m256i| _mm256_movemask_epi8(m).cast_unsigned();
    let open = _mm256_cmpeq_epi8(v, splat(b'['));
    let close = _mm256_cmpeq_epi8(v, splat(b']'));
    let comma = _mm256_cmpeq_epi8(v, splat(b','));
    // A digit: `b - '0'` is at most 9 (unsigned, wrapping).
    let offset = _mm256_sub_epi8(v, splat(b'0'));
    let digit = _mm256_cmpeq_epi8(_mm256_min_epu8(offset, splat(9)), offset);
    let minus = _mm256_cmpeq_epi8(v, splat(b'-'));
    let dot = _mm256_cmpeq_epi8(v, splat(b'.'));
    // Delimiters joined here, not as masks: LLVM turns `|` of joined
    // masks into per-byte extractions.
    let delimiters = _mm256_or_si256(_mm256_or_si256(open, close), comma);
    let known = _mm256_or_si256(
        delimiters,
        _mm256_or_si256(digit, _mm256_or_si256(minus, dot)),
    );
    [
        mask(open),
        mask(close),
        mask(delimiters),
        mask(minus),
        mask(dot),
        !mask(known),
    ]
}

/// [`super::Classifier::compact_array`] with AVX2 (and POPCNT for the
/// brackets' counts, else a software popcount of about 15 instructions).
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn compact_array(
    bytes: &[u8],
    start: usize,
    room: usize,
    kept: &mut [Kept; KEPT_BLOCKS],
) -> bool {
    compact_array_with(|chunk| block(chunk), bytes, start, room, kept)
}

/// [`super::Classifier::gated_numbers`] with AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn gated_numbers(
    bytes: &[u8],
    start: usize,
    room: usize,
    gate: &Gate,
    gated: &mut Gated,
) -> bool {
    gated_numbers_with(
        |chunk, gate| classify_gated(chunk, gate),
        bytes,
        start,
        room,
        gate,
        gated,
    )
}

/// A block's classes, `0`s and gated bytes (see `gated_numbers_with`).
#[target_feature(enable = "avx2")]
#[inline]
fn classify_gated(chunk: &[u8; 72], gate: &Gate) -> (Block, u64, u64) {
    let Some(block64) = chunk.first_chunk::<64>() else {
        return (Block::default(), 0, 0);
    };
    let zero = _mm256_set1_epi8(b'0'.cast_signed());
    let zeros = mask(_mm256_cmpeq_epi8(load(chunk, 0), zero))
        | mask(_mm256_cmpeq_epi8(load(chunk, 32), zero)) << 32;
    let mut through = 0u64;
    for text in gate.compared() {
        // Vectors ANDed before one mask per half: LLVM turns `&` of
        // masks into per-byte extractions.
        let (mut low, mut high) = (_mm256_set1_epi8(-1), _mm256_set1_epi8(-1));
        let len = text.len.min(8);
        for (k, &b) in text.bytes[..len].iter().enumerate() {
            let splat = _mm256_set1_epi8(b.cast_signed());
            low = _mm256_and_si256(low, _mm256_cmpeq_epi8(load(chunk, k), splat));
            high = _mm256_and_si256(high, _mm256_cmpeq_epi8(load(chunk, k + 32), splat));
        }
        low = _mm256_andnot_si256(digit(load(chunk, len)), low);
        high = _mm256_andnot_si256(digit(load(chunk, len + 32)), high);
        through |= mask(low) | mask(high) << 32;
    }
    // Opaque to LLVM, which otherwise fuses the mask arithmetic back
    // into the compares' vectors, rebuilt byte by byte (`vpextrb`).
    std::hint::black_box((block(block64), zeros, through))
}

/// The 32 bytes from `chunk[at]`; zeros unless `at` is at most 40.
#[target_feature(enable = "avx2")]
#[inline]
fn load(chunk: &[u8; 72], at: usize) -> __m256i {
    match chunk.get(at..at + 32) {
        // SAFETY: `bytes` is 32 readable bytes; the load is unaligned.
        #[allow(unsafe_code)]
        Some(bytes) => unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) },
        None => _mm256_setzero_si256(),
    }
}

/// Which bytes of `v` are ASCII digits (all bits set).
#[target_feature(enable = "avx2")]
#[inline]
fn digit(v: __m256i) -> __m256i {
    let offset = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0'.cast_signed()));
    _mm256_cmpeq_epi8(_mm256_min_epu8(offset, _mm256_set1_epi8(9)), offset)
}

/// One bit per byte of `v`: its top bit.
#[target_feature(enable = "avx2")]
#[inline]
fn mask(v: __m256i) -> u64 {
    u64::from(_mm256_movemask_epi8(v).cast_unsigned())
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn block(chunk: &[u8; 64]) -> Block {
    let (low, high) = chunk.split_at(32);
    let (Ok(low), Ok(high)) = (low.try_into(), high.try_into()) else {
        return Block::default();
    };
    let (low, high) = (half(low), half(high));
    let join = |i: usize| u64::from(low[i]) | u64::from(high[i]) << 32;
    Block {
        open: join(0),
        close: join(1),
        delimiters: join(2),
        minus: join(3),
        dot: join(4),
        other: join(5),
    }
}
