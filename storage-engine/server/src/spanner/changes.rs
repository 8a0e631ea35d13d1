//! The data change records of a table, on this server's own path
//! `GET …/databases/D/dataChangeRecords?table=T[&afterSequenceNumber=N][&limit=L]`.
//!
//! Spanner reads a change stream with a query (`SELECT ChangeRecord FROM
//! READ_<stream>(start_timestamp => …)`, "Change streams partitions,
//! records, and queries") that returns partition, heartbeat and data change
//! records. This server does not run SQL; it gives the one thing a TTL
//! reader needs, the data change records, each in Spanner's
//! `DataChangeRecord` JSON (`commit_timestamp`, `record_sequence`,
//! `server_transaction_id`, `table_name`, `column_types`, `mods`,
//! `mod_type`, `value_capture_type`, `transaction_tag`,
//! `is_system_transaction`, …) beside the engine's sequence number, the
//! position to read after next time:
//! `{"dataChangeRecords": [{"sequenceNumber": "7", "record": {…}}]}`.
//! Every table created through this API has a change stream capturing
//! `OLD_AND_NEW_VALUES`.

use super::Database;
use super::error::{Code, SpannerError};
use serde_json::{Value, json};
use ttlstream_engine::{Engine, SequenceNumber, StreamError};

/// Records answered when `limit` is not given.
const DEFAULT_LIMIT: usize = 1000;

/// `GET …/dataChangeRecords`.
pub(crate) fn read(engine: &Engine, db: &Database, query: &str) -> Result<Value, SpannerError> {
    let mut table = None;
    let mut after = None;
    let mut limit = DEFAULT_LIMIT;
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        let number = |what: &str| {
            v.parse::<u64>().map_err(|_| {
                SpannerError::invalid(format!("{what}: {v:?} is not a non-negative integer"))
            })
        };
        match k {
            "table" => table = Some(v.to_string()),
            "afterSequenceNumber" => after = Some(SequenceNumber(number(k)?)),
            "limit" => limit = usize::try_from(number(k)?).unwrap_or(usize::MAX),
            other => {
                return Err(SpannerError::invalid(format!(
                    "unknown query parameter `{other}` (table, afterSequenceNumber, limit)"
                )));
            }
        }
    }
    let table =
        table.ok_or_else(|| SpannerError::invalid("the table query parameter is required"))?;
    let entries = engine
        .spanner()
        .read_change_stream(&db.scope.engine(&table), after, limit)
        .map_err(|e| match e {
            StreamError::TableNotFound { .. } => {
                SpannerError::new(Code::NotFound, format!("Table not found: {table}"))
            }
            other => SpannerError::new(
                Code::FailedPrecondition,
                other.to_string().replace(&db.scope.prefix, ""),
            ),
        })?;
    let records: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let mut record = e.record;
            record.table_name = db.scope.user(&record.table_name);
            json!({"sequenceNumber": e.sequence_number.0.to_string(), "record": record})
        })
        .collect();
    Ok(json!({"dataChangeRecords": records}))
}
