//! Change records read in place: [`StoredRecord`] checks a stored record once
//! (lengths, UTF-8, nesting, as [`decode_record`](super::decode_record) does) and then hands out its
//! attributes as borrowed [`ValueView`]s, so a reader that turns records into
//! its own bytes (the processor writes Lambda-shaped JSON) builds no `Item`
//! (a `String` and a `HashMap` per attribute). Attributes come in stored order.
//! Strings come as [`Text`]: their bytes were checked as UTF-8 once, when the
//! record was read, and are not checked again.
//!
//! Why it pays: the processor's pipeline, routing and archiving TTL
//! deletions to the file sink from these views, ran at 240,593 archived/s
//! and 6.44 CPU µs per record; from decoded [`ChangeRecord`]s written as
//! JSON by serde, at 109,953/s and 15.60 µs (54 % slower; the processor's
//! `pipeline_bench 200000 2000 5 3`, file sink, median of 3 rounds, both in one run).

use std::ops::Range;

use super::header::StoredHeader;
use super::{
    B, BOOL, BS, HAS_NEW, HAS_OLD, L, M, MAX_DEPTH, N, NS, NULL, OTHER_IDENTITY, Reader, S, SS,
    TTL_IDENTITY,
};
use crate::error::StorageError;
use crate::storage::attribute::number_size;
use crate::stream::record::StreamViewType;
use crate::stream::record::{
    ChangeRecord, EventName, SequenceNumber, UserIdentity, event_id, event_id_hex,
};

/// One change record as the stream keeps it, checked, read without decoding
/// ([`crate::Streams::get_stored_records`]).
#[derive(Clone, Debug)]
pub struct StoredRecord {
    bytes: fjall::Slice,
    event_name: EventName,
    view: StreamViewType,
    created_millis: i64,
    sequence_number: SequenceNumber,
    table_name: Range<usize>,
    keys: Range<usize>,
    new_image: Option<Range<usize>>,
    old_image: Option<Range<usize>>,
    identity: Identity,
    size_bytes: u64,
}

#[derive(Clone, Debug)]
enum Identity {
    None,
    Ttl,
    Other(Range<usize>, Range<usize>),
}

/// A map of attributes (an item, an image, a key, an `M` value), in stored order.
#[derive(Clone, Copy, Debug)]
pub struct ItemView<'a> {
    /// The entries (and possibly more bytes after them).
    bytes: &'a [u8],
    len: usize,
}

/// The elements of an `L` value or of an `SS` / `NS` / `BS` set.
#[derive(Clone, Copy, Debug)]
pub struct ListView<'a> {
    bytes: &'a [u8],
    len: usize,
}

/// A string of a [`StoredRecord`] (an attribute name, an `S` or `N` value, a
/// set element): UTF-8, checked when the record was read, so a reader that
/// copies bytes ([`Text::as_bytes`]) does not check them a second time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<'a>(&'a [u8]);

impl<'a> Text<'a> {
    /// The string's UTF-8 bytes (checked when the record was read).
    pub fn as_bytes(self) -> &'a [u8] {
        self.0
    }

    /// The string as `&str` (checks the bytes again; a checked record's
    /// always pass).
    pub fn as_str(self) -> &'a str {
        std::str::from_utf8(self.0).unwrap_or_default()
    }
}

/// One attribute value, borrowed from the stored record (DynamoDB's data types:
/// `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`, `NS`, `BS`).
#[derive(Clone, Copy, Debug)]
pub enum ValueView<'a> {
    /// String.
    S(Text<'a>),
    /// Number, as its decimal text.
    N(Text<'a>),
    /// Binary, raw bytes.
    B(&'a [u8]),
    /// Boolean.
    Bool(bool),
    /// Null.
    Null(bool),
    /// Map.
    M(ItemView<'a>),
    /// List: [`ListView::values`].
    L(ListView<'a>),
    /// String set: [`ListView::texts`].
    Ss(ListView<'a>),
    /// Number set: [`ListView::texts`].
    Ns(ListView<'a>),
    /// Binary set: [`ListView::bytes`].
    Bs(ListView<'a>),
}

impl StoredRecord {
    /// Checks a stored binary record and notes where its parts are.
    ///
    /// # Errors
    /// A message saying what is wrong with the bytes.
    pub(crate) fn parse(bytes: fjall::Slice) -> Result<Self, String> {
        let all: &[u8] = &bytes;
        let mut r = Reader::start(all)?;
        let at = |r: &Reader<'_>| all.len() - r.bytes.len();
        let super::RecordHeader {
            event_name,
            stream_view_type: view,
            flags,
            created_millis,
            sequence_number,
        } = super::RecordHeader::read(&mut r)?;
        let table_name = checked_str(&mut r, all.len())?;
        // Keys and images whose bytes are all ASCII (short lengths, tags and
        // ASCII text; nearly every record) hold only valid UTF-8: one pass
        // over them instead of a check per string. Any other byte (a long
        // length, binary data, non-ASCII or invalid text) sends every string
        // through its own check.
        let ascii = r.bytes.is_ascii();
        let mut size_bytes = 0;
        let mut map = |r: &mut Reader<'_>| -> Result<Range<usize>, String> {
            let start = at(r);
            size_bytes += check_map(r, 0, ascii)?;
            Ok(start..at(r))
        };
        let keys = map(&mut r)?;
        let new_image = (flags & HAS_NEW != 0).then(|| map(&mut r)).transpose()?;
        let old_image = (flags & HAS_OLD != 0).then(|| map(&mut r)).transpose()?;
        let identity = if flags & TTL_IDENTITY != 0 {
            Identity::Ttl
        } else if flags & OTHER_IDENTITY != 0 {
            let r#type = checked_str(&mut r, all.len())?;
            Identity::Other(r#type, checked_str(&mut r, all.len())?)
        } else {
            Identity::None
        };
        r.finish(())?;
        Ok(Self {
            bytes,
            event_name,
            view,
            created_millis,
            sequence_number,
            table_name,
            keys,
            new_image,
            old_image,
            identity,
            size_bytes,
        })
    }

    /// The stored form of a decoded record: the bytes the engine would
    /// store for it.
    pub fn from_change(change: &ChangeRecord) -> Self {
        let bytes = super::encode_change(change);
        // Our own encoding of a valid record: parsing it cannot fail.
        Self::parse(fjall::Slice::from(bytes.as_slice()))
            .unwrap_or_else(|message| unreachable!("an encoded record does not parse: {message}"))
    }

    /// The owned record ([`crate::Streams::get_records`]' form).
    ///
    /// # Errors
    ///
    /// [`StorageError::Corrupt`] saying what is wrong with the bytes (not
    /// expected: the record was checked when it was read).
    pub fn decode(&self) -> Result<ChangeRecord, StorageError> {
        crate::stream::keys::decode_record(&self.bytes)
    }

    fn str(&self, range: &Range<usize>) -> &str {
        self.bytes
            .get(range.clone())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default()
    }

    fn map(&self, range: &Range<usize>) -> ItemView<'_> {
        let mut r = Reader {
            bytes: self.bytes.get(range.clone()).unwrap_or_default(),
        };
        let len = r.len().unwrap_or(0);
        ItemView {
            bytes: r.bytes,
            len,
        }
    }

    /// The table written.
    pub fn table_name(&self) -> &str {
        self.str(&self.table_name)
    }

    /// This record's header, as [`crate::Streams::get_stored_records_of`]
    /// hands out the records it does not read whole.
    pub fn header(&self) -> StoredHeader {
        StoredHeader::of(self, self.bytes.clone(), self.table_name.clone())
    }

    /// The record's `SequenceNumber`.
    pub fn sequence_number(&self) -> SequenceNumber {
        self.sequence_number
    }

    /// `eventID`: 32 lowercase hex characters, as [`ChangeRecord::event_id`].
    pub fn event_id(&self) -> String {
        event_id(self.table_name(), self.sequence_number)
    }

    /// [`StoredRecord::event_id`] as its 32 ASCII bytes (lowercase hex
    /// digits), without allocating: for writers that copy it into a buffer.
    pub fn event_id_hex(&self) -> [u8; 32] {
        event_id_hex(self.table_name(), self.sequence_number)
    }

    /// INSERT, MODIFY or REMOVE.
    pub fn event_name(&self) -> EventName {
        self.event_name
    }

    /// Clock time of the write, epoch milliseconds.
    pub fn approximate_creation_date_time_millis(&self) -> i64 {
        self.created_millis
    }

    /// The table's view type when the record was written.
    pub fn stream_view_type(&self) -> StreamViewType {
        self.view
    }

    /// `SizeBytes`, as [`ChangeRecord::size_bytes`].
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The key attributes.
    pub fn keys(&self) -> ItemView<'_> {
        self.map(&self.keys)
    }

    /// The item after the write, if the record carries it.
    pub fn new_image(&self) -> Option<ItemView<'_>> {
        self.new_image.as_ref().map(|r| self.map(r))
    }

    /// The item before the write, if the record carries it.
    pub fn old_image(&self) -> Option<ItemView<'_>> {
        self.old_image.as_ref().map(|r| self.map(r))
    }

    /// `userIdentity` (`type`, `principalId`): `Some` for TTL deletions only.
    pub fn user_identity(&self) -> Option<(&str, &str)> {
        match &self.identity {
            Identity::None => None,
            Identity::Ttl => Some((UserIdentity::TTL_TYPE, UserIdentity::TTL_PRINCIPAL_ID)),
            Identity::Other(r#type, principal) => Some((self.str(r#type), self.str(principal))),
        }
    }

    /// Whether this is a TTL deletion (REMOVE by the DynamoDB service), as
    /// [`ChangeRecord::is_ttl_delete`].
    pub fn is_ttl_delete(&self) -> bool {
        self.event_name == EventName::Remove
            && self
                .user_identity()
                .is_some_and(|id| id == (UserIdentity::TTL_TYPE, UserIdentity::TTL_PRINCIPAL_ID))
    }
}

/// A length-prefixed UTF-8 string; returns where its bytes are in the
/// record (`total`: the record's length).
pub(super) fn checked_str(r: &mut Reader<'_>, total: usize) -> Result<Range<usize>, String> {
    let n = checked_text(r)?.len();
    let end = total - r.bytes.len();
    Ok(end - n..end)
}

/// A length-prefixed UTF-8 string.
fn checked_text<'a>(r: &mut Reader<'a>) -> Result<&'a str, String> {
    let n = r.len()?;
    check_utf8(r.take(n)?)
}

fn check_utf8(b: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(b).map_err(|_| "invalid UTF-8".to_string())
}

/// A length-prefixed string's length in bytes; its UTF-8 is checked unless
/// `ascii` (the bytes it is read from are known to be ASCII).
fn text_len(r: &mut Reader<'_>, ascii: bool) -> Result<usize, String> {
    let n = r.len()?;
    let bytes = r.take(n)?;
    if !ascii {
        check_utf8(bytes)?;
    }
    Ok(n)
}

/// Checks a map (count, then names and values) and returns its DynamoDB size
/// at the top level ([`crate::item_size_bytes`]: names plus values). `ascii`:
/// the map's bytes are all ASCII, so its strings need no UTF-8 check.
fn check_map(r: &mut Reader<'_>, depth: usize, ascii: bool) -> Result<u64, String> {
    Ok(check_entries(r, depth, ascii)?.1)
}

/// Checks a map's entries; returns their count and the size of their names
/// and values.
fn check_entries(r: &mut Reader<'_>, depth: usize, ascii: bool) -> Result<(u64, u64), String> {
    let count = r.len()?;
    let mut size = 0;
    for _ in 0..count {
        let n = text_len(r, ascii)?;
        size += n as u64 + check_value(r, depth, ascii)?;
    }
    Ok((count as u64, size))
}

/// Checks one value; returns [`crate::value_size_bytes`] of it.
fn check_value(r: &mut Reader<'_>, depth: usize, ascii: bool) -> Result<u64, String> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    let string = checked_text;
    Ok(match r.byte()? {
        S => text_len(r, ascii)? as u64,
        N => number_size(string(r)?),
        B => {
            let n = r.len()?;
            r.take(n)?.len() as u64
        }
        BOOL | NULL => {
            r.byte()?;
            1
        }
        // 3 + per entry 1 + name + value, as value_size_bytes.
        M => {
            let (count, size) = check_entries(r, depth + 1, ascii)?;
            3 + count + size
        }
        L => {
            let mut size = 3;
            for _ in 0..r.len()? {
                size += 1 + check_value(r, depth + 1, ascii)?;
            }
            size
        }
        SS => (0..r.len()?).try_fold(0, |s, _| Ok::<_, String>(s + text_len(r, ascii)? as u64))?,
        NS => (0..r.len()?).try_fold(0, |s, _| Ok::<_, String>(s + number_size(string(r)?)))?,
        BS => (0..r.len()?).try_fold(0, |s, _| {
            let n = r.len()?;
            Ok::<_, String>(s + r.take(n)?.len() as u64)
        })?,
        t => return Err(format!("unknown value tag {t}")),
    })
}

impl<'a> ItemView<'a> {
    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no attributes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The attributes (name, value), in stored order.
    pub fn iter(&self) -> impl Iterator<Item = (Text<'a>, ValueView<'a>)> + use<'a> {
        let mut r = Reader { bytes: self.bytes };
        (0..self.len).map_while(move |_| {
            let n = r.len().ok()?;
            let name = Text(r.take(n).ok()?);
            Some((name, next_value(&mut r)?))
        })
    }
}

impl<'a> ListView<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements of an `L` value.
    pub fn values(&self) -> impl Iterator<Item = ValueView<'a>> + use<'a> {
        let mut r = Reader { bytes: self.bytes };
        (0..self.len).map_while(move |_| next_value(&mut r))
    }

    /// The elements of an `SS`, `NS` or `BS` set, as stored bytes.
    pub fn bytes(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let mut r = Reader { bytes: self.bytes };
        (0..self.len).map_while(move |_| {
            let n = r.len().ok()?;
            r.take(n).ok()
        })
    }

    /// The elements of an `SS` or `NS` set.
    pub fn texts(&self) -> impl Iterator<Item = Text<'a>> + use<'a> {
        self.bytes().map(Text)
    }
}

/// Reads one value of a checked record and moves past it.
fn next_value<'a>(r: &mut Reader<'a>) -> Option<ValueView<'a>> {
    let start = r.bytes;
    let tag = r.byte().ok()?;
    let text = |r: &mut Reader<'a>| {
        let n = r.len().ok()?;
        r.take(n).ok().map(Text)
    };
    Some(match tag {
        S => ValueView::S(text(r)?),
        N => ValueView::N(text(r)?),
        B => {
            let n = r.len().ok()?;
            ValueView::B(r.take(n).ok()?)
        }
        BOOL => ValueView::Bool(r.byte().ok()? != 0),
        NULL => ValueView::Null(r.byte().ok()? != 0),
        _ => {
            // A container: move past it, elements and all (a length-checked
            // walk, no allocation), then read its length after the tag.
            *r = Reader { bytes: start };
            r.skip_value(0).ok()?;
            let mut header = Reader {
                bytes: start.get(1..)?,
            };
            let len = header.len().ok()?;
            let bytes = header.bytes;
            let list = ListView { bytes, len };
            match tag {
                M => ValueView::M(ItemView { bytes, len }),
                L => ValueView::L(list),
                SS => ValueView::Ss(list),
                NS => ValueView::Ns(list),
                BS => ValueView::Bs(list),
                _ => return None,
            }
        }
    })
}
