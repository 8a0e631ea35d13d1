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

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7F) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

fn put_value(out: &mut Vec<u8>, v: &AttributeValue) {
    match v {
        AttributeValue::S(s) => {
            out.push(S);
            put_bytes(out, s.as_bytes());
        }
        AttributeValue::N(s) => {
            out.push(N);
            put_bytes(out, s.as_bytes());
        }
        AttributeValue::B(b) => {
            out.push(B);
            put_bytes(out, b);
        }
        AttributeValue::Bool(b) => out.extend_from_slice(&[BOOL, u8::from(*b)]),
        AttributeValue::Null(b) => out.extend_from_slice(&[NULL, u8::from(*b)]),
        AttributeValue::M(m) => {
            out.push(M);
            put_map(out, m);
        }
        AttributeValue::L(l) => {
            out.push(L);
            put_len(out, l.len());
            l.iter().for_each(|v| put_value(out, v));
        }
        AttributeValue::Ss(l) | AttributeValue::Ns(l) => {
            out.push(if matches!(v, AttributeValue::Ss(_)) {
                SS
            } else {
                NS
            });
            put_len(out, l.len());
            l.iter().for_each(|s| put_bytes(out, s.as_bytes()));
        }
        AttributeValue::Bs(l) => {
            out.push(BS);
            put_len(out, l.len());
            l.iter().for_each(|b| put_bytes(out, b));
        }
    }
}

fn put_map(out: &mut Vec<u8>, m: &HashMap<String, AttributeValue>) {
    put_len(out, m.len());
    for (k, v) in m {
        put_bytes(out, k.as_bytes());
        put_value(out, v);
    }
}

/// Encodes an item (tag byte included) for the `items` keyspace.
pub(crate) fn encode_item(item: &Item) -> Vec<u8> {
    // Sized for a typical small item: growing the buffer (realloc and copy)
    // showed in write profiles.
    let mut out = Vec::with_capacity(256);
    out.push(BINARY_TAG);
    put_map(&mut out, item);
    out
}

/// The parts of a change record that are stored; `event_id` and
/// `size_bytes` are derived again on decode.
pub(crate) struct RecordParts<'a> {
    pub table_name: &'a str,
    pub sequence_number: SequenceNumber,
    pub event_name: EventName,
    pub now_millis: i64,
    pub view: StreamViewType,
    /// The key attributes, in any order.
    pub keys: &'a [(&'a String, &'a AttributeValue)],
    /// The new image already encoded: an [`encode_item`] value without its
    /// tag byte.
    pub new_image: Option<&'a [u8]>,
    /// The old image already encoded, like `new_image` (the sweeper passes
    /// the stored bytes through instead of decoding and encoding again).
    pub old_image: Option<&'a [u8]>,
    pub user_identity: Option<&'a UserIdentity>,
}

/// Encodes a change record (tag byte included) for the `stream` keyspace.
pub(crate) fn encode_record(r: &RecordParts<'_>) -> Vec<u8> {
    encode_record_with(r, r.keys.len(), |out| {
        for (k, v) in r.keys {
            put_bytes(out, k.as_bytes());
            put_value(out, v);
        }
    })
}

/// Encodes a whole change record (the Tablestore model's records, and
/// [`StoredRecord::from_change`]); `eventID` and `SizeBytes` are not stored
/// but derived again on read.
pub(crate) fn encode_change(change: &ChangeRecord) -> Vec<u8> {
    let keys: Vec<_> = change.keys.iter().collect();
    let image = |item: &Option<Item>| {
        item.as_ref().map(|item| {
            let mut out = Vec::new();
            put_map(&mut out, item);
            out
        })
    };
    let (new_image, old_image) = (image(&change.new_image), image(&change.old_image));
    encode_record(&RecordParts {
        table_name: &change.table_name,
        sequence_number: change.sequence_number,
        event_name: change.event_name,
        now_millis: change.approximate_creation_date_time_millis,
        view: change.stream_view_type,
        keys: &keys,
        new_image: new_image.as_deref(),
        old_image: old_image.as_deref(),
        user_identity: change.user_identity.as_ref(),
    })
}

/// [`encode_record`] with the key attributes as stored in the item
/// ([`encoded_attributes`] values, copied byte for byte; `r.keys` is not
/// read): the same bytes as [`encode_record`] with the decoded keys, since
/// [`encode_item`] and the record write a value the same way.
pub(crate) fn encode_record_encoded_keys(r: &RecordParts<'_>, keys: &[(&str, &[u8])]) -> Vec<u8> {
    encode_record_with(r, keys.len(), |out| {
        for (k, v) in keys {
            put_bytes(out, k.as_bytes());
            out.extend_from_slice(v);
        }
    })
}

fn encode_record_with(
    r: &RecordParts<'_>,
    key_count: usize,
    put_keys: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let images = r.new_image.map_or(0, <[u8]>::len) + r.old_image.map_or(0, <[u8]>::len);
    let mut out = Vec::with_capacity(64 + r.table_name.len() + images);
    out.push(BINARY_TAG);
    out.push(match r.event_name {
        EventName::Insert => 0,
        EventName::Modify => 1,
        EventName::Remove => 2,
    });
    out.push(match r.view {
        StreamViewType::KeysOnly => 0,
        StreamViewType::NewImage => 1,
        StreamViewType::OldImage => 2,
        StreamViewType::NewAndOldImages => 3,
    });
    let mut flags = 0;
    if r.new_image.is_some() {
        flags |= HAS_NEW;
    }
    if r.old_image.is_some() {
        flags |= HAS_OLD;
    }
    match r.user_identity {
        Some(id) if id.is_dynamodb_ttl() => flags |= TTL_IDENTITY,
        Some(_) => flags |= OTHER_IDENTITY,
        None => {}
    }
    out.push(flags);
    out.extend_from_slice(&r.now_millis.to_be_bytes());
    out.extend_from_slice(&r.sequence_number.0.to_be_bytes());
    put_bytes(&mut out, r.table_name.as_bytes());
    put_len(&mut out, key_count);
    put_keys(&mut out);
    if let Some(bytes) = r.new_image {
        out.extend_from_slice(bytes);
    }
    if let Some(bytes) = r.old_image {
        out.extend_from_slice(bytes);
    }
    if let Some(id) = r.user_identity.filter(|id| !id.is_dynamodb_ttl()) {
        put_bytes(&mut out, id.r#type.as_bytes());
        put_bytes(&mut out, id.principal_id.as_bytes());
    }
    out
}

/// A cursor over a binary value; every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, String> {
        let (&b, rest) = self.bytes.split_first().ok_or("truncated")?;
        self.bytes = rest;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.bytes.len() {
            return Err(format!(
                "length {n} beyond the {} bytes left",
                self.bytes.len()
            ));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    /// A varint length or count. One byte (below 128) is nearly every
    /// length a record holds: that case is inlined into the readers, the
    /// longer forms are read by [`Reader::long_len`], with the same errors.
    #[inline]
    fn len(&mut self) -> Result<usize, String> {
        if let Some((&b, rest)) = self.bytes.split_first()
            && b < 0x80
            && usize::from(b) <= rest.len()
        {
            self.bytes = rest;
            return Ok(usize::from(b));
        }
        self.long_len()
    }

    #[inline(never)]
    fn long_len(&mut self) -> Result<usize, String> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                // A count can never exceed the bytes left (each entry takes >= 1).
                return usize::try_from(n)
                    .ok()
                    .filter(|&n| n <= self.bytes.len())
                    .ok_or_else(|| {
                        format!("length {n} beyond the {} bytes left", self.bytes.len())
                    });
            }
        }
        Err("varint too long".into())
    }

    fn bytes_vec(&mut self) -> Result<Vec<u8>, String> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }

    fn string(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes_vec()?).map_err(|_| "invalid UTF-8".to_string())
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    fn list<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let n = self.len()?;
        (0..n).map(|_| f(self)).collect()
    }

    fn value(&mut self, depth: usize) -> Result<AttributeValue, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        Ok(match self.byte()? {
            S => AttributeValue::S(self.string()?),
            N => AttributeValue::N(self.string()?),
            B => AttributeValue::B(self.bytes_vec()?),
            BOOL => AttributeValue::Bool(self.byte()? != 0),
            NULL => AttributeValue::Null(self.byte()? != 0),
            M => AttributeValue::M(self.map(depth + 1)?),
            L => AttributeValue::L(self.list(|r| r.value(depth + 1))?),
            SS => AttributeValue::Ss(self.list(Self::string)?),
            NS => AttributeValue::Ns(self.list(Self::string)?),
            BS => AttributeValue::Bs(self.list(Self::bytes_vec)?),
            t => return Err(format!("unknown value tag {t}")),
        })
    }

    fn map(&mut self, depth: usize) -> Result<HashMap<String, AttributeValue>, String> {
        let n = self.len()?;
        let mut m = HashMap::with_capacity(n);
        for _ in 0..n {
            let k = self.string()?;
            let v = self.value(depth)?;
            m.insert(k, v);
        }
        Ok(m)
    }

    /// A top-level map as an [`Item`], built in place: serde_dynamo's
    /// `From<HashMap>` for `Item` collects every entry into a second map.
    fn item(&mut self) -> Result<Item, String> {
        let n = self.len()?;
        let mut item = Item::default();
        item.reserve(n);
        for _ in 0..n {
            let k = self.string()?;
            let v = self.value(0)?;
            item.insert(k, v);
        }
        Ok(item)
    }

    /// Moves past one value without building it.
    fn skip_value(&mut self, depth: usize) -> Result<(), String> {
        self.skip(depth, false)
    }

    /// Moves past one value without building it, failing exactly where
    /// [`Reader::value`] would: also on text that is not UTF-8.
    fn check_value(&mut self, depth: usize) -> Result<(), String> {
        self.skip(depth, true)
    }

    fn skip(&mut self, depth: usize, utf8: bool) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        match self.byte()? {
            t @ (S | N | B) => {
                let n = self.len()?;
                self.text(n, utf8 && t != B)?;
            }
            BOOL | NULL => {
                self.byte()?;
            }
            M => {
                for _ in 0..self.len()? {
                    let n = self.len()?;
                    self.text(n, utf8)?;
                    self.skip(depth + 1, utf8)?;
                }
            }
            L => {
                for _ in 0..self.len()? {
                    self.skip(depth + 1, utf8)?;
                }
            }
            t @ (SS | NS | BS) => {
                for _ in 0..self.len()? {
                    let n = self.len()?;
                    self.text(n, utf8 && t != BS)?;
                }
            }
            t => return Err(format!("unknown value tag {t}")),
        }
        Ok(())
    }

    /// Moves past `n` bytes, checking them as UTF-8 when `utf8`.
    fn text(&mut self, n: usize, utf8: bool) -> Result<(), String> {
        let bytes = self.take(n)?;
        if utf8 && std::str::from_utf8(bytes).is_err() {
            return Err("invalid UTF-8".into());
        }
        Ok(())
    }

    fn start(bytes: &'a [u8]) -> Result<Self, String> {
        match bytes.split_first() {
            Some((&BINARY_TAG, rest)) => Ok(Self { bytes: rest }),
            _ => Err("not a binary value".into()),
        }
    }

    fn finish<T>(&self, v: T) -> Result<T, String> {
        if self.bytes.is_empty() {
            Ok(v)
        } else {
            Err(format!("{} trailing bytes", self.bytes.len()))
        }
    }
}

/// Decodes a binary item (tag byte included).
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_item(bytes: &[u8]) -> Result<Item, String> {
    let mut r = Reader::start(bytes)?;
    let item = r.item()?;
    r.finish(item)
}

/// Decodes only the top-level attributes of a binary item whose names are
/// in `wanted` (the others are skipped, not built): the sweeper needs an
/// expired item's keys and TTL attribute, not all of it.
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_attributes(bytes: &[u8], wanted: &[&str]) -> Result<Item, String> {
    let mut r = Reader::start(bytes)?;
    let n = r.len()?;
    let mut item = Item::default();
    item.reserve(wanted.len());
    for _ in 0..n {
        let len = r.len()?;
        let name = r.take(len)?;
        match wanted.iter().find(|w| w.as_bytes() == name) {
            Some(w) => {
                let v = r.value(0)?;
                item.insert((*w).to_string(), v);
            }
            None => r.skip_value(0)?,
        }
    }
    r.finish(item)
}

/// The top-level attributes of a binary item named in `names`, each as its
/// stored bytes (tag byte and payload, as [`encode_item`] wrote them), in
/// `names` order; `None` for a name the item does not have. Nothing is
/// allocated: the sweeper's TTL deletions copy these bytes into the REMOVE
/// record. Fails where [`decode_attributes`] with the same names fails.
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn encoded_attributes<'a, const K: usize>(
    bytes: &'a [u8],
    names: &[&str; K],
) -> Result<[Option<&'a [u8]>; K], String> {
    let mut found = [None; K];
    let mut r = Reader::start(bytes)?;
    let n = r.len()?;
    for _ in 0..n {
        let len = r.len()?;
        let name = r.take(len)?;
        match names.iter().position(|w| w.as_bytes() == name) {
            Some(i) => {
                let start = r.bytes;
                r.check_value(0)?;
                found[i] = start.get(..start.len() - r.bytes.len());
            }
            None => r.skip_value(0)?,
        }
    }
    r.finish(found)
}

/// The text of a Number stored as `encoded` (an [`encoded_attributes`]
/// value), or `None` for any other type.
pub(crate) fn encoded_number(encoded: &[u8]) -> Option<&str> {
    let (&tag, rest) = encoded.split_first()?;
    if tag != N {
        return None;
    }
    let mut r = Reader { bytes: rest };
    let n = r.len().ok()?;
    let text = r.take(n).ok()?;
    r.finish(()).ok()?;
    std::str::from_utf8(text).ok()
}

/// The ApproximateCreationDateTime (epoch ms) of a binary change record,
/// read from its fixed header without decoding the rest; `None` if `bytes`
/// is not a binary record.
pub(crate) fn record_time_millis(bytes: &[u8]) -> Option<i64> {
    if bytes.first() != Some(&BINARY_TAG) {
        return None;
    }
    let b = bytes.get(4..12)?;
    <[u8; 8]>::try_from(b).ok().map(i64::from_be_bytes)
}

/// The fixed fields a binary change record starts with (after its tag byte).
struct RecordHeader {
    event_name: EventName,
    stream_view_type: StreamViewType,
    /// `HAS_NEW`, `HAS_OLD` and the other flag bits.
    flags: u8,
    /// `ApproximateCreationDateTime`, epoch milliseconds.
    created_millis: i64,
    sequence_number: SequenceNumber,
}

impl RecordHeader {
    /// Reads the header from `r`, positioned just after the tag byte.
    ///
    /// # Errors
    ///
    /// A message naming an unknown event name or view type, or truncation.
    fn read(r: &mut Reader<'_>) -> Result<Self, String> {
        let event_name = match r.byte()? {
            0 => EventName::Insert,
            1 => EventName::Modify,
            2 => EventName::Remove,
            t => return Err(format!("unknown event name {t}")),
        };
        let stream_view_type = match r.byte()? {
            0 => StreamViewType::KeysOnly,
            1 => StreamViewType::NewImage,
            2 => StreamViewType::OldImage,
            3 => StreamViewType::NewAndOldImages,
            t => return Err(format!("unknown view type {t}")),
        };
        Ok(Self {
            event_name,
            stream_view_type,
            flags: r.byte()?,
            created_millis: r.u64()? as i64,
            sequence_number: SequenceNumber(r.u64()?),
        })
    }
}

/// Decodes a binary change record (tag byte included).
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_record(bytes: &[u8]) -> Result<ChangeRecord, String> {
    let mut r = Reader::start(bytes)?;
    let RecordHeader {
        event_name,
        stream_view_type,
        flags,
        created_millis: now_millis,
        sequence_number,
    } = RecordHeader::read(&mut r)?;
    let table_name = r.string()?;
    let keys = r.item()?;
    let new_image = (flags & HAS_NEW != 0).then(|| r.item()).transpose()?;
    let old_image = (flags & HAS_OLD != 0).then(|| r.item()).transpose()?;
    let user_identity = if flags & TTL_IDENTITY != 0 {
        Some(UserIdentity::dynamodb_ttl())
    } else if flags & OTHER_IDENTITY != 0 {
        Some(UserIdentity {
            r#type: r.string()?,
            principal_id: r.string()?,
        })
    } else {
        None
    };
    let size_bytes = item_size_bytes(&keys)
        + new_image.as_ref().map_or(0, item_size_bytes)
        + old_image.as_ref().map_or(0, item_size_bytes);
    r.finish(ChangeRecord {
        event_id: event_id(&table_name, sequence_number),
        table_name,
        sequence_number,
        event_name,
        approximate_creation_date_time_millis: now_millis,
        keys,
        new_image,
        old_image,
        size_bytes,
        stream_view_type,
        user_identity,
    })
}

#[cfg(test)]
mod tests;
