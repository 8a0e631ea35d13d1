//! DynamoDB Number parsing into a normalised decimal.
//!
//! DynamoDB Numbers are decimal strings with up to 38 significant digits and a
//! magnitude between 1E-130 and 9.99..E+125 ("Supported data types and naming
//! rules in Amazon DynamoDB"). This module parses them without floating point,
//! so that ordering, equality ("1.0" == "1") and truncation are exact.

/// A normalised decimal: `sign * 0.d1 d2 ... dn * 10^exponent`, with `d1 != 0`
/// and `dn != 0`, or zero (no digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    /// `true` for a negative, non-zero value.
    pub negative: bool,
    /// Significant digits, each 0..=9, no leading or trailing zeros; empty for zero.
    pub digits: Vec<u8>,
    /// Decimal exponent of `0.digits`.
    pub exponent: i64,
}

/// Most significant digits DynamoDB keeps.
pub(crate) const MAX_DIGITS: usize = 38;
/// Exponent bounds (of `0.d1..`) for DynamoDB's 1E-130 ..= 9.99E+125.
const MIN_EXPONENT: i64 = -129;
const MAX_EXPONENT: i64 = 126;

impl Decimal {
    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (a leading or trailing
    /// `.` is accepted when the other side has digits).
    ///
    /// # Errors
    ///
    /// A message saying what is wrong with `text`.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not a valid number");
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut negative = false;
        if let Some(&c) = bytes.first()
            && (c == b'+' || c == b'-')
        {
            negative = c == b'-';
            i = 1;
        }
        let mut all_digits = Vec::with_capacity(bytes.len());
        let mut int_len: i64 = 0;
        let mut seen_point = false;
        let mut seen_digit = false;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'0'..=b'9' => {
                    all_digits.push(c - b'0');
                    seen_digit = true;
                    if !seen_point {
                        int_len += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                _ => return Err(bad()),
            }
            i += 1;
        }
        if !seen_digit {
            return Err(bad());
        }
        let mut exp: i64 = 0;
        if i < bytes.len() {
            // bytes[i] is 'e' or 'E'
            let rest = text.get(i + 1..).ok_or_else(bad)?;
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            exp = rest
                .parse::<i64>()
                .map_err(|_| format!("{text:?}: exponent out of range"))?;
        }
        // Strip leading zeros (each lowers the exponent of 0.digits by one).
        let lead = all_digits.iter().take_while(|&&d| d == 0).count();
        // In place: `split_off` would allocate a second vector.
        let mut digits = all_digits;
        digits.drain(..lead);
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return Ok(Self {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        let exponent = (int_len - lead as i64)
            .checked_add(exp)
            .ok_or_else(|| format!("{text:?}: exponent out of range"))?;
        Ok(Self {
            negative,
            digits,
            exponent,
        })
    }

    /// Parses and checks DynamoDB's precision and range limits.
    ///
    /// # Errors
    ///
    /// DynamoDB's message for a malformed number, more than 38 significant
    /// digits, or a magnitude above 9.99..E+125 or below 1E-130.
    pub(crate) fn parse_dynamodb(text: &str) -> Result<Self, String> {
        let d = Self::parse(text).map_err(|_| {
            if text.is_empty() {
                "The parameter cannot be converted to a numeric value".to_string()
            } else {
                format!("The parameter cannot be converted to a numeric value: {text}")
            }
        })?;
        if d.digits.len() > MAX_DIGITS {
            return Err(
                "Attempting to store more than 38 significant digits in a Number".to_string(),
            );
        }
        if !d.digits.is_empty() && d.exponent > MAX_EXPONENT {
            return Err("Number overflow. Attempting to store a number with magnitude larger than supported range".to_string());
        }
        if !d.digits.is_empty() && d.exponent < MIN_EXPONENT {
            return Err("Number underflow. Attempting to store a number with magnitude smaller than supported range".to_string());
        }
        Ok(d)
    }

    /// DynamoDB's canonical text of the number: plain decimal, no exponent,
    /// no leading or trailing zeros, no `+`, and `0` for zero (`007` -> `7`,
    /// `1e3` -> `1000`, `+3` -> `3`, `1.0` -> `1`, `-0` -> `0`, `.5` ->
    /// `0.5`), as DynamoDB returns Numbers it stored.
    pub(crate) fn canonical(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_string();
        }
        let digits: String = self.digits.iter().map(|x| char::from(b'0' + x)).collect();
        let n = self.digits.len() as i64;
        let e = self.exponent;
        let body = if e >= n {
            format!(
                "{digits}{}",
                "0".repeat(usize::try_from(e - n).unwrap_or(0))
            )
        } else if e > 0 {
            let (a, b) = digits.split_at(usize::try_from(e).unwrap_or(0));
            format!("{a}.{b}")
        } else {
            format!("0.{}{digits}", "0".repeat(usize::try_from(-e).unwrap_or(0)))
        };
        if self.negative {
            format!("-{body}")
        } else {
            body
        }
    }

    /// The value truncated toward zero, if it fits in an `i64`.
    pub(crate) fn trunc_i64(&self) -> Option<i64> {
        if self.exponent <= 0 || self.digits.is_empty() {
            return Some(0);
        }
        if self.exponent > 19 {
            return None;
        }
        let mut v: i128 = 0;
        for pos in 0..self.exponent {
            let d = usize::try_from(pos)
                .ok()
                .and_then(|p| self.digits.get(p))
                .copied()
                .unwrap_or(0);
            v = v * 10 + i128::from(d);
        }
        if self.negative {
            v = -v;
        }
        i64::try_from(v).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).expect("valid number")
    }

    #[test]
    fn normalises() {
        assert_eq!(d("1.0"), d("1"));
        assert_eq!(d("100"), d("1e2"));
        assert_eq!(d("0.0"), d("-0"));
        assert_eq!(d("0012.50").digits, vec![1, 2, 5]);
        assert_eq!(d("0012.50").exponent, 2);
        assert_eq!(d("0.05").exponent, -1);
        assert_eq!(d(".5").digits, vec![5]);
    }

    #[test]
    fn rejects_garbage() {
        for s in [
            "", "-", ".", "1e", "1e+", "abc", "1.2.3", "1x", "--1", "e5", "1e5.0",
        ] {
            assert!(Decimal::parse(s).is_err(), "{s:?} should be rejected");
        }
    }

    #[test]
    fn dynamodb_limits() {
        assert!(Decimal::parse_dynamodb("1e125").is_ok());
        assert!(Decimal::parse_dynamodb("1e126").is_err());
        assert!(Decimal::parse_dynamodb("1e-130").is_ok());
        assert!(Decimal::parse_dynamodb("1e-131").is_err());
        assert!(Decimal::parse_dynamodb(&"1".repeat(39)).is_err());
        assert!(Decimal::parse_dynamodb("1e99999999999999999999").is_err());
    }

    #[test]
    fn canonical_text_is_dynamodb_s() {
        for (written, stored) in [
            ("007", "7"),
            ("1e3", "1000"),
            ("+3", "3"),
            ("1.0", "1"),
            ("-0", "0"),
            ("0.0", "0"),
            (".5", "0.5"),
            ("-12.50", "-12.5"),
            ("1.5E-3", "0.0015"),
            ("123", "123"),
        ] {
            assert_eq!(d(written).canonical(), stored, "{written}");
        }
    }

    #[test]
    fn truncates_toward_zero() {
        assert_eq!(d("1000.9").trunc_i64(), Some(1000));
        assert_eq!(d("-1000.9").trunc_i64(), Some(-1000));
        assert_eq!(d("0.9").trunc_i64(), Some(0));
        assert_eq!(d("1.7e9").trunc_i64(), Some(1_700_000_000));
        assert_eq!(d("1e30").trunc_i64(), None);
    }
}
