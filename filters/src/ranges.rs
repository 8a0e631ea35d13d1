//! The numbers the tests at one path accept, as key ranges, and the quick
//! judgements [`crate::scan`] makes from them: rough float bounds (a number
//! read from its leading digits), fixed-point ranges (eight decimals as
//! integers, for numbers in compact arrays) and the few integer parts, as
//! written, that a number in range can have.

use crate::compile::Test;
use crate::number;

/// The key ranges a number must lie in to satisfy some test at a path, and
/// the same ranges in the forms the walk compares numbers with.
#[derive(Debug, Clone, Default)]
pub(crate) struct NumberRanges {
    /// Inclusive key ranges.
    keys: Vec<(i64, i64)>,
    /// `keys` as floats, each widened by [`number::ROUGH_KEY_MARGIN`].
    rough: Vec<(f64, f64)>,
    /// `keys` as fixed-point values ([`number::fixed_range`]), sorted and
    /// merged; see [`NumberRanges::rejects_fixed`].
    fixed: Vec<(i64, i64)>,
    /// The integer parts as written that a number in some range of `fixed`
    /// can have; see [`NumberRanges::integer_part`].
    integer_texts: Option<Vec<IntegerText>>,
}

impl NumberRanges {
    /// The ranges of the numbers `tests` accept; `None` when some test a
    /// number can satisfy is not a `numeric` or an in-range exact number.
    pub(crate) fn of(tests: &[Test]) -> Option<Self> {
        let keys = key_ranges(tests)?;
        const MARGIN: f64 = number::ROUGH_KEY_MARGIN;
        #[allow(clippy::cast_precision_loss)]
        let rough = keys
            .iter()
            .map(|&(low, high)| (low as f64 - MARGIN, high as f64 + MARGIN))
            .collect();
        let fixed = fixed_ranges(&keys);
        let integer_texts = integer_texts(&fixed);
        Some(Self {
            keys,
            rough,
            fixed,
            integer_texts,
        })
    }

    /// Whether `key` lies in some range.
    #[inline]
    pub(crate) fn contains(&self, key: i64) -> bool {
        self.keys
            .iter()
            .any(|&(low, high)| low <= key && key <= high)
    }

    /// Whether no range holds a key about (within
    /// [`number::ROUGH_KEY_MARGIN`]) between `low` and `high`.
    #[inline]
    pub(crate) fn rejects_between(&self, low: f64, high: f64) -> bool {
        self.rough.iter().all(|&(l, h)| high < l || low > h)
    }
}

/// An integer part as written (`-122`, `0`, `-0`: sign and digits, at most
/// 8 bytes, as a little-endian word padded with zeros) and its magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IntegerText {
    text: u64,
    magnitude: u64,
}

/// The most [`IntegerText`]s a path keeps (more: numbers are converted).
const INTEGER_TEXTS: usize = 4;

/// What the integer part of a plain number says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntegerPart {
    /// Outside every numeric range at the path.
    Far,
    /// Possibly in one: the integer part's magnitude (at most 8 digits).
    Near(u64),
    /// Not known here.
    Unknown,
}

impl NumberRanges {
    /// Whether no test here accepts a number whose value lies between `low`
    /// and `high` (fixed-point, [`number::FIXED_ONE`]).
    #[inline]
    pub(crate) fn rejects_fixed(&self, low: i64, high: i64) -> bool {
        // Every range, without branches on the outcome: where a number
        // falls among the ranges is random, a branch on it mispredicted.
        let meets = self
            .fixed
            .iter()
            .fold(false, |meets, &(l, h)| meets | (l <= high) & (low <= h));
        !meets
    }

    /// What the integer part `bytes[start..start + len]` (sign and digits,
    /// no leading zero) of a plain number says: compared as written with
    /// the few integer parts a number in range can have, when the path has
    /// them (no digit conversion); else converted and compared as a
    /// fixed-point interval.
    #[inline]
    pub(crate) fn integer_part(&self, bytes: &[u8], start: usize, len: usize) -> IntegerPart {
        let Some(word) = crate::lex::word_at(bytes, start) else {
            return IntegerPart::Unknown;
        };
        if let Some(texts) = &self.integer_texts {
            // Every integer part in range is spelled in at most 8 bytes.
            if len > 8 {
                return IntegerPart::Far;
            }
            let text = word & (u64::MAX >> (64 - 8 * len));
            return texts
                .iter()
                .find(|t| t.text == text)
                .map_or(IntegerPart::Far, |t| IntegerPart::Near(t.magnitude));
        }
        let negative = bytes.get(start) == Some(&b'-');
        let digits = len - usize::from(negative);
        if digits > 8 {
            return IntegerPart::Unknown;
        }
        let magnitude = number::integer(word >> (8 * u32::from(negative)), digits);
        // At most 8 digits: below 1e16 units.
        #[allow(clippy::cast_possible_wrap)]
        let (low, high) = (
            (magnitude * number::FIXED_ONE.unsigned_abs()) as i64,
            ((magnitude + 1) * number::FIXED_ONE.unsigned_abs()) as i64,
        );
        let (low, high) = if negative { (-high, -low) } else { (low, high) };
        if self.rejects_fixed(low, high) {
            IntegerPart::Far
        } else {
            IntegerPart::Near(magnitude)
        }
    }
}

/// The integer parts as written ([`IntegerText`]) of every number that can
/// lie in the fixed-point `ranges`: `None` when more than [`INTEGER_TEXTS`]
/// or a range is open.
fn integer_texts(ranges: &[(i64, i64)]) -> Option<Vec<IntegerText>> {
    let one = number::FIXED_ONE;
    let mut texts: Vec<IntegerText> = Vec::new();
    for &(low, high) in ranges {
        let from = low.checked_div(one)?.checked_sub(2)?;
        let to = high.checked_div(one)?.checked_add(2)?;
        if to - from > 16 {
            return None;
        }
        for t in from..=to {
            // `t` written without a sign spans `t..=t + 1`; with one, `-t - 1..=-t`.
            let spans = [
                (t >= 0).then(|| (false, t, t * one, (t + 1).saturating_mul(one))),
                (t <= 0).then(|| (true, -t, (t - 1).saturating_mul(one), t * one)),
            ];
            for (negative, magnitude, l, h) in spans.into_iter().flatten() {
                if h < low || l > high {
                    continue;
                }
                let written = format!("{}{magnitude}", if negative { "-" } else { "" });
                let mut word = [0u8; 8];
                word.get_mut(..written.len())?
                    .copy_from_slice(written.as_bytes());
                let text = IntegerText {
                    text: u64::from_le_bytes(word),
                    magnitude: magnitude.unsigned_abs(),
                };
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
        }
    }
    (texts.len() <= INTEGER_TEXTS).then_some(texts)
}

/// The fixed-point ranges ([`number::fixed_range`]) of key `ranges`, sorted
/// and merged.
fn fixed_ranges(ranges: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut fixed: Vec<(i64, i64)> = ranges
        .iter()
        .map(|&(low, high)| number::fixed_range(low, high))
        .collect();
    fixed.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(fixed.len());
    for (low, high) in fixed {
        match merged.last_mut() {
            Some(last) if low <= last.1.saturating_add(1) => last.1 = last.1.max(high),
            _ => merged.push((low, high)),
        }
    }
    merged
}

/// The key ranges of the numbers `tests` accept; `None` when some test a
/// number can satisfy is not a `numeric` or an in-range exact number.
fn key_ranges(tests: &[Test]) -> Option<Vec<(i64, i64)>> {
    let mut ranges = Vec::new();
    for test in tests {
        match test {
            Test::Numeric(low, high) => {
                let low = match low {
                    None => i64::MIN,
                    Some((key, true)) => *key,
                    Some((key, false)) => key.checked_add(1)?,
                };
                let high = match high {
                    None => i64::MAX,
                    Some((key, true)) => *key,
                    Some((key, false)) => key.checked_sub(1)?,
                };
                ranges.push((low, high));
            }
            Test::Number(_, Some(key)) => ranges.push((*key, *key)),
            // Never satisfied by a number.
            Test::Null
            | Test::Bool(_)
            | Test::String(_)
            | Test::Prefix(_)
            | Test::Suffix(_)
            | Test::EqualsIgnoreCase(_)
            | Test::PrefixIgnoreCase(_)
            | Test::SuffixIgnoreCase(_)
            | Test::Wildcard(_)
            | Test::Cidr(_) => {}
            Test::Number(_, None) | Test::Any | Test::Not(_) | Test::AnyOf(_) => return None,
        }
    }
    Some(ranges)
}
