//! Sequence numbers (DynamoDB Streams `SequenceNumber`) and the positions a
//! stream read starts from (`ShardIteratorType`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Position of a record in its table's stream. Strictly increasing across the
/// whole engine (one counter, allocated under the write lock) and recovered
/// from the stored stream on reopen, so it never goes backwards.
///
/// Displays as a zero-padded 21-digit decimal (`"000000000000000000042"`),
/// like DynamoDB's numeric-string sequence numbers; serialises as that string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SequenceNumber(pub u64);

impl SequenceNumber {
    /// The 21 ASCII digits this number displays as (zero-padded decimal; a
    /// `u64` has at most 20 digits), built without the formatting machinery:
    /// `format!("{:021}")` writes its padding one character at a time, and
    /// stream readers display every record's number.
    pub fn decimal_digits(self) -> [u8; 21] {
        let mut digits = [b'0'; 21];
        let mut n = self.0;
        for digit in digits.iter_mut().rev() {
            // `n % 10` is below 10: the cast cannot truncate.
            *digit = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        digits
    }
}

impl fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.decimal_digits();
        // ASCII digits only: never fails.
        f.write_str(std::str::from_utf8(&digits).unwrap_or_default())
    }
}

/// The error of parsing a [`SequenceNumber`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid SequenceNumber {0:?}: expected a decimal integer below 2^64")]
pub struct ParseSequenceNumberError(pub String);

impl FromStr for SequenceNumber {
    type Err = ParseSequenceNumberError;

    /// Parses any decimal string of ASCII digits (leading zeros allowed).
    ///
    /// # Errors
    ///
    /// [`ParseSequenceNumberError`] for empty, non-digit or too-large input.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseSequenceNumberError(s.to_string()));
        }
        s.parse::<u64>()
            .map(SequenceNumber)
            .map_err(|_| ParseSequenceNumberError(s.to_string()))
    }
}

impl Serialize for SequenceNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SequenceNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Where [`DynamoDb::read_stream`](crate::DynamoDb::read_stream) starts (the
/// `ShardIteratorType` of DynamoDB Streams `GetShardIterator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamPosition {
    /// The oldest record kept (`TRIM_HORIZON`).
    TrimHorizon,
    /// After the newest record (`LATEST`): a read returns nothing now; keep the
    /// last sequence number you saw and continue with `AfterSequenceNumber`.
    Latest,
    /// The record with this sequence number, or the next one after it.
    AtSequenceNumber(SequenceNumber),
    /// The first record after this sequence number.
    AfterSequenceNumber(SequenceNumber),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_number_text_forms() {
        assert_eq!(SequenceNumber(42).to_string(), "000000000000000000042");
        assert_eq!("42".parse(), Ok(SequenceNumber(42)));
        assert_eq!("000000000000000000042".parse(), Ok(SequenceNumber(42)));
        assert!("-1".parse::<SequenceNumber>().is_err());
        assert!("".parse::<SequenceNumber>().is_err());
        assert!("99999999999999999999999".parse::<SequenceNumber>().is_err());
        let json = serde_json::to_string(&SequenceNumber(7)).expect("serialize");
        assert_eq!(json, "\"000000000000000000007\"");
        let back: SequenceNumber = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, SequenceNumber(7));
    }

    #[test]
    fn sequence_number_extremes() {
        assert_eq!(SequenceNumber(0).to_string(), "000000000000000000000");
        assert_eq!(
            SequenceNumber(u64::MAX).to_string(),
            format!("{:021}", u64::MAX)
        );
    }
}
