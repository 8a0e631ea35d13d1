//! The gated pass (see [`super::Classifier::gated_numbers`]) mask by mask:
//! what it finds ([`Gated`]), its rules on a block's classes given by a
//! body's classification (`gated_numbers_with`, which the AVX2 and
//! AVX-512BW bodies wrap), and the byte-by-byte classification (the
//! reference for tests, and the body on other architectures).

use super::{Block, portable};
use crate::gate::Gate;

/// Blocks of 64 bytes [`super::Classifier::gated_numbers`] takes (a longer
/// array is left to the delimiter walk).
pub(crate) const GATED_BLOCKS: usize = 16;

/// Numbers through the gate [`super::Classifier::gated_numbers`] keeps.
pub(crate) const GATED_STARTS: usize = 64;

/// What [`super::Classifier::gated_numbers`] found.
#[derive(Debug, Clone)]
pub(crate) struct Gated {
    /// The first byte of each number through the gate, in order.
    pub(crate) starts: [u32; GATED_STARTS],
    pub(crate) count: usize,
    /// Whether the array holds any number.
    pub(crate) any: bool,
    /// Where its closing bracket is.
    pub(crate) end: usize,
    /// Per block (64 bytes from the `[`): `[`, `]` and `,`.
    pub(crate) delimiters: [u64; GATED_BLOCKS + 1],
}

impl Gated {
    /// Notes one block of the pass (number `index`, at byte `at`): its
    /// delimiters, and the first byte of each number in `starts` that
    /// `through` lets through; `Some` when the pass ends here: `true` at
    /// the array's end (`end`, the closing bracket's bit; the caller then
    /// sets `any`), `false` when more numbers go through than `starts`
    /// holds. Shared by every body of the pass (`gated_numbers_with` and
    /// the VBMI one).
    #[inline(always)]
    pub(super) fn note_block(
        &mut self,
        at: usize,
        index: usize,
        delimiters: u64,
        starts: u64,
        through: u64,
        end: Option<u32>,
    ) -> Option<bool> {
        self.delimiters[index] = delimiters;
        let mut through = through & starts;
        while through != 0 {
            let Some(slot) = self.starts.get_mut(self.count) else {
                return Some(false);
            };
            // Arrays of at most 16 blocks: positions fit in `u32` when the
            // event does.
            *slot = u32::try_from(at + through.trailing_zeros() as usize).unwrap_or(u32::MAX);
            self.count += 1;
            through &= through - 1;
        }
        let end = end?;
        self.end = at + end as usize;
        self.delimiters[index + 1] = 0;
        Some(true)
    }
}

impl Default for Gated {
    fn default() -> Self {
        Self {
            starts: [0; GATED_STARTS],
            count: 0,
            any: false,
            end: 0,
            delimiters: [0; GATED_BLOCKS + 1],
        }
    }
}

/// The 72 bytes at `at` (a block and the 8 after it, for the gate's
/// shifted compares), or what is left of them followed by zeros in `padded`.
#[inline(always)]
pub(super) fn chunk72<'b>(bytes: &'b [u8], at: usize, padded: &'b mut [u8; 72]) -> &'b [u8; 72] {
    match bytes.get(at..).and_then(|rest| rest.first_chunk::<72>()) {
        Some(chunk) => chunk,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            let n = rest.len().min(72);
            padded[..n].copy_from_slice(&rest[..n]);
            padded
        }
    }
}

/// [`super::Classifier::gated_numbers`] with `classify` for a block: its
/// [`Block`], its `0`s, and its bytes that begin one of the gate's texts
/// followed by a byte that is not a digit.
#[inline(always)]
pub(super) fn gated_numbers_with(
    classify: impl Fn(&[u8; 72], &Gate) -> (Block, u64, u64),
    bytes: &[u8],
    start: usize,
    room: usize,
    gate: &Gate,
    gated: &mut Gated,
) -> bool {
    let mut at = start;
    let mut level: usize = 0;
    gated.count = 0;
    // The first bytes of numbers, ORed over the blocks.
    let mut seen = 0u64;
    // The classes of the byte before the block, as bit 0 of each mask.
    let (mut open_b, mut comma_b, mut close_b, mut digit_b) = (0u64, 0u64, 0u64, 0u64);
    let (mut minus_b, mut dot_b, mut zero_b) = (0u64, 0u64, 0u64);
    // Whether a run of digits after a `.` goes on past the block before.
    let mut fraction_b = 0u64;
    for index in 0..GATED_BLOCKS {
        let mut padded = [0u8; 72];
        let (block, zero, through) = classify(chunk72(bytes, at, &mut padded), gate);
        if level + block.open.count_ones() as usize >= room || block.delimiters == 0 {
            return false;
        }
        let end = crate::skim::closing_bit(block.open, block.close, &mut level);
        let before_end = end.map_or(u64::MAX, |i| (1u64 << i) - 1);
        let comma = block.delimiters & !(block.open | block.close);
        let digit = !(block.delimiters | block.minus | block.dot | block.other);
        let after = |mask: u64, before: u64| mask << 1 | before;
        let (p_open, p_comma, p_close) = (
            after(block.open, open_b),
            after(comma, comma_b),
            after(block.close, close_b),
        );
        let (p_digit, p_minus, p_dot) = (
            after(digit, digit_b),
            after(block.minus, minus_b),
            after(block.dot, dot_b),
        );
        // A `0` that begins an integer part.
        let leading_zero = zero & (p_open | p_comma | p_minus);
        // The first byte after each run of digits that follows a `.`: a
        // second `.` there is a second `.` in one number.
        let fraction = digit & p_dot;
        let (sum, carry_a) = digit.overflowing_add(fraction);
        let (sum, carry_b) = sum.overflowing_add(fraction_b);
        let past_fraction = sum & !digit;
        let faults = block.other
            | p_open & (comma | block.dot)
            | p_comma & (comma | block.close | block.dot)
            | p_close & !(comma | block.close)
            | p_digit & (block.open | block.minus)
            | (p_minus | p_dot) & !digit
            | after(leading_zero, zero_b) & digit
            | past_fraction & block.dot;
        // Up to the closing bracket, itself included.
        if faults & (before_end << 1 | 1) != 0 {
            return false;
        }
        let starts = !(block.delimiters | block.other)
            & after(block.delimiters, open_b | comma_b | close_b)
            & before_end;
        seen |= starts;
        // Every negative number, when every text is negative.
        let through = if gate.negative { block.minus } else { through };
        if let Some(done) = gated.note_block(at, index, block.delimiters, starts, through, end) {
            gated.any = seen != 0;
            return done;
        }
        open_b = block.open >> 63;
        comma_b = comma >> 63;
        close_b = block.close >> 63;
        digit_b = digit >> 63;
        minus_b = block.minus >> 63;
        dot_b = block.dot >> 63;
        zero_b = leading_zero >> 63;
        fraction_b = u64::from(carry_a | carry_b);
        at += 64;
    }
    false
}

/// The gate's texts found at each byte of `chunk`'s first 64, byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn portable_gate(chunk: &[u8; 72], gate: &Gate) -> u64 {
    let mut through = 0u64;
    for i in 0..64 {
        for text in gate.compared() {
            let len = text.len.min(8);
            if chunk[i..i + len] == text.bytes[..len] && !chunk[i + len].is_ascii_digit() {
                through |= 1 << i;
            }
        }
    }
    through
}

/// [`gated_numbers_with`]'s classification byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn portable_gated(chunk: &[u8; 72], gate: &Gate) -> (Block, u64, u64) {
    let mut block64 = [0u8; 64];
    block64.copy_from_slice(&chunk[..64]);
    let zero = block64
        .iter()
        .enumerate()
        .fold(0u64, |m, (i, &b)| m | u64::from(b == b'0') << i);
    (portable(&block64), zero, portable_gate(chunk, gate))
}
