//! Order-preserving encoding of primary keys into bytes.
//!
//! fjall orders keys bytewise, so a key attribute value is encoded such that
//! byte order equals DynamoDB's sort order ("Query" in the DynamoDB API
//! reference: Numbers numerically, Strings and Binary bytewise by UTF-8 /
//! raw bytes). Every encoding is self-delimiting, so the encoded partition key
//! is a safe prefix for a query and `pk ++ sk` decodes unambiguously.
//!
//! * S / B: bytes with `0x00` escaped as `0x00 0xFF`, then `0x00 0x01`.
//! * N: see [`encode_number`].

use crate::number::Decimal;
use crate::table::ScalarAttributeType;
use serde_dynamo::AttributeValue;

/// Tag bytes of an encoded Number: negatives < zero < positives.
const NUM_NEGATIVE: u8 = 0x40;
const NUM_ZERO: u8 = 0x80;
const NUM_POSITIVE: u8 = 0xC0;

/// Appends the encoding of `value`, which must be of type `ty`.
///
/// # Errors
///
/// A message when `value` has another type, is an empty String/Binary
/// (DynamoDB forbids empty key values) or is not a valid Number.
pub(crate) fn encode_key_value(
    ty: ScalarAttributeType,
    value: &AttributeValue,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    match (ty, value) {
        (ScalarAttributeType::S, AttributeValue::S(s)) => {
            if s.is_empty() {
                return Err("is an empty String; key values must not be empty".to_string());
            }
            encode_bytes(s.as_bytes(), out);
        }
        (ScalarAttributeType::B, AttributeValue::B(b)) => {
            if b.is_empty() {
                return Err("is an empty Binary; key values must not be empty".to_string());
            }
            encode_bytes(b, out);
        }
        (ScalarAttributeType::N, AttributeValue::N(n)) => {
            let d = Decimal::parse_dynamodb(n)?;
            encode_number(&d, out);
        }
        (ty, other) => {
            return Err(format!(
                "has type {}, but the key schema declares {}",
                type_name(other),
                ty.as_str()
            ));
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
        let mut out = Vec::new();
        let e = encode_key_value(
            ScalarAttributeType::S,
            &AttributeValue::N("1".into()),
            &mut out,
        );
        assert!(e.is_err_and(|m| m.contains("declares S")));
        assert!(
            encode_key_value(
                ScalarAttributeType::S,
                &AttributeValue::S(String::new()),
                &mut out
            )
            .is_err()
        );
        assert!(
            encode_key_value(
                ScalarAttributeType::N,
                &AttributeValue::N("x".into()),
                &mut out
            )
            .is_err()
        );
    }
}
