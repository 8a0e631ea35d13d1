//! `backups.create` ("REST Resource: projects.instances.backups"): copies
//! every table of a database into the backup's scope (`names.rs`) in one
//! engine restore per table. A backup holds no row deletion policy and no
//! interleaving (see `databases::restore`), so nothing in it expires.

use super::error::{Code, SpannerError, read_error, table_error};
use super::names::{self, Scope};
use super::{done_operation, required_str};
use serde_json::{Value, json};
use ttlstream_engine::Engine;

/// `POST …/backups?backupId=B` with `{"database": "projects/P/instances/I/databases/D"}`.
pub(crate) fn create(
    engine: &Engine,
    instance: &str,
    query: &str,
    body: &Value,
) -> Result<Value, SpannerError> {
    let backup_id = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("backupId="))
        .ok_or_else(|| SpannerError::invalid("the backupId query parameter is required"))?;
    names::check_id("backup", backup_id)?;
    let database = required_str(body, "database")?;
    let db_id = database
        .strip_prefix(&format!("{instance}/databases/"))
        .ok_or_else(|| {
            SpannerError::invalid(format!(
                "database: {database:?} is not a database of {instance} ({instance}/databases/ID)"
            ))
        })?;
    names::check_id("database", db_id)?;
    let from = Scope {
        prefix: names::database_prefix(db_id),
    };
    let to = Scope {
        prefix: names::backup_prefix(backup_id),
    };
    let all = engine
        .spanner()
        .list_tables()
        .map_err(|e| read_error(e, str::to_string))?;
    let name = format!("{instance}/backups/{backup_id}");
    if !to.tables(&all).is_empty() {
        return Err(SpannerError::new(
            Code::AlreadyExists,
            format!("Backup already exists: {name}"),
        ));
    }
    let sources = from.tables(&all);
    if sources.is_empty() {
        return Err(SpannerError::new(
            Code::NotFound,
            format!("Database not found: {database}"),
        ));
    }
    for t in &sources {
        engine
            .spanner()
            .restore_table_from_backup(&from.engine(t), &to.engine(t))
            .map_err(|e| table_error(e, |n| to.user(n)))?;
    }
    let now = super::now_rfc3339(engine);
    Ok(done_operation(
        format!("{name}/operations/create"),
        json!({
            "@type": "type.googleapis.com/google.spanner.admin.database.v1.CreateBackupMetadata",
            "name": name,
            "database": database,
        }),
        json!({
            "@type": "type.googleapis.com/google.spanner.admin.database.v1.Backup",
            "name": name,
            "database": database,
            "createTime": now,
            "state": "READY",
        }),
    ))
}
