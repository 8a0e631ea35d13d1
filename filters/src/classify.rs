//! Byte classes of 64 bytes at a time, for [`crate::scan`]'s walk over an
//! array of numbers (the city-lots corpus's `coordinates`): where its
//! brackets and commas are, and whether any byte is not part of a compact
//! array of plain numbers.
//!
//! With the delimiters known from bit masks, the walk knows where each number
//! starts and ends before reading it, so reading one number no longer waits
//! for the previous one to be read (the byte-by-byte walk's chain from one
//! position to the next). The masks come from AVX2 compares where the CPU has
//! them ([`Classifier::new`] gives `None` elsewhere, and the walk keeps its
//! portable path).

/// Per byte of a 64-byte block, one bit (bit `i` for byte `i`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Block {
    /// `[`.
    pub(crate) open: u64,
    /// `]`.
    pub(crate) close: u64,
    /// `[`, `]` and `,`.
    pub(crate) delimiters: u64,
    /// `-`.
    pub(crate) minus: u64,
    /// `.`.
    pub(crate) dot: u64,
    /// Anything but `[`, `]`, `,`, `-`, `.` and ASCII digits (so also
    /// blanks, `e`, quotes, braces, letters).
    pub(crate) other: u64,
}

/// The block classifier, available where the CPU has AVX2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Classifier(());

impl Classifier {
    /// `Some` when the CPU has AVX2 (detected at run time; `std` caches the answer).
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        avx2.then_some(Self(()))
    }

    /// The classes of the 64 bytes at `at`; bytes past the end count as `other`.
    #[inline]
    pub(crate) fn block(self, bytes: &[u8], at: usize) -> Block {
        let mut padded = [0u8; 64];
        let chunk = chunk(bytes, at, &mut padded);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: a `Classifier` exists only when `Classifier::new` found
            // AVX2 on this CPU, the feature `x86::block` is compiled for.
            #[allow(unsafe_code)]
            unsafe {
                x86::block(chunk)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        portable(chunk)
    }

    /// The first pass over the array whose `[` is at `start`: whether, up
    /// to its closing bracket, it holds only brackets, commas and number
    /// bytes (`-`, `.`, digits), with fewer than `room` arrays open at once,
    /// every `-` just after a `[` or `,`, and every `.` before a digit (so
    /// a number's only `-` is its first byte, and a `.` is never its last).
    /// Either way `kept` holds what [`Kept`] keeps of its first blocks (from
    /// `start`, 64 bytes each), as many as fit.
    ///
    /// One call for the whole array: the masks stay in registers (a block
    /// returned through memory and read back in other widths stalls the
    /// store forwarding).
    #[inline]
    pub(crate) fn compact_array(
        self,
        bytes: &[u8],
        start: usize,
        room: usize,
        kept: &mut [Kept; KEPT_BLOCKS],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: as in `Classifier::block`: AVX2 was found on this CPU.
            #[allow(unsafe_code)]
            unsafe {
                x86::compact_array(bytes, start, room, kept)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        compact_array_with(portable, bytes, start, room, kept)
    }
}

/// Blocks of 64 bytes that [`Classifier::compact_array`] keeps for the
/// second pass (more are classified again).
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

/// The 64 bytes at `at`, or what is left of them followed by zeros in `padded`.
#[inline(always)]
fn chunk<'b>(bytes: &'b [u8], at: usize, padded: &'b mut [u8; 64]) -> &'b [u8; 64] {
    match bytes.get(at..).and_then(|rest| rest.first_chunk::<64>()) {
        Some(chunk) => chunk,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            padded
        }
    }
}

/// [`Classifier::compact_array`] with `classify` for blocks.
#[inline(always)]
fn compact_array_with(
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

/// [`Classifier::block`] byte by byte: the reference for tests, and the
/// body on other architectures (where no `Classifier` is ever made).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn portable(chunk: &[u8; 64]) -> Block {
    let mut block = Block::default();
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'[' => {
                block.open |= bit;
                block.delimiters |= bit;
            }
            b']' => {
                block.close |= bit;
                block.delimiters |= bit;
            }
            b',' => block.delimiters |= bit,
            b'-' => block.minus |= bit,
            b'.' => block.dot |= bit,
            b'0'..=b'9' => {}
            _ => block.other |= bit,
        }
    }
    block
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_sub_epi8,
    };

    use super::Block;

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

    /// [`super::Classifier::compact_array`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn compact_array(
        bytes: &[u8],
        start: usize,
        room: usize,
        kept: &mut [super::Kept; super::KEPT_BLOCKS],
    ) -> bool {
        super::compact_array_with(|chunk| block(chunk), bytes, start, room, kept)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_agree_with_a_byte_by_byte_classification() {
        let Some(classifier) = Classifier::new() else {
            return;
        };
        let bytes: Vec<u8> = (0..=255u8)
            .chain(b"[[-122.5,37.25,0.0],[1e5, \"x\"]]".iter().copied())
            .collect();
        for at in [0, 1, 31, 64, 100, 200, bytes.len() - 70, bytes.len() - 5] {
            let mut want = [0u8; 64];
            let rest = &bytes[at..];
            let n = rest.len().min(64);
            want[..n].copy_from_slice(&rest[..n]);
            assert_eq!(classifier.block(&bytes, at), portable(&want), "at {at}");
        }
    }
}
