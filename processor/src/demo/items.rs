//! The demo's data: the five `SessionData` items of the DynamoDB Developer Guide's
//! TTL example ("Using time to live (TTL) in DynamoDB"), plus generated sessions.

use std::collections::HashMap;

use ttlstream_engine::{AttributeValue, Item};

/// `CreationTime` of the seed items, epoch seconds: 2019-10-23 08:46 UTC. The
/// demo's clock starts here.
pub const SEED_CREATION_TIME_SECS: i64 = 1_571_820_360;
/// `ExpirationTime` of the seed items, epoch seconds: two hours later.
pub const SEED_EXPIRATION_TIME_SECS: i64 = 1_571_827_560;
/// Session length of every item, seconds.
pub const SESSION_TTL_SECS: i64 = 7_200;

/// `(UserName, SessionId)` of the seed items, as the guide lists them.
pub const SEED_SESSIONS: [(&str, &str); 5] = [
    ("user1", "74686572652773"),
    ("user2", "6e6f7468696e67"),
    ("user3", "746f2073656520"),
    ("user4", "68657265212121"),
    ("user5", "6e6572642e2e2e"),
];

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

fn n(value: i64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn session(
    user: &str,
    session_id: &str,
    created: i64,
    info: HashMap<String, AttributeValue>,
) -> Item {
    Item::from(HashMap::from([
        ("UserName".to_string(), s(user)),
        ("SessionId".to_string(), s(session_id)),
        ("CreationTime".to_string(), n(created)),
        ("ExpirationTime".to_string(), n(created + SESSION_TTL_SECS)),
        ("SessionInfo".to_string(), AttributeValue::M(info)),
    ]))
}

/// The five seed items. `SessionInfo` is "a JSON document" in the guide; here a
/// map with a few fields.
pub fn seed_items() -> Vec<Item> {
    SEED_SESSIONS
        .iter()
        .enumerate()
        .map(|(i, (user, id))| {
            let info = HashMap::from([
                (
                    "Device".to_string(),
                    s(if i % 2 == 0 { "browser" } else { "mobile" }),
                ),
                ("PagesViewed".to_string(), n(3 + i as i64)),
            ]);
            session(user, id, SEED_CREATION_TIME_SECS, info)
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
        created,
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
    fn seed_items_match_the_guide() {
        let items = seed_items();
        assert_eq!(items.len(), 5);
        assert_eq!(items[0].get("SessionId"), Some(&s("74686572652773")));
        assert_eq!(items[4].get("UserName"), Some(&s("user5")));
        for item in &items {
            assert_eq!(item.get("CreationTime"), Some(&n(1_571_820_360)));
            assert_eq!(item.get("ExpirationTime"), Some(&n(1_571_827_560)));
        }
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
