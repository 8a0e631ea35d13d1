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
//!
//! This file holds the byte classes ([`Block`]), the run-time choice of
//! body ([`Classifier`]) and the byte-by-byte reference; the passes and
//! their bodies are in
//! - `compact`: the first pass over a compact array ([`Kept`]),
//! - `gated`: the gated pass's rules, mask by mask ([`Gated`]),
//! - `x86`: the AVX2 bodies of both passes,
//! - `avx512` and `vbmi`: the gated pass on AVX-512BW and on VBMI,
//! - `tests`: every body against the byte-by-byte one.

use crate::gate::Gate;

mod compact;
mod gated;

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod vbmi;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;

pub(crate) use compact::{KEPT_BLOCKS, Kept};
pub(crate) use gated::Gated;

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
        compact::compact_array_with(portable, bytes, start, room, kept)
    }

    /// One pass over the array of numbers whose `[` is at `start`, for
    /// [`crate::scan`]'s walk when no number in it can matter but those
    /// `gate` lets through: `false` (nothing found) unless, up to its
    /// closing bracket, the array is well-formed compact JSON of brackets,
    /// commas and plain numbers (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`), with fewer
    /// than `room` arrays open at once, at most [`gated::GATED_BLOCKS`] blocks, no
    /// 64-byte block without a delimiter and at most [`gated::GATED_STARTS`]
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
        gated::gated_numbers_with(gated::portable_gated, bytes, start, room, gate, gated)
    }
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
