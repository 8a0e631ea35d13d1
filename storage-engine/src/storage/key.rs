//! Key attributes (name and scalar type) and the order-preserving encoding
//! of their values into bytes.
//!
//! fjall orders keys bytewise, so a key attribute value is encoded such that
//! byte order equals DynamoDB's sort order ("Query" in the DynamoDB API
//! reference: Numbers numerically, Strings and Binary bytewise by UTF-8 /
//! raw bytes). Every encoding is self-delimiting, so the encoded partition key
//! is a safe prefix for a query and `pk ++ sk` decodes unambiguously.
//!
//! * S / B: bytes with `0x00` escaped as `0x00 0xFF`, then `0x00 0x01`.
//! * N: see [`encode_number`].

use crate::storage::number::Decimal;
use serde::{Deserialize, Serialize};
use serde_dynamo::AttributeValue;

/// Tag bytes of an encoded Number: negatives < zero < positives.
const NUM_NEGATIVE: u8 = 0x40;
const NUM_ZERO: u8 = 0x80;
const NUM_POSITIVE: u8 = 0xC0;

/// One key attribute: its name and scalar type (DynamoDB `AttributeDefinition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAttribute {
    /// Attribute name, 1 to 255 bytes.
    pub attribute_name: String,
    /// Declared type; every item's value for this attribute must have it.
    pub attribute_type: ScalarAttributeType,
}

impl KeyAttribute {
    /// A key attribute named `attribute_name` of type `attribute_type`.
    pub fn new(attribute_name: impl Into<String>, attribute_type: ScalarAttributeType) -> Self {
        Self {
            attribute_name: attribute_name.into(),
            attribute_type,
        }
    }
}

/// The scalar types a key attribute may have (DynamoDB `ScalarAttributeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarAttributeType {
    /// String; sorted bytewise by UTF-8.
    S,
    /// Number; sorted numerically.
    N,
    /// Binary; sorted bytewise.
    B,
}

impl ScalarAttributeType {
    /// `"S"`, `"N"` or `"B"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::S => "S",
            Self::N => "N",
            Self::B => "B",
        }
    }
}

/// Largest partition key value, in bytes of a String's UTF-8 or of a
/// Binary ("Constraints in Amazon DynamoDB", "Partition key length").
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Largest sort key value, in bytes ("Constraints in Amazon DynamoDB",
/// "Sort key length").
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// Which part of a key a value is: the limits differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyRole {
    /// Partition (hash) key: at most [`MAX_PARTITION_KEY_BYTES`].
    Partition,
    /// Sort (range) key: at most [`MAX_SORT_KEY_BYTES`].
    Sort,
}

/// Why a value cannot be a key value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum KeyValueError {
    /// The value's type is not the declared one.
    Type {
        /// `S`, `N` or `B`, as declared.
        expected: &'static str,
        /// The value's type descriptor.
        actual: &'static str,
    },
    /// An empty String (or Binary, when `binary`).
    Empty {
        /// Whether the value is a Binary.
        binary: bool,
    },
    /// An invalid Number: DynamoDB's message.
    Number(String),
    /// Over [`MAX_PARTITION_KEY_BYTES`] / [`MAX_SORT_KEY_BYTES`].
    TooLarge(KeyRole),
}

impl KeyValueError {
    /// DynamoDB's message for key attribute `name` of an item or key.
    pub(crate) fn message(&self, name: &str) -> String {
        match self {
            Self::Type { expected, actual } => format!(
                "One or more parameter values were invalid: Type mismatch for key {name} expected: {expected} actual: {actual}"
            ),
            Self::Empty { binary } => format!(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty {} value. Key: {name}",
                if *binary { "binary" } else { "string" }
            ),
            Self::Number(m) => m.clone(),
            Self::TooLarge(KeyRole::Partition) => format!(
                "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of{MAX_PARTITION_KEY_BYTES} bytes"
            ),
            Self::TooLarge(KeyRole::Sort) => format!(
                "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of {MAX_SORT_KEY_BYTES} bytes"
            ),
        }
    }
}

impl std::fmt::Display for KeyValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Type { expected, actual } => {
                write!(
                    f,
                    "has type {actual}, but the key schema declares {expected}"
                )
            }
            Self::Empty { binary: false } => {
                f.write_str("is an empty String; key values must not be empty")
            }
            Self::Empty { binary: true } => {
                f.write_str("is an empty Binary; key values must not be empty")
            }
            Self::Number(m) => f.write_str(m),
            Self::TooLarge(KeyRole::Partition) => {
                write!(f, "is over {MAX_PARTITION_KEY_BYTES} bytes")
            }
            Self::TooLarge(KeyRole::Sort) => write!(f, "is over {MAX_SORT_KEY_BYTES} bytes"),
        }
    }
}

/// [`encode_key_value`] of a DynamoDB key attribute, after checking the size
/// limit of `role`: no storage key ever exceeds what fjall accepts.
///
/// # Errors
///
/// As [`encode_key_value`]; [`KeyValueError::TooLarge`].
pub(crate) fn encode_key_part(
    ty: ScalarAttributeType,
    role: KeyRole,
    value: &AttributeValue,
    out: &mut Vec<u8>,
) -> Result<(), KeyValueError> {
    let limit = match role {
        KeyRole::Partition => MAX_PARTITION_KEY_BYTES,
        KeyRole::Sort => MAX_SORT_KEY_BYTES,
    };
    let len = match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.len(),
        _ => 0,
    };
    if len > limit {
        return Err(KeyValueError::TooLarge(role));
    }
    encode_key_value(ty, value, out)
}

/// Appends the encoding of `value`, which must be of type `ty`.
///
/// # Errors
///
/// [`KeyValueError`] when `value` has another type, is an empty
/// String/Binary (DynamoDB forbids empty key values) or is not a valid
/// Number.
pub(crate) fn encode_key_value(
    ty: ScalarAttributeType,
    value: &AttributeValue,
    out: &mut Vec<u8>,
) -> Result<(), KeyValueError> {
    match (ty, value) {
        (ScalarAttributeType::S, AttributeValue::S(s)) => {
            if s.is_empty() {
                return Err(KeyValueError::Empty { binary: false });
            }
            encode_bytes(s.as_bytes(), out);
        }
        (ScalarAttributeType::B, AttributeValue::B(b)) => {
            if b.is_empty() {
                return Err(KeyValueError::Empty { binary: true });
            }
            encode_bytes(b, out);
        }
        (ScalarAttributeType::N, AttributeValue::N(n)) => {
            let d = Decimal::parse_dynamodb(n).map_err(KeyValueError::Number)?;
            encode_number(&d, out);
        }
        (ty, other) => {
            return Err(KeyValueError::Type {
                expected: ty.as_str(),
                actual: type_name(other),
            });
        }
    }
    Ok(())
}

/// The DynamoDB type descriptor of a value (`"S"`, `"N"`, `"M"`, ...).
pub(crate) fn type_name(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::N(_) => "N",
        AttributeValue::S(_) => "S",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::B(_) => "B",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::M(_) => "M",
        AttributeValue::L(_) => "L",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
    }
}

fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// Encodes a normalised decimal so that byte order is numeric order.
///
/// Zero is the single byte `0x80`. A positive value is `0xC0`, the exponent
/// of `0.d1d2..` as a big-endian `i16` with the sign bit flipped, the digits
/// as ASCII, then `0x00` (a shorter digit string is smaller). A negative value
/// is `0x40` followed by the bitwise complement of the positive encoding of
/// its magnitude (terminator `0xFF`), which reverses the order.
pub(crate) fn encode_number(d: &Decimal, out: &mut Vec<u8>) {
    if d.digits.is_empty() {
        out.push(NUM_ZERO);
        return;
    }
    // parse_dynamodb bounds the exponent to -129..=126; clamp defensively.
    let exp = i16::try_from(d.exponent.clamp(i64::from(i16::MIN), i64::from(i16::MAX)))
        .unwrap_or_default();
    let exp_bytes = ((exp as u16) ^ 0x8000).to_be_bytes();
    let start = out.len();
    out.push(if d.negative {
        NUM_NEGATIVE
    } else {
        NUM_POSITIVE
    });
    out.extend_from_slice(&exp_bytes);
    out.extend(d.digits.iter().map(|&x| b'0' + x));
    out.push(0x00);
    if d.negative {
        for b in out.iter_mut().skip(start + 1) {
            *b = !*b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key_value(
            ScalarAttributeType::N,
            &AttributeValue::N(s.into()),
            &mut out,
        )
        .expect("valid");
        out
    }

    fn s(v: &str) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key_value(
            ScalarAttributeType::S,
            &AttributeValue::S(v.into()),
            &mut out,
        )
        .expect("valid");
        out
    }

    #[test]
    fn numbers_sort_numerically() {
        let ordered = [
            "-1e100", "-100", "-10", "-2.5", "-2", "-0.001", "0", "0.001", "0.5", "2", "2.5", "10",
            "100", "100.5", "1e100",
        ];
        for w in ordered.windows(2) {
            assert!(n(w[0]) < n(w[1]), "{} < {}", w[0], w[1]);
        }
    }

    #[test]
    fn equal_numbers_encode_equal() {
        assert_eq!(n("1"), n("1.00"));
        assert_eq!(n("-0"), n("0"));
        assert_eq!(n("1e2"), n("100"));
    }

    #[test]
    fn strings_sort_bytewise_and_are_prefix_free() {
        assert!(s("a") < s("a\0"));
        assert!(s("a\0") < s("a\u{1}"));
        assert!(s("a") < s("ab"));
        assert!(s("B") < s("a"));
        assert!(!s("ab").starts_with(&s("a")));
    }

    #[test]
    fn wrong_type_and_empty_values_are_rejected() {
        let key = |ty, role, v: AttributeValue| encode_key_part(ty, role, &v, &mut Vec::new());
        assert_eq!(
            key(
                ScalarAttributeType::S,
                KeyRole::Partition,
                AttributeValue::N("1".into())
            ),
            Err(KeyValueError::Type {
                expected: "S",
                actual: "N"
            })
        );
        assert_eq!(
            key(
                ScalarAttributeType::S,
                KeyRole::Partition,
                AttributeValue::S(String::new())
            ),
            Err(KeyValueError::Empty { binary: false })
        );
        assert!(matches!(
            key(
                ScalarAttributeType::N,
                KeyRole::Sort,
                AttributeValue::N("x".into())
            ),
            Err(KeyValueError::Number(_))
        ));
    }

    #[test]
    fn key_sizes_are_dynamodb_s() {
        let sized = |role, len: usize| {
            encode_key_part(
                ScalarAttributeType::S,
                role,
                &AttributeValue::S("x".repeat(len)),
                &mut Vec::new(),
            )
        };
        assert!(sized(KeyRole::Partition, 2048).is_ok());
        assert_eq!(
            sized(KeyRole::Partition, 2049),
            Err(KeyValueError::TooLarge(KeyRole::Partition))
        );
        assert!(sized(KeyRole::Sort, 1024).is_ok());
        assert_eq!(
            sized(KeyRole::Sort, 1025),
            Err(KeyValueError::TooLarge(KeyRole::Sort))
        );
        let binary = encode_key_part(
            ScalarAttributeType::B,
            KeyRole::Sort,
            &AttributeValue::B(vec![7; 1025]),
            &mut Vec::new(),
        );
        assert_eq!(binary, Err(KeyValueError::TooLarge(KeyRole::Sort)));
    }
}
