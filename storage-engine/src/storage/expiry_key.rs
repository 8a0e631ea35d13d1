//! Keys of the `expiry` keyspace (format version 2): table id, expiry
//! instant, item key, as short as they can be while keeping byte order.
//!
//! fjall keeps keys of up to 20 bytes inline in its memtable nodes and
//! compares them without following a pointer; format version 1's keys (a
//! 4-byte table id and an 8-byte instant before the item key) were 12 bytes
//! longer, so every expiry entry of a table with a key of a few characters
//! was compared through the heap, on every write and every sweep. Here a
//! table id below 240 takes one byte and an instant in seconds before the
//! year 10000 five: a 14-byte encoded key still fits.
//!
//! * table id: one byte below [`LONG_TABLE_ID`], otherwise that byte ++ the
//!   id (u32 BE); prefix-free, so each table's entries are contiguous.
//! * instant (`i64`, seconds or milliseconds by model): order-preserving and
//!   self-delimiting, its first byte gives the length:
//!   `0x00` ++ 8 bytes (negative: the value with its sign bit flipped, BE);
//!   `0x40 | v >> 32` ++ 4 bytes for `0 <= v < 2^38`;
//!   `0x80 | v >> 40` ++ 5 bytes for `2^38 <= v < 2^46`;
//!   `0xC0` ++ 8 bytes (BE) above.

use crate::error::StorageError;
use crate::storage::{EXPIRY, corrupt};

/// First byte of a table id that does not fit in one byte.
const LONG_TABLE_ID: u8 = 0xF0;

/// Tags (top two bits of the first byte) of the instant's lengths.
const NEGATIVE: u8 = 0x00;
const FIVE: u8 = 0x40;
const SIX: u8 = 0x80;
const NINE: u8 = 0xC0;

/// `expiry` key: table id ++ expiry instant ++ encoded primary key.
pub(crate) fn expiry_key(id: u32, at: i64, pk: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(14 + pk.len());
    push_table_id(id, &mut k);
    push_instant(at, &mut k);
    k.extend_from_slice(pk);
    k
}

/// `expiry` range bound for a table and an instant: table id ++ instant.
pub(crate) fn expiry_bound(id: u32, at: i64) -> Vec<u8> {
    expiry_key(id, at, &[])
}

/// The prefix every `expiry` key of table `id` starts with.
pub(crate) fn expiry_table_prefix(id: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(5);
    push_table_id(id, &mut k);
    k
}

/// Splits an `expiry` key into (expiry instant, encoded primary key).
///
/// # Errors
///
/// [`StorageError::Corrupt`] if the key is too short or its instant's first
/// byte is none of the four tags.
pub(crate) fn decode_expiry_key(key: &[u8]) -> Result<(i64, &[u8]), StorageError> {
    let id_len = if key.first() == Some(&LONG_TABLE_ID) {
        5
    } else {
        1
    };
    let short = || {
        corrupt(
            EXPIRY,
            "expiry key",
            "shorter than its table id and instant",
        )
    };
    let rest = key.get(id_len..).ok_or_else(short)?;
    let first = *rest.first().ok_or_else(short)?;
    let (len, high) = match first & 0xC0 {
        NEGATIVE if first == NEGATIVE => (9, 0),
        FIVE => (5, u64::from(first & 0x3F)),
        SIX => (6, u64::from(first & 0x3F)),
        NINE if first == NINE => (9, 0),
        _ => {
            return Err(corrupt(
                EXPIRY,
                "expiry key",
                format!("instant tag {first:#04x} is none of 0x00, 0x40-0xbf, 0xc0"),
            ));
        }
    };
    let body = rest.get(1..len).ok_or_else(short)?;
    let low = body.iter().fold(0u64, |v, b| v << 8 | u64::from(*b));
    let at = match first {
        NEGATIVE => (low ^ (1 << 63)) as i64,
        NINE => low as i64,
        _ => (high << (8 * (len - 1)) | low) as i64,
    };
    Ok((at, &rest[len..]))
}

fn push_table_id(id: u32, out: &mut Vec<u8>) {
    match u8::try_from(id) {
        Ok(short) if short < LONG_TABLE_ID => out.push(short),
        _ => {
            out.push(LONG_TABLE_ID);
            out.extend_from_slice(&id.to_be_bytes());
        }
    }
}

fn push_instant(at: i64, out: &mut Vec<u8>) {
    let v = at as u64;
    match at {
        ..0 => {
            out.push(NEGATIVE);
            out.extend_from_slice(&(v ^ (1 << 63)).to_be_bytes());
        }
        0..0x40_0000_0000 => {
            out.push(FIVE | (v >> 32) as u8);
            out.extend_from_slice(&v.to_be_bytes()[4..]);
        }
        0x40_0000_0000..0x4000_0000_0000 => {
            out.push(SIX | (v >> 40) as u8);
            out.extend_from_slice(&v.to_be_bytes()[3..]);
        }
        _ => {
            out.push(NINE);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    const EDGES: [i64; 12] = [
        i64::MIN,
        -1,
        0,
        1,
        1_700_000_000,
        (1 << 38) - 1,
        1 << 38,
        1_700_000_000_000,
        (1 << 46) - 1,
        1 << 46,
        i64::MAX - 1,
        i64::MAX,
    ];

    #[test]
    fn keys_of_a_few_characters_fit_fjalls_inline_size() {
        // A 12-character String key encodes to 14 bytes.
        let pk = [b'u'; 14];
        assert_eq!(expiry_key(1, 1_700_000_000, &pk).len(), 20);
        assert_eq!(expiry_key(1, 1_700_000_000_000, &[]).len(), 7);
        assert_eq!(expiry_key(300, -5, &[]).len(), 14);
    }

    #[test]
    fn edges_round_trip_in_order() {
        let keys: Vec<Vec<u8>> = EDGES.iter().map(|&at| expiry_key(7, at, b"k")).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        for (&at, key) in EDGES.iter().zip(&keys) {
            assert_eq!(decode_expiry_key(key).unwrap(), (at, &b"k"[..]));
        }
    }

    #[test]
    fn bad_keys_are_corrupt_not_panics() {
        for bad in [
            &b""[..],
            b"\x01",
            b"\x01\x45\x00",
            b"\x01\x20abcd",
            b"\xf0\x00",
        ] {
            assert!(decode_expiry_key(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn byte_order_is_table_then_instant_then_key(
            a in (any::<u32>(), any::<i64>(), proptest::collection::vec(any::<u8>(), 0..20)),
            b in (any::<u32>(), any::<i64>(), proptest::collection::vec(any::<u8>(), 0..20)),
        ) {
            let ka = expiry_key(a.0, a.1, &a.2);
            let kb = expiry_key(b.0, b.1, &b.2);
            prop_assert_eq!(decode_expiry_key(&ka).unwrap(), (a.1, &a.2[..]));
            // Within a table: instant, then key bytes; tables never interleave.
            if a.0 == b.0 {
                prop_assert_eq!(ka.cmp(&kb), (a.1, &a.2).cmp(&(b.1, &b.2)));
            } else {
                let (pa, pb) = (expiry_table_prefix(a.0), expiry_table_prefix(b.0));
                prop_assert!(!ka.starts_with(&pb) && !kb.starts_with(&pa));
            }
            // A range bound for an instant separates keys before it from keys at or after it.
            let bound = expiry_bound(a.0, b.1);
            prop_assert_eq!(ka >= bound, a.1 >= b.1);
        }
    }
}
