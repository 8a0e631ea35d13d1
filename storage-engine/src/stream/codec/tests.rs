//! Round trips, corrupt input.
#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn a_value_not_in_the_binary_encoding_is_corrupt_naming_the_keyspace() {
    use crate::error::StorageError;
    let item = sample();
    let json = serde_json::to_vec(&item).unwrap();
    let err = crate::dynamodb::item::decode_item(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            StorageError::Corrupt {
                keyspace: "items",
                what: "item",
                ..
            }
        ),
        "{err}"
    );
    let bytes = encode_record(&RecordParts {
        table_name: "T",
        sequence_number: SequenceNumber(3),
        event_name: EventName::Insert,
        now_millis: 9,
        view: StreamViewType::NewImage,
        keys: &[],
        new_image: encode_item(&item).get(1..),
        old_image: None,
        user_identity: None,
    });
    let record = crate::stream::keys::decode_record(&bytes).unwrap();
    let json = serde_json::to_vec(&record).unwrap();
    let err = crate::stream::keys::decode_record(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            StorageError::Corrupt {
                keyspace: "stream",
                what: "change record",
                ..
            }
        ),
        "{err}"
    );
}

fn sample() -> Item {
    HashMap::from([
        ("s".to_string(), AttributeValue::S("a\0b".into())),
        ("n".to_string(), AttributeValue::N("-1.5e3".into())),
        ("b".to_string(), AttributeValue::B(vec![0, 255])),
        ("t".to_string(), AttributeValue::Bool(true)),
        ("z".to_string(), AttributeValue::Null(true)),
        (
            "m".to_string(),
            AttributeValue::M(HashMap::from([(
                "l".to_string(),
                AttributeValue::L(vec![
                    AttributeValue::Ss(vec!["x".into(), "y".into()]),
                    AttributeValue::Ns(vec!["1".into()]),
                    AttributeValue::Bs(vec![vec![1], vec![]]),
                ]),
            )])),
        ),
    ])
    .into()
}

#[test]
fn items_round_trip() {
    let item = sample();
    assert_eq!(decode_item(&encode_item(&item)), Ok(item));
    assert_eq!(
        decode_item(&encode_item(&Item::default())),
        Ok(Item::default())
    );
}

#[test]
fn records_round_trip_with_derived_fields() {
    let item = sample();
    let key = ("s".to_string(), AttributeValue::S("a\0b".into()));
    for identity in [
        None,
        Some(UserIdentity::dynamodb_ttl()),
        Some(UserIdentity {
            r#type: "User".into(),
            principal_id: "me".into(),
        }),
    ] {
        let new = encode_item(&item);
        let bytes = encode_record(&RecordParts {
            table_name: "T",
            sequence_number: SequenceNumber(7),
            event_name: EventName::Remove,
            now_millis: -5,
            view: StreamViewType::NewAndOldImages,
            keys: &[(&key.0, &key.1)],
            new_image: new.get(1..),
            old_image: new.get(1..),
            user_identity: identity.as_ref(),
        });
        let r = decode_record(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.event_id, event_id("T", SequenceNumber(7)));
        assert_eq!(r.old_image.as_ref(), Some(&item));
        assert_eq!(r.new_image.as_ref(), Some(&item));
        assert_eq!(r.user_identity, identity);
        assert_eq!(r.approximate_creation_date_time_millis, -5);
        assert_eq!(r.keys.len(), 1);
        assert!(r.size_bytes > 2 * item_size_bytes(&item));
    }
}

#[test]
fn corrupt_input_is_an_error_not_a_panic() {
    let good = encode_item(&sample());
    for cut in 0..good.len() {
        assert!(decode_item(&good[..cut]).is_err(), "prefix {cut} accepted");
    }
    assert!(
        decode_item(&[
            BINARY_TAG, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F
        ])
        .is_err()
    );
    assert!(decode_item(&[BINARY_TAG, 1, 1, b'a', 42]).is_err());
    assert!(decode_record(&[BINARY_TAG, 9]).is_err());
    let mut deep = vec![BINARY_TAG, 1, 0];
    deep.extend(std::iter::repeat_n([L, 1], 100).flatten());
    assert!(decode_item(&deep).is_err());
}

#[test]
fn partial_decode_builds_only_the_wanted_attributes() {
    let item = sample();
    let bytes = encode_item(&item);
    let names: Vec<&str> = item.keys().map(String::as_str).collect();
    // Every attribute asked for: the whole item.
    assert_eq!(decode_attributes(&bytes, &names), Ok(item.clone()));
    // One asked for: that one only, the others skipped whatever their type.
    for name in &names {
        let one = decode_attributes(&bytes, &[name]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(one.len(), 1);
        assert_eq!(one.get(*name), item.get(*name));
    }
    assert_eq!(decode_attributes(&bytes, &["absent"]), Ok(Item::default()));
    // Truncated input is an error while skipping, too.
    for cut in 1..bytes.len() {
        assert!(decode_attributes(&bytes[..cut], &["absent"]).is_err());
    }
}

/// The item a view shows, built back into an `Item` (test only).
fn view_item(view: ItemView<'_>) -> Item {
    fn value(v: ValueView<'_>) -> AttributeValue {
        match v {
            ValueView::S(s) => AttributeValue::S(s.as_str().into()),
            ValueView::N(s) => AttributeValue::N(s.as_str().into()),
            ValueView::B(b) => AttributeValue::B(b.to_vec()),
            ValueView::Bool(b) => AttributeValue::Bool(b),
            ValueView::Null(b) => AttributeValue::Null(b),
            ValueView::M(m) => AttributeValue::M(view_item(m).into_inner()),
            ValueView::L(l) => AttributeValue::L(l.values().map(value).collect()),
            ValueView::Ss(l) => AttributeValue::Ss(l.texts().map(|t| t.as_str().into()).collect()),
            ValueView::Ns(l) => AttributeValue::Ns(l.texts().map(|t| t.as_str().into()).collect()),
            ValueView::Bs(l) => AttributeValue::Bs(l.bytes().map(<[u8]>::to_vec).collect()),
        }
    }
    let item: HashMap<String, AttributeValue> = view
        .iter()
        .map(|(name, v)| (name.as_str().to_string(), value(v)))
        .collect();
    assert_eq!(item.len(), view.len());
    item.into()
}

#[test]
fn stored_records_show_what_decoding_builds() {
    let item = sample();
    let key = ("s".to_string(), AttributeValue::S("a\0b".into()));
    for identity in [
        None,
        Some(UserIdentity::dynamodb_ttl()),
        Some(UserIdentity {
            r#type: "User".into(),
            principal_id: "me".into(),
        }),
    ] {
        let new = encode_item(&item);
        let bytes = encode_record(&RecordParts {
            table_name: "Tä",
            sequence_number: SequenceNumber(7),
            event_name: EventName::Remove,
            now_millis: -5,
            view: StreamViewType::NewAndOldImages,
            keys: &[(&key.0, &key.1)],
            new_image: identity.is_none().then(|| &new[1..]),
            old_image: new.get(1..),
            user_identity: identity.as_ref(),
        });
        let decoded = decode_record(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let stored =
            StoredRecord::parse(fjall::Slice::from(&bytes[..])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stored.decode().unwrap(), decoded);
        assert_eq!(stored.table_name(), "Tä");
        assert_eq!(stored.event_id(), decoded.event_id);
        assert_eq!(stored.size_bytes(), decoded.size_bytes);
        assert_eq!(stored.is_ttl_delete(), decoded.is_ttl_delete());
        assert_eq!(
            stored.user_identity(),
            decoded
                .user_identity
                .as_ref()
                .map(|i| (i.r#type.as_str(), i.principal_id.as_str()))
        );
        assert_eq!(view_item(stored.keys()), decoded.keys);
        assert_eq!(stored.new_image().map(view_item), decoded.new_image);
        assert_eq!(stored.old_image().map(view_item), decoded.old_image);
        // The stored form of the decoded record reads the same.
        let again = StoredRecord::from_change(&decoded);
        assert_eq!(again.decode().unwrap(), decoded);
        for cut in 0..bytes.len() {
            assert!(
                StoredRecord::parse(fjall::Slice::from(&bytes[..cut])).is_err(),
                "prefix {cut} accepted"
            );
        }
    }
    let mut bad_utf8 = encode_record(&RecordParts {
        table_name: "T",
        sequence_number: SequenceNumber(1),
        event_name: EventName::Insert,
        now_millis: 0,
        view: StreamViewType::KeysOnly,
        keys: &[(&key.0, &key.1)],
        new_image: None,
        old_image: None,
        user_identity: None,
    });
    let at = bad_utf8.len() - 1;
    bad_utf8[at] = 0xFF;
    assert!(StoredRecord::parse(fjall::Slice::from(&bad_utf8[..])).is_err());
}

/// `StoredRecord::parse` skips the per-string UTF-8 check when a record's keys
/// and images are all ASCII: on records with and without that fast path, every
/// one-byte corruption is accepted by it exactly when the full decoder
/// (`decode_record`, which checks every string) accepts it.
#[test]
fn ascii_fast_path_accepts_what_the_decoder_accepts() {
    let ascii: Item = HashMap::from([
        ("name".to_string(), AttributeValue::S("plain text".into())),
        ("n".to_string(), AttributeValue::N("12".into())),
        (
            "set".to_string(),
            AttributeValue::Ss(vec!["ab".into(), "cd".into()]),
        ),
        (
            "m".to_string(),
            AttributeValue::M(HashMap::from([(
                "k".to_string(),
                AttributeValue::L(vec![AttributeValue::S("xy".into())]),
            )])),
        ),
    ])
    .into();
    let mut non_ascii = ascii.clone().into_inner();
    non_ascii.insert("é".to_string(), AttributeValue::S("ü€".into()));
    for item in [ascii, Item::from(non_ascii)] {
        let key = ("name".to_string(), AttributeValue::S("plain text".into()));
        let image = encode_item(&item);
        let bytes = encode_record(&RecordParts {
            table_name: "T",
            sequence_number: SequenceNumber(1),
            event_name: EventName::Remove,
            now_millis: 0,
            view: StreamViewType::NewAndOldImages,
            keys: &[(&key.0, &key.1)],
            new_image: None,
            old_image: image.get(1..),
            user_identity: Some(&UserIdentity::dynamodb_ttl()),
        });
        assert!(StoredRecord::parse(fjall::Slice::from(&bytes[..])).is_ok());
        for at in 0..bytes.len() {
            for byte in [0x80, 0xC3, 0xE2, 0xFF, b'a', 0] {
                let mut bad = bytes.clone();
                bad[at] = byte;
                let parsed = StoredRecord::parse(fjall::Slice::from(&bad[..]));
                assert_eq!(
                    parsed.is_ok(),
                    decode_record(&bad).is_ok(),
                    "byte {at} set to {byte:#x}: {:?}",
                    parsed.err()
                );
            }
        }
    }
}
