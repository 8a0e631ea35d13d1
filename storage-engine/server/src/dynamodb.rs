//! Dispatch of the DynamoDB operations on their name (the `X-Amz-Target`
//! suffix); each lives in the module of its family.

use super::error::ApiError;
use super::protocol::{parse, unknown_operation};
use super::{AppState, batch, create_table, items, reads, table_update, tables, tags, ttl};
use axum::body::Bytes;
use serde_json::Value;

/// Runs `operation` on the JSON `body` for a client of `region`.
///
/// # Errors
///
/// Any [`ApiError`]; an unknown name is `UnknownOperationException`.
pub(super) fn dispatch(
    state: &AppState,
    region: &str,
    operation: &str,
    body: &Bytes,
) -> Result<Value, ApiError> {
    let engine = &state.engine;
    match operation {
        "CreateTable" => create_table::create_table(engine, region, parse(body)?),
        "DescribeTable" => tables::describe_table(engine, region, parse(body)?),
        "ListTables" => tables::list_tables(engine, parse(body)?),
        "UpdateTable" => table_update::update_table(engine, region, parse(body)?),
        "DeleteTable" => table_update::delete_table(engine, region, parse(body)?),
        "UpdateTimeToLive" => ttl::update_time_to_live(engine, state.ttl_transition, parse(body)?),
        "DescribeTimeToLive" => {
            ttl::describe_time_to_live(engine, state.ttl_transition, parse(body)?)
        }
        "TagResource" => tags::tag_resource(engine, parse(body)?),
        "UntagResource" => tags::untag_resource(engine, parse(body)?),
        "ListTagsOfResource" => tags::list_tags_of_resource(engine, parse(body)?),
        "PutItem" => items::put_item(engine, parse(body)?),
        "GetItem" => items::get_item(engine, parse(body)?),
        "UpdateItem" => items::update_item(engine, parse(body)?),
        "DeleteItem" => items::delete_item(engine, parse(body)?),
        "Query" => reads::query(engine, parse(body)?),
        "Scan" => reads::scan(engine, parse(body)?),
        "BatchWriteItem" => batch::batch_write_item(engine, parse(body)?),
        "BatchGetItem" => batch::batch_get_item(engine, parse(body)?),
        other => Err(unknown_operation(other)),
    }
}
