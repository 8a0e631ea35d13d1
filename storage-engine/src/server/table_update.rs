//! UpdateTable and DeleteTable (DynamoDB API Reference pages of the same
//! names).

use super::error::ApiError;
use super::shapes::StreamSpecification;
use super::tables::{describe, required, table_name};
use crate::{Engine, StreamViewType};
use serde::Deserialize;
use serde_json::{Value, json};

/// `UpdateTable` request: the members served. `BillingMode` and
/// `ProvisionedThroughput` are accepted (validated, not enforced).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UpdateTableRequest {
    table_name: Option<String>,
    stream_specification: Option<StreamSpecification>,
    billing_mode: Option<String>,
    provisioned_throughput: Option<ProvisionedThroughput>,
    global_secondary_index_updates: Option<Value>,
    replica_updates: Option<Value>,
}

/// `ProvisionedThroughput`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ProvisionedThroughput {
    read_capacity_units: Option<i64>,
    write_capacity_units: Option<i64>,
}

/// `DeleteTable` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DeleteTableRequest {
    table_name: Option<String>,
}

/// Checks a `BillingMode` value.
///
/// # Errors
///
/// A `ValidationException` naming the value, as AWS words it.
pub(super) fn check_billing_mode(mode: Option<&str>) -> Result<(), ApiError> {
    match mode {
        None | Some("PROVISIONED" | "PAY_PER_REQUEST") => Ok(()),
        Some(other) => Err(ApiError::validation(format!(
            "1 validation error detected: Value '{other}' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"
        ))),
    }
}

fn check_throughput(t: &ProvisionedThroughput) -> Result<(), ApiError> {
    for (member, value) in [
        ("readCapacityUnits", t.read_capacity_units),
        ("writeCapacityUnits", t.write_capacity_units),
    ] {
        match value {
            None => {
                return Err(ApiError::missing(&format!(
                    "provisionedThroughput.{member}"
                )));
            }
            Some(n) if n < 1 => {
                return Err(ApiError::validation(format!(
                    "1 validation error detected: Value '{n}' at 'provisionedThroughput.{member}' failed to satisfy constraint: Member must have value greater than or equal to 1"
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// `UpdateTable`: turns the stream on or off; accepts `BillingMode` and
/// `ProvisionedThroughput`. Index and replica updates are refused.
pub(super) fn update_table(engine: &Engine, req: UpdateTableRequest) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    check_billing_mode(req.billing_mode.as_deref())?;
    if let Some(t) = &req.provisioned_throughput {
        check_throughput(t)?;
    }
    if req.global_secondary_index_updates.is_some() || req.replica_updates.is_some() {
        return Err(ApiError::validation(
            "GlobalSecondaryIndexUpdates and ReplicaUpdates are not supported by this server",
        ));
    }
    let current = engine.describe_table(&name)?;
    match req.stream_specification {
        Some(spec) if spec.stream_enabled => {
            let view = required(spec.stream_view_type, "streamSpecification.streamViewType")?;
            let view = view.parse::<StreamViewType>().map_err(|_| {
                ApiError::validation(format!(
                    "1 validation error detected: Value '{view}' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]"
                ))
            })?;
            if current.stream_view_type.is_some() {
                return Err(ApiError::validation(format!(
                    "Table already has an enabled stream: TableName: {name}"
                )));
            }
            engine.update_stream(&name, Some(view))?;
        }
        Some(_) => {
            if current.stream_view_type.is_none() {
                return Err(ApiError::validation(format!(
                    "Table has no enabled stream to disable: TableName: {name}"
                )));
            }
            engine.update_stream(&name, None)?;
        }
        None if req.billing_mode.is_none() && req.provisioned_throughput.is_none() => {
            return Err(ApiError::validation(
                "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
            ));
        }
        None => {}
    }
    Ok(json!({ "TableDescription": describe(engine, &name)? }))
}

/// `DeleteTable`: answers the table's description with `TableStatus`
/// `DELETING`; the table is gone for every later call.
pub(super) fn delete_table(engine: &Engine, req: DeleteTableRequest) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let mut description = describe(engine, &name)?;
    engine.delete_table(&name)?;
    description.table_status = "DELETING";
    Ok(json!({ "TableDescription": description }))
}
