//! The single-item operations: PutItem, GetItem, UpdateItem, DeleteItem
//! (DynamoDB API Reference pages of the same names), legacy parameters
//! included; the engine's `*_with` calls do the work.

use super::capacity::{self, Report};
use super::error::{ApiError, enum_constraint};
use super::shapes::items::{
    DeleteItemRequest, GetItemRequest, Names, PutItemRequest, UpdateItemRequest, Values,
};
use super::shapes::legacy;
use super::tables::{required, table_name};
use serde_json::{Value, json};
use std::collections::HashMap;
use ttlstream_engine::{
    DeleteItemInput, Engine, GetItemInput, Item, PutItemInput, ReturnValue, UpdateItemInput,
    WriteOutput,
};

/// `ReturnValues`.
pub(super) fn return_values(text: Option<&str>) -> Result<ReturnValue, ApiError> {
    Ok(match text.unwrap_or("NONE") {
        "NONE" => ReturnValue::None,
        "ALL_OLD" => ReturnValue::AllOld,
        "UPDATED_OLD" => ReturnValue::UpdatedOld,
        "ALL_NEW" => ReturnValue::AllNew,
        "UPDATED_NEW" => ReturnValue::UpdatedNew,
        other => {
            return Err(enum_constraint(
                other,
                "returnValues",
                &["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"],
            ));
        }
    })
}

/// `ReturnValuesOnConditionCheckFailure`.
fn on_failure(text: Option<&str>) -> Result<ReturnValue, ApiError> {
    match text.unwrap_or("NONE") {
        "NONE" => Ok(ReturnValue::None),
        "ALL_OLD" => Ok(ReturnValue::AllOld),
        other => Err(enum_constraint(
            other,
            "returnValuesOnConditionCheckFailure",
            &["ALL_OLD", "NONE"],
        )),
    }
}

/// `ReturnItemCollectionMetrics`: whether `SIZE` was asked for.
fn collection_metrics(text: Option<&str>) -> Result<bool, ApiError> {
    match text {
        None | Some("NONE") => Ok(false),
        Some("SIZE") => Ok(true),
        Some(other) => Err(enum_constraint(
            other,
            "returnItemCollectionMetrics",
            &["SIZE", "NONE"],
        )),
    }
}

/// `ExpressionAttributeNames`: given, it must not be empty.
pub(super) fn names(map: Names) -> Result<HashMap<String, String>, ApiError> {
    match map {
        Some(m) if m.is_empty() => Err(ApiError::validation(
            "ExpressionAttributeNames must not be empty",
        )),
        m => Ok(m.unwrap_or_default()),
    }
}

/// `ExpressionAttributeValues`: given, it must not be empty.
pub(super) fn values(
    map: Values,
) -> Result<HashMap<String, ttlstream_engine::AttributeValue>, ApiError> {
    match map {
        Some(m) if m.is_empty() => Err(ApiError::validation(
            "ExpressionAttributeValues must not be empty",
        )),
        m => Ok(m.unwrap_or_default()),
    }
}

/// The answer of a write: `Attributes`, `ConsumedCapacity` and (for a
/// table with local secondary indexes, when asked) `ItemCollectionMetrics`.
fn write_answer(
    engine: &Engine,
    table: &str,
    key: Option<Item>,
    out: WriteOutput,
    report: Report,
    metrics: bool,
) -> Result<Value, ApiError> {
    let mut body = json!({});
    if let Some(attributes) = out.attributes {
        body["Attributes"] = json!(attributes);
    }
    if let Some(c) = capacity::consumed(report, table, capacity::write_units(out.item_size_bytes)) {
        body["ConsumedCapacity"] = c;
    }
    if metrics {
        let def = engine.dynamodb().describe_table(table)?;
        if !def.local_secondary_indexes.is_empty()
            && let Some(key) = key
            && let Some(pk) = key.get(&def.partition_key.attribute_name)
        {
            // "SizeEstimateRangeGB": DynamoDB's estimate is a range; a
            // collection here is never near the 10 GB limit.
            body["ItemCollectionMetrics"] = json!({
                "ItemCollectionKey": { def.partition_key.attribute_name.clone(): pk },
                "SizeEstimateRangeGB": [0.0, 1.0],
            });
        }
    }
    Ok(body)
}

/// `PutItem`.
pub(super) fn put_item(engine: &Engine, req: PutItemRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let metrics = collection_metrics(req.return_item_collection_metrics.as_deref())?;
    let item = required(req.item, "item")?;
    let key = metrics.then(|| item.clone());
    let out = engine.dynamodb().put_item_with(PutItemInput {
        table_name: table.clone(),
        item,
        condition_expression: req.condition_expression,
        expression_attribute_names: names(req.expression_attribute_names)?,
        expression_attribute_values: values(req.expression_attribute_values)?,
        return_values: return_values(req.return_values.as_deref())?,
        expected: legacy::expected(req.expected)?,
        conditional_operator: legacy::conditional_operator(req.conditional_operator.as_deref())?,
        return_values_on_condition_check_failure: on_failure(
            req.return_values_on_condition_check_failure.as_deref(),
        )?,
    })?;
    write_answer(engine, &table, key, out, report, metrics)
}

/// `UpdateItem`.
pub(super) fn update_item(engine: &Engine, req: UpdateItemRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let metrics = collection_metrics(req.return_item_collection_metrics.as_deref())?;
    let key = required(req.key, "key")?;
    let out = engine.dynamodb().update_item_with(UpdateItemInput {
        table_name: table.clone(),
        key: key.clone(),
        update_expression: req.update_expression,
        condition_expression: req.condition_expression,
        expression_attribute_names: names(req.expression_attribute_names)?,
        expression_attribute_values: values(req.expression_attribute_values)?,
        return_values: return_values(req.return_values.as_deref())?,
        attribute_updates: legacy::attribute_updates(req.attribute_updates)?,
        expected: legacy::expected(req.expected)?,
        conditional_operator: legacy::conditional_operator(req.conditional_operator.as_deref())?,
        return_values_on_condition_check_failure: on_failure(
            req.return_values_on_condition_check_failure.as_deref(),
        )?,
    })?;
    write_answer(engine, &table, Some(key), out, report, metrics)
}

/// `DeleteItem`.
pub(super) fn delete_item(engine: &Engine, req: DeleteItemRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let metrics = collection_metrics(req.return_item_collection_metrics.as_deref())?;
    let key = required(req.key, "key")?;
    let out = engine.dynamodb().delete_item_with(DeleteItemInput {
        table_name: table.clone(),
        key: key.clone(),
        condition_expression: req.condition_expression,
        expression_attribute_names: names(req.expression_attribute_names)?,
        expression_attribute_values: values(req.expression_attribute_values)?,
        return_values: return_values(req.return_values.as_deref())?,
        expected: legacy::expected(req.expected)?,
        conditional_operator: legacy::conditional_operator(req.conditional_operator.as_deref())?,
        return_values_on_condition_check_failure: on_failure(
            req.return_values_on_condition_check_failure.as_deref(),
        )?,
    })?;
    write_answer(engine, &table, Some(key), out, report, metrics)
}

/// `GetItem`, with an optional `ProjectionExpression` or `AttributesToGet`.
pub(super) fn get_item(engine: &Engine, req: GetItemRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let out = engine.dynamodb().get_item_with(GetItemInput {
        table_name: table.clone(),
        key: required(req.key, "key")?,
        projection_expression: req.projection_expression,
        expression_attribute_names: names(req.expression_attribute_names)?,
        attributes_to_get: req.attributes_to_get,
    })?;
    let mut body = match out.item {
        Some(item) => json!({ "Item": item }),
        None => json!({}),
    };
    let consistent = req.consistent_read.unwrap_or(false);
    if let Some(c) = capacity::consumed(
        report,
        &table,
        capacity::read_units(out.item_size_bytes, consistent),
    ) {
        body["ConsumedCapacity"] = c;
    }
    Ok(body)
}
