//! Change stream: event names, view types, identities, positions.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use ttlstream_engine::{
    EventName, SequenceNumber, StreamError, StreamPosition, StreamViewType, Update, item_size_bytes,
};

fn all(engine: &ttlstream_engine::Engine) -> Vec<ttlstream_engine::ChangeRecord> {
    engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap()
}

#[test]
fn insert_modify_remove_and_no_record_for_missing_or_unchanged() {
    let (_dir, _clock, engine) = setup(StreamViewType::NewAndOldImages);
    let a1 = session("a", START_SECS + 100);
    engine.dynamodb().put_item(TABLE, a1.clone()).unwrap();
    engine.dynamodb().put_item(TABLE, a1.clone()).unwrap(); // unchanged: no record
    let a2 = engine
        .dynamodb()
        .update_item(TABLE, &key("a"), Update::default().set("Data", s("y")))
        .unwrap();
    engine.dynamodb().delete_item(TABLE, &key("a")).unwrap();
    engine.dynamodb().delete_item(TABLE, &key("a")).unwrap(); // missing: no record

    let r = all(&engine);
    let names: Vec<EventName> = r.iter().map(|r| r.event_name).collect();
    assert_eq!(
        names,
        [EventName::Insert, EventName::Modify, EventName::Remove]
    );
    assert_eq!(
        (r[0].old_image.as_ref(), r[0].new_image.as_ref()),
        (None, Some(&a1))
    );
    assert_eq!(
        (r[1].old_image.as_ref(), r[1].new_image.as_ref()),
        (Some(&a1), Some(&a2))
    );
    assert_eq!(
        (r[2].old_image.as_ref(), r[2].new_image.as_ref()),
        (Some(&a2), None)
    );
    assert!(r.iter().all(|r| r.user_identity.is_none()));
    assert!(r.iter().all(|r| r.keys == key("a")));
    assert!(
        r.iter()
            .all(|r| r.approximate_creation_date_time_millis == START_MILLIS)
    );
    assert_eq!(
        r[0].size_bytes,
        item_size_bytes(&key("a")) + item_size_bytes(&a1)
    );
    assert!(
        r.iter()
            .all(|r| r.event_id.len() == 32 && r.table_name == TABLE)
    );
}

#[test]
fn a_key_repeated_in_one_bulk_put_is_written_in_order() {
    let (_dir, _clock, engine) = setup(StreamViewType::NewAndOldImages);
    let a1 = session("a", START_SECS + 100);
    let mut a2 = a1.clone();
    a2.insert("Data".into(), s("y"));
    let b = session("b", START_SECS + 100);
    // a twice changed, then unchanged (no record), between them b.
    let items = vec![a1.clone(), b.clone(), a2.clone(), a2.clone()];
    engine.dynamodb().put_items(TABLE, items).unwrap();

    let r = all(&engine);
    let names: Vec<EventName> = r.iter().map(|r| r.event_name).collect();
    assert_eq!(
        names,
        [EventName::Insert, EventName::Insert, EventName::Modify]
    );
    assert_eq!(
        (r[2].old_image.as_ref(), r[2].new_image.as_ref()),
        (Some(&a1), Some(&a2))
    );
    assert_eq!(
        engine.dynamodb().get_item(TABLE, &key("a")).unwrap(),
        Some(a2)
    );
    assert_eq!(
        engine.dynamodb().get_item(TABLE, &key("b")).unwrap(),
        Some(b)
    );
}

#[test]
fn view_types_select_images() {
    for (view, new, old) in [
        (StreamViewType::KeysOnly, false, false),
        (StreamViewType::NewImage, true, false),
        (StreamViewType::OldImage, false, true),
        (StreamViewType::NewAndOldImages, true, true),
    ] {
        let (_dir, _clock, engine) = setup(view);
        engine.dynamodb().put_item(TABLE, session("a", 1)).unwrap();
        engine.dynamodb().put_item(TABLE, session("a", 2)).unwrap();
        let r = all(&engine);
        assert_eq!(r.len(), 2);
        let modify = &r[1];
        assert_eq!(modify.stream_view_type, view);
        assert_eq!(modify.new_image.is_some(), new, "{view}");
        assert_eq!(modify.old_image.is_some(), old, "{view}");
        assert_eq!(modify.keys, key("a"));
        assert!(modify.size_bytes >= item_size_bytes(&key("a")));
    }
}

#[test]
fn positions_and_limits() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    for i in 0..5 {
        engine
            .dynamodb()
            .put_item(TABLE, session(&format!("u{i}"), 1))
            .unwrap();
    }
    let r = all(&engine);
    let seqs: Vec<SequenceNumber> = r.iter().map(|r| r.sequence_number).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    let s2 = seqs[2];
    let at = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::AtSequenceNumber(s2), 2)
        .unwrap();
    assert_eq!(
        at.iter().map(|r| r.sequence_number).collect::<Vec<_>>(),
        &seqs[2..4]
    );
    let after = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::AfterSequenceNumber(s2), 10)
        .unwrap();
    assert_eq!(after.len(), 2);
    assert!(
        engine
            .dynamodb()
            .read_stream(TABLE, StreamPosition::Latest, 10)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        engine.dynamodb().latest_sequence_number(TABLE).unwrap(),
        Some(seqs[4])
    );
    let none = engine
        .dynamodb()
        .read_stream(
            TABLE,
            StreamPosition::AfterSequenceNumber(SequenceNumber(u64::MAX)),
            10,
        )
        .unwrap();
    assert!(none.is_empty());
    assert_eq!(
        engine
            .dynamodb()
            .read_stream(TABLE, StreamPosition::TrimHorizon, 0)
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn table_without_stream_has_no_records() {
    let dir = tempfile::tempdir().unwrap();
    let clock = std::sync::Arc::new(ttlstream_engine::ManualClock::new(0));
    let engine = open(dir.path(), &clock);
    engine
        .dynamodb()
        .create_table(ttlstream_engine::TableDefinition::new(
            "Plain",
            "id",
            ttlstream_engine::ScalarAttributeType::S,
        ))
        .unwrap();
    engine
        .dynamodb()
        .put_item("Plain", item(&[("id", s("x"))]))
        .unwrap();
    let err = engine
        .dynamodb()
        .read_stream("Plain", StreamPosition::TrimHorizon, 10)
        .unwrap_err();
    assert!(matches!(err, StreamError::StreamNotEnabled { .. }));
    assert!(matches!(
        engine
            .dynamodb()
            .latest_sequence_number("Missing")
            .unwrap_err(),
        StreamError::TableNotFound { .. }
    ));
}

#[test]
fn records_serialise_with_sequence_number_strings() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    engine.dynamodb().put_item(TABLE, session("a", 1)).unwrap();
    let r = &all(&engine)[0];
    let json = serde_json::to_value(r).unwrap();
    assert_eq!(json["sequence_number"], r.sequence_number.to_string());
    assert_eq!(json["event_name"], "INSERT");
    assert_eq!(json["stream_view_type"], "KEYS_ONLY");
    let back: ttlstream_engine::ChangeRecord = serde_json::from_value(json).unwrap();
    assert_eq!(&back, r);
}
