//! BatchWriteItem and BatchGetItem (DynamoDB API Reference pages of the same
//! names): up to 25 put/delete requests, or 100 keys, across tables.
//!
//! As in DynamoDB, the whole batch is rejected before anything is written
//! when a table does not exist, a key does not match the key schema, one
//! item appears twice, an item is over 400 KB or there are too many
//! requests. Every request of a valid batch is processed, so
//! `UnprocessedItems` is always empty; BatchGetItem stops adding items once
//! the response reaches 16 MB and returns the rest in `UnprocessedKeys`.

use super::capacity::{self, Report};
use super::error::{ApiError, ErrorKind, RESOURCE_NOT_FOUND, enum_constraint};
use super::items::names;
use super::tables::{required, table_name};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use ttlstream_engine::{Engine, GetItemInput, Item, item_size_bytes};

/// Most put and delete requests in one BatchWriteItem call.
pub const MAX_BATCH_WRITE_REQUESTS: usize = 25;
/// Most keys in one BatchGetItem call.
pub const MAX_BATCH_GET_KEYS: usize = 100;
/// BatchGetItem's response size limit (16 MB); keys left over are returned
/// in `UnprocessedKeys`.
pub const MAX_BATCH_GET_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// `BatchWriteItem` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct BatchWriteItemRequest {
    request_items: Option<BTreeMap<String, Vec<WriteRequest>>>,
    return_consumed_capacity: Option<String>,
    /// `SIZE` or `NONE`: no item collection metrics are returned by a batch
    /// here (DynamoDB returns them only for tables with local secondary
    /// indexes); `SIZE` on such a table is refused.
    return_item_collection_metrics: Option<String>,
}

/// `WriteRequest`: exactly one of the two members.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct WriteRequest {
    put_request: Option<PutRequest>,
    delete_request: Option<DeleteRequest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct PutRequest {
    item: Option<Item>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct DeleteRequest {
    key: Option<Item>,
}

/// `BatchGetItem` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct BatchGetItemRequest {
    request_items: Option<BTreeMap<String, KeysAndAttributes>>,
    return_consumed_capacity: Option<String>,
}

/// `KeysAndAttributes`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct KeysAndAttributes {
    keys: Option<Vec<Item>>,
    projection_expression: Option<String>,
    expression_attribute_names: Option<HashMap<String, String>>,
    attributes_to_get: Option<Vec<String>>,
    /// Needs nothing: every read here is strongly consistent.
    consistent_read: Option<bool>,
}

fn request_items_length(what: &str) -> ApiError {
    ApiError::validation(format!(
        "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: {what}"
    ))
}

fn not_found() -> ApiError {
    ApiError::new(ErrorKind::ResourceNotFound, RESOURCE_NOT_FOUND)
}

fn duplicates() -> ApiError {
    ApiError::validation("Provided list of item keys contains duplicates")
}

enum Write {
    Put(Item),
    Delete(Item),
}

/// `BatchWriteItem`: validates every request, then writes them in order.
pub(super) fn batch_write_item(
    engine: &Engine,
    req: BatchWriteItemRequest,
) -> Result<Value, ApiError> {
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let metrics = match req.return_item_collection_metrics.as_deref() {
        None | Some("NONE") => false,
        Some("SIZE") => true,
        Some(other) => {
            return Err(enum_constraint(
                other,
                "returnItemCollectionMetrics",
                &["SIZE", "NONE"],
            ));
        }
    };
    let request_items = required(req.request_items, "requestItems")?;
    if request_items.is_empty() {
        return Err(request_items_length(
            "Member must have length greater than or equal to 1",
        ));
    }
    let mut total = 0usize;
    for (table, requests) in &request_items {
        if requests.is_empty() || requests.len() > MAX_BATCH_WRITE_REQUESTS {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value at 'requestItems' (table `{table}`, {} requests) failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]",
                requests.len()
            )));
        }
        total += requests.len();
    }
    if total > MAX_BATCH_WRITE_REQUESTS {
        return Err(ApiError::validation(
            "Too many items requested for the BatchWriteItem call",
        ));
    }
    let mut plan: Vec<(String, Write)> = Vec::with_capacity(total);
    for (table, requests) in request_items {
        let table = table_name(Some(table))?;
        let def = engine
            .dynamodb()
            .describe_table(&table)
            .map_err(|_| not_found())?;
        if metrics && !def.local_secondary_indexes.is_empty() {
            return Err(ApiError::validation(format!(
                "ReturnItemCollectionMetrics SIZE is not implemented by this server for BatchWriteItem on a table with local secondary indexes ({table})"
            )));
        }
        let mut seen = HashSet::new();
        for request in requests {
            let (pk, write) = match (request.put_request, request.delete_request) {
                (Some(put), None) => {
                    let mut item = required(put.item, "requestItems.member.putRequest.item")?;
                    let pk = def.validate_item(&mut item)?;
                    (pk, Write::Put(item))
                }
                (None, Some(delete)) => {
                    let key = required(delete.key, "requestItems.member.deleteRequest.key")?;
                    let pk = def.validate_key(&key)?;
                    (pk, Write::Delete(key))
                }
                _ => {
                    return Err(ApiError::validation(
                        "Supplied WriteRequest must contain exactly one of PutRequest or DeleteRequest",
                    ));
                }
            };
            if !seen.insert(pk) {
                return Err(duplicates());
            }
            plan.push((table.clone(), write));
        }
    }
    let mut units: BTreeMap<String, f64> = BTreeMap::new();
    for (table, write) in plan {
        let size = match write {
            Write::Put(item) => {
                let size = item_size_bytes(&item);
                engine
                    .dynamodb()
                    .put_item(&table, item)?
                    .map_or(size, |old| size.max(item_size_bytes(&old)))
            }
            Write::Delete(key) => engine
                .dynamodb()
                .delete_item(&table, &key)?
                .map_or(0, |old| item_size_bytes(&old)),
        };
        *units.entry(table).or_default() += capacity::write_units(size);
    }
    let mut body = json!({ "UnprocessedItems": {} });
    consumed_list(&mut body, report, units);
    Ok(body)
}

/// Adds `ConsumedCapacity` (one entry per table) to a batch answer, when
/// asked for.
fn consumed_list(body: &mut Value, report: Report, units: BTreeMap<String, f64>) {
    let list: Vec<Value> = units
        .iter()
        .filter_map(|(table, u)| capacity::consumed(report, table, *u))
        .collect();
    if report != Report::None {
        body["ConsumedCapacity"] = json!(list);
    }
}

/// `BatchGetItem`: every key read; items over the 16 MB response limit go
/// back in `UnprocessedKeys` with their table's projection settings.
pub(super) fn batch_get_item(engine: &Engine, req: BatchGetItemRequest) -> Result<Value, ApiError> {
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let request_items = required(req.request_items, "requestItems")?;
    if request_items.is_empty() {
        return Err(request_items_length(
            "Member must have length greater than or equal to 1",
        ));
    }
    let mut total = 0usize;
    let mut plans = Vec::with_capacity(request_items.len());
    for (table, spec) in request_items {
        let keys = spec.keys.clone().unwrap_or_default();
        if keys.is_empty() || keys.len() > MAX_BATCH_GET_KEYS {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value at 'requestItems.{table}.member.keys' failed to satisfy constraint: Member must have length less than or equal to 100, Member must have length greater than or equal to 1 (got {})",
                keys.len()
            )));
        }
        total += keys.len();
        let table = table_name(Some(table))?;
        let def = engine
            .dynamodb()
            .describe_table(&table)
            .map_err(|_| not_found())?;
        let mut seen = HashSet::new();
        for key in &keys {
            let pk = def.validate_key(key)?;
            if !seen.insert(pk) {
                return Err(duplicates());
            }
        }
        plans.push((table, spec, keys));
    }
    if total > MAX_BATCH_GET_KEYS {
        return Err(ApiError::validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let mut responses = Map::new();
    let mut unprocessed = Map::new();
    let mut units: BTreeMap<String, f64> = BTreeMap::new();
    let mut bytes = 0u64;
    for (table, spec, keys) in plans {
        let mut items = Vec::new();
        let mut left = Vec::new();
        let names = names(spec.expression_attribute_names.clone())?;
        let consistent = spec.consistent_read.unwrap_or(false);
        for key in keys {
            if bytes >= MAX_BATCH_GET_RESPONSE_BYTES {
                left.push(key);
                continue;
            }
            let out = engine.dynamodb().get_item_with(GetItemInput {
                table_name: table.clone(),
                key,
                projection_expression: spec.projection_expression.clone(),
                expression_attribute_names: names.clone(),
                attributes_to_get: spec.attributes_to_get.clone(),
            })?;
            *units.entry(table.clone()).or_default() +=
                capacity::read_units(out.item_size_bytes, consistent);
            if let Some(item) = out.item {
                bytes += item_size_bytes(&item);
                items.push(item);
            }
        }
        responses.insert(table.clone(), json!(items));
        if !left.is_empty() {
            let mut rest = json!({ "Keys": left });
            if let Some(p) = &spec.projection_expression {
                rest["ProjectionExpression"] = json!(p);
            }
            if let Some(n) = &spec.expression_attribute_names {
                rest["ExpressionAttributeNames"] = json!(n);
            }
            if let Some(a) = &spec.attributes_to_get {
                rest["AttributesToGet"] = json!(a);
            }
            if let Some(c) = spec.consistent_read {
                rest["ConsistentRead"] = json!(c);
            }
            unprocessed.insert(table, rest);
        }
    }
    let mut body = json!({ "Responses": responses, "UnprocessedKeys": unprocessed });
    consumed_list(&mut body, report, units);
    Ok(body)
}
