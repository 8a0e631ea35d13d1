//! Property test: random put / update / delete / advance-clock / sweep
//! sequences against a `BTreeMap` model, comparing items after every step
//! and the whole change stream (including which items TTL removed) at the end.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;
use ttlstream_engine::{
    AttributeValue, EventName, Item, SWEEP_CHUNK, StreamPosition, StreamViewType, Update,
};

#[derive(Clone, Debug)]
enum Ttl {
    Absent,
    /// Expiry = start + offset seconds; `fraction` appends ".9".
    Secs {
        offset: i64,
        fraction: bool,
    },
    Text,
}

#[derive(Clone, Debug)]
enum Op {
    Put { k: u8, ttl: Ttl, v: u8 },
    SetTtl { k: u8, ttl: Ttl },
    RemoveTtl { k: u8 },
    SetValue { k: u8, v: u8 },
    Delete { k: u8 },
    Advance { millis: u64 },
    Sweep,
}

fn ttl_strategy() -> impl Strategy<Value = Ttl> {
    prop_oneof![
        1 => Just(Ttl::Absent),
        4 => (-20i64..120, any::<bool>()).prop_map(|(offset, fraction)| Ttl::Secs { offset, fraction }),
        1 => Just(Ttl::Text),
    ]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let k = 0u8..6;
    prop_oneof![
        4 => (k.clone(), ttl_strategy(), 0u8..3).prop_map(|(k, ttl, v)| Op::Put { k, ttl, v }),
        2 => (k.clone(), ttl_strategy()).prop_map(|(k, ttl)| Op::SetTtl { k, ttl }),
        1 => k.clone().prop_map(|k| Op::RemoveTtl { k }),
        1 => (k.clone(), 0u8..3).prop_map(|(k, v)| Op::SetValue { k, v }),
        1 => k.prop_map(|k| Op::Delete { k }),
        2 => (0u64..40_000).prop_map(|millis| Op::Advance { millis }),
        2 => Just(Op::Sweep),
    ]
}

fn ttl_value(ttl: &Ttl) -> Option<AttributeValue> {
    match ttl {
        Ttl::Absent => None,
        Ttl::Secs { offset, fraction } => {
            let secs = START_SECS + offset;
            Some(n(if *fraction {
                format!("{secs}.9")
            } else {
                secs.to_string()
            }))
        }
        Ttl::Text => Some(s("1")),
    }
}

/// The model's expiry rule (small offsets: the 5-year bound never applies).
fn model_expiry(item: &Item) -> Option<i64> {
    match item.get(TTL_ATTR) {
        Some(AttributeValue::N(v)) => v.split('.').next().unwrap().parse().ok(),
        _ => None,
    }
}

#[derive(Default)]
struct Model {
    items: BTreeMap<String, Item>,
    /// (event, key, is TTL deletion)
    records: Vec<(EventName, String, bool)>,
    now_millis: i64,
}

impl Model {
    fn write(&mut self, user: String, new: Option<Item>) {
        let old = self.items.get(&user).cloned();
        if old == new {
            return;
        }
        let event = match (&old, &new) {
            (None, Some(_)) => EventName::Insert,
            (Some(_), Some(_)) => EventName::Modify,
            (Some(_), None) => EventName::Remove,
            (None, None) => return,
        };
        self.records.push((event, user.clone(), false));
        match new {
            Some(i) => self.items.insert(user, i),
            None => self.items.remove(&user),
        };
    }

    fn sweep(&mut self) {
        let mut due: Vec<(i64, String)> = self
            .items
            .iter()
            .filter_map(|(u, i)| model_expiry(i).map(|e| (e, u.clone())))
            .filter(|(e, _)| e * 1000 < self.now_millis)
            .collect();
        // Batches of the earliest expiries; within a batch, key order.
        due.sort();
        for batch in due.chunks_mut(SWEEP_CHUNK) {
            batch.sort_by(|a, b| a.1.cmp(&b.1));
            for (_, user) in batch.iter() {
                self.items.remove(user);
                self.records.push((EventName::Remove, user.clone(), true));
            }
        }
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let (_dir, clock, engine) = setup(StreamViewType::NewAndOldImages);
    let mut model = Model {
        now_millis: START_MILLIS,
        ..Model::default()
    };
    for op in ops {
        match &op {
            Op::Put { k, ttl, v } => {
                let user = format!("k{k}");
                let mut it = item(&[("UserName", s(&user)), ("v", n(*v))]);
                if let Some(t) = ttl_value(ttl) {
                    it.insert(TTL_ATTR.to_string(), t);
                }
                engine.dynamodb().put_item(TABLE, it.clone()).unwrap();
                model.write(user, Some(it));
            }
            Op::SetTtl { k, .. } | Op::RemoveTtl { k } => {
                let user = format!("k{k}");
                let value = match &op {
                    Op::SetTtl { .. } => ttl_value(ttl_of(&op)),
                    _ => None,
                };
                let update = match &value {
                    Some(v) => Update::default().set(TTL_ATTR, v.clone()),
                    None => Update::default().remove(TTL_ATTR),
                };
                let new = engine
                    .dynamodb()
                    .update_item(TABLE, &key(&user), update)
                    .unwrap();
                let mut expected = model
                    .items
                    .get(&user)
                    .cloned()
                    .unwrap_or_else(|| key(&user));
                match value {
                    Some(v) => expected.insert(TTL_ATTR.to_string(), v),
                    None => expected.remove(TTL_ATTR),
                };
                prop_assert_eq!(&new, &expected);
                model.write(user, Some(expected));
            }
            Op::SetValue { k, v } => {
                let user = format!("k{k}");
                let new = engine
                    .dynamodb()
                    .update_item(TABLE, &key(&user), Update::default().set("v", n(*v)))
                    .unwrap();
                model.write(user, Some(new));
            }
            Op::Delete { k } => {
                let user = format!("k{k}");
                let old = engine.dynamodb().delete_item(TABLE, &key(&user)).unwrap();
                prop_assert_eq!(old.as_ref(), model.items.get(&user));
                model.write(user, None);
            }
            Op::Advance { millis } => {
                clock.advance(Duration::from_millis(*millis));
                model.now_millis += i64::try_from(*millis).unwrap();
            }
            Op::Sweep => {
                let before = model.records.len();
                model.sweep();
                let deleted = engine.sweep_now().unwrap().deleted;
                prop_assert_eq!(deleted as usize, model.records.len() - before);
            }
        }
        let got: BTreeMap<String, Item> = engine
            .dynamodb()
            .scan(TABLE)
            .unwrap()
            .into_iter()
            .map(|i| (user_of(&i), i))
            .collect();
        prop_assert_eq!(&got, &model.items, "after {:?}", op);
    }
    let records: Vec<(EventName, String, bool)> = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| (r.event_name, user_of(&r.keys), r.is_ttl_delete()))
        .collect();
    prop_assert_eq!(records, model.records);
    Ok(())
}

fn ttl_of(op: &Op) -> &Ttl {
    match op {
        Op::SetTtl { ttl, .. } => ttl,
        _ => &Ttl::Absent,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_model(ops in proptest::collection::vec(op_strategy(), 1..40)) {
        run(ops)?;
    }
}
