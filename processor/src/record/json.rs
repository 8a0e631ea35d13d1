//! The Lambda record JSON written straight from the engine's stored record
//! ([`StoredRecord`]): no `serde_dynamo` `Item` (a `String` and a `HashMap`
//! per attribute) and no `EventRecord` in between. The bytes are those of
//! serde_json serialising [`aws_lambda_events::event::dynamodb::EventRecord`]
//! with its absent members left out (`record::tests` checks this on generated
//! records): members in the library type's declaration order, attribute values
//! in `serde_dynamo`'s DynamoDB JSON (`{"S":...}`, `B` / `BS` in standard
//! base64 with padding), strings escaped by serde_json itself.

use base64::Engine as _;
use serde::Serializer as _;
use ttlstream_engine::{ItemView, StoredRecord, StreamViewType, Text, ValueView};

use ttlstream_engine::EventName;

use super::{LAMBDA_MEMBERS, Members, RecordContext, TTL_IDENTITY_TYPE, TTL_PRINCIPAL_ID};

/// The JSON a [`RecordContext`] gives every record: `{"awsRegion":` with
/// `region`, and `,"eventSource":"aws:dynamodb","eventVersion":"1.1",
/// "eventSourceARN":` with `event_source_arn` (as [`write_record`] writes
/// them).
pub(super) fn context_json(region: &str, event_source_arn: &str) -> (Vec<u8>, Vec<u8>) {
    let mut head = br#"{"awsRegion":"#.to_vec();
    string(&mut head, region.as_bytes());
    let mut source =
        br#","eventSource":"aws:dynamodb","eventVersion":"1.1","eventSourceARN":"#.to_vec();
    string(&mut source, event_source_arn.as_bytes());
    (head, source)
}

/// Appends the record's compact JSON (no newline) to `out`; returns where
/// its top-level members lie (offsets from where it started writing).
///
/// # Errors
/// `ApproximateCreationDateTime out of range` when the record's time is not a
/// valid date.
/// `sequence_number`: the record's, as its decimal text.
pub(super) fn write_record(
    out: &mut Vec<u8>,
    record: &StoredRecord,
    sequence_number: &str,
    context: &RecordContext,
) -> Result<Members, String> {
    let start = out.len();
    // Where each member's separator is (see `Members`); a record's JSON is
    // far below 4 GiB (DynamoDB items are at most 400 KB).
    let mut bounds = [0u32; LAMBDA_MEMBERS.len() + 1];
    let at = |out: &[u8], offset: usize| (out.len() + offset - start) as u32;
    let millis = record.approximate_creation_date_time_millis();
    check_time(millis)?;
    out.extend_from_slice(&context.head_json);
    bounds[1] = at(out, 0);
    out.extend_from_slice(br#","dynamodb":{"ApproximateCreationDateTime":"#);
    integer(out, millis / 1000);
    out.extend_from_slice(br#","Keys":"#);
    item(out, record.keys());
    if let Some(image) = record.new_image() {
        out.extend_from_slice(br#","NewImage":"#);
        item(out, image);
    }
    if let Some(image) = record.old_image() {
        out.extend_from_slice(br#","OldImage":"#);
        item(out, image);
    }
    out.extend_from_slice(br#","SequenceNumber":""#);
    out.extend_from_slice(sequence_number.as_bytes());
    out.extend_from_slice(br#"","SizeBytes":"#);
    integer(out, i64::try_from(record.size_bytes()).unwrap_or(i64::MAX));
    out.extend_from_slice(br#","StreamViewType":""#);
    out.extend_from_slice(match record.stream_view_type() {
        StreamViewType::KeysOnly => b"KEYS_ONLY",
        StreamViewType::NewImage => b"NEW_IMAGE",
        StreamViewType::OldImage => b"OLD_IMAGE",
        StreamViewType::NewAndOldImages => b"NEW_AND_OLD_IMAGES",
    });
    out.extend_from_slice(br#""}"#);
    bounds[2] = at(out, 0);
    out.extend_from_slice(br#","eventID":"#);
    // Lowercase hex digits: nothing to escape.
    out.push(b'"');
    out.extend_from_slice(&record.event_id_hex());
    out.push(b'"');
    bounds[3] = at(out, 0);
    out.extend_from_slice(match record.event_name() {
        EventName::Insert => br#","eventName":"INSERT""#,
        EventName::Modify => br#","eventName":"MODIFY""#,
        EventName::Remove => br#","eventName":"REMOVE""#,
    });
    // eventSource, eventVersion and eventSourceARN in one piece.
    const VERSION_AT: usize = r#","eventSource":"aws:dynamodb""#.len();
    const ARN_AT: usize = VERSION_AT + r#","eventVersion":"1.1""#.len();
    bounds[4] = at(out, 0);
    bounds[5] = at(out, VERSION_AT);
    bounds[6] = at(out, ARN_AT);
    out.extend_from_slice(&context.source_json);
    bounds[7] = at(out, 0);
    match record.user_identity() {
        Some((TTL_IDENTITY_TYPE, TTL_PRINCIPAL_ID)) => out.extend_from_slice(
            br#","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}"#,
        ),
        Some((r#type, principal_id)) => {
            out.extend_from_slice(br#","userIdentity":{"type":"#);
            string(out, r#type.as_bytes());
            out.extend_from_slice(br#","principalId":"#);
            string(out, principal_id.as_bytes());
            out.push(b'}');
        }
        None => {}
    }
    // Absent `userIdentity`: bounds[7] == bounds[8].
    bounds[8] = at(out, 0);
    out.push(b'}');
    Ok(Members::new(bounds))
}

/// Whether the library type can hold `millis` as `ApproximateCreationDateTime`.
///
/// # Errors
/// `ApproximateCreationDateTime out of range` when it is not a valid date.
pub(super) fn check_time(millis: i64) -> Result<(), String> {
    // The library's float_unix_epoch writes `timestamp_millis() / 1000`.
    chrono::DateTime::from_timestamp_millis(millis)
        .map(drop)
        .ok_or_else(|| "ApproximateCreationDateTime out of range".to_string())
}

/// A JSON string of UTF-8 bytes (a `&str`'s, or a [`Text`]'s, checked when
/// the engine read the record), escaped exactly as serde_json escapes it:
/// control characters, quote and backslash; everything else as is. Strings
/// with nothing to escape (nearly all) are copied whole, without checking
/// their UTF-8 again.
fn string(out: &mut Vec<u8>, s: &[u8]) {
    // No short-circuit: the loop vectorises.
    let plain = s.iter().fold(true, |plain, &b| {
        plain & (b >= 0x20) & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s);
        out.push(b'"');
    } else {
        // Writing into a Vec cannot fail; the bytes are UTF-8 (lossy never
        // replaces anything).
        let text = String::from_utf8_lossy(s);
        let _ = (&mut serde_json::Serializer::new(out)).serialize_str(&text);
    }
}

/// A [`Text`] as a JSON string ([`string`]).
fn text(out: &mut Vec<u8>, t: Text<'_>) {
    string(out, t.as_bytes());
}

fn integer(out: &mut Vec<u8>, n: i64) {
    let _ = (&mut serde_json::Serializer::new(out)).serialize_i64(n);
}

fn item(out: &mut Vec<u8>, view: ItemView<'_>) {
    out.push(b'{');
    for (i, (name, v)) in view.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        text(out, name);
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

/// `bytes` as a quoted standard base64 string, encoded in place (no `String`
/// per value).
fn base64(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let at = out.len();
    // Padded base64 of n bytes is 4 * ceil(n / 3) bytes.
    out.resize(at + bytes.len().div_ceil(3) * 4, 0);
    let written = base64::engine::general_purpose::STANDARD
        .encode_slice(bytes, &mut out[at..])
        .unwrap_or(0);
    out.truncate(at + written);
    out.push(b'"');
}

/// `tag` (`{"L":[` and the like), the elements written by `each` and
/// separated by commas, then `]}`.
fn list<T>(
    out: &mut Vec<u8>,
    tag: &[u8],
    items: impl Iterator<Item = T>,
    each: fn(&mut Vec<u8>, T),
) {
    out.extend_from_slice(tag);
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.extend_from_slice(b"]}");
}

/// One attribute value in DynamoDB JSON, as `serde_dynamo::AttributeValue`
/// serialises it.
fn value(out: &mut Vec<u8>, v: ValueView<'_>) {
    match v {
        ValueView::S(s) => {
            out.extend_from_slice(br#"{"S":"#);
            text(out, s);
            out.push(b'}');
        }
        ValueView::N(s) => {
            out.extend_from_slice(br#"{"N":"#);
            text(out, s);
            out.push(b'}');
        }
        ValueView::B(b) => {
            out.extend_from_slice(br#"{"B":"#);
            base64(out, b);
            out.push(b'}');
        }
        ValueView::Bool(b) => out.extend_from_slice(if b {
            br#"{"BOOL":true}"#
        } else {
            br#"{"BOOL":false}"#
        }),
        ValueView::Null(b) => out.extend_from_slice(if b {
            br#"{"NULL":true}"#
        } else {
            br#"{"NULL":false}"#
        }),
        ValueView::M(m) => {
            out.extend_from_slice(br#"{"M":"#);
            item(out, m);
            out.push(b'}');
        }
        ValueView::L(l) => list(out, br#"{"L":["#, l.values(), value),
        ValueView::Ss(l) => list(out, br#"{"SS":["#, l.texts(), text),
        ValueView::Ns(l) => list(out, br#"{"NS":["#, l.texts(), text),
        ValueView::Bs(l) => list(out, br#"{"BS":["#, l.bytes(), base64),
    }
}
