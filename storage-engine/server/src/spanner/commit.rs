//! `sessions.create` and `sessions.commit` ("REST Resource:
//! projects.instances.databases.sessions", "Mutation"): a commit's mutations
//! (`insert`, `update`, `insertOrUpdate`, `replace`, `delete` by `keySet`)
//! are one engine transaction, all or nothing. No mutation is checked
//! against a row deletion policy.

use super::error::{Code, SpannerError, mutation_error, table_error};
use super::read::key_set;
use super::values::from_json;
use super::{Database, now_rfc3339};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use ttlstream_engine::Engine;
use ttlstream_engine::spanner::{SpannerMutation, SpannerRow, SpannerTableDefinition};

/// Session ids handed out by this process (sessions are not tracked).
static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// `POST …/databases/D/sessions`: a `Session`.
pub(crate) fn create_session(db: &Database) -> Value {
    let id = NEXT_SESSION.fetch_add(1, Ordering::Relaxed);
    json!({"name": format!("{}/sessions/{id}", db.name)})
}

/// `POST …/sessions/S:commit` with `mutations` and `singleUseTransaction`:
/// answers `{"commitTimestamp": …}` (the engine clock after the commit).
pub(crate) fn commit(engine: &Engine, db: &Database, body: &Value) -> Result<Value, SpannerError> {
    if body.get("transactionId").is_some() {
        return Err(SpannerError::new(
            Code::FailedPrecondition,
            "transactionId: beginTransaction is not served; commit with singleUseTransaction",
        ));
    }
    let list = body
        .get("mutations")
        .and_then(Value::as_array)
        .ok_or_else(|| SpannerError::invalid("`mutations` is required (an array)"))?;
    let mut mutations = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let obj = m.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            SpannerError::invalid(format!(
                "mutations[{i}]: exactly one of insert, update, insertOrUpdate, replace, delete"
            ))
        })?;
        let (kind, write) = obj.iter().next().expect("one member, checked above");
        let table = write.get("table").and_then(Value::as_str).ok_or_else(|| {
            SpannerError::invalid(format!("mutations[{i}].{kind}.table is required"))
        })?;
        let engine_table = db.scope.engine(table);
        let def = engine
            .spanner()
            .describe_table(&engine_table)
            .map_err(|e| table_error(e, |n| db.scope.user(n)))?;
        if kind == "delete" {
            let keys = key_set(
                engine,
                &engine_table,
                &def,
                write.get("keySet"),
                &format!("mutations[{i}].delete.keySet"),
            )?;
            mutations.push(SpannerMutation::Delete {
                table: engine_table,
                keys,
            });
            continue;
        }
        for row in rows(&def, write, &format!("mutations[{i}].{kind}"))? {
            let table = engine_table.clone();
            mutations.push(match kind.as_str() {
                "insert" => SpannerMutation::Insert { table, row },
                "update" => SpannerMutation::Update { table, row },
                "insertOrUpdate" => SpannerMutation::InsertOrUpdate { table, row },
                "replace" => SpannerMutation::Replace { table, row },
                other => {
                    return Err(SpannerError::invalid(format!(
                        "mutations[{i}]: unknown mutation `{other}` (insert, update, insertOrUpdate, replace, delete)"
                    )));
                }
            });
        }
    }
    engine
        .spanner()
        .commit(&mutations)
        .map_err(|e| mutation_error(e, |n| db.scope.user(n)))?;
    Ok(json!({"commitTimestamp": now_rfc3339(engine)}))
}

/// The rows of a `Write` (`columns` and `values`, one list per row).
fn rows(
    def: &SpannerTableDefinition,
    write: &Value,
    at: &str,
) -> Result<Vec<SpannerRow>, SpannerError> {
    let columns: Vec<&str> = write
        .get("columns")
        .and_then(Value::as_array)
        .ok_or_else(|| SpannerError::invalid(format!("{at}.columns is required (an array)")))?
        .iter()
        .map(|c| {
            c.as_str()
                .ok_or_else(|| SpannerError::invalid(format!("{at}.columns: {c} is not a string")))
        })
        .collect::<Result<_, _>>()?;
    let values = write
        .get("values")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            SpannerError::invalid(format!("{at}.values is required (an array of arrays)"))
        })?;
    let mut out = Vec::new();
    for (r, list) in values.iter().enumerate() {
        let list = list
            .as_array()
            .filter(|l| l.len() == columns.len())
            .ok_or_else(|| {
                SpannerError::invalid(format!(
                    "{at}.values[{r}]: expected a list of {} values, one per column",
                    columns.len()
                ))
            })?;
        let mut row = SpannerRow::new();
        for (c, v) in columns.iter().zip(list) {
            let ty = def.column_type(c).ok_or_else(|| {
                SpannerError::new(
                    Code::NotFound,
                    format!("{at}: Column not found in table: {c}"),
                )
            })?;
            let value = from_json(v, ty, &format!("{at}.values[{r}], column {c}"))
                .map_err(SpannerError::invalid)?;
            row.insert((*c).to_string(), value);
        }
        out.push(row);
    }
    Ok(out)
}
