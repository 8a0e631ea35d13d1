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
    let scale = *POW10.get(usize::try_from(exponent.unsigned_abs()).ok()?)?;
    #[allow(clippy::cast_precision_loss)]
    let m = mantissa as f64;
    let value = if exponent < 0 { m / scale } else { m * scale };
    if mantissa < 1 << 53 {
        // Exact operands, one rounding: `value` is the correctly rounded result.
        return Some(key(if negative { -value } else { value }));
    }
    const SLACK: f64 = 1.0 / (1u64 << 49) as f64;
    let (low, high) = (value * (1.0 - SLACK), value * (1.0 + SLACK));
    let (low, high) = if negative { (-high, -low) } else { (low, high) };
    let (a, b) = (key(low), key(high));
    (a == b).then_some(a)
}

#[cfg(test)]
mod tests {
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
