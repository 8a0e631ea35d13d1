//! Records that arrive already in DynamoDB's stream shape (a Lambda event, a
//! replay file, GetRecords) turned into the pipeline's [`Record`].
//!
//! Parsing goes through [`aws_lambda_events::event::dynamodb::EventRecord`], which
//! is lenient as AWS wire input must be read. The GetRecords API spells
//! `userIdentity` as `Type` / `PrincipalId`; the Lambda event as `type` /
//! `principalId` (DynamoDB Developer Guide, "DynamoDB Streams and Time to Live"):
//! both are accepted and the record is written in the Lambda casing.

use aws_lambda_events::event::dynamodb::EventRecord;
use serde_json::Value;

use crate::record::{Record, TTL_IDENTITY_TYPE, TTL_PRINCIPAL_ID};

/// Why a stream record could not be used; the caller adds where it came from.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventRecordError {
    /// Not JSON, or not a stream record's shape.
    #[error("not a DynamoDB stream record: {0}")]
    Shape(String),
    /// `dynamodb.SequenceNumber` is missing or empty.
    #[error("dynamodb.SequenceNumber is missing")]
    NoSequenceNumber,
    /// The table cannot be told: no `eventSourceARN` and no default table.
    #[error("no eventSourceARN to take the table name from, and no `table` configured")]
    NoTable,
}

/// Parses one stream record from JSON in the Lambda event's shape or in the
/// GetRecords `Record` shape. `default_table` names the table when the record
/// has no `eventSourceARN` (GetRecords records have none).
///
/// # Errors
/// [`EventRecordError`] saying what is wrong with the record.
pub fn parse_record(value: Value, default_table: Option<&str>) -> Result<Record, EventRecordError> {
    let value = lambda_casing(value);
    let event: EventRecord =
        serde_json::from_value(value).map_err(|e| EventRecordError::Shape(e.to_string()))?;
    from_event_record(event, default_table)
}

/// Converts a parsed Lambda `EventRecord`.
///
/// # Errors
/// As [`parse_record`].
pub fn from_event_record(
    event: EventRecord,
    default_table: Option<&str>,
) -> Result<Record, EventRecordError> {
    let sequence_number = event
        .change
        .sequence_number
        .clone()
        .filter(|s| !s.is_empty())
        .ok_or(EventRecordError::NoSequenceNumber)?;
    let table_name = event
        .event_source_arn
        .as_deref()
        .and_then(table_from_arn)
        .or(default_table)
        .ok_or(EventRecordError::NoTable)?
        .to_string();
    let is_ttl_deletion = event.event_name == "REMOVE"
        && event.user_identity.as_ref().is_some_and(|identity| {
            identity.type_ == TTL_IDENTITY_TYPE && identity.principal_id == TTL_PRINCIPAL_ID
        });
    let approximate_creation_millis = event
        .change
        .approximate_creation_date_time
        .timestamp_millis();
    let has_new_image = !event.change.new_image.is_empty();
    let has_old_image = !event.change.old_image.is_empty();
    let mut value =
        serde_json::to_value(&event).map_err(|e| EventRecordError::Shape(e.to_string()))?;
    crate::record::trim_absent_fields(&mut value, has_new_image, has_old_image);
    let json = serde_json::to_vec(&value).map_err(|e| EventRecordError::Shape(e.to_string()))?;
    Ok(Record::new(
        table_name,
        sequence_number,
        approximate_creation_millis,
        is_ttl_deletion,
        json,
    ))
}

/// The table name in a table or stream ARN
/// (`arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`).
pub fn table_from_arn(arn: &str) -> Option<&str> {
    let resource = arn.splitn(6, ':').nth(5)?;
    let mut parts = resource.split('/');
    (parts.next() == Some("table"))
        .then(|| parts.next())
        .flatten()
        .filter(|name| !name.is_empty())
}

/// GetRecords' `userIdentity.Type` / `PrincipalId` renamed to the Lambda casing.
fn lambda_casing(mut value: Value) -> Value {
    if let Some(Value::Object(identity)) = value.get_mut("userIdentity") {
        for (api, lambda) in [("Type", "type"), ("PrincipalId", "principalId")] {
            if let Some(v) = identity.remove(api) {
                identity.entry(lambda).or_insert(v);
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ttl_remove(identity: Value) -> Value {
        json!({
            "eventID": "1", "eventName": "REMOVE", "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
            "dynamodb": {"ApproximateCreationDateTime": 1571827598.0,
                "Keys": {"UserName": {"S": "user1"}},
                "OldImage": {"UserName": {"S": "user1"}, "ExpirationTime": {"N": "1571827560"}},
                "SequenceNumber": "400000000000000499660", "SizeBytes": 41,
                "StreamViewType": "OLD_IMAGE"},
            "userIdentity": identity,
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/SessionData/stream/2019-10-23T08:46:00.000"
        })
    }

    #[test]
    fn lambda_and_get_records_casing_give_the_same_record() {
        let lambda = parse_record(
            ttl_remove(json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"})),
            None,
        )
        .expect("lambda shape");
        let api = parse_record(
            ttl_remove(json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"})),
            None,
        )
        .expect("GetRecords shape");
        // Images are hash maps: compare the JSON as values, not as bytes.
        let as_value = |r: &Record| serde_json::from_slice::<Value>(&r.json).expect("json");
        assert_eq!(as_value(&lambda), as_value(&api));
        assert_eq!(
            (
                &lambda.table_name,
                &lambda.sequence_number,
                lambda.is_ttl_deletion
            ),
            (&api.table_name, &api.sequence_number, api.is_ttl_deletion)
        );
        assert!(lambda.is_ttl_deletion);
        assert_eq!(lambda.table_name, "SessionData");
        assert_eq!(lambda.sequence_number, "400000000000000499660");
        assert_eq!(lambda.approximate_creation_millis, 1_571_827_598_000);
        let json: Value = serde_json::from_slice(&lambda.json).expect("json");
        assert_eq!(json["userIdentity"]["type"], "Service");
        assert!(json["dynamodb"].get("NewImage").is_none(), "{json}");
    }

    #[test]
    fn user_delete_is_not_a_ttl_deletion() {
        let mut value = ttl_remove(Value::Null);
        value.as_object_mut().map(|o| o.remove("userIdentity"));
        let record = parse_record(value, None).expect("record");
        assert!(!record.is_ttl_deletion);
        let json: Value = serde_json::from_slice(&record.json).expect("json");
        assert!(json.get("userIdentity").is_none(), "{json}");
    }

    #[test]
    fn missing_pieces_are_named() {
        let mut value = ttl_remove(Value::Null);
        value["dynamodb"]
            .as_object_mut()
            .map(|d| d.remove("SequenceNumber"));
        assert!(matches!(
            parse_record(value, None),
            Err(EventRecordError::NoSequenceNumber)
        ));
        let mut value = ttl_remove(Value::Null);
        value.as_object_mut().map(|o| o.remove("eventSourceARN"));
        assert!(matches!(
            parse_record(value.clone(), None),
            Err(EventRecordError::NoTable)
        ));
        assert_eq!(
            parse_record(value, Some("T"))
                .expect("default table")
                .table_name,
            "T"
        );
        assert!(matches!(
            parse_record(json!([1]), None),
            Err(EventRecordError::Shape(_))
        ));
    }

    #[test]
    fn table_names_from_arns() {
        assert_eq!(
            table_from_arn("arn:aws:dynamodb:eu-west-1:1:table/T-1/stream/2024"),
            Some("T-1")
        );
        assert_eq!(
            table_from_arn("arn:aws:dynamodb:eu-west-1:1:table/X"),
            Some("X")
        );
        assert_eq!(table_from_arn("arn:aws:s3:::bucket"), None);
        assert_eq!(table_from_arn("nonsense"), None);
    }
}
