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

use crate::gate::Gate;

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
pub(crate) struct Classifier {
    /// Whether the CPU also has AVX-512BW, and AVX-512 VBMI (for
    /// [`Classifier::gated_numbers`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    vbmi: bool,
}

impl Classifier {
    /// `Some` when the CPU has AVX2 and POPCNT (detected at run time; `std`
    /// caches the answer).
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        let (avx2, avx512, vbmi) = (
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("popcnt"),
            std::arch::is_x86_feature_detected!("avx512bw"),
            std::arch::is_x86_feature_detected!("avx512vbmi"),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (avx2, avx512, vbmi) = (false, false, false);
        avx2.then_some(Self {
            avx512,
            vbmi: avx512 && vbmi,
        })
    }

    /// The classes of the 64 bytes at `at`; bytes past the end count as `other`.
    #[inline]
    pub(crate) fn block(self, bytes: &[u8], at: usize) -> Block {
        let mut padded = [0u8; 64];
        let chunk = chunk(bytes, at, &mut padded);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: a `Classifier` exists only when `Classifier::new` found
            // AVX2 and POPCNT on this CPU, the features `x86::block` and the
            // other `x86` functions are compiled for.
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
            // SAFETY: as in `Classifier::block`: AVX2 and POPCNT were found on this CPU.
            #[allow(unsafe_code)]
            unsafe {
                x86::compact_array(bytes, start, room, kept)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        compact_array_with(portable, bytes, start, room, kept)
    }

    /// One pass over the array of numbers whose `[` is at `start`, for
    /// [`crate::scan`]'s walk when no number in it can matter but those
    /// `gate` lets through: `false` (nothing found) unless, up to its
    /// closing bracket, the array is well-formed compact JSON of brackets,
    /// commas and plain numbers (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`), with fewer
    /// than `room` arrays open at once, at most [`GATED_BLOCKS`] blocks, no
    /// 64-byte block without a delimiter and at most [`GATED_STARTS`]
    /// numbers through the gate (with [`Gate::negative`], every negative
    /// number: [`Gate::judge`] compares the texts). Then `gated` holds those
    /// numbers' first bytes, the delimiters, and the closing bracket's
    /// position.
    ///
    /// Every check is a mask over the block ([`Block`] plus `0`s), so a
    /// well-formed array costs no work per delimiter or number.
    #[inline]
    pub(crate) fn gated_numbers(
        self,
        bytes: &[u8],
        start: usize,
        room: usize,
        gate: &Gate,
        gated: &mut Gated,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if self.vbmi {
                // SAFETY: `Classifier::new` found AVX-512BW, AVX-512 VBMI and
                // POPCNT on this CPU, the features `vbmi::gated_numbers` is
                // compiled for.
                #[allow(unsafe_code)]
                return unsafe { vbmi::gated_numbers(bytes, start, room, gate, gated) };
            }
            if self.avx512 {
                // SAFETY: `Classifier::new` found AVX-512BW and POPCNT on
                // this CPU, the features `avx512::gated_numbers` is compiled for.
                #[allow(unsafe_code)]
                return unsafe { avx512::gated_numbers(bytes, start, room, gate, gated) };
            }
            // SAFETY: as in `Classifier::block`: AVX2 and POPCNT were found on this CPU.
            #[allow(unsafe_code)]
            unsafe {
                x86::gated_numbers(bytes, start, room, gate, gated)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        gated_numbers_with(portable_gated, bytes, start, room, gate, gated)
    }
}

/// Blocks of 64 bytes [`Classifier::gated_numbers`] takes (a longer array is
/// left to the delimiter walk).
pub(crate) const GATED_BLOCKS: usize = 16;

/// Numbers through the gate [`Classifier::gated_numbers`] keeps.
pub(crate) const GATED_STARTS: usize = 64;

/// What [`Classifier::gated_numbers`] found.
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
fn chunk72<'b>(bytes: &'b [u8], at: usize, padded: &'b mut [u8; 72]) -> &'b [u8; 72] {
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

/// [`Classifier::gated_numbers`] with `classify` for a block: its
/// [`Block`], its `0`s, and its bytes that begin one of the gate's texts
/// followed by a byte that is not a digit.
#[inline(always)]
fn gated_numbers_with(
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
    gated.any = false;
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
        gated.any |= starts != 0;
        gated.delimiters[index] = block.delimiters;
        // Every negative number, when every text is negative.
        let through = if gate.negative { block.minus } else { through };
        let mut through = through & starts;
        while through != 0 {
            let Some(slot) = gated.starts.get_mut(gated.count) else {
                return false;
            };
            // Arrays of at most 16 blocks: positions fit in `u32` when the
            // event does.
            *slot = u32::try_from(at + through.trailing_zeros() as usize).unwrap_or(u32::MAX);
            gated.count += 1;
            through &= through - 1;
        }
        if let Some(end) = end {
            gated.end = at + end as usize;
            gated.delimiters[index + 1] = 0;
            return true;
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
fn portable_gated(chunk: &[u8; 72], gate: &Gate) -> (Block, u64, u64) {
    let mut block64 = [0u8; 64];
    block64.copy_from_slice(&chunk[..64]);
    let zero = block64
        .iter()
        .enumerate()
        .fold(0u64, |m, (i, &b)| m | u64::from(b == b'0') << i);
    (portable(&block64), zero, portable_gate(chunk, gate))
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
mod avx512;
#[cfg(target_arch = "x86_64")]
mod vbmi;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
        _mm256_setzero_si256, _mm256_sub_epi8,
    };

    use super::Block;
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
        kept: &mut [super::Kept; super::KEPT_BLOCKS],
    ) -> bool {
        super::compact_array_with(|chunk| block(chunk), bytes, start, room, kept)
    }

    /// [`super::Classifier::gated_numbers`] with AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn gated_numbers(
        bytes: &[u8],
        start: usize,
        room: usize,
        gate: &Gate,
        gated: &mut super::Gated,
    ) -> bool {
        super::gated_numbers_with(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`gated_numbers_with`] finds, when it accepts the array.
    fn found(accepted: bool, gated: &Gated) -> Option<(Vec<u32>, bool, usize, Vec<u64>)> {
        accepted.then(|| {
            let blocks = gated.delimiters.iter().position(|&d| d == 0);
            (
                gated.starts[..gated.count].to_vec(),
                gated.any,
                gated.end,
                gated.delimiters[..blocks.unwrap_or(GATED_BLOCKS + 1)].to_vec(),
            )
        })
    }

    #[test]
    fn gated_bodies_agree_with_the_portable_one() {
        let text = |t: &[u8]| {
            let mut word = [0u8; 8];
            word[..t.len()].copy_from_slice(t);
            u64::from_le_bytes(word)
        };
        let gate = Gate::new(
            [(text(b"-122"), 122), (text(b"0"), 0), (text(b"-0"), 0)],
            &[(-12_250_010_000, -12_237_590_000), (-10_000, 50_000_000)],
            None,
        );
        let pieces = [
            "[",
            "]",
            ",",
            "-",
            ".",
            "0",
            "7",
            "-122",
            "-122.5",
            "-1220.5",
            "37.70041",
            "0.0",
            "-0.25",
            "00",
            "01",
            "1e5",
            " ",
            "\"",
            "[-122.4985,37.7002,0.0],",
            "1.2.3",
            "5.",
            "-122.49712345678901,",
            "[[]],",
            "-122",
            // Two neighbours each, every rule once.
            "]7,",
            "]-1,",
            "[,",
            ",,",
            "[1,]",
            "[.5]",
            "7[",
            "7-",
            "-.",
            "--5",
            "[0.]",
            "5..5,",
            "-01,",
            "[-]",
            "[1]7",
            "0.0.0,",
            "[00]",
        ];
        let mut state: u64 = 3;
        let mut accepted = 0;
        for round in 0..20_000 {
            let mut array = String::from("[");
            array.push_str(&"7".repeat(round % 70));
            array.push(',');
            // Well-formed points with one piece of any kind among them
            // (odd rounds), or a faulty piece now and then (even rounds).
            let one = round % 40 / 2;
            for i in 0..(round % 40) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let any = (state >> 33) as usize % pieces.len();
                let piece = match round % 2 {
                    1 if i == one => any,
                    1 => 18,
                    _ if state >> 60 < 13 => 18,
                    _ => any,
                };
                array.push_str(pieces[piece]);
            }
            let array = array.trim_end_matches(',').to_owned() + "]],1]";
            let bytes = array.as_bytes();
            for room in [3, 128] {
                let mut want = Gated::default();
                let ok = gated_numbers_with(portable_gated, bytes, 0, room, &gate, &mut want);
                let want = found(ok, &want);
                accepted += usize::from(want.is_some());
                #[cfg(target_arch = "x86_64")]
                {
                    let mut got = Gated::default();
                    if Classifier::new().is_some() {
                        // SAFETY: `Classifier::new` found AVX2 and POPCNT.
                        #[allow(unsafe_code)]
                        let ok = unsafe { x86::gated_numbers(bytes, 0, room, &gate, &mut got) };
                        assert_eq!(found(ok, &got), want, "AVX2 {array}");
                    }
                    if Classifier::new().is_some_and(|c| c.avx512) {
                        // SAFETY: `Classifier::new` found AVX-512BW and POPCNT.
                        #[allow(unsafe_code)]
                        let ok = unsafe { avx512::gated_numbers(bytes, 0, room, &gate, &mut got) };
                        assert_eq!(found(ok, &got), want, "AVX-512 {array}");
                    }
                    if Classifier::new().is_some_and(|c| c.vbmi) {
                        // SAFETY: `Classifier::new` found AVX-512BW, VBMI and POPCNT.
                        #[allow(unsafe_code)]
                        let ok = unsafe { vbmi::gated_numbers(bytes, 0, room, &gate, &mut got) };
                        assert_eq!(found(ok, &got), want, "VBMI {array}");
                    }
                }
            }
        }
        assert!(accepted > 3_000, "{accepted}");
    }

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
