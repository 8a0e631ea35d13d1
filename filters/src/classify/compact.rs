//! The first pass over a compact array of numbers (see
//! [`super::Classifier::compact_array`]) with a body's block classifier,
//! and what it keeps of each block for the second pass ([`Kept`]).

use super::{Block, chunk};

/// Blocks of 64 bytes that [`super::Classifier::compact_array`] keeps for
/// the second pass (more are classified again).
pub(crate) const KEPT_BLOCKS: usize = 16;

/// What the second pass over a compact array needs of a [`Block`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Kept {
    /// `[`, `]` and `,`.
    pub(crate) delimiters: u64,
    pub(crate) dot: u64,
}

impl Kept {
    #[inline]
    pub(crate) fn of(block: &Block) -> Self {
        Self {
            delimiters: block.delimiters,
            dot: block.dot,
        }
    }
}

/// Whether the byte at `at` is not an ASCII digit (or past the end).
#[inline]
fn non_digit_before_next(bytes: &[u8], at: usize) -> bool {
    !bytes.get(at).is_some_and(u8::is_ascii_digit)
}

/// [`super::Classifier::compact_array`] with `classify` for blocks.
#[inline(always)]
pub(super) fn compact_array_with(
    classify: impl Fn(&[u8; 64]) -> Block,
    bytes: &[u8],
    start: usize,
    room: usize,
    kept: &mut [Kept; KEPT_BLOCKS],
) -> bool {
    let mut at = start;
    let mut level: usize = 0;
    let mut index = 0;
    // Whether the last byte of the block before is a delimiter, as bit 0
    // (the first block starts with `[`).
    let mut delimiter_before = 0u64;
    loop {
        let mut padded = [0u8; 64];
        let block = classify(chunk(bytes, at, &mut padded));
        if let Some(slot) = kept.get_mut(index) {
            *slot = Kept::of(&block);
        }
        index += 1;
        if level + block.open.count_ones() as usize >= room {
            return false;
        }
        let end = crate::skim::closing_bit(block.open, block.close, &mut level);
        let before_end = end.map_or(u64::MAX, |i| (1u64 << i) - 1);
        // A `-` after anything but a delimiter, a `.` before anything but
        // a digit.
        let non_digit = block.delimiters | block.minus | block.dot;
        let misplaced = block.other
            | block.minus & !(block.delimiters << 1 | delimiter_before)
            | block.dot << 1 & non_digit;
        // Up to the closing bracket, itself included (`-]`, `.]`).
        if misplaced & (before_end << 1 | 1) != 0 {
            return false;
        }
        if end.is_some() {
            return true;
        }
        // A `.` as the last byte of a block is checked by the next one's
        // first byte: not a digit there means a misplaced `.` (or the end).
        if block.dot >> 63 == 1 && non_digit_before_next(bytes, at + 64) {
            return false;
        }
        delimiter_before = block.delimiters >> 63;
        at += 64;
    }
}
