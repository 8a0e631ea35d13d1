//! Dispatch on the operation name, and the item operations: PutItem,
//! GetItem, UpdateItem, DeleteItem, Query, Scan (DynamoDB API Reference
//! pages of the same names).

use super::error::ApiError;
use super::protocol::{parse, unknown_operation};
use super::shapes::ItemRequest;
use super::tables::{self, required, table_name};
use super::{AppState, batch, table_update, ttl};
use crate::expr::{self, Placeholders};
use crate::{
    DeleteItemInput, Engine, PutItemInput, QueryInput, ReadError, ReadOutput, ReturnValue,
    ScanInput, UpdateItemInput, WriteOutput,
};
use axum::body::Bytes;
use serde_json::{Value, json};

/// Runs `operation` (the `X-Amz-Target` suffix) on the JSON `body`.
///
/// # Errors
///
/// Any [`ApiError`]; an unknown name is `UnknownOperationException`.
pub(super) fn dispatch(state: &AppState, operation: &str, body: &Bytes) -> Result<Value, ApiError> {
    let engine = &state.engine;
    match operation {
        "CreateTable" => tables::create_table(engine, parse(body)?),
        "DescribeTable" => tables::describe_table(engine, parse(body)?),
        "ListTables" => tables::list_tables(engine, parse(body)?),
        "UpdateTimeToLive" => ttl::update_time_to_live(engine, state.ttl_transition, parse(body)?),
        "DescribeTimeToLive" => {
            ttl::describe_time_to_live(engine, state.ttl_transition, parse(body)?)
        }
        "PutItem" => put_item(engine, parse(body)?),
        "GetItem" => get_item(engine, parse(body)?),
        "UpdateItem" => update_item(engine, parse(body)?),
        "DeleteItem" => delete_item(engine, parse(body)?),
        "Query" => query(engine, parse(body)?),
        "Scan" => scan(engine, parse(body)?),
        "BatchWriteItem" => batch::batch_write_item(engine, parse(body)?),
        "BatchGetItem" => batch::batch_get_item(engine, parse(body)?),
        "UpdateTable" => table_update::update_table(engine, parse(body)?),
        "DeleteTable" => table_update::delete_table(engine, parse(body)?),
        other => Err(unknown_operation(other)),
    }
}

fn return_values(text: Option<&str>) -> Result<ReturnValue, ApiError> {
    Ok(match text.unwrap_or("NONE") {
        "NONE" => ReturnValue::None,
        "ALL_OLD" => ReturnValue::AllOld,
        "UPDATED_OLD" => ReturnValue::UpdatedOld,
        "ALL_NEW" => ReturnValue::AllNew,
        "UPDATED_NEW" => ReturnValue::UpdatedNew,
        other => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
            )));
        }
    })
}

fn write_output(out: WriteOutput) -> Value {
    match out.attributes {
        Some(attributes) => json!({ "Attributes": attributes }),
        None => json!({}),
    }
}

fn limit(value: Option<i64>) -> Result<Option<usize>, ApiError> {
    value
        .map(|n| {
            usize::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
                ApiError::validation(format!(
                    "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
                ))
            })
        })
        .transpose()
}

/// `PutItem`.
fn put_item(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    let out = engine.put_item_with(PutItemInput {
        table_name: table_name(req.table_name)?,
        item: required(req.item, "item")?,
        condition_expression: req.condition_expression,
        expression_attribute_names: req.expression_attribute_names.unwrap_or_default(),
        expression_attribute_values: req.expression_attribute_values.unwrap_or_default(),
        return_values: return_values(req.return_values.as_deref())?,
    })?;
    Ok(write_output(out))
}

/// `UpdateItem`.
fn update_item(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    let out = engine.update_item_with(UpdateItemInput {
        table_name: table_name(req.table_name)?,
        key: required(req.key, "key")?,
        update_expression: req.update_expression,
        condition_expression: req.condition_expression,
        expression_attribute_names: req.expression_attribute_names.unwrap_or_default(),
        expression_attribute_values: req.expression_attribute_values.unwrap_or_default(),
        return_values: return_values(req.return_values.as_deref())?,
    })?;
    Ok(write_output(out))
}

/// `DeleteItem`.
fn delete_item(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    let out = engine.delete_item_with(DeleteItemInput {
        table_name: table_name(req.table_name)?,
        key: required(req.key, "key")?,
        condition_expression: req.condition_expression,
        expression_attribute_names: req.expression_attribute_names.unwrap_or_default(),
        expression_attribute_values: req.expression_attribute_values.unwrap_or_default(),
        return_values: return_values(req.return_values.as_deref())?,
    })?;
    Ok(write_output(out))
}

/// `GetItem`, with an optional `ProjectionExpression`.
fn get_item(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let key = required(req.key, "key")?;
    let names = req.expression_attribute_names.unwrap_or_default();
    let values = std::collections::HashMap::new();
    let mut ph = Placeholders::new(&names, &values);
    let projection = req
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
    Ok(match engine.get_item(&table, &key)? {
        Some(item) => {
            let item: crate::Item = match &projection {
                Some(paths) => expr::project(&item, paths).into(),
                None => item,
            };
            json!({ "Item": item })
        }
        None => json!({}),
    })
}

fn read_output(out: ReadOutput, select: Option<&str>) -> Result<Value, ApiError> {
    let mut body = json!({
        "Count": out.items.len(),
        "ScannedCount": out.scanned_count,
    });
    match select {
        None | Some("ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES" | "SPECIFIC_ATTRIBUTES") => {
            body["Items"] = json!(out.items);
        }
        Some("COUNT") => {}
        Some(other) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
            )));
        }
    }
    if let Some(key) = out.last_evaluated_key {
        body["LastEvaluatedKey"] = json!(key);
    }
    Ok(body)
}

/// `Query`.
fn query(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    let kce = required(req.key_condition_expression, "keyConditionExpression")?;
    let mut input = QueryInput::new(table_name(req.table_name)?, kce);
    input.index_name = req.index_name;
    input.filter_expression = req.filter_expression;
    input.projection_expression = req.projection_expression;
    input.expression_attribute_names = req.expression_attribute_names.unwrap_or_default();
    input.expression_attribute_values = req.expression_attribute_values.unwrap_or_default();
    input.scan_index_forward = req.scan_index_forward.unwrap_or(true);
    input.limit = limit(req.limit)?;
    input.exclusive_start_key = req.exclusive_start_key;
    read_output(engine.query_with(input)?, req.select.as_deref())
}

/// `Scan` (without `Segment` / `TotalSegments`).
fn scan(engine: &Engine, req: ItemRequest) -> Result<Value, ApiError> {
    if req.segment.is_some() || req.total_segments.is_some() {
        return Err(ApiError::validation(
            "Parallel scan (Segment, TotalSegments) is not supported by this server",
        ));
    }
    let input = ScanInput {
        table_name: table_name(req.table_name)?,
        index_name: req.index_name,
        filter_expression: req.filter_expression,
        projection_expression: req.projection_expression,
        expression_attribute_names: req.expression_attribute_names.unwrap_or_default(),
        expression_attribute_values: req.expression_attribute_values.unwrap_or_default(),
        limit: limit(req.limit)?,
        exclusive_start_key: req.exclusive_start_key,
    };
    read_output(engine.scan_with(input)?, req.select.as_deref())
}
