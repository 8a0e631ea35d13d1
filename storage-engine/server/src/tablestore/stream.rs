//! The change records of a table with `stream_spec.enable_stream`, through
//! Tablestore's stream operations ("Tablestore: ListStream",
//! "DescribeStream", "GetShardIterator", "GetStreamRecord"; fields of
//! `table_store.proto`). A table's stream (`stream_id`: the table name) is
//! split into shards as the engine rotates them
//! ([`ttlstream_engine::StreamOptions`]): `DescribeStream` lists them parent
//! first, each child naming its `parent_id`; read a parent to its end
//! (`next_shard_iterator` null) before its child ("Tablestore:
//! DescribeStream": read all data from a parent shard before reading its
//! child shards). Each record carries `action_type`
//! (`PUT_ROW` for a new row, `UPDATE_ROW` for a changed one, `DELETE_ROW`),
//! the row (`record`: primary key and the newest value of each column; for
//! `DELETE_ROW`, the row as it was), and, for the sweeper's deletions only,
//! `user_identity` `{"type": "Service", "principal_id": "dynamodb.amazonaws.com"}`,
//! the system-deletion tag every model's records share.

use super::error::{OtsCode, OtsError};
use super::value::{AttributeColumn, from_attribute, from_key};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use ttlstream_engine::{
    AttributeValue, ChangeRecord, Engine, EventName, Item, SequenceNumber, StreamError,
    StreamPosition,
};

/// Records per GetStreamRecord when `limit` is not given (and the most).
const MAX_RECORDS: usize = 1_000;

impl From<StreamError> for OtsError {
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::TableNotFound { table } => Self::new(
                OtsCode::ObjectNotExist,
                format!("Requested stream does not exist: {table}"),
            ),
            StreamError::Storage(_) => Self::new(OtsCode::InternalServerError, e.to_string()),
            other => Self::invalid(other.to_string()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListStreamRequest {
    table_name: Option<String>,
}

pub(super) fn list_stream(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: ListStreamRequest = super::parse(body)?;
    let names = match r.table_name {
        Some(t) => vec![t],
        None => engine.tablestore().list_tables()?,
    };
    let mut streams = Vec::new();
    for name in names {
        let d = engine.tablestore().describe_table(&name)?;
        if d.stream_view_type.is_some() {
            streams.push(json!({"stream_id": name, "table_name": name}));
        }
    }
    Ok(json!({ "streams": streams }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DescribeStreamRequest {
    stream_id: String,
}

/// The table of a stream id, checked to have a stream.
fn stream_table(engine: &Engine, stream_id: &str) -> Result<(), OtsError> {
    let d = engine.tablestore().describe_table(stream_id)?;
    if d.stream_view_type.is_none() {
        return Err(OtsError::new(
            OtsCode::ObjectNotExist,
            format!("Requested stream does not exist: table {stream_id} has no stream"),
        ));
    }
    Ok(())
}

pub(super) fn describe_stream(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: DescribeStreamRequest = super::parse(body)?;
    stream_table(engine, &r.stream_id)?;
    let shards: Vec<Value> = engine
        .tablestore()
        .describe_stream(&r.stream_id)?
        .into_iter()
        .map(|shard| match shard.parent_id {
            Some(parent) => json!({"shard_id": shard.shard_id, "parent_id": parent}),
            None => json!({"shard_id": shard.shard_id}),
        })
        .collect();
    Ok(json!({
        "stream_id": r.stream_id,
        "table_name": r.stream_id,
        "stream_status": "STREAM_ACTIVE",
        "shards": shards,
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetShardIteratorRequest {
    stream_id: String,
    shard_id: String,
}

/// A shard iterator: `<next sequence number, or "h" for the oldest kept>:<shard id>:<table>`
/// (neither a shard id nor a table name holds a `:`).
fn iterator(position: StreamPosition, shard_id: &str, table: &str) -> String {
    match position {
        StreamPosition::AtSequenceNumber(n) => format!("{}:{shard_id}:{table}", n.0),
        StreamPosition::AfterSequenceNumber(n) => {
            format!("{}:{shard_id}:{table}", n.0.saturating_add(1))
        }
        StreamPosition::TrimHorizon | StreamPosition::Latest => format!("h:{shard_id}:{table}"),
    }
}

pub(super) fn get_shard_iterator(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: GetShardIteratorRequest = super::parse(body)?;
    stream_table(engine, &r.stream_id)?;
    let shards = engine.tablestore().describe_stream(&r.stream_id)?;
    if !shards.iter().any(|s| s.shard_id == r.shard_id) {
        return Err(OtsError::invalid(format!(
            "shard_id {:?} is not a shard of stream {} (DescribeStream lists them)",
            r.shard_id, r.stream_id
        )));
    }
    let start = iterator(StreamPosition::TrimHorizon, &r.shard_id, &r.stream_id);
    Ok(json!({ "shard_iterator": start }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetStreamRecordRequest {
    shard_iterator: String,
    limit: Option<i32>,
}

pub(super) fn get_stream_record(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: GetStreamRecordRequest = super::parse(body)?;
    let bad = || {
        OtsError::invalid(format!(
            "shard_iterator {:?} is not valid",
            r.shard_iterator
        ))
    };
    let mut parts = r.shard_iterator.splitn(3, ':');
    let (Some(position), Some(shard_id), Some(table)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let from = match position {
        "h" => StreamPosition::TrimHorizon,
        n => StreamPosition::AtSequenceNumber(SequenceNumber(n.parse().map_err(|_| bad())?)),
    };
    let limit = match r.limit {
        None => MAX_RECORDS,
        Some(l) if l >= 1 => usize::try_from(l).unwrap_or(MAX_RECORDS).min(MAX_RECORDS),
        Some(l) => {
            return Err(OtsError::invalid(format!(
                "limit {l} is out of range: at least 1"
            )));
        }
    };
    let page = engine
        .tablestore()
        .get_stream_record(table, shard_id, from, limit)?;
    let order: Vec<String> = engine
        .tablestore()
        .describe_table(table)?
        .primary_key
        .into_iter()
        .map(|k| k.attribute_name)
        .collect();
    // Null once a closed shard is read to its end: go on with its child.
    let next = page
        .next_position
        .map(|position| iterator(position, shard_id, table));
    let stream_records: Vec<Value> = page
        .records
        .iter()
        .map(|c| record_json(c, &order))
        .collect();
    Ok(json!({ "stream_records": stream_records, "next_shard_iterator": next }))
}

fn record_json(record: &ChangeRecord, order: &[String]) -> Value {
    let (action, image) = match record.event_name {
        EventName::Insert => ("PUT_ROW", record.new_image.as_ref()),
        EventName::Modify => ("UPDATE_ROW", record.new_image.as_ref()),
        _ => ("DELETE_ROW", record.old_image.as_ref()),
    };
    let columns: Vec<AttributeColumn> = image
        .map(|item| {
            let map: &HashMap<String, AttributeValue> = item;
            let mut names: Vec<&String> = map.keys().filter(|n| !order.contains(n)).collect();
            names.sort();
            names
                .into_iter()
                .map(|n| AttributeColumn {
                    name: n.clone(),
                    value: from_attribute(&map[n]),
                    timestamp: None,
                })
                .collect()
        })
        .unwrap_or_default();
    let keys: &Item = &record.keys;
    let mut out = json!({
        "action_type": action,
        "sequence_number": record.sequence_number.0,
        "origin_record_timestamp": record.approximate_creation_date_time_millis,
        "record": {"primary_key": from_key(keys, order), "attribute_columns": columns},
    });
    if let Some(identity) = &record.user_identity {
        out["user_identity"] =
            json!({"type": identity.r#type, "principal_id": identity.principal_id});
    }
    out
}
