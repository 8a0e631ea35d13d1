//! The few integer parts a number must have to lie near a `numeric` range at
//! a path ([`Gate`]), and the judgement of a number through the gate from its
//! first fraction digits as written ([`Gate::judge`]), for [`crate::scan`]'s
//! gated pass over arrays of numbers (the city-lots corpus's `coordinates`).
//!
//! Everything here is computed when the patterns are compiled: per integer
//! part, a table over the first three fraction digits that passes over most
//! numbers with one bit test, the eight-digit fractions near some range, and
//! per test the fractions that surely satisfy it or surely do not (so most
//! numbers in a range need no exact key; see [`Judged`]).

use crate::number::FIXED_ONE;

/// The integer parts as written (sign and digits, at most 8 bytes each)
/// that a number must begin with to lie near some range at a path
/// ([`crate::compile::TrieNode::gate`]): a number whose integer part is none
/// of them is far from every range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Gate {
    pub(crate) texts: Vec<GateText>,
    /// Whether every text begins with `-`: then the pass over an array
    /// lets every negative number through and [`Gate::judge`] compares the
    /// texts, one number at a time (cheaper than comparing each byte of
    /// each block with each text).
    pub(crate) negative: bool,
}

/// One integer part of a [`Gate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GateText {
    /// Its bytes, then zeros.
    pub(crate) bytes: [u8; 8],
    /// How many bytes it has (1 to 8).
    pub(crate) len: usize,
    /// Its bytes as a little-endian word, and the mask of its bytes.
    pub(crate) word: u64,
    pub(crate) mask: u64,
    /// The first eight fraction digits (as ASCII, big-endian, so that
    /// words compare as the digits do; `0`s for missing digits) that put a
    /// number with this integer part in or next to a fixed-point range
    /// (within one unit), as inclusive ranges.
    pub(crate) fractions: Vec<(u64, u64)>,
    /// Bit `c` (of word `c / 64`) for each value `c` of the first three
    /// fraction digits whose fractions meet some range of `fractions`:
    /// a number whose `c` is not set is far from every range.
    near: [u64; 16],
    /// The text and a `.` as a little-endian word, and the mask of their
    /// bytes, for a text of at most four bytes (so that three digits
    /// follow in the same word); else a mask no word meets.
    point: u64,
    point_mask: u64,
    /// The bits the text and the `.` take in that word (`8 * len + 8`, at
    /// most 63): the three digits follow.
    point_shift: u32,
    /// `near` and `cells` for [`OneWord::judge`], per 12-bit index of
    /// the three bytes after the text and `.` (see there): [`FAR`] when
    /// they are digits whose cell `near` does not set, `k` when `cells`
    /// gives it (1 to 127), else 0 (ask [`Gate::judge`]); empty for a text
    /// of more than four bytes.
    word_cells: Vec<u8>,
    /// Per test at the path (bit `i` for test `i`), the fractions as in
    /// `fractions` that surely satisfy it and those that may: empty when
    /// the tests are not all known by key ranges, or more than 64.
    tests: Vec<FractionTest>,
    /// Per value `c` of the first three fraction digits (when `tests` is
    /// not empty): `k` (1 to 127) when every fraction of the cell
    /// satisfies exactly the tests `cell_tests[k - 1]` (surely inside
    /// those, surely outside the others), so that a number inside a range
    /// is judged from its one word, like a far one; `128 + e` when the
    /// cell straddles a range's end and `edges[e]` judges it by the fourth
    /// digit; else 0.
    cells: Vec<u8>,
    cell_tests: Vec<u64>,
    /// Per fourth fraction digit of a cell across a range's end: `k` as in
    /// `cells`, [`FAR`] when its fractions meet no range, else 0.
    edges: Vec<[u8; 10]>,
}

/// In [`GateText::edges`]: far from every range.
const FAR: u8 = u8::MAX;

/// What the fractions of one [`GateText`] say about one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FractionTest {
    /// Its bit in [`crate::compile::TrieNode::matching_tests`].
    bit: u64,
    /// Every number with these fractions (inclusive) satisfies the test.
    sure: (u64, u64),
    /// No number with fractions outside these (inclusive) satisfies it.
    maybe: (u64, u64),
}

/// What [`Gate::judge`] knows of a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judged {
    /// Outside every range at the path.
    Far,
    /// Exactly the tests of these bits (not zero) accept it.
    Tests(u64),
    /// Not known without its exact key.
    Unknown,
}

impl Gate {
    /// The gate of integer parts `texts` (each a little-endian word of its
    /// bytes, and its magnitude) near the merged fixed-point `ranges`
    /// ([`FIXED_ONE`] units, each widened as [`crate::number::fixed_range`]
    /// widens); `tests`: each test's range of keys at the path (`(1, 0)`
    /// for a test no number satisfies), when every test there is known by
    /// key range and has its bit in
    /// [`crate::compile::TrieNode::matching_tests`] (at most 64 tests).
    pub(crate) fn new(
        texts: impl IntoIterator<Item = (u64, u64)>,
        ranges: &[(i64, i64)],
        tests: Option<&[(i64, i64)]>,
    ) -> Self {
        let texts: Vec<GateText> = texts
            .into_iter()
            .map(|(word, magnitude)| GateText::new(word, magnitude, ranges, tests))
            .collect();
        let negative = !texts.is_empty() && texts.iter().all(|t| t.bytes[0] == b'-');
        Self { texts, negative }
    }

    /// The texts a pass over an array compares with each byte: none when
    /// every negative number goes through ([`Gate::negative`]).
    #[inline]
    pub(crate) fn compared(&self) -> &[GateText] {
        if self.negative { &[] } else { &self.texts }
    }

    /// What the integer part and first fraction digits of the number at
    /// `start` (one that [`crate::classify::Classifier::gated_numbers`] let
    /// through: a plain number within a well-formed array, its integer part
    /// one of the texts unless [`Gate::negative`]) say about it against the
    /// tests at the path.
    ///
    /// [`Judged::Far`] exactly when its integer part is none of the texts,
    /// or that and its first eight fraction digits put it outside every
    /// range of `fractions`; then
    /// [`Judged::Tests`] when those digits put it surely inside or surely
    /// outside each test's range (each range narrowed and widened by
    /// [`crate::number::fixed_range`]'s margin, ten keys).
    #[inline]
    pub(crate) fn judge(&self, bytes: &[u8], start: usize) -> Judged {
        const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
        let Some(word) = crate::lex::word_at(bytes, start) else {
            return Judged::Unknown;
        };
        // Most numbers: the text, a `.` and three digits in this one word.
        for text in &self.texts {
            // (A longer text has no such word: `point_mask` meets none.)
            let three = (word >> text.point_shift ^ ZEROS) & 0xFF_FFFF;
            if word & text.point_mask == text.point
                && (three.wrapping_add(0x76_7676) | three) & 0x80_8080 == 0
            {
                let cell =
                    ((three & 0xff) * 100 + (three >> 8 & 0xff) * 10 + (three >> 16)) as usize;
                if text.near[cell / 64 % 16] >> (cell % 64) & 1 == 0 {
                    return Judged::Far;
                }
                let mut k = text.cells.get(cell).copied().unwrap_or(0);
                if k >= 128 {
                    // The fourth fraction digit (`0` when there are three).
                    let digit = bytes
                        .get(start + text.len + 4)
                        .filter(|b| b.is_ascii_digit())
                        .map_or(0, |b| usize::from(b - b'0'));
                    k = text
                        .edges
                        .get(usize::from(k - 128))
                        .map_or(0, |edge| edge[digit % 10]);
                    if k == FAR {
                        return Judged::Far;
                    }
                }
                if let Some(&tests) = text.cell_tests.get(usize::from(k).wrapping_sub(1)) {
                    return Judged::Tests(tests);
                }
                break;
            }
        }
        // No text: the integer part (no leading zero, the array is
        // well-formed) is none a number near a range can have.
        let Some(text) = self.texts.iter().find(|t| {
            word & t.mask == t.word && !bytes.get(start + t.len).is_some_and(u8::is_ascii_digit)
        }) else {
            return Judged::Far;
        };
        let point = start + text.len;
        let fraction = if bytes.get(point) == Some(&b'.') {
            // The first eight fraction digits, `0`s for the missing ones
            // (the digits run to a delimiter: the array is well-formed).
            let Some(digits) = crate::lex::word_at(bytes, point + 1) else {
                return Judged::Unknown;
            };
            let count = crate::lex::digit_run(digits);
            let kept = if count >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * count)) - 1
            };
            (digits & kept) | (ZEROS & !kept)
        } else {
            ZEROS
        };
        // The first three digits, `0..=999`.
        let d = fraction.wrapping_sub(ZEROS);
        let cell = ((d & 0xff) * 100 + (d >> 8 & 0xff) * 10 + (d >> 16 & 0xff)) as usize;
        if text.near[cell / 64 % 16] >> (cell % 64) & 1 == 0 {
            return Judged::Far;
        }
        let fraction = fraction.swap_bytes();
        // Every range, without branches on the outcome: where a number
        // falls among them is random, a branch on it mispredicted.
        let within = |(low, high): (u64, u64)| (low <= fraction) & (fraction <= high);
        if !text
            .fractions
            .iter()
            .fold(false, |meets, &r| meets | within(r))
        {
            return Judged::Far;
        }
        if text.tests.is_empty() {
            return Judged::Unknown;
        }
        let (mut sure, mut maybe) = (0u64, 0u64);
        for test in &text.tests {
            sure |= u64::from(within(test.sure)) * test.bit;
            maybe |= u64::from(within(test.maybe)) * test.bit;
        }
        if sure == maybe && sure != 0 {
            Judged::Tests(sure)
        } else {
            Judged::Unknown
        }
    }
}

/// [`Gate::judge`]'s one-word test for a gate of one text (the common
/// case), its fields copied out of the text so that a loop over many
/// numbers keeps them in registers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OneWord<'g> {
    point: u64,
    point_mask: u64,
    point_shift: u32,
    cells: &'g [u8; 4096],
    cell_tests: &'g [u64],
}

impl Gate {
    /// The [`OneWord`] test of a gate of one text of at most four bytes;
    /// `None` otherwise.
    #[inline]
    pub(crate) fn one_word(&self) -> Option<OneWord<'_>> {
        match self.texts.as_slice() {
            [text] => Some(OneWord {
                point: text.point,
                point_mask: text.point_mask,
                point_shift: text.point_shift,
                cells: text.word_cells.as_slice().try_into().ok()?,
                cell_tests: &text.cell_tests,
            }),
            _ => None,
        }
    }
}

impl OneWord<'_> {
    /// What [`Gate::judge`] finds of the number whose first eight bytes
    /// are `word` (little-endian) from that word alone: the text, a `.`
    /// and three digits whose cell is far from every range, or inside
    /// exactly some tests' ranges. `None` when that does not tell (then
    /// ask [`Gate::judge`]). For a number that
    /// [`crate::classify::Classifier::gated_numbers`] let through (a plain
    /// number in a well-formed array).
    ///
    /// Fewer instructions than the judgement's own test: the three bytes
    /// after the `.` are taken a nibble each (a digit's nibble is its
    /// value; in a well-formed array a byte there that is not a digit ends
    /// the number, a `,` or `]`, nibble 12 or 13, which no index with an
    /// answer has) and gathered by one multiplication into a 12-bit index
    /// (first digit, third, second), in place of a check of each byte and
    /// the decimal cell.
    #[inline(always)]
    pub(crate) fn judge(self, word: u64) -> Option<Judged> {
        if word & self.point_mask != self.point {
            return None;
        }
        let nibbles = word >> self.point_shift & 0x0F_0F0F;
        let index = (nibbles.wrapping_mul(0x100_1001) >> 24 & 0xFFF) as usize;
        match self.cells[index] {
            FAR => Some(Judged::Far),
            k => (self.cell_tests)
                .get(usize::from(k).wrapping_sub(1))
                .map(|&tests| Judged::Tests(tests)),
        }
    }
}

/// [`GateText::word_cells`] for a text of `len` bytes with `near` and
/// `cells`: index `a | c << 4 | b << 8` for the digits `a`, `b`, `c` (the
/// nibbles [`OneWord::judge`] gathers).
fn word_cells(len: usize, near: &[u64; 16], cells: &[u8]) -> Vec<u8> {
    if len > 4 {
        return Vec::new();
    }
    (0..4096usize)
        .map(|index| {
            let (a, c, b) = (index & 15, index >> 4 & 15, index >> 8);
            let cell = a * 100 + b * 10 + c;
            if a >= 10 || b >= 10 || c >= 10 {
                0
            } else if near[cell / 64] >> (cell % 64) & 1 == 0 {
                FAR
            } else {
                cells.get(cell).copied().filter(|&k| k < 128).unwrap_or(0)
            }
        })
        .collect()
}

impl Gate {
    /// This gate without [`GateText::cells`]: [`Gate::judge`] by the
    /// fractions alone, the reference for the cells.
    #[cfg(test)]
    pub(crate) fn without_cells(&self) -> Self {
        let mut gate = self.clone();
        for text in &mut gate.texts {
            text.cells.clear();
            text.cell_tests.clear();
            text.edges.clear();
        }
        gate
    }
}

impl GateText {
    /// `word`'s bytes up to its first zero byte (1 to 8 of them), an
    /// integer part of `magnitude`, near the fixed-point `ranges`
    /// ([`FIXED_ONE`] units); `tests` as for [`Gate::new`].
    fn new(word: u64, magnitude: u64, ranges: &[(i64, i64)], tests: Option<&[(i64, i64)]>) -> Self {
        let bytes = word.to_le_bytes();
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(8).max(1);
        let negative = bytes[0] == b'-';
        let whole = i128::from(magnitude) * i128::from(FIXED_ONE);
        let one = i128::from(FIXED_ONE);
        // A number `±(whole + f + e)`, `f` its first eight fraction digits
        // in units and `0 <= e < 1` the rest, meets `low..=high` only if
        // `f` lies in `low - whole - 1..=high - whole` (mirrored for `-`).
        let meets = |(low, high): (i64, i64)| {
            let (low, high) = (i128::from(low), i128::from(high));
            let (from, to) = if negative {
                (-high - whole - 1, -low - whole)
            } else {
                (low - whole - 1, high - whole)
            };
            (from.max(0), to.min(one - 1))
        };
        // It lies in `low..=high` whatever `e` if `f` lies in
        // `low - whole..=high - whole - 1` (mirrored for `-`).
        let within = |(low, high): (i64, i64)| {
            let (low, high) = (i128::from(low), i128::from(high));
            let (from, to) = if negative {
                (-high - whole, -low - whole - 1)
            } else {
                (low - whole, high - whole - 1)
            };
            (from.max(0), to.min(one - 1))
        };
        let fractions: Vec<(i128, i128)> = ranges
            .iter()
            .map(|&r| meets(r))
            .filter(|(from, to)| from <= to)
            .collect();
        let mut near = [0u64; 16];
        // A cell holds the fractions `c * 1e5..(c + 1) * 1e5`.
        for &(from, to) in &fractions {
            for cell in from / 100_000..=to / 100_000 {
                let cell = usize::try_from(cell).unwrap_or(0).min(999);
                near[cell / 64] |= 1 << (cell % 64);
            }
        }
        let unit_tests: Vec<UnitTest> = tests
            .unwrap_or_default()
            .iter()
            .zip(0u32..)
            .map(|(&(low, high), i)| {
                let (sure, maybe) = if low <= high {
                    (
                        within(crate::number::narrow_fixed_range(low, high)),
                        meets(crate::number::fixed_range(low, high)),
                    )
                } else {
                    ((1, 0), (1, 0))
                };
                UnitTest {
                    bit: 1 << i,
                    sure,
                    maybe,
                }
            })
            .collect();
        let (cells, cell_tests, edges) = uniform_cells(&fractions, &unit_tests);
        let tests = unit_tests
            .iter()
            .map(|t| FractionTest {
                bit: t.bit,
                sure: ascii_range(t.sure),
                maybe: ascii_range(t.maybe),
            })
            .collect();
        let (point, point_mask) = if len <= 4 {
            (
                word | u64::from(b'.') << (8 * len),
                u64::MAX >> (56 - 8 * len),
            )
        } else {
            (1, 0)
        };
        Self {
            bytes,
            len,
            word,
            mask: u64::MAX >> (64 - 8 * len),
            point,
            point_mask,
            point_shift: u32::try_from(8 * len + 8).unwrap_or(63).min(63),
            word_cells: word_cells(len, &near, &cells),
            fractions: fractions.into_iter().map(ascii_range).collect(),
            near,
            tests,
            cells,
            cell_tests,
            edges,
        }
    }
}

/// A test as [`FractionTest`] holds it, its fractions in units (`0..1e8`).
struct UnitTest {
    bit: u64,
    sure: (i128, i128),
    maybe: (i128, i128),
}

/// What every fraction of a range of them (in units) is: far from every
/// range of `fractions` (`Some(0)`), surely satisfying exactly some tests
/// and no other (`Some(bits)`), or neither (`None`). A test's sure
/// fractions lie within its may, and its may within `fractions`.
fn judge_fractions(
    (first, last): (i128, i128),
    fractions: &[(i128, i128)],
    tests: &[UnitTest],
) -> Option<u64> {
    if !fractions
        .iter()
        .any(|&(from, to)| from <= last && first <= to)
    {
        return Some(0);
    }
    let (mut sure, mut maybe) = (0u64, 0u64);
    for test in tests {
        if test.sure.0 <= first && last <= test.sure.1 {
            sure |= test.bit;
        }
        if test.maybe.0 <= last && first <= test.maybe.1 {
            maybe |= test.bit;
        }
    }
    (sure != 0 && sure == maybe).then_some(sure)
}

/// [`GateText::cells`], [`GateText::cell_tests`] and [`GateText::edges`]
/// for `fractions` and `tests` (all empty without tests).
fn uniform_cells(
    fractions: &[(i128, i128)],
    tests: &[UnitTest],
) -> (Vec<u8>, Vec<u64>, Vec<[u8; 10]>) {
    if tests.is_empty() {
        return (Vec::new(), Vec::new(), Vec::new());
    }
    let mut cells = vec![0u8; 1000];
    let mut cell_tests: Vec<u64> = Vec::new();
    let mut edges: Vec<[u8; 10]> = Vec::new();
    // `k` for `bits` (1 to `most`), or 0 past `most` masks.
    let mut index = |bits: u64, most: usize| {
        let k = match cell_tests.iter().position(|&t| t == bits) {
            Some(k) => k,
            None => {
                cell_tests.push(bits);
                cell_tests.len() - 1
            }
        };
        if k < most {
            u8::try_from(k + 1).unwrap_or(0)
        } else {
            0
        }
    };
    for (c, slot) in (0i128..).zip(cells.iter_mut()) {
        let cell = (c * 100_000, c * 100_000 + 99_999);
        match judge_fractions(cell, fractions, tests) {
            // Far cells are passed over by `near` already.
            Some(0) => {}
            Some(bits) => *slot = index(bits, 127),
            None => {
                let mut edge = [0u8; 10];
                for (d, k) in (0i128..).zip(edge.iter_mut()) {
                    let first = cell.0 + d * 10_000;
                    *k = match judge_fractions((first, first + 9_999), fractions, tests) {
                        Some(0) => FAR,
                        Some(bits) => index(bits, usize::from(FAR) - 1),
                        None => 0,
                    };
                }
                if edge != [0; 10] && edges.len() < 128 {
                    *slot = 128 + u8::try_from(edges.len()).unwrap_or(0);
                    edges.push(edge);
                }
            }
        }
    }
    (cells, cell_tests, edges)
}

/// An inclusive range of fractions in units (`0..1e8`) as words of their
/// eight ASCII digits, big-endian; an empty range stays empty (`from > to`).
fn ascii_range((from, to): (i128, i128)) -> (u64, u64) {
    if from > to {
        return (u64::MAX, 0);
    }
    let ascii = |units: i128| {
        let digits = format!("{units:08}");
        let mut word = [b'0'; 8];
        word.copy_from_slice(&digits.as_bytes()[..8]);
        u64::from_be_bytes(word)
    };
    (ascii(from), ascii(to))
}

#[cfg(test)]
mod tests;
