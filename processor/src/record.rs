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
use ttlstream_engine::{ChangeRecord, EventName};

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
    pub fn from_change(change: ChangeRecord, context: &RecordContext) -> Result<Self, SourceError> {
        let ChangeRecord {
            table_name,
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
        let sequence_number = sequence_number.to_string();
        let fail = |message: String| SourceError::Record {
            table: table_name.clone(),
            sequence_number: sequence_number.clone(),
            message,
        };
        let created = Utc
            .timestamp_millis_opt(created_millis)
            .single()
            .ok_or_else(|| fail("ApproximateCreationDateTime out of range".into()))?;
        let is_ttl_deletion = event_name == EventName::Remove
            && user_identity.as_ref().is_some_and(|identity| {
                identity.r#type == TTL_IDENTITY_TYPE && identity.principal_id == TTL_PRINCIPAL_ID
            });
        let (has_new_image, has_old_image) = (new_image.is_some(), old_image.is_some());

        // The images move into the library type: no per-record copies of them.
        let mut stream = StreamRecord::default();
        stream.approximate_creation_date_time = created;
        stream.keys = keys;
        stream.new_image = new_image.unwrap_or_default();
        stream.old_image = old_image.unwrap_or_default();
        stream.sequence_number = Some(sequence_number.clone());
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

        let mut value = serde_json::to_value(&event).map_err(|e| fail(e.to_string()))?;
        trim_absent_fields(&mut value, has_new_image, has_old_image);
        let json = serde_json::to_vec(&value).map_err(|e| fail(e.to_string()))?;
        Ok(Self {
            table_name,
            sequence_number,
            approximate_creation_millis: created_millis,
            is_ttl_deletion,
            json,
        })
    }
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
