//! A stored change record's fixed fields, read without the rest of it
//! ([`StoredHeader`]): a stream reader that has no use for records of some
//! kinds (the processor's routes all require `eventName` REMOVE) reads only
//! this much of them ([`crate::Streams::get_stored_records_of`]).
//!
//! Why it pays: with the routes' `eventName`s passed to the read, the
//! processor's pipeline archived 240,593 TTL deletions/s at 6.44 CPU µs per
//! record; reading the INSERTs whole and letting the filter drop them,
//! 184,044/s at 8.56 µs (24 % slower; the processor's
//! `pipeline_bench 200000 2000 5 3`, file sink, median of 3 rounds, both in one run).

use std::ops::Range;

use super::view::{StoredRecord, checked_str};
use super::{OTHER_IDENTITY, Reader, RecordHeader, TTL_IDENTITY};
use crate::stream::record::{EventName, SequenceNumber};

/// The fields a stored change record starts with (before its keys and
/// images), checked as [`StoredRecord`] checks them: `SequenceNumber`,
/// `eventName`, time, table, and whether it is a TTL deletion.
#[derive(Clone, Debug)]
pub struct StoredHeader {
    bytes: fjall::Slice,
    event_name: EventName,
    created_millis: i64,
    sequence_number: SequenceNumber,
    table_name: Range<usize>,
    ttl_delete: bool,
}

/// A record of [`crate::Streams::get_stored_records_of`]: in full, or its
/// header only.
#[derive(Clone, Debug)]
pub enum StoredEntry {
    /// Read and checked whole, as [`crate::Streams::get_stored_records`]
    /// returns it.
    Record(StoredRecord),
    /// Only the header read and checked; the rest of the bytes were not.
    Header(StoredHeader),
}

/// The `eventName` byte of a binary record (tag byte included), when it is
/// a known one: read before deciding how much of the record to check.
pub(crate) fn stored_event_name(bytes: &[u8]) -> Option<EventName> {
    match bytes.get(1) {
        Some(0) => Some(EventName::Insert),
        Some(1) => Some(EventName::Modify),
        Some(2) => Some(EventName::Remove),
        _ => None,
    }
}

impl StoredHeader {
    /// Checks the header of a binary record (tag byte included) as
    /// [`StoredRecord`]'s check does, with the same messages; `None` when
    /// the record names an identity other than the TTL service's (its
    /// strings are at the end of the record: read the whole record).
    ///
    /// # Errors
    /// A message saying what is wrong with the header's bytes.
    pub(crate) fn parse(bytes: fjall::Slice) -> Result<Option<Self>, String> {
        let all: &[u8] = &bytes;
        let mut r = Reader::start(all)?;
        let header = RecordHeader::read(&mut r)?;
        if header.flags & TTL_IDENTITY == 0 && header.flags & OTHER_IDENTITY != 0 {
            return Ok(None);
        }
        let table_name = checked_str(&mut r, all.len())?;
        Ok(Some(Self {
            event_name: header.event_name,
            created_millis: header.created_millis,
            sequence_number: header.sequence_number,
            table_name,
            ttl_delete: header.event_name == EventName::Remove && header.flags & TTL_IDENTITY != 0,
            bytes,
        }))
    }

    /// The header of a record read whole.
    pub(super) fn of(record: &StoredRecord, bytes: fjall::Slice, table_name: Range<usize>) -> Self {
        Self {
            bytes,
            event_name: record.event_name(),
            created_millis: record.approximate_creation_date_time_millis(),
            sequence_number: record.sequence_number(),
            table_name,
            ttl_delete: record.is_ttl_delete(),
        }
    }

    /// The table written.
    pub fn table_name(&self) -> &str {
        self.bytes
            .get(self.table_name.clone())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default()
    }

    /// The record's `SequenceNumber`.
    pub fn sequence_number(&self) -> SequenceNumber {
        self.sequence_number
    }

    /// INSERT, MODIFY or REMOVE.
    pub fn event_name(&self) -> EventName {
        self.event_name
    }

    /// Clock time of the write, epoch milliseconds.
    pub fn approximate_creation_date_time_millis(&self) -> i64 {
        self.created_millis
    }

    /// Whether this is a TTL deletion, as [`StoredRecord::is_ttl_delete`].
    pub fn is_ttl_delete(&self) -> bool {
        self.ttl_delete
    }

    /// The record's stored length in bytes: what it counts towards a read's
    /// 1 MB limit, its `SizeBytes` not being computed.
    pub fn stored_len(&self) -> usize {
        self.bytes.len()
    }
}

impl StoredEntry {
    /// The record's `SequenceNumber`.
    pub fn sequence_number(&self) -> SequenceNumber {
        match self {
            Self::Record(record) => record.sequence_number(),
            Self::Header(header) => header.sequence_number(),
        }
    }

    /// INSERT, MODIFY or REMOVE.
    pub fn event_name(&self) -> EventName {
        match self {
            Self::Record(record) => record.event_name(),
            Self::Header(header) => header.event_name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_dynamo::AttributeValue;

    use super::*;
    use crate::stream::codec::{RecordParts, encode_item, encode_record};
    use crate::stream::record::StreamViewType;
    use crate::stream::record::UserIdentity;

    fn kinds() -> impl Strategy<Value = EventName> {
        prop_oneof![
            Just(EventName::Insert),
            Just(EventName::Modify),
            Just(EventName::Remove)
        ]
    }

    fn identities() -> impl Strategy<Value = Option<UserIdentity>> {
        prop_oneof![
            Just(None),
            Just(Some(UserIdentity::dynamodb_ttl())),
            ("[a-zA-Zé]{0,6}", "[a-z.]{0,6}").prop_map(|(r#type, principal_id)| Some(
                UserIdentity {
                    r#type,
                    principal_id
                }
            )),
        ]
    }

    /// An encoded record: its kind, identity, time, number, table and
    /// images vary; `cut` and `flip` then damage it (cut it short, or
    /// change one byte).
    fn records() -> impl Strategy<Value = (Vec<u8>, usize, Option<(usize, u8)>)> {
        (
            (kinds(), identities(), any::<i64>(), any::<u64>(), ".{0,6}"),
            (any::<bool>(), any::<bool>(), ".{0,12}"),
            (
                any::<usize>(),
                proptest::option::of((any::<usize>(), any::<u8>())),
            ),
        )
            .prop_map(
                |((kind, identity, millis, sequence, table), (new, old, text), (cut, flip))| {
                    let item = std::collections::HashMap::from([(
                        "a".to_string(),
                        AttributeValue::S(text),
                    )]);
                    let image = encode_item(&item.into());
                    let key = ("k".to_string(), AttributeValue::N("1".into()));
                    let bytes = encode_record(&RecordParts {
                        table_name: &table,
                        sequence_number: SequenceNumber(sequence),
                        event_name: kind,
                        now_millis: millis,
                        view: StreamViewType::NewAndOldImages,
                        keys: &[(&key.0, &key.1)],
                        new_image: new.then(|| &image[1..]),
                        old_image: old.then(|| &image[1..]),
                        user_identity: identity.as_ref(),
                    });
                    (bytes, cut, flip)
                },
            )
    }

    fn same(header: &StoredHeader, record: &StoredRecord) -> bool {
        header.table_name() == record.table_name()
            && header.sequence_number() == record.sequence_number()
            && header.event_name() == record.event_name()
            && header.approximate_creation_date_time_millis()
                == record.approximate_creation_date_time_millis()
            && header.is_ttl_delete() == record.is_ttl_delete()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// The header read alone says what the whole record's check says of
        /// the same fields; a header that cannot be read fails with the
        /// whole record's message; whatever the header check accepts, the
        /// whole check does too or fails only after the header (in the keys,
        /// images or identity, which the header check does not read).
        #[test]
        fn a_header_reads_as_the_whole_record_does((bytes, cut, flip) in records()) {
            let whole = StoredRecord::parse(fjall::Slice::from(&bytes[..])).expect("whole");
            let header = StoredHeader::parse(fjall::Slice::from(&bytes[..])).expect("header");
            match &header {
                Some(header) => prop_assert!(same(header, &whole)),
                // Only a record naming another identity is left to the whole check.
                None => prop_assert!(whole.user_identity().is_some() && !whole.is_ttl_delete()),
            }
            prop_assert!(same(&whole.header(), &whole));

            let mut damaged = bytes[..cut % (bytes.len() + 1)].to_vec();
            if let Some((at, byte)) = flip
                && !damaged.is_empty()
            {
                let at = at % damaged.len();
                damaged[at] = byte;
            }
            let whole = StoredRecord::parse(fjall::Slice::from(&damaged[..]));
            match StoredHeader::parse(fjall::Slice::from(&damaged[..])) {
                Err(message) => prop_assert_eq!(whole.err(), Some(message)),
                Ok(Some(header)) => {
                    if let Ok(whole) = &whole {
                        prop_assert!(same(&header, whole));
                    }
                }
                Ok(None) => {}
            }
        }
    }
}
