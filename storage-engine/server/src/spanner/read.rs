//! `sessions.read` ("projects.instances.databases.sessions.read"): rows of
//! a table (or through an index) by `keySet` (`keys` or `all`; `ranges` are
//! not served), the named `columns`, at most `limit` rows, as a
//! `ResultSet`. Rows past their row deletion policy are returned until the
//! sweeper deletes them.

use super::Database;
use super::error::{Code, SpannerError, read_error, table_error};
use super::values::from_json;
use serde_json::{Value, json};
use ttlstream_engine::Engine;
use ttlstream_engine::spanner::{SpannerRow, SpannerTableDefinition, SpannerValue};

/// The primary keys a `keySet` names (`all`: every row's key).
pub(crate) fn key_set(
    engine: &Engine,
    engine_table: &str,
    def: &SpannerTableDefinition,
    key_set: Option<&Value>,
    at: &str,
) -> Result<Vec<Vec<SpannerValue>>, SpannerError> {
    let ks = key_set.ok_or_else(|| SpannerError::invalid(format!("{at} is required")))?;
    if ks
        .get("ranges")
        .is_some_and(|r| r.as_array().is_some_and(|a| !a.is_empty()))
    {
        return Err(SpannerError::invalid(format!(
            "{at}.ranges: key ranges are not served; use keys or all"
        )));
    }
    if ks.get("all").and_then(Value::as_bool) == Some(true) {
        let rows = engine
            .spanner()
            .scan_table(engine_table)
            .map_err(|e| read_error(e, |n| n.to_string()))?;
        return Ok(rows
            .iter()
            .map(|r| {
                def.primary_key
                    .iter()
                    .map(|k| r.get(k).cloned().unwrap_or(SpannerValue::Null))
                    .collect()
            })
            .collect());
    }
    let keys = ks
        .get("keys")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let parts = key
            .as_array()
            .ok_or_else(|| SpannerError::invalid(format!("{at}.keys[{i}] is not a list")))?;
        let mut values = Vec::new();
        for (j, (part, column)) in parts.iter().zip(&def.primary_key).enumerate() {
            let ty = def
                .column_type(column)
                .unwrap_or(ttlstream_engine::spanner::SpannerType::String);
            values.push(
                from_json(part, ty, &format!("{at}.keys[{i}][{j}]"))
                    .map_err(SpannerError::invalid)?,
            );
        }
        if parts.len() != def.primary_key.len() {
            return Err(SpannerError::invalid(format!(
                "{at}.keys[{i}]: the primary key has {} columns ({}), {} values were given",
                def.primary_key.len(),
                def.primary_key.join(", "),
                parts.len()
            )));
        }
        out.push(values);
    }
    Ok(out)
}

/// `POST …/sessions/S:read`.
pub(crate) fn read(engine: &Engine, db: &Database, body: &Value) -> Result<Value, SpannerError> {
    let table = super::required_str(body, "table")?;
    let engine_table = db.scope.engine(table);
    let def = engine
        .spanner()
        .describe_table(&engine_table)
        .map_err(|e| table_error(e, |n| db.scope.user(n)))?;
    let columns: Vec<&str> = body
        .get("columns")
        .and_then(Value::as_array)
        .ok_or_else(|| SpannerError::invalid("`columns` is required (an array of column names)"))?
        .iter()
        .map(|c| {
            c.as_str()
                .ok_or_else(|| SpannerError::invalid(format!("columns: {c} is not a string")))
        })
        .collect::<Result<_, _>>()?;
    let mut fields = Vec::new();
    for c in &columns {
        let ty = def.column_type(c).ok_or_else(|| {
            SpannerError::new(
                Code::NotFound,
                format!("Column not found in table {table}: {c}"),
            )
        })?;
        fields.push(json!({"name": c, "type": {"code": ty.as_str()}}));
    }
    let names = |n: &str| db.scope.user(n);
    let rows: Vec<SpannerRow> = match body
        .get("index")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    {
        Some(index) => {
            let ix = def
                .indexes
                .iter()
                .find(|ix| ix.index_name == index)
                .ok_or_else(|| {
                    SpannerError::new(
                        Code::NotFound,
                        format!("Index not found on table {table}: {index}"),
                    )
                })?;
            let ks = body
                .get("keySet")
                .ok_or_else(|| SpannerError::invalid("keySet is required"))?;
            if ks.get("all").and_then(Value::as_bool) == Some(true) {
                engine
                    .spanner()
                    .scan_table(&engine_table)
                    .map_err(|e| read_error(e, names))?
            } else {
                let mut out = Vec::new();
                let keys = ks
                    .get("keys")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                for (i, key) in keys.iter().enumerate() {
                    let parts = key.as_array().map_or(&[][..], Vec::as_slice);
                    let mut values = Vec::new();
                    for (j, (part, column)) in parts.iter().zip(&ix.columns).enumerate() {
                        let ty = def
                            .column_type(column)
                            .unwrap_or(ttlstream_engine::spanner::SpannerType::String);
                        values.push(
                            from_json(part, ty, &format!("keySet.keys[{i}][{j}]"))
                                .map_err(SpannerError::invalid)?,
                        );
                    }
                    out.extend(
                        engine
                            .spanner()
                            .read_index(&engine_table, index, &values)
                            .map_err(|e| read_error(e, names))?,
                    );
                }
                out
            }
        }
        None => {
            let mut out = Vec::new();
            for key in key_set(engine, &engine_table, &def, body.get("keySet"), "keySet")? {
                if let Some(row) = engine
                    .spanner()
                    .read_row(&engine_table, &key)
                    .map_err(|e| read_error(e, names))?
                {
                    out.push(row);
                }
            }
            out
        }
    };
    let limit = match body.get("limit") {
        None => usize::MAX,
        Some(v) => match v
            .as_str()
            .and_then(|s| s.parse::<i64>().ok())
            .or_else(|| v.as_i64())
        {
            Some(n) if n > 0 => usize::try_from(n).unwrap_or(usize::MAX),
            Some(_) => usize::MAX,
            None => {
                return Err(SpannerError::invalid(format!(
                    "limit: {v} is not an integer"
                )));
            }
        },
    };
    let out_rows: Vec<Value> = rows
        .iter()
        .take(limit)
        .map(|r| {
            Value::Array(
                columns
                    .iter()
                    .map(|c| r.get(*c).unwrap_or(&SpannerValue::Null).to_json())
                    .collect(),
            )
        })
        .collect();
    Ok(json!({"metadata": {"rowType": {"fields": fields}}, "rows": out_rows}))
}
