//! Table operations: `CreateTable`, `UpdateTable`, `DescribeTable`,
//! `DeleteTable`, `ListTable` ("Tablestore: CreateTable", "UpdateTable",
//! "DescribeTable", "DeleteTable", "ListTable"; message fields of the SDK's
//! `table_store.proto`).

use super::error::OtsError;
use super::value::{key_type, key_type_name};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ttlstream_engine::tablestore::{TablestoreOptions, TablestoreTableDefinition};
use ttlstream_engine::{Engine, KeyAttribute, StreamViewType};

/// `table_meta`: the name and primary-key schema.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct TableMeta {
    table_name: String,
    primary_key: Vec<PrimaryKeySchema>,
}

/// `table_meta.primary_key[]`: `{"name": "pk", "type": "STRING"}`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct PrimaryKeySchema {
    name: String,
    #[serde(rename = "type")]
    type_: String,
}

/// `table_options`; on UpdateTable a missing member keeps its value.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableOptionsIn {
    /// Seconds; -1 = never expire.
    time_to_live: Option<i64>,
    max_versions: Option<u32>,
    /// The max version offset, seconds.
    deviation_cell_version_in_sec: Option<i64>,
}

impl TableOptionsIn {
    fn apply(&self, mut options: TablestoreOptions) -> TablestoreOptions {
        if let Some(v) = self.time_to_live {
            options.time_to_live_secs = v;
        }
        if let Some(v) = self.max_versions {
            options.max_versions = v;
        }
        if let Some(v) = self.deviation_cell_version_in_sec {
            options.max_time_deviation_secs = v;
        }
        options
    }
}

/// `stream_spec`: `{"enable_stream": true}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamSpec {
    enable_stream: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateTableRequest {
    table_meta: TableMeta,
    /// Accepted and not enforced: this server has no capacity model.
    #[serde(default)]
    #[allow(dead_code)]
    reserved_throughput: Option<Value>,
    #[serde(default)]
    table_options: TableOptionsIn,
    stream_spec: Option<StreamSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateTableRequest {
    table_name: String,
    table_options: TableOptionsIn,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableNameRequest {
    table_name: String,
}

fn options_json(o: &TablestoreOptions) -> Value {
    json!({
        "time_to_live": o.time_to_live_secs,
        "max_versions": o.max_versions,
        "deviation_cell_version_in_sec": o.max_time_deviation_secs,
    })
}

pub(super) fn create_table(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let request: CreateTableRequest = super::parse(body)?;
    let meta = request.table_meta;
    let mut primary_key = Vec::with_capacity(meta.primary_key.len());
    for (i, k) in meta.primary_key.iter().enumerate() {
        let t = key_type(&k.type_).map_err(|e| {
            OtsError::invalid(format!("table_meta.primary_key[{i}]: {}", e.message))
        })?;
        primary_key.push(KeyAttribute::new(k.name.clone(), t));
    }
    let definition = TablestoreTableDefinition {
        table_name: meta.table_name,
        primary_key,
        options: request.table_options.apply(TablestoreOptions::default()),
        stream_view_type: request
            .stream_spec
            .filter(|s| s.enable_stream)
            .map(|_| StreamViewType::NewAndOldImages),
    };
    engine.tablestore().create_table(definition)?;
    Ok(json!({}))
}

pub(super) fn update_table(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let request: UpdateTableRequest = super::parse(body)?;
    let current = engine.tablestore().describe_table(&request.table_name)?;
    let options = request.table_options.apply(current.options);
    engine
        .tablestore()
        .update_table_options(&request.table_name, options)?;
    Ok(json!({ "table_options": options_json(&options) }))
}

pub(super) fn describe_table(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let request: TableNameRequest = super::parse(body)?;
    let d = engine.tablestore().describe_table(&request.table_name)?;
    let primary_key: Vec<Value> = d
        .primary_key
        .iter()
        .map(|k| json!({"name": k.attribute_name, "type": key_type_name(k.attribute_type)}))
        .collect();
    Ok(json!({
        "table_meta": {"table_name": d.table_name, "primary_key": primary_key},
        "table_options": options_json(&d.options),
        "stream_details": {"enable_stream": d.stream_view_type.is_some()},
        "table_status": "ACTIVE",
    }))
}

pub(super) fn delete_table(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let request: TableNameRequest = super::parse(body)?;
    engine.tablestore().delete_table(&request.table_name)?;
    Ok(json!({}))
}

pub(super) fn list_table(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let _: serde_json::Map<String, Value> = super::parse(body)?;
    Ok(json!({ "table_names": engine.tablestore().list_tables()? }))
}
