//! `TableDefinition::validate_item` and `validate_key`: the checks a caller
//! (BatchWriteItem, BatchGetItem) makes on a whole request before writing any
//! of it. Expected values are DynamoDB's: "Supported data types and naming
//! rules in Amazon DynamoDB" (Numbers: "Leading and trailing zeroes are
//! trimmed"), and the service's message for a key that does not match the
//! key schema.
#![allow(clippy::unwrap_used)]

use crate::common::{item, n, s};
use ttlstream_engine::{ItemError, ScalarAttributeType, TableDefinition};

/// `Events`: partition key `Device` (S), sort key `At` (N).
fn events() -> TableDefinition {
    TableDefinition::new("Events", "Device", ScalarAttributeType::S)
        .with_sort_key("At", ScalarAttributeType::N)
}

fn message(e: ItemError) -> (String, String) {
    match e {
        ItemError::Invalid { table, message } => (table, message),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_valid_item_gets_canonical_numbers_and_its_key() {
    let def = events();
    let mut it = item(&[
        ("Device", s("d1")),
        ("At", n("0010.50")),
        ("Reading", n("1.50")),
    ]);
    let key = def.validate_item(&mut it).unwrap();
    assert_eq!(it["At"], n("10.5"));
    assert_eq!(it["Reading"], n("1.5"));
    assert_eq!(
        key,
        def.validate_key(&item(&[("Device", s("d1")), ("At", n("10.5"))]))
            .unwrap()
    );
}

#[test]
fn keys_equal_as_numbers_are_one_key() {
    let def = events();
    let one = def
        .validate_key(&item(&[("Device", s("d1")), ("At", n("1"))]))
        .unwrap();
    let same = def
        .validate_key(&item(&[("Device", s("d1")), ("At", n("1.0"))]))
        .unwrap();
    let other = def
        .validate_key(&item(&[("Device", s("d1")), ("At", n("2"))]))
        .unwrap();
    assert_eq!(one, same);
    assert_ne!(one, other);
}

#[test]
fn a_key_that_does_not_match_the_schema_is_refused_with_dynamodbs_message() {
    let def = events();
    for bad in [
        item(&[("Device", s("d1"))]),
        item(&[("Device", s("d1")), ("At", s("not a number"))]),
        item(&[("Device", s("d1")), ("At", n("1")), ("Extra", s("x"))]),
    ] {
        let (table, message) = message(def.validate_key(&bad).unwrap_err());
        assert_eq!(table, "Events");
        assert_eq!(
            message,
            "The provided key element does not match the schema"
        );
    }
}

#[test]
fn an_item_without_its_key_is_refused_naming_the_attribute() {
    let def = events();
    let mut it = item(&[("Device", s("d1")), ("Reading", n("1"))]);
    let (table, message) = message(def.validate_item(&mut it).unwrap_err());
    assert_eq!(table, "Events");
    assert_eq!(
        message,
        "One or more parameter values were invalid: Missing the key At in the item"
    );
}
