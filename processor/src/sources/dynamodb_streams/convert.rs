//! A GetRecords `Record` (the SDK's type) in the Lambda event's shape.

use aws_lambda_events::event::dynamodb::{EventRecord, StreamRecord, UserIdentity};
use aws_sdk_dynamodbstreams::types::{AttributeValue, Record as ApiRecord};
use chrono::{TimeZone, Utc};
use std::collections::HashMap;

use crate::record::Record;
use crate::sources::event_record::{EventRecordError, from_event_record};

/// Converts one GetRecords record of the stream `stream_arn` of `table`.
/// `userIdentity.Type` / `PrincipalId` become the Lambda event's `type` /
/// `principalId`; `eventSourceARN` is the stream ARN, as Lambda sets it.
///
/// # Errors
/// [`EventRecordError`] when the record has no `SequenceNumber`.
pub fn from_api_record(
    record: ApiRecord,
    stream_arn: &str,
    table: &str,
    region: &str,
) -> Result<Record, EventRecordError> {
    let mut stream = StreamRecord::default();
    if let Some(api) = record.dynamodb {
        if let Some(time) = api.approximate_creation_date_time
            && let Some(t) = Utc.timestamp_opt(time.secs(), time.subsec_nanos()).single()
        {
            stream.approximate_creation_date_time = t;
        }
        stream.keys = item(api.keys);
        stream.new_image = item(api.new_image);
        stream.old_image = item(api.old_image);
        stream.sequence_number = api.sequence_number;
        stream.size_bytes = api.size_bytes.unwrap_or(0);
        stream.stream_view_type = api.stream_view_type.and_then(|v| {
            serde_json::from_value(serde_json::Value::String(v.as_str().into())).ok()
        });
    }
    let mut event = EventRecord::default();
    event.aws_region = record.aws_region.unwrap_or_else(|| region.to_string());
    event.change = stream;
    event.event_id = record.event_id.unwrap_or_default();
    event.event_name = record
        .event_name
        .map(|name| name.as_str().to_string())
        .unwrap_or_default();
    event.event_source = record.event_source;
    event.event_version = record.event_version;
    event.event_source_arn = Some(stream_arn.to_string());
    event.user_identity = record.user_identity.map(|identity| {
        let mut lambda = UserIdentity::default();
        lambda.type_ = identity.r#type.unwrap_or_default();
        lambda.principal_id = identity.principal_id.unwrap_or_default();
        lambda
    });
    from_event_record(event, Some(table))
}

fn item(map: Option<HashMap<String, AttributeValue>>) -> serde_dynamo::Item {
    map.map(serde_dynamo::Item::from).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodbstreams::types::{Identity, OperationType, StreamRecord as ApiStream};
    use aws_smithy_types::DateTime;

    use super::*;

    #[test]
    fn a_ttl_removal_keeps_its_identity_in_lambda_casing() {
        let record = ApiRecord::builder()
            .event_id("e1")
            .event_name(OperationType::Remove)
            .event_source("aws:dynamodb")
            .event_version("1.1")
            .aws_region("us-east-1")
            .user_identity(
                Identity::builder()
                    .r#type("Service")
                    .principal_id("dynamodb.amazonaws.com")
                    .build(),
            )
            .dynamodb(
                ApiStream::builder()
                    .approximate_creation_date_time(DateTime::from_secs(1_571_827_598))
                    .keys("UserName", AttributeValue::S("user1".into()))
                    .old_image("UserName", AttributeValue::S("user1".into()))
                    .old_image("ExpirationTime", AttributeValue::N("1571827560".into()))
                    .sequence_number("400000000000000499660")
                    .size_bytes(41)
                    .stream_view_type(aws_sdk_dynamodbstreams::types::StreamViewType::OldImage)
                    .build(),
            )
            .build();
        let arn = "arn:aws:dynamodb:us-east-1:1:table/SessionData/stream/x";
        let converted = from_api_record(record, arn, "SessionData", "us-east-1").expect("record");
        assert!(converted.is_ttl_deletion);
        assert_eq!(converted.sequence_number, "400000000000000499660");
        assert_eq!(converted.approximate_creation_millis, 1_571_827_598_000);
        let json: serde_json::Value = serde_json::from_slice(&converted.json).expect("json");
        assert_eq!(
            json["userIdentity"]["principalId"],
            "dynamodb.amazonaws.com"
        );
        assert_eq!(
            json["dynamodb"]["OldImage"]["ExpirationTime"]["N"],
            "1571827560"
        );
        assert_eq!(json["dynamodb"]["StreamViewType"], "OLD_IMAGE");
        assert_eq!(json["eventSourceARN"], arn);
        assert!(json["dynamodb"].get("NewImage").is_none());
    }
}
