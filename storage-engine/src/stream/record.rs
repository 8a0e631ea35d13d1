//! Change records, sequence numbers and stream positions.
//!
//! Shapes follow "Change data capture for DynamoDB Streams" and the DynamoDB
//! Streams `Record` / `StreamRecord` types: `eventName` INSERT / MODIFY /
//! REMOVE, `Keys`, `NewImage` / `OldImage` per `StreamViewType`,
//! `SequenceNumber`, `SizeBytes`, and `userIdentity` for TTL deletions
//! ("DynamoDB Streams and Time to Live").

use crate::storage::attribute::item_size_bytes;
use serde::{Deserialize, Serialize};
use serde_dynamo::Item;
use std::fmt;
use std::str::FromStr;

pub use super::sequence::{ParseSequenceNumberError, SequenceNumber, StreamPosition};

/// Which item images a change record carries (DynamoDB `StreamViewType`,
/// "Change data capture for DynamoDB Streams").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StreamViewType {
    /// `KEYS_ONLY`: only the key attributes.
    KeysOnly,
    /// `NEW_IMAGE`: the item as it is after the write.
    NewImage,
    /// `OLD_IMAGE`: the item as it was before the write.
    OldImage,
    /// `NEW_AND_OLD_IMAGES`: both.
    NewAndOldImages,
}

impl StreamViewType {
    /// The DynamoDB spelling: `"KEYS_ONLY"`, `"NEW_IMAGE"`, `"OLD_IMAGE"` or
    /// `"NEW_AND_OLD_IMAGES"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::KeysOnly => "KEYS_ONLY",
            Self::NewImage => "NEW_IMAGE",
            Self::OldImage => "OLD_IMAGE",
            Self::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// Whether records carry the new image.
    pub fn includes_new_image(self) -> bool {
        matches!(self, Self::NewImage | Self::NewAndOldImages)
    }

    /// Whether records carry the old image.
    pub fn includes_old_image(self) -> bool {
        matches!(self, Self::OldImage | Self::NewAndOldImages)
    }
}

impl fmt::Display for StreamViewType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`StreamViewType`] from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown StreamViewType {0:?}; expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES"
)]
pub struct ParseStreamViewTypeError(pub String);

impl FromStr for StreamViewType {
    type Err = ParseStreamViewTypeError;

    /// Parses the exact DynamoDB spelling.
    ///
    /// # Errors
    ///
    /// [`ParseStreamViewTypeError`] for anything else.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "KEYS_ONLY" => Ok(Self::KeysOnly),
            "NEW_IMAGE" => Ok(Self::NewImage),
            "OLD_IMAGE" => Ok(Self::OldImage),
            "NEW_AND_OLD_IMAGES" => Ok(Self::NewAndOldImages),
            other => Err(ParseStreamViewTypeError(other.to_string())),
        }
    }
}

/// The kind of change (DynamoDB Streams `eventName`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EventName {
    /// A new item was written.
    Insert,
    /// An existing item was replaced or updated.
    Modify,
    /// An item was deleted, by a user or by TTL.
    Remove,
}

impl EventName {
    /// `"INSERT"`, `"MODIFY"` or `"REMOVE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Insert => "INSERT",
            Self::Modify => "MODIFY",
            Self::Remove => "REMOVE",
        }
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who made a change, present only on system deletions ("DynamoDB Streams and
/// Time to Live": `userIdentity` type `Service`, principalId
/// `dynamodb.amazonaws.com`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UserIdentity {
    /// `"Service"` for TTL deletions.
    pub r#type: String,
    /// `"dynamodb.amazonaws.com"` for TTL deletions.
    pub principal_id: String,
}

impl UserIdentity {
    /// `type` of the identity DynamoDB puts on TTL deletions ("DynamoDB
    /// Streams and Time to Live").
    pub const TTL_TYPE: &'static str = "Service";
    /// `principalId` of the identity DynamoDB puts on TTL deletions.
    pub const TTL_PRINCIPAL_ID: &'static str = "dynamodb.amazonaws.com";

    /// The identity DynamoDB puts on TTL deletions.
    pub fn dynamodb_ttl() -> Self {
        Self {
            r#type: Self::TTL_TYPE.to_string(),
            principal_id: Self::TTL_PRINCIPAL_ID.to_string(),
        }
    }

    /// Whether this is the TTL service identity.
    pub fn is_dynamodb_ttl(&self) -> bool {
        self.r#type == Self::TTL_TYPE && self.principal_id == Self::TTL_PRINCIPAL_ID
    }
}

/// One entry of a table's change stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeRecord {
    /// The table written.
    pub table_name: String,
    /// Strictly increasing position in the stream.
    pub sequence_number: SequenceNumber,
    /// 32 lowercase hex characters, deterministic from table name and
    /// sequence number (so a re-read yields the same id).
    pub event_id: String,
    /// INSERT, MODIFY or REMOVE.
    pub event_name: EventName,
    /// Clock time of the write, epoch milliseconds.
    pub approximate_creation_date_time_millis: i64,
    /// The key attributes of the item (always present).
    pub keys: Item,
    /// The item after the write, if the view type includes it and it exists.
    pub new_image: Option<Item>,
    /// The item before the write, if the view type includes it and it existed.
    pub old_image: Option<Item>,
    /// Approximate size in bytes of keys plus images carried, by DynamoDB's
    /// item-size rules.
    pub size_bytes: u64,
    /// The table's view type when the record was written.
    pub stream_view_type: StreamViewType,
    /// `Some(UserIdentity::dynamodb_ttl())` for sweeper deletions; `None` for
    /// every user write.
    pub user_identity: Option<UserIdentity>,
}

impl ChangeRecord {
    /// Whether this is a TTL deletion (REMOVE by the DynamoDB service).
    pub fn is_ttl_delete(&self) -> bool {
        self.event_name == EventName::Remove
            && self
                .user_identity
                .as_ref()
                .is_some_and(UserIdentity::is_dynamodb_ttl)
    }
}

/// Everything needed to build a record; images are trimmed per view type.
pub(crate) struct RecordInput<'a> {
    pub table_name: &'a str,
    pub sequence_number: SequenceNumber,
    pub now_millis: i64,
    pub view: StreamViewType,
    pub keys: Item,
    pub old: Option<&'a Item>,
    pub new: Option<&'a Item>,
    pub user_identity: Option<UserIdentity>,
}

/// Builds a record: event name from which images exist, images per view type.
pub(crate) fn build_record(input: RecordInput<'_>) -> ChangeRecord {
    let event_name = match (input.old, input.new) {
        (None, Some(_)) => EventName::Insert,
        (Some(_), Some(_)) => EventName::Modify,
        (_, None) => EventName::Remove,
    };
    let new_image = input
        .new
        .filter(|_| input.view.includes_new_image())
        .cloned();
    let old_image = input
        .old
        .filter(|_| input.view.includes_old_image())
        .cloned();
    let size_bytes = item_size_bytes(&input.keys)
        + new_image.as_ref().map_or(0, item_size_bytes)
        + old_image.as_ref().map_or(0, item_size_bytes);
    ChangeRecord {
        table_name: input.table_name.to_string(),
        sequence_number: input.sequence_number,
        event_id: event_id(input.table_name, input.sequence_number),
        event_name,
        approximate_creation_date_time_millis: input.now_millis,
        keys: input.keys,
        new_image,
        old_image,
        size_bytes,
        stream_view_type: input.view,
        user_identity: input.user_identity,
    }
}

/// 32 hex characters from two FNV-1a 64-bit hashes of table and sequence number.
pub(crate) fn event_id(table: &str, seq: SequenceNumber) -> String {
    // Lowercase hex digits: ASCII, from_utf8 never fails.
    String::from_utf8(event_id_hex(table, seq).to_vec()).unwrap_or_default()
}

/// [`event_id`] as its 32 ASCII bytes, without a `String`: both hashes in one
/// pass over the bytes, and the hex from a table (`format!("{a:016x}{b:016x}")`
/// and `char::from_digit` per nibble cost more than the hashing).
pub(crate) fn event_id_hex(table: &str, seq: SequenceNumber) -> [u8; 32] {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let (mut a, mut b) = (0xcbf2_9ce4_8422_2325_u64, 0x6c62_272e_07bb_0142_u64);
    let mut step = |byte: u8| {
        a = (a ^ u64::from(byte)).wrapping_mul(PRIME);
        b = (b ^ u64::from(byte)).wrapping_mul(PRIME);
    };
    // The table's name, a 0 byte, then the sequence number big-endian.
    table.as_bytes().iter().for_each(|&byte| step(byte));
    step(0);
    seq.0.to_be_bytes().into_iter().for_each(step);
    let mut id = [0u8; 32];
    for (half, out) in [a, b].into_iter().zip(id.chunks_exact_mut(16)) {
        for (i, digit) in out.iter_mut().enumerate() {
            // The nibble is below 16: the index is in bounds.
            *digit = HEX[((half >> (4 * (15 - i))) & 0xF) as usize];
        }
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_view_type_round_trips_text_and_json() {
        for v in [
            StreamViewType::KeysOnly,
            StreamViewType::NewImage,
            StreamViewType::OldImage,
            StreamViewType::NewAndOldImages,
        ] {
            assert_eq!(v.as_str().parse::<StreamViewType>(), Ok(v));
            let json = serde_json::to_string(&v).expect("serialize");
            assert_eq!(json, format!("\"{}\"", v.as_str()));
        }
        assert!("keys_only".parse::<StreamViewType>().is_err());
    }

    proptest::proptest! {
        /// The hand-written forms are the formatting machinery's.
        #[test]
        fn sequence_numbers_and_event_ids_format_as_std_does(n in proptest::prelude::any::<u64>(), table in ".{0,8}") {
            let text = SequenceNumber(n).to_string();
            proptest::prop_assert_eq!(&text, &format!("{n:021}"));
            proptest::prop_assert_eq!(text.as_bytes(), SequenceNumber(n).decimal_digits());
            let id = event_id(&table, SequenceNumber(n));
            let parts: [&[u8]; 3] = [table.as_bytes(), &[0], &n.to_be_bytes()];
            let hash = |basis: u64| parts.iter().flat_map(|p| p.iter()).fold(basis, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
            let expected = format!("{:016x}{:016x}", hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
            proptest::prop_assert_eq!(&id, &expected);
            proptest::prop_assert_eq!(&event_id_hex(&table, SequenceNumber(n)), expected.as_bytes());
        }
    }

    #[test]
    fn event_ids_are_deterministic_hex() {
        let a = event_id("T", SequenceNumber(1));
        assert_eq!(a.len(), 32);
        assert!(
            a.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(a, event_id("T", SequenceNumber(1)));
        assert_ne!(a, event_id("T", SequenceNumber(2)));
        assert_ne!(a, event_id("U", SequenceNumber(1)));
    }

    #[test]
    fn ttl_identity() {
        let id = UserIdentity::dynamodb_ttl();
        assert_eq!(id.r#type, "Service");
        assert_eq!(id.principal_id, "dynamodb.amazonaws.com");
        let json = serde_json::to_value(&id).expect("serialize");
        assert_eq!(json["type"], "Service");
    }
}
