//! Numbers as AWS compares them.
//!
//! AWS's matcher turns a number into a fixed-point key: it must lie in
//! `-5e9..=5e9`, and it is compared to six digits after the decimal point
//! (`(long) (1e6 * (5e9 + n))`). So `300`, `300.0` and `3e2` are equal, and so
//! are `0.1` and `0.1000001`. Source: "Content filtering in Amazon EventBridge
//! event patterns", section "Numeric matching" ("Numeric matching only works for
//! values between -5.0e9 and +5.0e9 inclusive, with 15 digits of precision, or
//! six digits to the right of the decimal point"), and AWS's open-source
//! matcher `aws/event-ruler` (`ComparableNumber`).

/// The largest magnitude AWS compares numerically.
pub(crate) const LIMIT: f64 = 5e9;

/// The comparison key of `value`, or `None` outside `-5e9..=5e9`.
#[allow(clippy::cast_possible_truncation)]
pub(crate) fn key(value: f64) -> Option<i64> {
    if (-LIMIT..=LIMIT).contains(&value) {
        // In range, 1e6 * (5e9 + value) lies in 0..=1e16, well inside i64;
        // `as` truncates toward zero exactly like Java's `(long)` cast.
        Some((1e6 * (LIMIT + value)) as i64)
    } else {
        None
    }
}

/// The key of a JSON number, or `None` if it is out of range.
pub(crate) fn json_key(number: &serde_json::Number) -> Option<i64> {
    number.as_f64().and_then(key)
}

/// A number's text (grammar already checked) as `serde_json` reads it: an
/// integer as `u64`/`i64` when it fits, anything else as a correctly rounded
/// `f64` (as with `serde_json`'s `float_roundtrip`); `None` beyond `f64`.
pub(crate) fn parse_json(text: &str) -> Option<serde_json::Number> {
    if !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        if let Ok(n) = text.parse::<u64>() {
            return Some(n.into());
        }
        if let Ok(n) = text.parse::<i64>() {
            return Some(n.into());
        }
    }
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
}

/// Exact powers of ten as `f64` (every one up to `1e22` is representable).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The key of a JSON number's text (its grammar already checked), computed
/// without a full float parse: `Some(key)` when it is certain, `None` when
/// the text needs [`str::parse`] (more than 19 digits, an exponent beyond
/// `1e±22`, or a value within rounding error of a key boundary).
///
/// The digits `m` and exponent `e` give `m * 10^e` with one or two
/// roundings, within `2^-52` of the correctly rounded `f64`, relative. The
/// key is monotone in the value, so when the keys of the value shrunk and
/// grown by `2^-49` agree, the correctly rounded value has that key too.
pub(crate) fn fast_key(text: &[u8]) -> Option<Option<i64>> {
    let (negative, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut mantissa: u64 = 0;
    let mut exponent: i32 = 0;
    let mut fraction = false;
    let mut rest = body;
    while let Some((&b, tail)) = rest.split_first() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                exponent = exponent.saturating_sub(i32::from(fraction));
            }
            b'.' => fraction = true,
            _ => break,
        }
        rest = tail;
    }
    if let Some((_, digits)) = rest.split_first() {
        // `e`, `E`: an optional sign, then at least one digit (checked by the lexer).
        let (sign, digits) = match digits.split_first() {
            Some((b'-', d)) => (-1, d),
            Some((b'+', d)) => (1, d),
            _ => (1, digits),
        };
        if digits.len() > 4 {
            return None;
        }
        let written = digits
            .iter()
            .fold(0i32, |n, d| n * 10 + i32::from(d.wrapping_sub(b'0')));
        exponent = exponent.saturating_add(sign * written);
    }
    key_of(negative, mantissa, exponent)
}

/// The key of `±mantissa * 10^exponent` when it is certain (see [`fast_key`]).
#[inline]
fn key_of(negative: bool, mantissa: u64, exponent: i32) -> Option<Option<i64>> {
    let scale = *POW10.get(usize::try_from(exponent.unsigned_abs()).ok()?)?;
    #[allow(clippy::cast_precision_loss)]
    let m = mantissa as f64;
    if mantissa < 1 << 53 {
        // Exact operands, one rounding: `value` is the correctly rounded result.
        let value = if exponent < 0 { m / scale } else { m * scale };
        return Some(key(if negative { -value } else { value }));
    }
    // Three roundings at most (`m`, `10^-e`, the product), each within
    // `2^-53` relative: well inside the slack below, and cheaper than a division.
    let value = if exponent < 0 {
        m * NEG_POW10[usize::try_from(exponent.unsigned_abs()).ok()?]
    } else {
        m * scale
    };
    const SLACK: f64 = 1.0 / (1u64 << 49) as f64;
    let (low, high) = (value * (1.0 - SLACK), value * (1.0 + SLACK));
    let (low, high) = if negative { (-high, -low) } else { (low, high) };
    let (a, b) = (key(low), key(high));
    (a == b).then_some(a)
}

/// The value of the eight ASCII digits of `word` (little-endian: the first
/// digit in the low byte), by pairs, then fours, then the eight.
#[inline(always)]
fn eight_digits(word: u64) -> u64 {
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    let v = word.wrapping_sub(crate::lex::splat(b'0'));
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    (v & MASK)
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add((v >> 16 & MASK).wrapping_mul(1 + (10_000 << 32)))
        >> 32
}

/// The value of the first `count` (at most 8) bytes of `word`, ASCII
/// digits (little-endian: the first digit in the low byte).
#[inline(always)]
pub(crate) fn integer(word: u64, count: usize) -> u64 {
    let shift = 8 * (8 - count.min(8)) as u32;
    let padded = word.checked_shl(shift).unwrap_or(0)
        | crate::lex::splat(b'0')
            .checked_shr(8 * count as u32)
            .unwrap_or(0);
    eight_digits(padded)
}

/// One in fixed-point units: values with eight decimal places, as `i64`
/// (`5e9`, the largest magnitude keyed, is `5e17` units).
pub(crate) const FIXED_ONE: i64 = 100_000_000;

/// How far [`fixed_range`] widens a range, in value (ten keys): more than
/// five times the rounding of a key (`5e9 + value` is rounded to about
/// `9.5e-7`, half that either way, and the product by `1e6` and the
/// truncation add at most a key) and of this conversion (below a key).
const FIXED_MARGIN: f64 = 1e-5;

/// The fixed-point values ([`FIXED_ONE`]) that hold every number whose key
/// lies in `low..=high`, widened by [`FIXED_MARGIN`]: a number whose value
/// lies outside it has a key outside `low..=high`. A bound at or beyond the
/// keys' ends (`0`, `1e16`) is open (`i64::MIN`, `i64::MAX`).
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub(crate) fn fixed_range(low: i64, high: i64) -> (i64, i64) {
    // A key `k` is truncated from `1e6 * (5e9 + value)`: values from `k`'s
    // value to one key above it have key `k`.
    let value = |key: i64| key as f64 / 1e6 - LIMIT;
    let fixed = |value: f64| value * FIXED_ONE as f64;
    let low = if low <= 0 {
        i64::MIN
    } else {
        fixed(value(low) - FIXED_MARGIN).floor() as i64
    };
    let high = if high >= 10_000_000_000_000_000 {
        i64::MAX
    } else {
        fixed(value(high) + 1e-6 + FIXED_MARGIN).ceil() as i64
    };
    (low, high)
}

/// The fixed-point values ([`FIXED_ONE`]) of which every number has a key
/// in `low..=high`: the range's values narrowed by [`FIXED_MARGIN`] at each
/// end (so empty, `low > high`, for a range of fewer than 20 keys), within
/// the keyed values `-5e9..=5e9`.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub(crate) fn narrow_fixed_range(low: i64, high: i64) -> (i64, i64) {
    let value = |key: i64| key as f64 / 1e6 - LIMIT;
    let fixed = |value: f64| value * FIXED_ONE as f64;
    let (low, high) = (low.max(0), high.min(10_000_000_000_000_000));
    (
        fixed(value(low) + FIXED_MARGIN).ceil() as i64,
        fixed(value(high) - FIXED_MARGIN).floor() as i64,
    )
}

/// The fraction digits `bytes[at..at + count]` (`count >= 1`) as fixed-point
/// units ([`FIXED_ONE`]): the first eight digits' value, and one unit more
/// when there are more digits (the fraction lies between the two). `None`
/// within 8 bytes of the end of `bytes`.
#[inline]
pub(crate) fn fixed_fraction(bytes: &[u8], at: usize, count: usize) -> Option<(u64, u64)> {
    let taken = count.min(8);
    let value = integer(crate::lex::word_at(bytes, at)?, taken) * POW10_U64[8 - taken];
    Some((value, value + u64::from(count > 8)))
}

/// The run of ASCII digits at `at`: `(value, count)`; `None` past 19
/// digits or within 8 bytes of the end.
#[inline]
fn digits_at(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let (mut value, mut count) = (0u64, 0usize);
    loop {
        let word = crate::lex::word_at(bytes, at)?;
        let run = crate::lex::digit_run(word);
        if count + run > 19 {
            return None;
        }
        if run == 0 {
            return Some((value, count));
        }
        value = value * POW10_U64[run] + integer(word, run);
        count += run;
        at += run;
        if run < 8 {
            return Some((value, count));
        }
    }
}

/// Powers of ten up to `1e19` as integers.
const POW10_U64: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// `10^-i` rounded to `f64`, for `i` up to 22.
const NEG_POW10: [f64; 23] = {
    let mut table = [1.0f64; 23];
    let mut i = 1;
    while i < 23 {
        table[i] = 1.0 / POW10[i];
        i += 1;
    }
    table
};

/// A number's digits and exponent: `±mantissa * 10^exponent`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decimal {
    negative: bool,
    mantissa: u64,
    exponent: i32,
}

/// How far (in key units) [`Decimal::rough_key`] may lie from the key:
/// a few units of rounding at most (relative `2^-51` of `5e15`, then the
/// sum's and the product's roundings), with room to spare.
pub(crate) const ROUGH_KEY_MARGIN: f64 = 64.0;

impl Decimal {
    /// The key (`None` outside `-5e9..=5e9`), when certain; see [`fast_key`].
    #[inline]
    pub(crate) fn key(self) -> Option<Option<i64>> {
        key_of(self.negative, self.mantissa, self.exponent)
    }

    /// The key's value computed roughly, within [`ROUGH_KEY_MARGIN`] of the
    /// key for numbers within `-5e9..=5e9` (and beyond it, outside the key range).
    #[inline]
    pub(crate) fn rough_key(self) -> f64 {
        let m = to_f64(self.mantissa);
        let scale = usize::try_from(self.exponent.unsigned_abs()).unwrap_or(usize::MAX);
        let magnitude = if self.exponent < 0 {
            m * NEG_POW10.get(scale).copied().unwrap_or(0.0)
        } else {
            m * POW10.get(scale).copied().unwrap_or(f64::INFINITY)
        };
        let value = if self.negative { -magnitude } else { magnitude };
        1e6 * (LIMIT + value)
    }
}

/// The sign and integer part of a number at the start of `bytes`: whether
/// it is negative, the integer part's value and digit count, and the index
/// just after it. `None` without digits, with a leading zero (`01` is not
/// JSON: the lexer reports it), or past 19 digits.
#[inline]
fn integer_part(bytes: &[u8]) -> Option<(bool, u64, usize, usize)> {
    let negative = bytes.first() == Some(&b'-');
    let at = usize::from(negative);
    let (int, int_digits) = digits_at(bytes, at)?;
    if int_digits == 0 || (int_digits > 1 && bytes.get(at) == Some(&b'0')) {
        return None;
    }
    Some((negative, int, int_digits, at + int_digits))
}

/// A number at the start of `bytes` in its common form (`-`, up to 19
/// digits with an optional fraction, no exponent), read in one pass: its
/// length in bytes (as [`crate::lex::Lexer::number`] gives it) and its
/// value. `None` for any other form, or near the end of the bytes: then use
/// the lexer.
#[inline]
pub(crate) fn lex_decimal(bytes: &[u8]) -> Option<(usize, Decimal)> {
    let (negative, int, int_digits, mut at) = integer_part(bytes)?;
    let (mut mantissa, mut exponent) = (int, 0i32);
    if bytes.get(at) == Some(&b'.') {
        let (fraction, fraction_digits) = digits_at(bytes, at + 1)?;
        if fraction_digits == 0 || int_digits + fraction_digits > 19 {
            return None;
        }
        // At most 19 digits in all: no overflow.
        mantissa = int * POW10_U64[fraction_digits] + fraction;
        exponent = -i32::try_from(fraction_digits).ok()?;
        at += 1 + fraction_digits;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        return None;
    }
    Some((
        at,
        Decimal {
            negative,
            mantissa,
            exponent,
        },
    ))
}

/// `n` rounded to `f64`; one instruction below `2^63` (`u64` takes several).
#[inline]
#[allow(clippy::cast_precision_loss, clippy::cast_possible_wrap)]
fn to_f64(n: u64) -> f64 {
    if n >> 63 == 0 {
        n as i64 as f64
    } else {
        n as f64
    }
}

/// A number at the start of `bytes` in the form [`lex_decimal`] reads, with
/// its value bounded from its integer digits and up to eight fraction digits
/// (the rest are passed over, not converted): its length and the bounds'
/// keys computed as [`Decimal::rough_key`] does (so within
/// [`ROUGH_KEY_MARGIN`] of the key of any value between them). `None` as for
/// [`lex_decimal`].
#[inline]
pub(crate) fn lex_rough(bytes: &[u8]) -> Option<(usize, f64, f64)> {
    let (negative, int, _, mut at) = integer_part(bytes)?;
    let (mut low, mut high) = (to_f64(int), to_f64(int));
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let word = crate::lex::word_at(bytes, at)?;
        let run = crate::lex::digit_run(word);
        if run == 0 {
            return None;
        }
        let fraction = to_f64(integer(word, run)) * NEG_POW10[run];
        low += fraction;
        high = low + NEG_POW10[run];
        at += run;
        if run == 8 {
            // Pass over the remaining digits.
            loop {
                let more = crate::lex::digit_run(crate::lex::word_at(bytes, at)?);
                at += more;
                if more < 8 {
                    break;
                }
            }
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        return None;
    }
    let (low, high) = if negative { (-high, -low) } else { (low, high) };
    Some((at, 1e6 * (LIMIT + low), 1e6 * (LIMIT + high)))
}

/// [`lex_decimal`] and its certain key: as [`crate::lex::Lexer::number`]
/// then [`fast_key`] give them.
#[cfg(test)]
fn lex_key(bytes: &[u8]) -> Option<(usize, Option<i64>)> {
    let (len, decimal) = lex_decimal(bytes)?;
    Some((len, decimal.key()?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn fast_keys_agree_with_a_full_parse() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "300",
            "300.0",
            "3e2",
            "0.1",
            "-122.508123456789012",
            "37.712345678901234",
            "5e9",
            "5000000000.000001",
            "-5e9",
            "1e22",
            "1e23",
            "12345678901234567890",
            "123456789012345678901",
            "0.000001",
            "1.5E-3",
            "4999999999.9999995",
            "1e-22",
            "99999999999999999.9",
            "2.2250738585072014e-308",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        // Values near key boundaries: the last digits decide the key.
        for i in 0..2000u64 {
            texts.push(format!("-122.50{i:013}"));
            texts.push(format!(
                "{}.{:09}",
                i * 2_499_999,
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1_000_000_000
            ));
        }
        let mut fast = 0;
        for text in &texts {
            let full = text.parse::<f64>().ok().and_then(key);
            if let Some(k) = fast_key(text.as_bytes()) {
                assert_eq!(k, full, "{text}");
                fast += 1;
            }
        }
        // Coordinates like the city-lots corpus's (18 digits) are all fast.
        let coordinates = texts
            .iter()
            .filter(|t| t.starts_with("-122.50"))
            .filter(|t| fast_key(t.as_bytes()).is_some())
            .count();
        assert_eq!(coordinates, 2001);
        assert!(fast > texts.len() / 2, "{fast} of {}", texts.len());
    }

    #[test]
    fn one_pass_keys_agree_with_lexing_then_keying() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "7",
            "-7",
            "01",
            "-01",
            "00.5",
            "0.5",
            "1.",
            "-",
            "-.5",
            ".5",
            "123456789",
            "1234567890123456789",
            "12345678901234567890",
            "1.5e3",
            "-122.508123456789012",
            "37.712345678901234",
            "0.0",
            "5000000000",
            "5000000000.000001",
            "4999999999.9999995",
            "1.0000000000000000001",
            "99999999.99999999",
            "12345678.",
            "3e2",
            "1E2",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let mut state: u64 = 1;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let int = state >> 40;
            let digits = (state >> 20) % 20;
            let fraction = state % 10u64.pow(u32::try_from(digits % 19).unwrap_or(0));
            let sign = if state & 1 == 1 { "-" } else { "" };
            texts.push(format!(
                "{sign}{}.{fraction:0>width$}",
                int % 100_000,
                width = digits as usize
            ));
            texts.push(format!("{sign}{int}"));
        }
        let mut fast = 0;
        for text in &texts {
            for tail in ["", ",", "]", "}   ", ",1234567", "e5"] {
                let bytes = format!("{text}{tail}");
                let Some((len, got)) = lex_key(bytes.as_bytes()) else {
                    continue;
                };
                fast += 1;
                let mut lexer = crate::lex::Lexer::new(bytes.as_bytes());
                let (start, end) = lexer.number().unwrap();
                assert_eq!((start, end), (0, len), "{bytes}");
                let full = bytes[..len].parse::<f64>().ok().and_then(key);
                assert_eq!(got, full, "{bytes}");
                let (rough_len, low, high) = lex_rough(bytes.as_bytes()).unwrap();
                assert_eq!(rough_len, len, "{bytes}");
                if let Some(k) = got {
                    #[allow(clippy::cast_precision_loss)]
                    let k = k as f64;
                    let margin = ROUGH_KEY_MARGIN / 4.0;
                    assert!(
                        low - margin <= k && k <= high + margin,
                        "{bytes}: {low} {k} {high}"
                    );
                }
                if let (Some(k), Some((_, decimal))) = (got, lex_decimal(bytes.as_bytes())) {
                    #[allow(clippy::cast_precision_loss)]
                    let off = (decimal.rough_key() - k as f64).abs();
                    assert!(off < ROUGH_KEY_MARGIN / 4.0, "{bytes}: {off}");
                }
            }
        }
        assert!(fast > texts.len(), "{fast} of {}", texts.len() * 6);
        let digits = |s: &str| u64::from_le_bytes(s.as_bytes().try_into().unwrap());
        assert_eq!(eight_digits(digits("12345678")), 12_345_678);
        assert_eq!(eight_digits(digits("00000009")), 9);
        assert_eq!(eight_digits(digits("99999999")), 99_999_999);
    }

    #[test]
    fn equal_numbers_in_different_spellings_have_equal_keys() {
        assert_eq!(key(300.0), key(3e2));
        assert_eq!(key(0.1), key(0.100_000_1));
        assert_ne!(key(0.1), key(0.100_001));
        assert!(key(-5e9).is_some());
        assert!(key(5e9).is_some());
        assert!(key(5e9 + 1.0).is_none());
        assert!(key(-5.000_000_1e9).is_none());
        assert!(key(-1.0) < key(0.0) && key(0.0) < key(1e-6));
    }
}
