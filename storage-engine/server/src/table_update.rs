//! UpdateTable and DeleteTable (DynamoDB API Reference pages of the same
//! names).

use super::create_table::stream_view_type;
use super::error::{ApiError, enum_constraint};
use super::shapes::{ProvisionedThroughputShape, StreamSpecification, TableNameRequest};
use super::tables::{describe, table_name};
use serde::Deserialize;
use serde_json::{Value, json};
use ttlstream_engine::{BillingMode, Engine, ProvisionedThroughput};

/// `UpdateTable` request: the members served (stream, billing mode,
/// throughput); index, replica, encryption and table class updates are
/// refused by name.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct UpdateTableRequest {
    table_name: Option<String>,
    stream_specification: Option<StreamSpecification>,
    billing_mode: Option<String>,
    provisioned_throughput: Option<ProvisionedThroughputShape>,
}

/// A `BillingMode` value.
///
/// # Errors
///
/// A `ValidationException` naming the value, as AWS words it.
pub(super) fn billing_mode(mode: Option<&str>) -> Result<Option<BillingMode>, ApiError> {
    match mode {
        None => Ok(None),
        Some("PROVISIONED") => Ok(Some(BillingMode::Provisioned)),
        Some("PAY_PER_REQUEST") => Ok(Some(BillingMode::PayPerRequest)),
        Some(other) => Err(enum_constraint(
            other,
            "billingMode",
            &["PROVISIONED", "PAY_PER_REQUEST"],
        )),
    }
}

/// A `ProvisionedThroughput`: both members, each at least 1.
///
/// # Errors
///
/// DynamoDB's `ValidationException` for a missing or non-positive member.
pub(super) fn throughput(
    t: &ProvisionedThroughputShape,
) -> Result<ProvisionedThroughput, ApiError> {
    let unit = |member: &str, value: Option<i64>| -> Result<u64, ApiError> {
        let n =
            value.ok_or_else(|| ApiError::missing(&format!("provisionedThroughput.{member}")))?;
        u64::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
            ApiError::validation(format!(
                "1 validation error detected: Value '{n}' at 'provisionedThroughput.{member}' failed to satisfy constraint: Member must have value greater than or equal to 1"
            ))
        })
    };
    Ok(ProvisionedThroughput {
        read_capacity_units: unit("readCapacityUnits", t.read_capacity_units)?,
        write_capacity_units: unit("writeCapacityUnits", t.write_capacity_units)?,
    })
}

/// `UpdateTable`: turns the stream on or off, changes the billing mode
/// and throughput.
pub(super) fn update_table(
    engine: &Engine,
    region: &str,
    req: UpdateTableRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let mode = billing_mode(req.billing_mode.as_deref())?;
    let throughput = req
        .provisioned_throughput
        .as_ref()
        .map(throughput)
        .transpose()?;
    let current = engine.dynamodb().describe_table(&name)?;
    if req.stream_specification.is_none() && mode.is_none() && throughput.is_none() {
        return Err(ApiError::validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
        ));
    }
    if mode.is_some() || throughput.is_some() {
        engine.dynamodb().update_table_properties(&name, |p| {
            let new_mode = mode.unwrap_or(p.billing_mode);
            match (new_mode, throughput) {
                (BillingMode::PayPerRequest, Some(_)) => {
                    return Err("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST".to_string());
                }
                (BillingMode::Provisioned, None) if p.provisioned_throughput.is_none() => {
                    return Err("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED".to_string());
                }
                (BillingMode::Provisioned, Some(t)) => p.provisioned_throughput = Some(t),
                (BillingMode::PayPerRequest, None) => p.provisioned_throughput = None,
                (BillingMode::Provisioned, None) => {}
            }
            p.billing_mode = new_mode;
            Ok(())
        })?;
    }
    match req.stream_specification {
        Some(spec) if spec.stream_enabled => {
            let view = spec.stream_view_type.ok_or_else(|| {
                ApiError::validation(
                    "One or more parameter values were invalid: Enabled stream must have a StreamViewType",
                )
            })?;
            let view = stream_view_type(&view)?;
            if current.stream_view_type.is_some() {
                return Err(ApiError::validation(format!(
                    "Table already has an enabled stream: TableName: {name}"
                )));
            }
            engine.dynamodb().update_stream(&name, Some(view))?;
        }
        Some(_) => {
            if current.stream_view_type.is_none() {
                return Err(ApiError::validation(format!(
                    "Table has no enabled stream to disable: TableName: {name}"
                )));
            }
            engine.dynamodb().update_stream(&name, None)?;
        }
        None => {}
    }
    Ok(json!({ "TableDescription": describe(engine, region, &name)? }))
}

/// `DeleteTable`: answers the table's description with `TableStatus`
/// `DELETING`; the table is gone for every later call.
pub(super) fn delete_table(
    engine: &Engine,
    region: &str,
    req: TableNameRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let mut description = describe(engine, region, &name)?;
    engine.dynamodb().delete_table(&name)?;
    description.table_status = "DELETING";
    Ok(json!({ "TableDescription": description }))
}
