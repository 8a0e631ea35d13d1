//! The DynamoDB item-TTL expiry rule, as pure functions.
//!
//! From "Using time to live (TTL) in DynamoDB" and "Computing time to live
//! (TTL) in DynamoDB":
//!
//! * the TTL attribute is a top-level **Number** holding epoch **seconds**;
//!   any other type (String, Number set, List, Map, ...) means "never expires";
//! * an item is expired when its expiry is before the current time:
//!   `expiry_secs * 1000 < now_millis`; a fractional value is truncated
//!   toward zero (`"1000.9"` behaves as `1000`);
//! * a value more than five years in the past is not eligible for expiry.
//!   AWS does not define "five years" more precisely; this engine uses
//!   [`FIVE_YEARS_MILLIS`] = 5 × 365 days, with the boundary included: an
//!   expiry of exactly `now - 5 × 365 days` still expires;
//! * epoch **milliseconds** written by mistake look ~1000× too far in the
//!   future, so they never expire in practice (no special case needed).
//!
//! The window is evaluated at sweep time: the sweeper scans the expiry index
//! over `[now - 5y, now)` only (see [`expired_range_secs`]).

use crate::dynamodb::table::TimeToLiveSpecification;
use crate::storage::number::Decimal;
use serde_dynamo::{AttributeValue, Item};

/// 5 × 365 days in milliseconds: how far in the past an expiry may lie and
/// still be eligible for deletion.
pub const FIVE_YEARS_MILLIS: i64 = 5 * 365 * 86_400 * 1000;

/// The expiry (epoch seconds, truncated toward zero) a value would give, or
/// `None` if the value can never expire: not a Number, not a valid number,
/// or so large that `secs * 1000` does not fit in an `i64`.
pub fn expiry_epoch_secs(value: &AttributeValue) -> Option<i64> {
    let AttributeValue::N(text) = value else {
        return None;
    };
    number_expiry_secs(text)
}

/// [`expiry_epoch_secs`] of a Number's text.
pub(crate) fn number_expiry_secs(text: &str) -> Option<i64> {
    let secs = match plain_integer(text) {
        Some(secs) => secs,
        None => Decimal::parse(text).ok()?.trunc_i64()?,
    };
    secs.checked_mul(1000)?;
    Some(secs)
}

/// The value of a Number written as 1 to 18 ASCII digits (how epoch seconds
/// are written), without building a [`Decimal`]: every write and every TTL
/// deletion reads the TTL attribute, and `Decimal::parse` allocates. Any
/// other text is `None`, left to the general parser (the same result either
/// way: `plain_integer_agrees_with_decimal`).
fn plain_integer(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        // At most 18 digits: below 10^18, no overflow.
        v = v * 10 + i64::from(b - b'0');
    }
    Some(v)
}

/// The expiry of `item` under `spec`, or `None` when TTL is disabled, the
/// attribute is missing, or its value can never expire (see
/// [`expiry_epoch_secs`]). This is what the expiry index holds.
pub fn item_expiry_epoch_secs(item: &Item, spec: Option<&TimeToLiveSpecification>) -> Option<i64> {
    let spec = spec.filter(|s| s.enabled)?;
    expiry_epoch_secs(item.get(&spec.attribute_name)?)
}

/// Whether an expiry of `expires_at_epoch_secs` is due at `now_millis`:
/// before now, and not more than five years before now.
pub fn is_expired_at(expires_at_epoch_secs: i64, now_millis: i64) -> bool {
    let Some(expiry_millis) = expires_at_epoch_secs.checked_mul(1000) else {
        return false;
    };
    expiry_millis < now_millis && expiry_millis >= now_millis.saturating_sub(FIVE_YEARS_MILLIS)
}

/// Whether `item` is expired at `now_millis` under `spec` (the full rule).
pub fn is_item_expired(
    item: &Item,
    spec: Option<&TimeToLiveSpecification>,
    now_millis: i64,
) -> bool {
    item_expiry_epoch_secs(item, spec).is_some_and(|s| is_expired_at(s, now_millis))
}

/// The half-open range of expiry seconds `[low, high)` that are due at
/// `now_millis`: exactly the `s` for which [`is_expired_at`] holds.
pub fn expired_range_secs(now_millis: i64) -> (i64, i64) {
    let low = ceil_div_1000(now_millis.saturating_sub(FIVE_YEARS_MILLIS));
    let high = ceil_div_1000(now_millis);
    (low, high)
}

fn ceil_div_1000(millis: i64) -> i64 {
    let q = millis.div_euclid(1000);
    if millis.rem_euclid(1000) == 0 {
        q
    } else {
        q + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const NOW_MILLIS: i64 = 1_700_000_000_000;
    const NOW_SECS: i64 = 1_700_000_000;

    fn spec() -> TimeToLiveSpecification {
        TimeToLiveSpecification::enabled("expires_at")
    }

    fn with_ttl(v: AttributeValue) -> Item {
        let mut m = HashMap::new();
        m.insert("pk".to_string(), AttributeValue::S("a".into()));
        m.insert("expires_at".to_string(), v);
        m.into()
    }

    fn n(v: impl ToString) -> AttributeValue {
        AttributeValue::N(v.to_string())
    }

    #[test]
    fn number_in_past_expires() {
        assert!(is_item_expired(
            &with_ttl(n(NOW_SECS - 1)),
            Some(&spec()),
            NOW_MILLIS
        ));
    }

    #[test]
    fn number_in_future_does_not_expire() {
        assert!(!is_item_expired(
            &with_ttl(n(NOW_SECS + 1)),
            Some(&spec()),
            NOW_MILLIS
        ));
    }

    #[test]
    fn expiry_equal_to_now_is_not_yet_expired() {
        assert!(!is_item_expired(
            &with_ttl(n(NOW_SECS)),
            Some(&spec()),
            NOW_MILLIS
        ));
        assert!(is_item_expired(
            &with_ttl(n(NOW_SECS)),
            Some(&spec()),
            NOW_MILLIS + 1
        ));
    }

    #[test]
    fn string_never_expires() {
        let v = AttributeValue::S((NOW_SECS - 1).to_string());
        assert!(!is_item_expired(&with_ttl(v), Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn number_set_never_expires() {
        let v = AttributeValue::Ns(vec![(NOW_SECS - 1).to_string()]);
        assert!(!is_item_expired(&with_ttl(v), Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn list_never_expires() {
        let v = AttributeValue::L(vec![n(NOW_SECS - 1)]);
        assert!(!is_item_expired(&with_ttl(v), Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn map_never_expires() {
        let v = AttributeValue::M(HashMap::from([("t".to_string(), n(NOW_SECS - 1))]));
        assert!(!is_item_expired(&with_ttl(v), Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn more_than_five_years_in_past_never_expires() {
        let five_years_secs = FIVE_YEARS_MILLIS / 1000;
        let too_old = with_ttl(n(NOW_SECS - five_years_secs - 1));
        assert!(!is_item_expired(&too_old, Some(&spec()), NOW_MILLIS));
        let boundary = with_ttl(n(NOW_SECS - five_years_secs));
        assert!(is_item_expired(&boundary, Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn fraction_is_truncated() {
        let item = with_ttl(n("1000.9"));
        assert_eq!(item_expiry_epoch_secs(&item, Some(&spec())), Some(1000));
        // 1000.9 behaves as 1000: expired at 1000.001 s, although 1000.9 > 1000.001.
        assert!(is_item_expired(&item, Some(&spec()), 1_000_001));
        assert!(!is_item_expired(&item, Some(&spec()), 1_000_000));
    }

    #[test]
    fn milliseconds_by_mistake_never_expire() {
        let item = with_ttl(n(NOW_MILLIS - 1000));
        assert!(!is_item_expired(&item, Some(&spec()), NOW_MILLIS));
    }

    #[test]
    fn huge_number_never_expires() {
        assert_eq!(expiry_epoch_secs(&n("1e100")), None);
        assert!(!is_item_expired(
            &with_ttl(n("1e100")),
            Some(&spec()),
            NOW_MILLIS
        ));
    }

    #[test]
    fn missing_attribute_never_expires() {
        let other = TimeToLiveSpecification::enabled("other");
        assert!(!is_item_expired(&with_ttl(n(1)), Some(&other), NOW_MILLIS));
    }

    #[test]
    fn ttl_disabled_never_expires() {
        let disabled = TimeToLiveSpecification {
            attribute_name: "expires_at".into(),
            enabled: false,
        };
        let item = with_ttl(n(NOW_SECS - 1));
        assert!(!is_item_expired(&item, Some(&disabled), NOW_MILLIS));
        assert!(!is_item_expired(&item, None, NOW_MILLIS));
    }

    proptest::proptest! {
        /// The digits-only shortcut gives what the general parser gives, on
        /// digit strings (with leading zeros, up to 20 digits) and on
        /// anything else a Number may hold.
        #[test]
        fn plain_integer_agrees_with_decimal(
            text in "[0-9]{1,20}|0{0,3}[0-9]{1,18}|[-+]?[0-9]{0,19}(\\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?"
        ) {
            let general = Decimal::parse(&text).ok().and_then(|d| d.trunc_i64());
            if let Some(fast) = plain_integer(&text) {
                proptest::prop_assert_eq!(Some(fast), general);
            }
            let general_secs = general.filter(|s| s.checked_mul(1000).is_some());
            proptest::prop_assert_eq!(expiry_epoch_secs(&n(&text)), general_secs);
        }
    }

    #[test]
    fn range_matches_rule() {
        for now in [NOW_MILLIS, NOW_MILLIS + 1, NOW_MILLIS + 999, -1, 0, 1] {
            let (low, high) = expired_range_secs(now);
            for s in [low - 1, low, low + 1, high - 1, high, high + 1] {
                assert_eq!(
                    is_expired_at(s, now),
                    (low..high).contains(&s),
                    "now={now} s={s}"
                );
            }
        }
    }
}
