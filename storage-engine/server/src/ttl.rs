//! UpdateTimeToLive and DescribeTimeToLive (DynamoDB API Reference pages of
//! the same names), with DynamoDB's transitions.
//!
//! In DynamoDB "it can take up to one hour for the change to fully process.
//! Any additional UpdateTimeToLive calls for the same table during this one
//! hour duration result in a ValidationException" (UpdateTimeToLive), and
//! DescribeTimeToLive reports `ENABLING` / `DISABLING` meanwhile. Here that
//! hour is [`ServerOptions::ttl_transition`](super::ServerOptions::ttl_transition)
//! of engine-clock time (default zero: no transition, the final state at
//! once, as the service answers in practice), measured
//! from the engine's record of the last change, so it survives a restart and
//! a test can step over it with a manual clock. The engine applies a change
//! at once: items expire (or stop expiring) from the call on, as DynamoDB may
//! do at any moment within its hour.

use super::error::ApiError;
use super::shapes::{TableNameRequest, UpdateTimeToLiveRequest};
use super::tables::{required, table_name};
use serde_json::{Value, json};
use std::time::Duration;
use ttlstream_engine::{Engine, TimeToLiveSpecification};

/// Whether the last TTL change of `table` is still "processing".
fn in_transition(engine: &Engine, table: &str, transition: Duration) -> Result<bool, ApiError> {
    let Some(changed) = engine.dynamodb().time_to_live_updated_at_millis(table)? else {
        return Ok(false);
    };
    let transition = i64::try_from(transition.as_millis()).unwrap_or(i64::MAX);
    Ok(engine.clock().now_millis() < changed.saturating_add(transition))
}

/// `UpdateTimeToLive`: refused while the previous change is in transition,
/// when asked for the state TTL is already in, or for another attribute
/// than the one TTL is enabled on (enabling or disabling) — each a
/// `ValidationException` worded as DynamoDB's.
pub(super) fn update_time_to_live(
    engine: &Engine,
    transition: Duration,
    req: UpdateTimeToLiveRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let spec = required(req.time_to_live_specification, "timeToLiveSpecification")?;
    let attribute_name = required(spec.attribute_name, "timeToLiveSpecification.attributeName")?;
    let enabled = required(spec.enabled, "timeToLiveSpecification.enabled")?;
    if attribute_name.is_empty() || attribute_name.len() > 255 {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{attribute_name}' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length between 1 and 255"
        )));
    }
    let current = engine.dynamodb().describe_time_to_live(&name)?;
    if in_transition(engine, &name, transition)? {
        return Err(ApiError::validation(
            "Time to live has been modified multiple times within a fixed interval",
        ));
    }
    match current.filter(|c| c.enabled) {
        // Enabling another attribute, or disabling with another name than
        // the one TTL is on: DynamoDB refuses both.
        Some(c) if c.attribute_name != attribute_name => {
            return Err(ApiError::validation(format!(
                "TimeToLive is active on a different AttributeName: current AttributeName is {}",
                c.attribute_name
            )));
        }
        Some(_) if enabled => {
            return Err(ApiError::validation("TimeToLive is already enabled"));
        }
        None if !enabled => {
            return Err(ApiError::validation("TimeToLive is already disabled"));
        }
        _ => {}
    }
    engine.dynamodb().update_time_to_live(
        &name,
        TimeToLiveSpecification {
            attribute_name: attribute_name.clone(),
            enabled,
        },
    )?;
    Ok(
        json!({ "TimeToLiveSpecification": { "AttributeName": attribute_name, "Enabled": enabled } }),
    )
}

/// `DescribeTimeToLive`: `ENABLING` or `DISABLING` during the transition
/// after a change, then `ENABLED` or `DISABLED`.
pub(super) fn describe_time_to_live(
    engine: &Engine,
    transition: Duration,
    req: TableNameRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let spec = engine.dynamodb().describe_time_to_live(&name)?;
    let moving = in_transition(engine, &name, transition)?;
    let description = match spec {
        Some(s) if s.enabled => json!({
            "TimeToLiveStatus": if moving { "ENABLING" } else { "ENABLED" },
            "AttributeName": s.attribute_name,
        }),
        Some(s) if moving => {
            json!({ "TimeToLiveStatus": "DISABLING", "AttributeName": s.attribute_name })
        }
        _ => json!({ "TimeToLiveStatus": "DISABLED" }),
    };
    Ok(json!({ "TimeToLiveDescription": description }))
}
