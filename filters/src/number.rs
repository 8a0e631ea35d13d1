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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn json_numbers_parse_as_serde_json_reads_them() {
        for text in [
            "0",
            "300",
            "3e2",
            "1.5",
            "-7",
            "18446744073709551615",
            "1e308",
        ] {
            let ours = parse_json(text);
            let theirs: serde_json::Number =
                serde_json::from_str(text).ok().unwrap_or_else(|| 0.into());
            assert_eq!(ours, Some(theirs), "{text}");
        }
        assert_eq!(parse_json("1e400"), None);
    }
}
