//! The compact binary encoding of stored items and change records (see
//! `FORMAT.md`, "Value encodings"). A value starts with [`BINARY_TAG`].
//!
//! Lengths and counts are LEB128 varints; decoding checks every length
//! against the bytes left, so corrupt input is an error, never a panic or
//! a huge allocation.

use crate::storage::attribute::item_size_bytes;
use crate::stream::record::StreamViewType;
use crate::stream::record::{ChangeRecord, EventName, SequenceNumber, UserIdentity, event_id};
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

mod decode;
mod encode;
mod header;
mod view;
pub(crate) use header::stored_event_name;
pub use header::{StoredEntry, StoredHeader};
pub use view::{ItemView, ListView, StoredRecord, Text, ValueView};

/// First byte of every value.
pub(crate) const BINARY_TAG: u8 = 0x01;

const S: u8 = 0;
const N: u8 = 1;
const B: u8 = 2;
const BOOL: u8 = 3;
const NULL: u8 = 4;
const M: u8 = 5;
const L: u8 = 6;
const SS: u8 = 7;
const NS: u8 = 8;
const BS: u8 = 9;

const HAS_NEW: u8 = 1;
const HAS_OLD: u8 = 2;
const TTL_IDENTITY: u8 = 4;
const OTHER_IDENTITY: u8 = 8;

/// Deepest nesting of M / L values decoded (DynamoDB allows 32 levels).
const MAX_DEPTH: usize = 64;

use decode::{Reader, RecordHeader};
pub(crate) use decode::{
    decode_attributes, decode_item, decode_record, encoded_attributes, encoded_number,
    record_time_millis,
};
pub(crate) use encode::{
    RecordParts, encode_change, encode_item, encode_record, encode_record_encoded_keys,
};

#[cfg(test)]
mod tests;
