//! `GetRange` ("Tablestore: GetRange"): rows between
//! `inclusive_start_primary_key` and `exclusive_end_primary_key`, forward
//! or backward, at most `limit` (and at most 5,000) per call, with
//! `next_start_primary_key` to continue from.

use super::error::OtsError;
use super::row::{TimeRangeIn, key_order, read_options, row_json};
use super::value::{PrimaryKeyColumn, from_key, to_bound};
use serde::Deserialize;
use serde_json::{Value, json};
use ttlstream_engine::Engine;
use ttlstream_engine::tablestore::{Direction, RangeRequest};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetRangeRequest {
    table_name: String,
    /// `FORWARD` (default) or `BACKWARD`.
    #[serde(default)]
    direction: Option<String>,
    #[serde(default)]
    columns_to_get: Vec<String>,
    max_versions: Option<i32>,
    time_range: Option<TimeRangeIn>,
    limit: Option<i32>,
    inclusive_start_primary_key: Vec<PrimaryKeyColumn>,
    exclusive_end_primary_key: Vec<PrimaryKeyColumn>,
}

pub(super) fn get_range(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: GetRangeRequest = super::parse(body)?;
    let start_member = "inclusive_start_primary_key";
    let end_member = "exclusive_end_primary_key";
    let order = key_order(
        engine,
        &r.table_name,
        &r.inclusive_start_primary_key,
        start_member,
    )?;
    key_order(
        engine,
        &r.table_name,
        &r.exclusive_end_primary_key,
        end_member,
    )?;
    let direction = match r.direction.as_deref() {
        None | Some("FORWARD") => Direction::Forward,
        Some("BACKWARD") => Direction::Backward,
        Some(other) => {
            return Err(OtsError::invalid(format!(
                "direction {other:?} is not one of FORWARD, BACKWARD"
            )));
        }
    };
    let limit = match r.limit {
        None => None,
        Some(l) if l >= 1 => Some(usize::try_from(l).unwrap_or(usize::MAX)),
        Some(l) => {
            return Err(OtsError::invalid(format!(
                "limit {l} is out of range: at least 1"
            )));
        }
    };
    let request = RangeRequest {
        direction,
        inclusive_start: to_bound(&r.inclusive_start_primary_key, start_member)?,
        exclusive_end: to_bound(&r.exclusive_end_primary_key, end_member)?,
        limit,
        read: read_options(r.max_versions, r.time_range.as_ref())?,
    };
    let page = engine.tablestore().get_range(&r.table_name, &request)?;
    let rows: Vec<Value> = page
        .rows
        .iter()
        .map(|row| row_json(row, &order, &r.columns_to_get))
        .collect();
    Ok(json!({
        "rows": rows,
        "next_start_primary_key": page.next_start_primary_key.map(|k| from_key(&k, &order)),
    }))
}
