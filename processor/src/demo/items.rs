//! The demo's data: the five `SessionData` items of the DynamoDB Developer Guide's
//! TTL example ("Using time to live (TTL) in DynamoDB"), each with its own
//! `CreationTime` and `ExpirationTime` as the guide lists them, plus generated
//! sessions.

use std::collections::HashMap;

use ttlstream_engine::{AttributeValue, Item};

/// `CreationTime` of the guide's `user1`, epoch seconds: 2019-10-23 08:46 UTC.
/// The demo's clock starts here.
pub const SEED_CREATION_TIME_SECS: i64 = 1_571_820_360;
/// `ExpirationTime` of the guide's `user1`, epoch seconds: two hours later.
/// The generated sessions all expire by then.
pub const SEED_EXPIRATION_TIME_SECS: i64 = 1_571_827_560;
/// Session length of every generated item, seconds.
pub const SESSION_TTL_SECS: i64 = 7_200;

/// One of the guide's five example items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedSession {
    /// `UserName` (the partition key).
    pub user_name: &'static str,
    /// `SessionId` (the sort key).
    pub session_id: &'static str,
    /// `CreationTime`, epoch seconds.
    pub creation_time_secs: i64,
    /// `ExpirationTime` (the TTL attribute), epoch seconds.
    pub expiration_time_secs: i64,
}

/// The guide's five items, in its order, with its times.
pub const SEED_SESSIONS: [SeedSession; 5] = [
    seed("user1", "74686572652773", 1_571_820_360, 1_571_827_560),
    seed("user2", "6e6f7468696e67", 1_571_820_180, 1_571_827_380),
    seed("user3", "746f2073656520", 1_571_820_923, 1_571_828_123),
    seed("user4", "68657265212121", 1_571_820_683, 1_571_827_883),
    seed("user5", "6e6572642e2e2e", 1_571_820_743, 1_571_831_543),
];

const fn seed(
    user_name: &'static str,
    session_id: &'static str,
    creation_time_secs: i64,
    expiration_time_secs: i64,
) -> SeedSession {
    SeedSession {
        user_name,
        session_id,
        creation_time_secs,
        expiration_time_secs,
    }
}

/// The latest `ExpirationTime` of the seed items (`user5`'s), epoch seconds:
/// the demo's last TTL deletion.
pub fn last_seed_expiration_secs() -> i64 {
    SEED_SESSIONS
        .iter()
        .map(|s| s.expiration_time_secs)
        .max()
        .unwrap_or(SEED_EXPIRATION_TIME_SECS)
}

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

fn n(value: i64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn session(
    user: &str,
    session_id: &str,
    (created, expires): (i64, i64),
    info: HashMap<String, AttributeValue>,
) -> Item {
    Item::from(HashMap::from([
        ("UserName".to_string(), s(user)),
        ("SessionId".to_string(), s(session_id)),
        ("CreationTime".to_string(), n(created)),
        ("ExpirationTime".to_string(), n(expires)),
        ("SessionInfo".to_string(), AttributeValue::M(info)),
    ]))
}

/// The five seed items, each with the guide's own `CreationTime` and
/// `ExpirationTime`. `SessionInfo` is "a JSON document" in the guide; here a
/// map with a few fields.
pub fn seed_items() -> Vec<Item> {
    SEED_SESSIONS
        .iter()
        .enumerate()
        .map(|(i, seed)| {
            let info = HashMap::from([
                (
                    "Device".to_string(),
                    s(if i % 2 == 0 { "browser" } else { "mobile" }),
                ),
                ("PagesViewed".to_string(), n(3 + i as i64)),
            ]);
            let times = (seed.creation_time_secs, seed.expiration_time_secs);
            session(seed.user_name, seed.session_id, times, info)
        })
        .collect()
}

/// Generated session `index` of `count`: sessions that started during the two
/// hours before the demo's clock start, so their 2-hour TTLs expire evenly over
/// the two hours after it.
pub fn generated_item(index: u64, count: u64) -> Item {
    let offset = i64::try_from(index.saturating_mul(7_200) / count.max(1)).unwrap_or(0);
    let created = SEED_CREATION_TIME_SECS - SESSION_TTL_SECS + 1 + offset;
    let info = HashMap::from([
        (
            "Device".to_string(),
            s(["browser", "mobile", "tablet"][(index % 3) as usize]),
        ),
        ("PagesViewed".to_string(), n((mix(index) % 40) as i64)),
    ]);
    session(
        &format!("user{:07}", index + 6),
        &format!("{:014x}", mix(index) & 0x00ff_ffff_ffff_ffff),
        (created, created + SESSION_TTL_SECS),
        info,
    )
}

/// A fixed bit mixer (SplitMix64's finaliser), for stable pseudo-random ids.
fn mix(index: u64) -> u64 {
    let mut z = index.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_items_carry_the_guide_times() {
        // The guide's table, typed in (UserName, SessionId, CreationTime,
        // ExpirationTime), not derived from SEED_SESSIONS.
        let guide = [
            ("user1", "74686572652773", 1_571_820_360, 1_571_827_560),
            ("user2", "6e6f7468696e67", 1_571_820_180, 1_571_827_380),
            ("user3", "746f2073656520", 1_571_820_923, 1_571_828_123),
            ("user4", "68657265212121", 1_571_820_683, 1_571_827_883),
            ("user5", "6e6572642e2e2e", 1_571_820_743, 1_571_831_543),
        ];
        let items = seed_items();
        assert_eq!(items.len(), guide.len());
        for (item, (user, id, created, expires)) in items.iter().zip(guide) {
            assert_eq!(item.get("UserName"), Some(&s(user)));
            assert_eq!(item.get("SessionId"), Some(&s(id)));
            assert_eq!(item.get("CreationTime"), Some(&n(created)), "{user}");
            assert_eq!(item.get("ExpirationTime"), Some(&n(expires)), "{user}");
        }
        assert_eq!(last_seed_expiration_secs(), 1_571_831_543);
    }

    #[test]
    fn generated_items_expire_within_two_hours_of_the_start() {
        for index in [0, 1, 4_999, 9_999] {
            let item = generated_item(index, 10_000);
            let Some(AttributeValue::N(expiry)) = item.get("ExpirationTime") else {
                panic!("no ExpirationTime");
            };
            let expiry: i64 = expiry.parse().expect("number");
            assert!(
                expiry > SEED_CREATION_TIME_SECS && expiry <= SEED_EXPIRATION_TIME_SECS,
                "{expiry}"
            );
        }
        assert_ne!(
            generated_item(1, 10).get("SessionId"),
            generated_item(2, 10).get("SessionId")
        );
    }
}
