//! The change records of a table with `stream_spec.enable_stream`, through
//! Tablestore's stream operations ("Tablestore: ListStream",
//! "DescribeStream", "GetShardIterator", "GetStreamRecord"; fields of
//! `table_store.proto`). A table's stream has one shard, `"0"`; its
//! `stream_id` is the table name. Each record carries `action_type`
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

/// The one shard of a table's stream.
const SHARD_ID: &str = "0";
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
    Ok(json!({
        "stream_id": r.stream_id,
        "table_name": r.stream_id,
        "stream_status": "STREAM_ACTIVE",
        "shards": [{"shard_id": SHARD_ID}],
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetShardIteratorRequest {
    stream_id: String,
    shard_id: String,
}

/// A shard iterator: `<next sequence number or "h" for the oldest kept>:<table>`.
fn iterator(table: &str, next: Option<u64>) -> String {
    match next {
        Some(n) => format!("{n}:{table}"),
        None => format!("h:{table}"),
    }
}

pub(super) fn get_shard_iterator(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: GetShardIteratorRequest = super::parse(body)?;
    stream_table(engine, &r.stream_id)?;
    if r.shard_id != SHARD_ID {
        return Err(OtsError::invalid(format!(
            "shard_id {:?} is not a shard of stream {} (its one shard is \"{SHARD_ID}\")",
            r.shard_id, r.stream_id
        )));
    }
    Ok(json!({ "shard_iterator": iterator(&r.stream_id, None) }))
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
    let (position, table) = r.shard_iterator.split_once(':').ok_or_else(bad)?;
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
    let records = engine.tablestore().read_stream(table, from, limit)?;
    let order: Vec<String> = engine
        .tablestore()
        .describe_table(table)?
        .primary_key
        .into_iter()
        .map(|k| k.attribute_name)
        .collect();
    let next = match records.last() {
        Some(last) => iterator(table, Some(last.sequence_number.0.saturating_add(1))),
        None => r.shard_iterator.clone(),
    };
    let stream_records: Vec<Value> = records.iter().map(|c| record_json(c, &order)).collect();
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
