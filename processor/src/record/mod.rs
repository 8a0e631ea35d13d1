//! The canonical record: a DynamoDB stream record in the exact JSON shape a Lambda
//! function receives (`eventID`, `eventName`, `dynamodb{...}`, `userIdentity{type,
//! principalId}`), because that is the shape users write filters against.
//!
//! The shape comes from [`aws_lambda_events::event::dynamodb::EventRecord`], never
//! from a hand-written copy. Source: AWS Lambda Developer Guide, "Using AWS Lambda
//! with Amazon DynamoDB" (example event) and DynamoDB Developer Guide, "DynamoDB
//! Streams and Time to Live" (the `userIdentity` of TTL deletions).

use aws_lambda_events::event::dynamodb::{EventRecord, StreamRecord, StreamViewType, UserIdentity};
use chrono::{TimeZone, Utc};
use serde_json::Value;
use ttlstream_engine::ChangeRecord;

use crate::error::SourceError;

/// `userIdentity.type` of a deletion made by DynamoDB's TTL process.
pub const TTL_IDENTITY_TYPE: &str = "Service";
/// `userIdentity.principalId` of a deletion made by DynamoDB's TTL process.
pub const TTL_PRINCIPAL_ID: &str = "dynamodb.amazonaws.com";

/// One change record on its way through the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The table the change happened in.
    pub table_name: String,
    /// The stream's `SequenceNumber`, as a decimal string.
    pub sequence_number: String,
    /// `ApproximateCreationDateTime` in epoch milliseconds.
    pub approximate_creation_millis: i64,
    /// A REMOVE made by the TTL process (`userIdentity` Service /
    /// dynamodb.amazonaws.com), as opposed to a user's delete.
    pub is_ttl_deletion: bool,
    /// The Lambda-shaped JSON of the record, one line, no trailing newline.
    pub json: Vec<u8>,
}

/// Where records come from, for the fields of the Lambda shape that the engine
/// does not know.
#[derive(Clone, Debug)]
pub struct RecordContext {
    /// `awsRegion`.
    pub region: String,
    /// `eventSourceARN`: the stream's ARN.
    pub event_source_arn: String,
}

impl Record {
    /// Converts an engine change record into the Lambda record shape.
    ///
    /// # Errors
    /// [`SourceError::Record`] when the record cannot be serialised (an image
    /// holding a value JSON cannot express) or its time is out of range.
    pub fn from_change(
        mut change: ChangeRecord,
        context: &RecordContext,
    ) -> Result<Self, SourceError> {
        let table_name = std::mem::take(&mut change.table_name);
        let sequence_number = change.sequence_number.to_string();
        let fail = |message: String| SourceError::Record {
            table: table_name.clone(),
            sequence_number: sequence_number.clone(),
            message,
        };
        let created_millis = change.approximate_creation_date_time_millis;
        let is_ttl_deletion = change.is_ttl_delete();
        let (has_new_image, has_old_image) =
            (change.new_image.is_some(), change.old_image.is_some());
        let capacity = 256 + 2 * usize::try_from(change.size_bytes).unwrap_or(0);
        let event = lambda_event(change, context).map_err(fail)?;
        let mut json = Vec::with_capacity(capacity);
        serde_json::to_writer(&mut json, &event).map_err(|e| fail(e.to_string()))?;
        drop_absent_fields(&mut json, has_new_image, has_old_image);
        Ok(Self {
            table_name,
            sequence_number,
            approximate_creation_millis: created_millis,
            is_ttl_deletion,
            json,
        })
    }
}

/// The Lambda [`EventRecord`] of an engine change record; the images move
/// into it (no per-record copies). `Err`: the time is out of range.
fn lambda_event(change: ChangeRecord, context: &RecordContext) -> Result<EventRecord, String> {
    let ChangeRecord {
        sequence_number,
        event_id,
        event_name,
        approximate_creation_date_time_millis: created_millis,
        keys,
        new_image,
        old_image,
        size_bytes,
        stream_view_type,
        user_identity,
        ..
    } = change;
    let created = Utc
        .timestamp_millis_opt(created_millis)
        .single()
        .ok_or_else(|| "ApproximateCreationDateTime out of range".to_string())?;
    let mut stream = StreamRecord::default();
    stream.approximate_creation_date_time = created;
    stream.keys = keys;
    stream.new_image = new_image.unwrap_or_default();
    stream.old_image = old_image.unwrap_or_default();
    stream.sequence_number = Some(sequence_number.to_string());
    stream.size_bytes = i64::try_from(size_bytes).unwrap_or(i64::MAX);
    stream.stream_view_type = Some(match stream_view_type {
        ttlstream_engine::StreamViewType::KeysOnly => StreamViewType::KeysOnly,
        ttlstream_engine::StreamViewType::NewImage => StreamViewType::NewImage,
        ttlstream_engine::StreamViewType::OldImage => StreamViewType::OldImage,
        ttlstream_engine::StreamViewType::NewAndOldImages => StreamViewType::NewAndOldImages,
    });

    let mut event = EventRecord::default();
    event.aws_region = context.region.clone();
    event.change = stream;
    event.event_id = event_id;
    event.event_name = event_name.as_str().to_string();
    event.event_source = Some("aws:dynamodb".to_string());
    event.event_version = Some("1.1".to_string());
    event.event_source_arn = Some(context.event_source_arn.clone());
    event.user_identity = user_identity.map(|identity| {
        let mut lambda_identity = UserIdentity::default();
        lambda_identity.type_ = identity.r#type;
        lambda_identity.principal_id = identity.principal_id;
        lambda_identity
    });
    Ok(event)
}

/// The record's `dynamodb.Keys` as compact JSON (`{}` when absent): what a log
/// line may show of a record when `log_keys` is on, and nothing more.
pub fn keys_json(record: &Record) -> String {
    #[derive(serde::Deserialize)]
    struct Shape {
        dynamodb: Stream,
    }
    #[derive(serde::Deserialize)]
    struct Stream {
        #[serde(rename = "Keys", default)]
        keys: Option<Value>,
    }
    serde_json::from_slice::<Shape>(&record.json)
        .ok()
        .and_then(|shape| shape.dynamodb.keys)
        .map_or_else(|| "{}".to_string(), |keys| keys.to_string())
}

/// [`trim_absent_fields`] for the compact JSON [`Record::from_change`]
/// serialises, without building a [`Value`] tree (that tree cost more than the
/// rest of a record's trip through the pipeline). [`EventRecord`] writes its
/// members in declaration order, ending `...,"userIdentity":null,
/// "recordFormat":null,"tableName":null}` for the members `from_change` leaves
/// `None`, and `"NewImage":{}` / `"OldImage":{}` for absent images. Exact on
/// serde_json's output: a string holds `"` only as `\"`, so `,"NewImage":` can
/// only start a member, and an item attribute's value is a one-member object
/// (`{"S":...}`), never `{}`, so only the record's own image matches.
pub(crate) fn drop_absent_fields(json: &mut Vec<u8>, has_new_image: bool, has_old_image: bool) {
    const TAIL: &[u8] = br#","recordFormat":null,"tableName":null}"#;
    const NO_IDENTITY: &[u8] = br#","userIdentity":null"#;
    if json.ends_with(TAIL) {
        json.truncate(json.len() - TAIL.len());
        if json.ends_with(NO_IDENTITY) {
            json.truncate(json.len() - NO_IDENTITY.len());
        }
        json.push(b'}');
    }
    let mut cut = |member: &[u8]| {
        if let Some(at) = json.windows(member.len()).position(|w| w == member) {
            json.drain(at..at + member.len());
        }
    };
    if !has_new_image {
        cut(br#","NewImage":{}"#);
    }
    if !has_old_image {
        cut(br#","OldImage":{}"#);
    }
}

/// Lambda leaves out what a record does not have: no `NewImage` on a REMOVE or an
/// OLD_IMAGE stream, no `userIdentity` on a user's write. The library type always
/// serialises them (as `{}` or `null`), so drop them here.
pub(crate) fn trim_absent_fields(value: &mut Value, has_new_image: bool, has_old_image: bool) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    object.retain(|_, field| !field.is_null());
    if let Some(Value::Object(dynamodb)) = object.get_mut("dynamodb") {
        dynamodb.retain(|_, field| !field.is_null());
        if !has_new_image {
            dynamodb.remove("NewImage");
        }
        if !has_old_image {
            dynamodb.remove("OldImage");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_dynamo::{AttributeValue, Item};
    use ttlstream_engine::{
        EventName, SequenceNumber, StreamViewType as View, UserIdentity as Identity,
    };

    use super::*;

    /// Attribute names and values that look like the members cut from the JSON.
    fn item(extra: &str) -> Item {
        Item::from(HashMap::from([
            ("UserName".to_string(), AttributeValue::S("user-1".into())),
            ("NewImage".to_string(), AttributeValue::M(HashMap::new())),
            ("OldImage".to_string(), AttributeValue::Null(true)),
            (
                "tableName".to_string(),
                AttributeValue::S(r#","NewImage":{},"recordFormat":null,"tableName":null}"#.into()),
            ),
            (
                r#"x","userIdentity":null"#.to_string(),
                AttributeValue::S(extra.into()),
            ),
        ]))
    }

    fn change(name: EventName, view: View, new: bool, old: bool, ttl: bool) -> ChangeRecord {
        ChangeRecord {
            table_name: "SessionData".into(),
            sequence_number: SequenceNumber(42),
            event_id: "0123456789abcdef0123456789abcdef".into(),
            event_name: name,
            approximate_creation_date_time_millis: 1_571_827_561_000,
            keys: Item::from(HashMap::from([(
                "UserName".to_string(),
                AttributeValue::S("user-1".into()),
            )])),
            new_image: new.then(|| item("new")),
            old_image: old.then(|| item("old")),
            size_bytes: 120,
            stream_view_type: view,
            user_identity: ttl.then(Identity::dynamodb_ttl),
        }
    }

    /// The JSON of `from_change` is the library type's, serialised through a
    /// `Value` tree with the absent members removed (the slow way it was built
    /// before), for every combination of images and identity.
    #[test]
    fn json_equals_the_library_shape_without_absent_members() {
        let context = RecordContext {
            region: "local".into(),
            event_source_arn: "arn:aws:dynamodb:local:000000000000:table/SessionData/stream/x"
                .into(),
        };
        let cases = [
            change(EventName::Insert, View::NewAndOldImages, true, false, false),
            change(EventName::Modify, View::NewAndOldImages, true, true, false),
            change(EventName::Remove, View::NewAndOldImages, false, true, true),
            change(EventName::Remove, View::OldImage, false, true, false),
            change(EventName::Insert, View::NewImage, true, false, false),
            change(EventName::Remove, View::KeysOnly, false, false, true),
        ];
        for case in cases {
            let (has_new, has_old) = (case.new_image.is_some(), case.old_image.is_some());
            let ttl = case.is_ttl_delete();
            let mut expected =
                serde_json::to_value(lambda_event(case.clone(), &context).expect("event"))
                    .expect("value");
            trim_absent_fields(&mut expected, has_new, has_old);
            let record = Record::from_change(case, &context).expect("record");
            let got: Value = serde_json::from_slice(&record.json).expect("json");
            assert_eq!(got, expected, "{}", String::from_utf8_lossy(&record.json));
            assert_eq!(record.is_ttl_deletion, ttl);
            assert_eq!(got.get("userIdentity").is_some(), ttl);
            assert_eq!(got["dynamodb"].get("NewImage").is_some(), has_new);
            assert_eq!(got["dynamodb"].get("OldImage").is_some(), has_old);
            assert!(got.get("tableName").is_none() && got.get("recordFormat").is_none());
        }
    }
}
