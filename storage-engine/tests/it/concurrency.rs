//! Several writer threads and a background sweeper at once: the stream must
//! replay to exactly the final table, with strictly increasing sequence numbers.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::time::Duration;
use ttlstream_engine::{EventName, Item, StreamPosition, StreamViewType, SweeperOptions, Update};

#[test]
fn concurrent_writers_and_sweeper_keep_stream_and_table_consistent() {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(1),
        max_deletes_per_sweep: Some(7),
        ..SweeperOptions::default()
    });
    let writers: Vec<_> = (0..4)
        .map(|t| {
            let engine = engine.clone();
            let clock = clock.clone();
            std::thread::spawn(move || {
                for i in 0..300i64 {
                    let user = format!("k{}", (i * 7 + t) % 40);
                    match i % 5 {
                        0 | 1 => {
                            engine
                                .dynamodb()
                                .put_item(TABLE, session(&user, START_SECS + i % 13))
                                .unwrap();
                        }
                        2 => {
                            let up = Update::default().set(TTL_ATTR, n(START_SECS + 50 + i));
                            engine
                                .dynamodb()
                                .update_item(TABLE, &key(&user), up)
                                .unwrap();
                        }
                        3 => {
                            engine.dynamodb().delete_item(TABLE, &key(&user)).unwrap();
                        }
                        _ => clock.advance(Duration::from_millis(100)),
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    sweeper.stop();
    engine.sweep_now().unwrap();

    let records = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    assert!(
        records
            .windows(2)
            .all(|w| w[0].sequence_number < w[1].sequence_number)
    );
    let mut replay: BTreeMap<String, Item> = BTreeMap::new();
    for r in &records {
        let user = user_of(&r.keys);
        match r.event_name {
            EventName::Insert => {
                assert!(replay.insert(user, r.new_image.clone().unwrap()).is_none())
            }
            EventName::Modify => {
                let old = replay.insert(user, r.new_image.clone().unwrap());
                assert_eq!(old, r.old_image);
            }
            EventName::Remove => assert_eq!(replay.remove(&user), r.old_image),
        }
    }
    let table: BTreeMap<String, Item> = engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .into_iter()
        .map(|i| (user_of(&i), i))
        .collect();
    assert_eq!(replay, table);
    assert_eq!(engine.dynamodb().expired_backlog(TABLE).unwrap(), 0);
}

#[test]
fn engine_and_sweeper_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ttlstream_engine::Engine>();
    assert_send_sync::<ttlstream_engine::Sweeper>();
}
