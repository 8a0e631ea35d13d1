//! Query and Scan (DynamoDB API Reference pages of the same names):
//! `Select`, pagination, parallel scan segments, the legacy
//! `KeyConditions` / `QueryFilter` / `ScanFilter` / `AttributesToGet`, and
//! `ConsumedCapacity`.

use super::capacity;
use super::error::{ApiError, enum_constraint};
use super::items::{names, values};
use super::shapes::items::{QueryRequest, ScanRequest};
use super::shapes::legacy;
use super::tables::table_name;
use serde_json::{Value, json};
use ttlstream_engine::{Engine, QueryInput, ReadOutput, ScanInput};

/// `Select`, checked against the request's projection and index as
/// DynamoDB checks it. Returns whether items are returned (not `COUNT`).
fn select(
    select: Option<&str>,
    projection: bool,
    attributes_to_get: bool,
    index: bool,
) -> Result<bool, ApiError> {
    let refuse = |m: &str| Err(ApiError::validation(m.to_string()));
    let what = if projection {
        "ProjectionExpression"
    } else {
        "AttributesToGet"
    };
    let projected = projection || attributes_to_get;
    match select {
        None => Ok(true),
        Some("ALL_ATTRIBUTES") if projected => refuse(&format!(
            "Cannot specify the {what} when choosing to get ALL_ATTRIBUTES"
        )),
        Some("ALL_PROJECTED_ATTRIBUTES") if projected => refuse(&format!(
            "Cannot specify the {what} when choosing to get ALL_PROJECTED_ATTRIBUTES"
        )),
        Some("ALL_PROJECTED_ATTRIBUTES") if !index => {
            refuse("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
        }
        Some("COUNT") if projected => refuse(&format!(
            "Cannot specify the {what} when choosing to get only the Count"
        )),
        Some("SPECIFIC_ATTRIBUTES") if !projected => refuse(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        ),
        Some("ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES" | "SPECIFIC_ATTRIBUTES") => Ok(true),
        Some("COUNT") => Ok(false),
        Some(other) => Err(enum_constraint(
            other,
            "select",
            &[
                "SPECIFIC_ATTRIBUTES",
                "COUNT",
                "ALL_ATTRIBUTES",
                "ALL_PROJECTED_ATTRIBUTES",
            ],
        )),
    }
}

/// `Limit`: at least 1.
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

/// A `Segment` (0 to 999,999) or `TotalSegments` (1 to 1,000,000) value.
fn segment_value(
    value: Option<i64>,
    member: &str,
    low: i64,
    high: i64,
) -> Result<Option<u32>, ApiError> {
    let Some(n) = value else { return Ok(None) };
    let constraint = if n < low {
        format!("Member must have value greater than or equal to {low}")
    } else if n > high {
        format!("Member must have value less than or equal to {high}")
    } else {
        return Ok(u32::try_from(n).ok());
    };
    Err(ApiError::validation(format!(
        "1 validation error detected: Value '{n}' at '{member}' failed to satisfy constraint: {constraint}"
    )))
}

fn answer(
    table: &str,
    out: ReadOutput,
    items: bool,
    report: capacity::Report,
    consistent: bool,
) -> Value {
    let mut body = json!({
        "Count": out.items.len(),
        "ScannedCount": out.scanned_count,
    });
    if items {
        body["Items"] = json!(out.items);
    }
    if let Some(key) = out.last_evaluated_key {
        body["LastEvaluatedKey"] = json!(key);
    }
    if let Some(c) = capacity::consumed(
        report,
        table,
        capacity::read_units(out.scanned_bytes, consistent),
    ) {
        body["ConsumedCapacity"] = c;
    }
    body
}

/// `Query`.
pub(super) fn query(engine: &Engine, req: QueryRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let items = select(
        req.select.as_deref(),
        req.projection_expression.is_some(),
        req.attributes_to_get.is_some(),
        req.index_name.is_some(),
    )?;
    let mut input = QueryInput::new(table.clone(), "");
    input.key_condition_expression = req.key_condition_expression;
    input.index_name = req.index_name;
    input.filter_expression = req.filter_expression;
    input.projection_expression = req.projection_expression;
    input.expression_attribute_names = names(req.expression_attribute_names)?;
    input.expression_attribute_values = values(req.expression_attribute_values)?;
    input.scan_index_forward = req.scan_index_forward.unwrap_or(true);
    input.limit = limit(req.limit)?;
    input.exclusive_start_key = req.exclusive_start_key;
    input.key_conditions = legacy::conditions(req.key_conditions, "keyConditions")?;
    input.query_filter = legacy::conditions(req.query_filter, "queryFilter")?;
    input.conditional_operator = legacy::conditional_operator(req.conditional_operator.as_deref())?;
    input.attributes_to_get = req.attributes_to_get;
    let out = engine.dynamodb().query_with(input)?;
    Ok(answer(
        &table,
        out,
        items,
        report,
        req.consistent_read.unwrap_or(false),
    ))
}

/// `Scan`, parallel with `Segment` / `TotalSegments`.
pub(super) fn scan(engine: &Engine, req: ScanRequest) -> Result<Value, ApiError> {
    let table = table_name(req.table_name)?;
    let report = capacity::report(req.return_consumed_capacity.as_deref())?;
    let items = select(
        req.select.as_deref(),
        req.projection_expression.is_some(),
        req.attributes_to_get.is_some(),
        req.index_name.is_some(),
    )?;
    let input = ScanInput {
        table_name: table.clone(),
        index_name: req.index_name,
        filter_expression: req.filter_expression,
        projection_expression: req.projection_expression,
        expression_attribute_names: names(req.expression_attribute_names)?,
        expression_attribute_values: values(req.expression_attribute_values)?,
        limit: limit(req.limit)?,
        exclusive_start_key: req.exclusive_start_key,
        scan_filter: legacy::conditions(req.scan_filter, "scanFilter")?,
        conditional_operator: legacy::conditional_operator(req.conditional_operator.as_deref())?,
        attributes_to_get: req.attributes_to_get,
        segment: segment_value(req.segment, "segment", 0, 999_999)?,
        total_segments: segment_value(req.total_segments, "totalSegments", 1, 1_000_000)?,
    };
    let out = engine.dynamodb().scan_with(input)?;
    Ok(answer(
        &table,
        out,
        items,
        report,
        req.consistent_read.unwrap_or(false),
    ))
}
