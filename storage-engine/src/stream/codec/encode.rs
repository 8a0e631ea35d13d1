//! Encoding: items and change records into the binary form (`FORMAT.md`,
//! "Value encodings").

use super::*;

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
