//! BatchWriteItem and BatchGetItem (DynamoDB API Reference pages of the same
//! names): up to 25 put/delete requests, or 100 keys, across tables.
//!
//! As in DynamoDB, the whole batch is rejected before anything is written
//! when a table does not exist, a key does not match the key schema, one
//! item appears twice, an item is over 400 KB or there are too many
//! requests. Every request of a valid batch is processed, so
//! `UnprocessedItems` is always empty; BatchGetItem stops adding items once
//! the response reaches 16 MB and returns the rest in `UnprocessedKeys`.

use super::error::{ApiError, ErrorKind};
use super::tables::{required, table_name};
use crate::expr::{self, Placeholders};
use crate::item::{key_only_bytes, validate_item};
use crate::{Engine, Item, ReadError, item_size_bytes};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Most put and delete requests in one BatchWriteItem call.
pub const MAX_BATCH_WRITE_REQUESTS: usize = 25;
/// Most keys in one BatchGetItem call.
pub const MAX_BATCH_GET_KEYS: usize = 100;
/// BatchGetItem's response size limit (16 MB); keys left over are returned
/// in `UnprocessedKeys`.
pub const MAX_BATCH_GET_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// `BatchWriteItem` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct BatchWriteItemRequest {
    request_items: Option<BTreeMap<String, Vec<WriteRequest>>>,
}

/// `WriteRequest`: exactly one of the two members.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WriteRequest {
    put_request: Option<PutRequest>,
    delete_request: Option<DeleteRequest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutRequest {
    item: Option<Item>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DeleteRequest {
    key: Option<Item>,
}

/// `BatchGetItem` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct BatchGetItemRequest {
    request_items: Option<BTreeMap<String, KeysAndAttributes>>,
}

/// `KeysAndAttributes`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeysAndAttributes {
    keys: Option<Vec<Item>>,
    projection_expression: Option<String>,
    expression_attribute_names: Option<HashMap<String, String>>,
    /// Accepted and ignored: every read here is strongly consistent.
    consistent_read: Option<bool>,
}

fn request_items_length(what: &str) -> ApiError {
    ApiError::validation(format!(
        "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: {what}"
    ))
}

fn not_found() -> ApiError {
    ApiError::new(ErrorKind::ResourceNotFound, "Requested resource not found")
}

fn duplicates() -> ApiError {
    ApiError::validation("Provided list of item keys contains duplicates")
}

fn invalid(message: &str) -> ApiError {
    ApiError::validation(format!(
        "One or more parameter values were invalid: {message}"
    ))
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
        let def = engine.describe_table(&table).map_err(|_| not_found())?;
        let mut seen = HashSet::new();
        for request in requests {
            let (pk, write) = match (request.put_request, request.delete_request) {
                (Some(put), None) => {
                    let item = required(put.item, "requestItems.member.putRequest.item")?;
                    let pk = validate_item(&def, &item).map_err(|m| invalid(&m))?;
                    (pk, Write::Put(item))
                }
                (None, Some(delete)) => {
                    let key = required(delete.key, "requestItems.member.deleteRequest.key")?;
                    let pk = key_only_bytes(&def, &key).map_err(|m| invalid(&m))?;
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
    for (table, write) in plan {
        match write {
            Write::Put(item) => {
                engine.put_item(&table, item)?;
            }
            Write::Delete(key) => {
                engine.delete_item(&table, &key)?;
            }
        }
    }
    Ok(json!({ "UnprocessedItems": {} }))
}

/// `BatchGetItem`: every key read; items over the 16 MB response limit go
/// back in `UnprocessedKeys` with their table's projection settings.
pub(super) fn batch_get_item(engine: &Engine, req: BatchGetItemRequest) -> Result<Value, ApiError> {
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
        let def = engine.describe_table(&table).map_err(|_| not_found())?;
        let mut seen = HashSet::new();
        for key in &keys {
            let pk = key_only_bytes(&def, key).map_err(|m| invalid(&m))?;
            if !seen.insert(pk) {
                return Err(duplicates());
            }
        }
        let names = spec.expression_attribute_names.clone().unwrap_or_default();
        let no_values = HashMap::new();
        let mut ph = Placeholders::new(&names, &no_values);
        let projection = spec
            .projection_expression
            .as_deref()
            .map(|text| expr::compile_projection(text, &mut ph))
            .transpose()
            .and_then(|p| ph.finish().map(|()| p))
            .map_err(|source| {
                ApiError::from(ReadError::Expression {
                    table: table.clone(),
                    source,
                })
            })?;
        plans.push((table, spec, keys, projection));
    }
    if total > MAX_BATCH_GET_KEYS {
        return Err(ApiError::validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let mut responses = Map::new();
    let mut unprocessed = Map::new();
    let mut bytes = 0u64;
    for (table, spec, keys, projection) in plans {
        let mut items = Vec::new();
        let mut left = Vec::new();
        for key in keys {
            if bytes >= MAX_BATCH_GET_RESPONSE_BYTES {
                left.push(key);
                continue;
            }
            if let Some(item) = engine.get_item(&table, &key)? {
                let item: Item = match &projection {
                    Some(paths) => expr::project(&item, paths).into(),
                    None => item,
                };
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
            if let Some(c) = spec.consistent_read {
                rest["ConsistentRead"] = json!(c);
            }
            unprocessed.insert(table, rest);
        }
    }
    Ok(json!({ "Responses": responses, "UnprocessedKeys": unprocessed }))
}
