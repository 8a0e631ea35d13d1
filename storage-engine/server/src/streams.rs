//! The DynamoDB Streams API (AWS JSON 1.0, `X-Amz-Target:
//! DynamoDBStreams_20120810.<Operation>`, Amazon DynamoDB Streams API
//! Reference): ListStreams, DescribeStream, GetShardIterator and GetRecords
//! over the engine's streams and shards.
//!
//! * Shard iterators are opaque strings (hex of stream ARN, shard id,
//!   position and issue time). They expire 15 minutes after GetShardIterator
//!   or GetRecords returned them ("A shard iterator expires 15 minutes after
//!   it is returned to the requester", GetShardIterator), measured on the
//!   engine clock so that a test can step over the limit; an expired one is
//!   an `ExpiredIteratorException`.
//! * GetRecords returns at most 1,000 records or 1 MB; `NextShardIterator`
//!   is null (absent) once a closed shard has been read to its end.
//! * Records use the GetRecords casing: `userIdentity` with `Type` and
//!   `PrincipalId` (Lambda's event uses `type` / `principalId`), only on TTL
//!   deletions; `ApproximateCreationDateTime` in epoch seconds.

use super::arn;
use super::error::{ApiError, ErrorKind};
use super::protocol::parse;
use super::tables::{page_limit, required};
use axum::body::Bytes;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use ttlstream_engine::{ChangeRecord, Engine, SequenceNumber, StreamError, StreamPosition};

/// The `X-Amz-Target` prefix of DynamoDB Streams operations.
pub const STREAMS_TARGET_PREFIX: &str = "DynamoDBStreams_20120810.";

/// How long a shard iterator stays valid, in engine-clock milliseconds (15
/// minutes).
pub const SHARD_ITERATOR_LIFETIME_MILLIS: i64 = 15 * 60 * 1000;

/// Runs the DynamoDB Streams `operation` on the JSON `body`.
///
/// # Errors
///
/// Any [`ApiError`]; an unknown name is `UnknownOperationException`.
pub(super) fn dispatch(
    engine: &Engine,
    region: &str,
    operation: &str,
    body: &Bytes,
) -> Result<Value, ApiError> {
    match operation {
        "ListStreams" => list_streams(engine, region, parse(body)?),
        "DescribeStream" => describe_stream(engine, region, parse(body)?),
        "GetShardIterator" => get_shard_iterator(engine, parse(body)?),
        "GetRecords" => get_records(engine, region, parse(body)?),
        other => Err(ApiError::new(
            ErrorKind::UnknownOperation,
            format!(
                "X-Amz-Target `{STREAMS_TARGET_PREFIX}{other}` names no operation of this server"
            ),
        )),
    }
}

impl From<StreamError> for ApiError {
    fn from(e: StreamError) -> Self {
        let kind = match &e {
            StreamError::TableNotFound { .. }
            | StreamError::StreamNotFound { .. }
            | StreamError::ShardNotFound { .. }
            | StreamError::StreamNotEnabled { .. } => ErrorKind::ResourceNotFound,
            StreamError::InvalidStreamArn { .. }
            | StreamError::SequenceNumberOutsideShard { .. } => ErrorKind::Validation,
            StreamError::TrimmedDataAccess { .. } => ErrorKind::TrimmedDataAccess,
            _ => ErrorKind::InternalServerError,
        };
        Self::new(kind, e.to_string())
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct ListStreamsRequest {
    table_name: Option<String>,
    limit: Option<i64>,
    exclusive_start_stream_arn: Option<String>,
}

/// `ListStreams`: 1 to 100 per page (default 100), paged by
/// `ExclusiveStartStreamArn` / `LastEvaluatedStreamArn`.
fn list_streams(engine: &Engine, region: &str, req: ListStreamsRequest) -> Result<Value, ApiError> {
    let limit = page_limit(req.limit, 100)?;
    let all = engine.streams().list_streams(req.table_name.as_deref())?;
    let start = match &req.exclusive_start_stream_arn {
        None => 0,
        Some(arn) => {
            let arn = arn::for_engine(arn);
            all.iter()
                .position(|s| s.stream_arn == arn)
                .map_or(0, |i| i + 1)
        }
    };
    let page: Vec<_> = all.iter().skip(start).take(limit).collect();
    let streams: Vec<Value> = page
        .iter()
        .map(|s| {
            json!({
                "StreamArn": arn::for_client(&s.stream_arn, region),
                "TableName": s.table_name,
                "StreamLabel": s.stream_label,
            })
        })
        .collect();
    let mut out = json!({ "Streams": streams });
    if start + page.len() < all.len()
        && let Some(last) = page.last()
    {
        out["LastEvaluatedStreamArn"] = json!(arn::for_client(&last.stream_arn, region));
    }
    Ok(out)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct DescribeStreamRequest {
    stream_arn: Option<String>,
    limit: Option<i64>,
    exclusive_start_shard_id: Option<String>,
    shard_filter: Option<ShardFilter>,
}

/// `ShardFilter`: `CHILD_SHARDS` of one shard.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct ShardFilter {
    r#type: Option<String>,
    shard_id: Option<String>,
}

/// `DescribeStream`: the stream and its shards (parent before child),
/// paged by `ExclusiveStartShardId` / `LastEvaluatedShardId` (1 to 100,
/// default 100); with a `ShardFilter` of type `CHILD_SHARDS`, only the
/// shards whose parent is its `ShardId` ("DescribeStream",
/// "ShardFilter" in the DynamoDB Streams API Reference).
fn describe_stream(
    engine: &Engine,
    region: &str,
    req: DescribeStreamRequest,
) -> Result<Value, ApiError> {
    let arn = arn::for_engine(&required(req.stream_arn, "streamArn")?);
    let limit = page_limit(req.limit, 100)?;
    let mut d = engine.streams().describe_stream(&arn)?;
    if let Some(filter) = req.shard_filter {
        match filter.r#type.as_deref() {
            Some("CHILD_SHARDS") => {}
            Some(other) => {
                return Err(super::error::enum_constraint(
                    other,
                    "shardFilter.type",
                    &["CHILD_SHARDS"],
                ));
            }
            None => return Err(ApiError::missing("shardFilter.type")),
        }
        let parent = required(filter.shard_id, "shardFilter.shardId")?;
        d.shards
            .retain(|s| s.parent_shard_id.as_deref() == Some(parent.as_str()));
    }
    let start = match &req.exclusive_start_shard_id {
        None => 0,
        Some(id) => d
            .shards
            .iter()
            .position(|s| &s.shard_id == id)
            .map_or(0, |i| i + 1),
    };
    let page: Vec<_> = d.shards.iter().skip(start).take(limit).collect();
    let shards: Vec<Value> = page
        .iter()
        .map(|s| {
            let mut range = json!({
                "StartingSequenceNumber": s.sequence_number_range.starting_sequence_number.to_string(),
            });
            if let Some(end) = s.sequence_number_range.ending_sequence_number {
                range["EndingSequenceNumber"] = json!(end.to_string());
            }
            let mut shard = json!({ "ShardId": s.shard_id, "SequenceNumberRange": range });
            if let Some(parent) = &s.parent_shard_id {
                shard["ParentShardId"] = json!(parent);
            }
            shard
        })
        .collect();
    let key_schema: Vec<Value> = d
        .key_schema
        .iter()
        .enumerate()
        .map(|(i, k)| {
            json!({ "AttributeName": k.attribute_name, "KeyType": if i == 0 { "HASH" } else { "RANGE" } })
        })
        .collect();
    let mut description = json!({
        "StreamArn": arn::for_client(&d.stream_arn, region),
        "StreamLabel": d.stream_label,
        "StreamStatus": d.stream_status.as_str(),
        "StreamViewType": d.stream_view_type.as_str(),
        "CreationRequestDateTime": d.creation_request_date_time_millis as f64 / 1000.0,
        "TableName": d.table_name,
        "KeySchema": key_schema,
        "Shards": shards,
    });
    if start + page.len() < d.shards.len()
        && let Some(last) = page.last()
    {
        description["LastEvaluatedShardId"] = json!(last.shard_id);
    }
    Ok(json!({ "StreamDescription": description }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct GetShardIteratorRequest {
    stream_arn: Option<String>,
    shard_id: Option<String>,
    shard_iterator_type: Option<String>,
    sequence_number: Option<String>,
}

/// `GetShardIterator`: TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER,
/// AFTER_SEQUENCE_NUMBER.
fn get_shard_iterator(engine: &Engine, req: GetShardIteratorRequest) -> Result<Value, ApiError> {
    let arn = arn::for_engine(&required(req.stream_arn, "streamArn")?);
    let shard_id = required(req.shard_id, "shardId")?;
    let kind = required(req.shard_iterator_type, "shardIteratorType")?;
    let sequence = |req_seq: Option<String>| -> Result<SequenceNumber, ApiError> {
        let text = req_seq.ok_or_else(|| {
            ApiError::validation(format!(
                "SequenceNumber is required for ShardIteratorType {kind}"
            ))
        })?;
        text.parse::<SequenceNumber>()
            .map_err(|e| ApiError::validation(e.to_string()))
    };
    let position = match kind.as_str() {
        "TRIM_HORIZON" => StreamPosition::TrimHorizon,
        "LATEST" => StreamPosition::Latest,
        "AT_SEQUENCE_NUMBER" => StreamPosition::AtSequenceNumber(sequence(req.sequence_number)?),
        "AFTER_SEQUENCE_NUMBER" => {
            StreamPosition::AfterSequenceNumber(sequence(req.sequence_number)?)
        }
        other => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]"
            )));
        }
    };
    let position = engine.streams().shard_iterator(&arn, &shard_id, position)?;
    let iterator = Iterator {
        stream_arn: arn,
        shard_id,
        position,
        issued_millis: engine.clock().now_millis(),
    };
    Ok(json!({ "ShardIterator": iterator.encode() }))
}

/// What a shard iterator string carries.
struct Iterator {
    stream_arn: String,
    shard_id: String,
    position: StreamPosition,
    issued_millis: i64,
}

impl Iterator {
    fn encode(&self) -> String {
        let position = match self.position {
            StreamPosition::TrimHorizon => "T".to_string(),
            StreamPosition::Latest => "L".to_string(),
            StreamPosition::AtSequenceNumber(s) => format!("A{}", s.0),
            StreamPosition::AfterSequenceNumber(s) => format!("F{}", s.0),
        };
        let text = format!(
            "{}|{}|{}|{}",
            self.issued_millis, position, self.shard_id, self.stream_arn
        );
        hex::encode(text)
    }

    fn decode(text: &str) -> Result<Self, ApiError> {
        let invalid = || ApiError::validation(format!("Invalid ShardIterator: {text}"));
        let bytes = hex::decode(text).map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let mut parts = text.splitn(4, '|');
        let issued_millis = parts
            .next()
            .and_then(|p| p.parse().ok())
            .ok_or_else(invalid)?;
        let position = parts.next().ok_or_else(invalid)?;
        let shard_id = parts.next().ok_or_else(invalid)?.to_string();
        let stream_arn = parts.next().ok_or_else(invalid)?.to_string();
        let seq = |s: &str| s.parse::<u64>().map(SequenceNumber).map_err(|_| invalid());
        let position = match position.split_at_checked(1).ok_or_else(invalid)? {
            ("T", "") => StreamPosition::TrimHorizon,
            ("L", "") => StreamPosition::Latest,
            ("A", n) => StreamPosition::AtSequenceNumber(seq(n)?),
            ("F", n) => StreamPosition::AfterSequenceNumber(seq(n)?),
            _ => return Err(invalid()),
        };
        Ok(Self {
            stream_arn,
            shard_id,
            position,
            issued_millis,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct GetRecordsRequest {
    shard_iterator: Option<String>,
    limit: Option<i64>,
}

/// `GetRecords`.
fn get_records(engine: &Engine, region: &str, req: GetRecordsRequest) -> Result<Value, ApiError> {
    let text = required(req.shard_iterator, "shardIterator")?;
    let limit = page_limit(req.limit, ttlstream_engine::MAX_GET_RECORDS)?;
    let iterator = Iterator::decode(&text)?;
    let now = engine.clock().now_millis();
    if now
        > iterator
            .issued_millis
            .saturating_add(SHARD_ITERATOR_LIFETIME_MILLIS)
    {
        return Err(ApiError::new(
            ErrorKind::ExpiredIterator,
            format!(
                "Iterator expired. The iterator was created at time {} while right now it is {}.",
                iterator.issued_millis, now
            ),
        ));
    }
    let out = engine.streams().get_records(
        &iterator.stream_arn,
        &iterator.shard_id,
        iterator.position,
        limit,
    )?;
    let records: Vec<Value> = out.records.iter().map(|r| record_json(r, region)).collect();
    let mut body = json!({ "Records": records });
    if let Some(next) = out.next_position {
        let next = Iterator {
            position: next,
            issued_millis: now,
            ..iterator
        };
        body["NextShardIterator"] = json!(next.encode());
    }
    Ok(body)
}

/// A change record in the GetRecords shape (Amazon DynamoDB Streams API
/// Reference, `Record` and `StreamRecord`), `awsRegion` the client's.
fn record_json(r: &ChangeRecord, region: &str) -> Value {
    let mut stream_record = Map::new();
    stream_record.insert(
        "ApproximateCreationDateTime".into(),
        json!(r.approximate_creation_date_time_millis.div_euclid(1000)),
    );
    stream_record.insert("Keys".into(), json!(r.keys));
    if let Some(image) = &r.new_image {
        stream_record.insert("NewImage".into(), json!(image));
    }
    if let Some(image) = &r.old_image {
        stream_record.insert("OldImage".into(), json!(image));
    }
    stream_record.insert(
        "SequenceNumber".into(),
        json!(r.sequence_number.to_string()),
    );
    stream_record.insert("SizeBytes".into(), json!(r.size_bytes));
    stream_record.insert("StreamViewType".into(), json!(r.stream_view_type.as_str()));
    let mut record = json!({
        "eventID": r.event_id,
        "eventName": r.event_name.as_str(),
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": stream_record,
    });
    if let Some(identity) = &r.user_identity {
        record["userIdentity"] = json!({
            "Type": identity.r#type,
            "PrincipalId": identity.principal_id,
        });
    }
    record
}
