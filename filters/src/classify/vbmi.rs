//! [`super::Classifier::gated_numbers`] with AVX-512 VBMI: each byte of a
//! block mapped to a class (one two-register byte lookup), each byte paired
//! with the class of the byte before it, and every rule on neighbours that
//! the other bodies check mask by mask (`gated_numbers_with`) read from one
//! 64-entry table of those pairs: faults, a `0` that begins an integer
//! part, the first digit after a `.`, the first byte of a number. What
//! stays per block in scalar code is what spans more than two bytes (a
//! second `.` in a number, a digit after a leading `0`), the brackets'
//! depth, and the gate's numbers.

use std::arch::x86_64::{
    __m512i, _mm512_add_epi8, _mm512_cmpeq_epi8_mask, _mm512_cmpge_epu8_mask, _mm512_loadu_si512,
    _mm512_maskz_loadu_epi8, _mm512_maskz_permutex2var_epi8, _mm512_movepi8_mask,
    _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_setzero_si512,
    _mm512_slli_epi16, _mm512_test_epi8_mask,
};

use super::gated::{GATED_BLOCKS, Gated, chunk72};
use crate::gate::Gate;

/// Byte classes (3 bits): anything else (also bytes past the end), `[`,
/// `]`, `,`, `-`, `.`, `0`, `1` to `9`.
const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const COMMA: u8 = 3;
const MINUS: u8 = 4;
const DOT: u8 = 5;
const ZERO: u8 = 6;
const DIGIT: u8 = 7;

/// The class of each ASCII byte.
const CLASSES: [u8; 128] = {
    let mut table = [OTHER; 128];
    table[b'[' as usize] = OPEN;
    table[b']' as usize] = CLOSE;
    table[b',' as usize] = COMMA;
    table[b'-' as usize] = MINUS;
    table[b'.' as usize] = DOT;
    table[b'0' as usize] = ZERO;
    let mut d = b'1';
    while d <= b'9' {
        table[d as usize] = DIGIT;
        d += 1;
    }
    table
};

/// Flags of a pair of classes (the byte before, the byte), by
/// `8 * before + byte`.
const FAULT: u8 = 1;
/// A `0` that begins an integer part.
const LEADING_ZERO: u8 = 2;
/// A digit just after a `.`.
const FRACTION: u8 = 4;
/// The first byte of a number (after `[`, `,` or `]`; a `]` there is a
/// fault of its own).
const START: u8 = 8;

/// The flags of each pair: the rules of `gated_numbers_with`'s `faults`
/// (after `[` a value or `]`, after `,` a value or `[`, after `]` a `,` or
/// `]`, after a digit no `[` or `-`, a digit after every `-` and `.`, no
/// byte of another class), with "before" the class of the byte before the
/// block's first for the first block ([`OTHER`]: no rule).
const PAIRS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut before = 0;
    while before < 8 {
        let mut byte = 0;
        while byte < 8 {
            let (b, c) = (before as u8, byte as u8);
            let digit = c == ZERO || c == DIGIT;
            let fault = c == OTHER
                || (b == OPEN && (c == COMMA || c == DOT))
                || (b == COMMA && (c == COMMA || c == CLOSE || c == DOT))
                || (b == CLOSE && !(c == COMMA || c == CLOSE))
                || ((b == ZERO || b == DIGIT) && (c == OPEN || c == MINUS))
                || ((b == MINUS || b == DOT) && !digit);
            let mut flags = 0;
            if fault {
                flags |= FAULT;
            }
            if c == ZERO && (b == OPEN || b == COMMA || b == MINUS) {
                flags |= LEADING_ZERO;
            }
            if b == DOT && digit {
                flags |= FRACTION;
            }
            if (b == OPEN || b == COMMA || b == CLOSE)
                && (c == MINUS || c == DOT || c == ZERO || c == DIGIT)
            {
                flags |= START;
            }
            table[before * 8 + byte] = flags;
            byte += 1;
        }
        before += 1;
    }
    table
};

/// Lane `i` of the byte before: lane 63 of the block before for lane 0,
/// else lane `i - 1` of this block (the second table of the lookup).
const BEFORE: [u8; 64] = {
    let mut table = [0u8; 64];
    table[0] = 63;
    let mut i = 1;
    while i < 64 {
        table[i] = 64 + i as u8 - 1;
        i += 1;
    }
    table
};

/// See [`super::Classifier::gated_numbers`]: the same answer and the same
/// `gated` as `gated_numbers_with` gives (a unit test compares them).
#[target_feature(enable = "avx512bw,avx512vbmi,popcnt")]
pub(super) fn gated_numbers(
    bytes: &[u8],
    start: usize,
    room: usize,
    gate: &Gate,
    gated: &mut Gated,
) -> bool {
    // One loop per kind of gate, so that the negative one (the city-lots
    // longitudes) keeps no 72-byte copy of the array's last block and no
    // test of the kind per block.
    if gate.negative {
        pass::<true>(bytes, start, room, gate, gated)
    } else {
        pass::<false>(bytes, start, room, gate, gated)
    }
}

/// [`gated_numbers`] for a gate that is [`Gate::negative`] or not.
#[target_feature(enable = "avx512bw,avx512vbmi,popcnt")]
#[inline]
fn pass<const NEGATIVE: bool>(
    bytes: &[u8],
    start: usize,
    room: usize,
    gate: &Gate,
    gated: &mut Gated,
) -> bool {
    let (classes_low, classes_high) = (load64(&CLASSES[..64]), load64(&CLASSES[64..]));
    let (pairs, before_lanes) = (load64(&PAIRS), load64(&BEFORE));
    let splat = |b: u8| _mm512_set1_epi8(b.cast_signed());
    gated.count = 0;
    let mut at = start;
    let mut level: usize = 0;
    // The digits of numbers, ORed over the blocks (every number has one).
    let mut seen = 0u64;
    // The classes of the block before ([`OTHER`] before the first).
    let mut previous = _mm512_setzero_si512();
    // Whether the last byte of the block before is a leading `0`, and
    // whether a run of digits after a `.` goes on past it.
    let (mut zero_b, mut fraction_b) = (0u64, 0u64);
    for index in 0..GATED_BLOCKS {
        let v = load_block(bytes, at);
        // Bytes from 0x80 are `OTHER` (0).
        let ascii = !_mm512_movepi8_mask(v);
        let class = _mm512_maskz_permutex2var_epi8(ascii, classes_low, v, classes_high);
        let before = _mm512_permutex2var_epi8(previous, before_lanes, class);
        previous = class;
        // Classes below 8: the 16-bit shift moves no bit into the next byte.
        let pair = _mm512_add_epi8(_mm512_slli_epi16::<3>(before), class);
        let flags = _mm512_permutexvar_epi8(pair, pairs);
        let flag = |f: u8| _mm512_test_epi8_mask(flags, splat(f));
        let is = |c: u8| _mm512_cmpeq_epi8_mask(class, splat(c));
        let (open, close) = (is(OPEN), is(CLOSE));
        let delimiters = open | close | is(COMMA);
        let digit = _mm512_cmpge_epu8_mask(class, splat(ZERO));
        if level + open.count_ones() as usize >= room || delimiters == 0 {
            return false;
        }
        let end = crate::skim::closing_bit(open, close, &mut level);
        let before_end = end.map_or(u64::MAX, |i| (1u64 << i) - 1);
        let leading_zero = flag(LEADING_ZERO);
        // The first byte after each run of digits that follows a `.`: a
        // second `.` there is a second `.` in one number.
        let (sum, carry_a) = digit.overflowing_add(flag(FRACTION));
        let (sum, carry_b) = sum.overflowing_add(fraction_b);
        let past_fraction = sum & !digit;
        let faults = flag(FAULT) | (leading_zero << 1 | zero_b) & digit | past_fraction & is(DOT);
        // Up to the closing bracket, itself included.
        if faults & (before_end << 1 | 1) != 0 {
            return false;
        }
        seen |= digit & before_end;
        // Every negative number when every text is negative (the judge
        // compares the texts): every `-` up to the end begins one (the
        // rules above let one follow only `[` and `,`). Else the numbers
        // that begin with a text.
        let (starts, through) = if NEGATIVE {
            (before_end, is(MINUS))
        } else {
            let mut padded = [0u8; 72];
            let through = super::avx512::through(chunk72(bytes, at, &mut padded), gate);
            (flag(START) & before_end, through)
        };
        if let Some(done) = gated.note_block(at, index, delimiters, starts, through, end) {
            gated.any = seen != 0;
            return done;
        }
        zero_b = leading_zero >> 63;
        fraction_b = u64::from(carry_a | carry_b);
        at += 64;
    }
    false
}

/// The 64 bytes of `bytes` at `at`, or what there is followed by zeros
/// (`OTHER` bytes).
#[target_feature(enable = "avx512bw")]
#[inline]
fn load_block(bytes: &[u8], at: usize) -> __m512i {
    if let Some(block) = bytes.get(at..at.saturating_add(64)) {
        return load64(block);
    }
    // Fewer than 64 bytes: the array's last block.
    let rest = bytes.get(at..).unwrap_or_default();
    let lanes = (1u64 << rest.len()) - 1;
    // SAFETY: the load reads only the lanes set in `lanes`, the first
    // `rest.len()` bytes of `rest`, which are readable; masked-off lanes
    // are neither read nor faulted on, and come back as zeros.
    #[allow(unsafe_code)]
    unsafe {
        _mm512_maskz_loadu_epi8(lanes, rest.as_ptr().cast())
    }
}

/// The first 64 bytes of `bytes` (at least 64).
#[target_feature(enable = "avx512bw")]
#[inline]
fn load64(bytes: &[u8]) -> __m512i {
    let bytes = &bytes[..64];
    // SAFETY: `bytes` is 64 readable bytes; the load is unaligned.
    #[allow(unsafe_code)]
    unsafe {
        _mm512_loadu_si512(bytes.as_ptr().cast())
    }
}
