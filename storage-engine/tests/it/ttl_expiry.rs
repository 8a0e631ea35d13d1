//! DynamoDB item TTL through the public API: visibility before the sweep,
//! rescue by update, enable/disable, backlog, and the sweep/stream invariants.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::collections::BTreeSet;
use std::time::Duration;
use ttlstream_engine::{
    EventName, StreamPosition, StreamViewType, SweeperOptions, TimeToLiveSpecification, Update,
    UserIdentity,
};

#[test]
fn expired_item_stays_visible_until_swept() {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    engine
        .dynamodb()
        .put_item(TABLE, session("alice", START_SECS + 10))
        .unwrap();
    clock.advance(Duration::from_secs(11));

    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("alice"))
            .unwrap()
            .is_some()
    );
    assert_eq!(
        engine.dynamodb().query(TABLE, &s("alice")).unwrap().len(),
        1
    );
    assert_eq!(engine.dynamodb().scan(TABLE).unwrap().len(), 1);
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 1);

    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("alice"))
            .unwrap()
            .is_none()
    );
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
}

#[test]
fn not_yet_expired_items_survive_a_sweep() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    engine
        .dynamodb()
        .put_item(TABLE, session("bob", START_SECS + 100))
        .unwrap();
    clock.advance(Duration::from_secs(50));
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("bob"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn update_moving_ttl_to_future_rescues_expired_item() {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    engine
        .dynamodb()
        .put_item(TABLE, session("carol", START_SECS + 10))
        .unwrap();
    clock.advance(Duration::from_secs(20));
    let update = Update::default().set(TTL_ATTR, n(START_SECS + 1000));
    engine
        .dynamodb()
        .update_item(TABLE, &key("carol"), update)
        .unwrap();

    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("carol"))
            .unwrap()
            .is_some()
    );

    clock.advance(Duration::from_secs(1000));
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("carol"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn update_removing_ttl_attribute_rescues_expired_item() {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    engine
        .dynamodb()
        .put_item(TABLE, session("dave", START_SECS + 10))
        .unwrap();
    clock.advance(Duration::from_secs(20));
    engine
        .dynamodb()
        .update_item(TABLE, &key("dave"), Update::default().remove(TTL_ATTR))
        .unwrap();
    clock.advance(Duration::from_secs(86_400 * 365));
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("dave"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn update_changing_ttl_to_a_string_rescues_expired_item() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    engine
        .dynamodb()
        .put_item(TABLE, session("erin", START_SECS + 10))
        .unwrap();
    clock.advance(Duration::from_secs(20));
    let update = Update::default().set(TTL_ATTR, s("1700000010"));
    engine
        .dynamodb()
        .update_item(TABLE, &key("erin"), update)
        .unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("erin"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn enabling_ttl_indexes_existing_items_and_disabling_stops_expiry() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    let off = TimeToLiveSpecification {
        attribute_name: TTL_ATTR.into(),
        enabled: false,
    };
    engine
        .dynamodb()
        .update_time_to_live(TABLE, off.clone())
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("old1", START_SECS + 5))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("old2", START_SECS + 5))
        .unwrap();
    clock.advance(Duration::from_secs(10));
    assert_eq!(
        engine.sweep_now().unwrap().deleted,
        0,
        "TTL disabled: nothing expires"
    );
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);

    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
    // The call only commits the setting; a sweep pass indexes the items
    // already there, then deletes those expired.
    assert!(
        engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
    engine.dynamodb().delete_item(TABLE, &key("old2")).unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );

    engine
        .dynamodb()
        .put_item(TABLE, session("later", START_SECS + 20))
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, off.clone())
        .unwrap();
    assert_eq!(
        engine.dynamodb().describe_time_to_live(TABLE).unwrap(),
        Some(off)
    );
    clock.advance(Duration::from_secs(100));
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("later"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn enabling_on_another_attribute_requires_disabling_first() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    let err = engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled("other"))
        .unwrap_err();
    assert!(err.to_string().contains(TTL_ATTR), "{err}");
    // Re-enabling the same attribute is a no-op.
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
}

#[test]
fn every_swept_item_has_exactly_one_ttl_remove_record_and_vice_versa() {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    let mut expected_gone = BTreeSet::new();
    for i in 0..600 {
        let user = format!("u{i:04}");
        let expiry = START_SECS + (i % 7) * 10;
        if expiry < START_SECS + 35 {
            expected_gone.insert(user.clone());
        }
        engine
            .dynamodb()
            .put_item(TABLE, session(&user, expiry))
            .unwrap();
    }
    engine.dynamodb().delete_item(TABLE, &key("u0000")).unwrap();
    expected_gone.remove("u0000");
    clock.advance(Duration::from_secs(35));
    let report = engine.sweep_now().unwrap();
    assert_eq!(report.deleted as usize, expected_gone.len());

    let records = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    let ttl_removed: Vec<String> = records
        .iter()
        .filter(|r| r.user_identity.is_some())
        .map(|r| user_of(&r.keys))
        .collect();
    let unique: BTreeSet<String> = ttl_removed.iter().cloned().collect();
    assert_eq!(unique.len(), ttl_removed.len(), "one record per swept item");
    assert_eq!(unique, expected_gone);
    let remaining: BTreeSet<String> = engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .iter()
        .map(user_of)
        .collect();
    for user in &unique {
        assert!(!remaining.contains(user), "{user} swept but still present");
    }
    for r in records.iter().filter(|r| r.user_identity.is_some()) {
        assert_eq!(r.event_name, EventName::Remove);
        assert_eq!(r.user_identity, Some(UserIdentity::dynamodb_ttl()));
        assert!(r.old_image.is_some() && r.new_image.is_none());
    }
    let user_delete = records
        .iter()
        .find(|r| r.event_name == EventName::Remove && user_of(&r.keys) == "u0000")
        .unwrap();
    assert_eq!(user_delete.user_identity, None);
}

/// A pass deletes at most `max_deletes_per_sweep` (see the unit tests of
/// `dynamodb/sweep.rs`), and one that spent it all is followed by the next at
/// once: the budget shares the sweeper between tables, it does not slow a
/// backlog down to one budget per interval.
#[test]
fn passes_that_spend_their_budget_follow_each_other_at_once() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    let items = (0..50)
        .map(|i| session(&format!("u{i}"), START_SECS))
        .collect();
    engine.dynamodb().put_items(TABLE, items).unwrap();
    clock.advance(Duration::from_secs(1));
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_secs(3600),
        max_deletes_per_sweep: Some(20),
        ..SweeperOptions::default()
    });
    // Three passes (20, 20, 10), although the interval is an hour.
    for _ in 0..1_000 {
        if sweeper.deleted_total() == 50 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    sweeper.stop();
    assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
}

/// Enabling TTL on a table that holds items indexes them in the sweeper's
/// passes, at most `max_deletes_per_sweep` per pass, and the passes follow
/// each other at once until the index is built: every expired item goes,
/// without a trigger, although the interval is an hour.
#[test]
fn the_background_sweeper_builds_the_index_of_a_table_ttl_was_enabled_on() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    let off = TimeToLiveSpecification {
        attribute_name: TTL_ATTR.into(),
        enabled: false,
    };
    engine.dynamodb().update_time_to_live(TABLE, off).unwrap();
    let items = (0..95)
        .map(|i| session(&format!("u{i:02}"), START_SECS + (i % 2) * 60))
        .collect();
    engine.dynamodb().put_items(TABLE, items).unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
    clock.advance(Duration::from_millis(1_500)); // the even ones expired
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_secs(3600),
        max_deletes_per_sweep: Some(10),
        ..SweeperOptions::default()
    });
    for _ in 0..1_000 {
        if sweeper.deleted_total() == 48
            && !engine
                .dynamodb()
                .time_to_live_index_building(TABLE)
                .unwrap()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    sweeper.stop();
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(
        engine.dynamodb().scan(TABLE).unwrap().len(),
        47,
        "the odd ones are not due"
    );
    let records = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    let ttl_removes: BTreeSet<String> = records
        .iter()
        .filter(|r| r.is_ttl_delete())
        .map(|r| user_of(&r.keys))
        .collect();
    assert_eq!(ttl_removes.len(), 48);
    assert_eq!(records.iter().filter(|r| r.is_ttl_delete()).count(), 48);
}

#[test]
fn background_sweeper_deletes_and_stops() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    engine
        .dynamodb()
        .put_item(TABLE, session("a", START_SECS + 1))
        .unwrap();
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(5),
        max_deletes_per_sweep: None,
        ..SweeperOptions::default()
    });
    clock.advance(Duration::from_secs(2));
    for _ in 0..500 {
        if sweeper.deleted_total() == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(sweeper.deleted_total(), 1);
    drop(sweeper);
    assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
}

#[test]
fn values_more_than_five_years_old_never_expire() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    let six_years = 6 * 365 * 86_400;
    engine
        .dynamodb()
        .put_item(TABLE, session("ancient", START_SECS - six_years))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("millis", START_SECS * 1000 - 5))
        .unwrap();
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert_eq!(engine.dynamodb().scan(TABLE).unwrap().len(), 2);
}
