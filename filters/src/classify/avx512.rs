//! [`super::Classifier::gated_numbers`] with AVX-512 (`avx512bw`): the
//! 64 bytes of a block in one register, each byte class one compare
//! straight into a 64-bit mask (the AVX2 body compares two 32-byte halves
//! and joins their `movemask`s).

use std::arch::x86_64::{
    __m512i, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask, _mm512_loadu_si512, _mm512_set1_epi8,
    _mm512_sub_epi8,
};

use super::Block;
use super::gated::{Gated, gated_numbers_with};
use crate::gate::Gate;

/// [`super::Classifier::gated_numbers`] with AVX-512BW and POPCNT.
#[target_feature(enable = "avx512bw,popcnt")]
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
#[target_feature(enable = "avx512bw")]
#[inline]
fn classify_gated(chunk: &[u8; 72], gate: &Gate) -> (Block, u64, u64) {
    let v = load(chunk, 0);
    let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b.cast_signed()));
    let (open, close, comma) = (eq(b'['), eq(b']'), eq(b','));
    let (minus, dot, zero) = (eq(b'-'), eq(b'.'), eq(b'0'));
    let delimiters = open | close | comma;
    let through = through(chunk, gate);
    let block = Block {
        open,
        close,
        delimiters,
        minus,
        dot,
        other: !(delimiters | minus | dot | digits(v)),
    };
    (block, zero, through)
}

/// The bytes of `chunk`'s first 64 that begin one of the gate's texts
/// followed by a byte that is not a digit.
#[target_feature(enable = "avx512bw")]
#[inline]
pub(super) fn through(chunk: &[u8; 72], gate: &Gate) -> u64 {
    let mut through = 0u64;
    for text in gate.compared() {
        let len = text.len.min(8);
        let mut at = !digits(load(chunk, len));
        for (k, &b) in text.bytes[..len].iter().enumerate() {
            at &= _mm512_cmpeq_epi8_mask(load(chunk, k), _mm512_set1_epi8(b.cast_signed()));
        }
        through |= at;
    }
    through
}

/// The 64 bytes from `chunk[at]` (`at` at most 8).
#[target_feature(enable = "avx512bw")]
#[inline]
pub(super) fn load(chunk: &[u8; 72], at: usize) -> __m512i {
    let bytes = &chunk[at.min(8)..];
    // SAFETY: `bytes` holds at least 64 readable bytes (72 from an offset
    // of at most 8); the load is unaligned.
    #[allow(unsafe_code)]
    unsafe {
        _mm512_loadu_si512(bytes.as_ptr().cast())
    }
}

/// Which bytes of `v` are ASCII digits.
#[target_feature(enable = "avx512bw")]
#[inline]
fn digits(v: __m512i) -> u64 {
    _mm512_cmple_epu8_mask(
        _mm512_sub_epi8(v, _mm512_set1_epi8(b'0'.cast_signed())),
        _mm512_set1_epi8(9),
    )
}
