//! `databases.create`, `databases.getDdl`, `databases.updateDdl` and
//! `databases.restore` ("REST Resource: projects.instances.databases").

use super::ddl::{self, Statement};
use super::error::{Code, SpannerError, read_error, table_error};
use super::names::{self, Scope};
use super::{Database, done_operation, required_str};
use serde_json::{Value, json};
use ttlstream_engine::Engine;
use ttlstream_engine::spanner::{SpannerTableDefinition, ValueCaptureType};

const TYPE_PREFIX: &str = "type.googleapis.com/google.spanner.admin.database.v1.";

fn database_resource(name: &str, dialect: &str) -> Value {
    json!({
        "@type": format!("{TYPE_PREFIX}Database"),
        "name": name,
        "state": "READY",
        "databaseDialect": dialect,
    })
}

/// The caller's tables of `scope`, parents before their children.
pub(crate) fn tables(
    engine: &Engine,
    scope: &Scope,
) -> Result<Vec<SpannerTableDefinition>, SpannerError> {
    let mut left = Vec::new();
    for t in scope.tables(
        &engine
            .spanner()
            .list_tables()
            .map_err(|e| read_error(e, str::to_string))?,
    ) {
        let mut def = engine
            .spanner()
            .describe_table(&scope.engine(&t))
            .map_err(|e| table_error(e, |n| scope.user(n)))?;
        def.table_name = t;
        def.interleave_in_parent = def.interleave_in_parent.map(|p| scope.user(&p));
        left.push(def);
    }
    let mut out: Vec<SpannerTableDefinition> = Vec::new();
    while !left.is_empty() {
        let before = left.len();
        let (ready, rest): (Vec<_>, Vec<_>) = left.into_iter().partition(|d| {
            d.interleave_in_parent
                .as_ref()
                .is_none_or(|p| out.iter().any(|o| &o.table_name == p))
        });
        out.extend(ready);
        left = rest;
        if left.len() == before {
            out.append(&mut left);
        }
    }
    Ok(out)
}

/// `POST …/databases`: `createStatement` (`CREATE DATABASE name`),
/// `extraStatements` (as `updateDdl`), `databaseDialect`.
pub(crate) fn create(engine: &Engine, instance: &str, body: &Value) -> Result<Value, SpannerError> {
    let create = required_str(body, "createStatement")?;
    let words: Vec<&str> = create.split_whitespace().collect();
    let id = match words.as_slice() {
        [c, d, name] if c.eq_ignore_ascii_case("CREATE") && d.eq_ignore_ascii_case("DATABASE") => {
            name.trim_matches(|c| c == '`' || c == '"')
        }
        _ => {
            return Err(SpannerError::invalid(format!(
                "createStatement: expected `CREATE DATABASE name`, found {create:?}"
            )));
        }
    };
    let dialect = match body.get("databaseDialect").and_then(Value::as_str) {
        None | Some("DATABASE_DIALECT_UNSPECIFIED" | "GOOGLE_STANDARD_SQL") => {
            "GOOGLE_STANDARD_SQL"
        }
        Some("POSTGRESQL") => "POSTGRESQL",
        Some(other) => {
            return Err(SpannerError::invalid(format!(
                "databaseDialect: {other:?} is not GOOGLE_STANDARD_SQL or POSTGRESQL"
            )));
        }
    };
    names::check_id("database", id)?;
    let db = Database {
        name: format!("{instance}/databases/{id}"),
        scope: Scope {
            prefix: names::database_prefix(id),
        },
    };
    if !tables(engine, &db.scope)?.is_empty() {
        return Err(SpannerError::new(
            Code::AlreadyExists,
            format!("Database already exists: {}", db.name),
        ));
    }
    let extra = match body.get("extraStatements") {
        None => json!({"statements": []}),
        Some(v) => json!({"statements": v}),
    };
    update_ddl(engine, &db, &extra)?;
    Ok(done_operation(
        format!("{}/operations/create", db.name),
        json!({"@type": format!("{TYPE_PREFIX}CreateDatabaseMetadata"), "database": db.name}),
        database_resource(&db.name, dialect),
    ))
}

/// `GET …/databases/D/ddl`: `{"statements": [...]}` in GoogleSQL.
pub(crate) fn get_ddl(engine: &Engine, db: &Database) -> Result<Value, SpannerError> {
    let statements: Vec<String> = tables(engine, &db.scope)?
        .iter()
        .flat_map(ddl::render)
        .collect();
    Ok(json!({"statements": statements}))
}

/// `PATCH …/databases/D/ddl`: `statements` applied in order (see `ddl.rs`).
/// Every statement is parsed before any is applied; a statement that fails
/// when applied leaves the earlier ones applied, as Spanner does.
pub(crate) fn update_ddl(
    engine: &Engine,
    db: &Database,
    body: &Value,
) -> Result<Value, SpannerError> {
    let texts: Vec<&str> = body
        .get("statements")
        .and_then(Value::as_array)
        .ok_or_else(|| SpannerError::invalid("`statements` is required (an array of strings)"))?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str()
                .ok_or_else(|| SpannerError::invalid(format!("statements[{i}] is not a string")))
        })
        .collect::<Result<_, _>>()?;
    let mut plan: Vec<Statement> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        match ddl::parse(i, text)? {
            Statement::CreateIndex {
                index_name,
                table,
                columns,
            } => {
                let Some(Statement::CreateTable(def)) = plan
                    .iter_mut()
                    .find(|s| matches!(s, Statement::CreateTable(d) if d.table_name == table))
                else {
                    return Err(SpannerError::new(
                        Code::FailedPrecondition,
                        format!(
                            "statements[{i}]: CREATE INDEX {index_name}: this server adds an index only in the updateDdl request that creates table {table}"
                        ),
                    ));
                };
                let taken = std::mem::replace(def, SpannerTableDefinition::new(""));
                *def = taken.index(index_name, columns);
            }
            other => plan.push(other),
        }
    }
    let scope = &db.scope;
    let err = |e| table_error(e, |n| scope.user(n));
    for st in plan {
        match st {
            Statement::CreateTable(mut def) => {
                def.table_name = scope.engine(&def.table_name);
                def.interleave_in_parent = def.interleave_in_parent.map(|p| scope.engine(&p));
                engine
                    .spanner()
                    .create_table(def.change_stream(ValueCaptureType::OldAndNewValues))
                    .map_err(err)?;
            }
            Statement::AddPolicy { table, policy } => {
                let current = engine
                    .spanner()
                    .describe_table(&scope.engine(&table))
                    .map_err(err)?;
                if current.row_deletion_policy.is_some() {
                    return Err(SpannerError::new(
                        Code::FailedPrecondition,
                        format!(
                            "Table {table} already has a row deletion policy; use REPLACE or DROP"
                        ),
                    ));
                }
                engine
                    .spanner()
                    .set_row_deletion_policy(&scope.engine(&table), Some(policy))
                    .map_err(err)?;
            }
            Statement::ReplacePolicy { table, policy } => {
                require_policy(engine, scope, &table)?;
                engine
                    .spanner()
                    .set_row_deletion_policy(&scope.engine(&table), Some(policy))
                    .map_err(err)?;
            }
            Statement::DropPolicy { table } => {
                require_policy(engine, scope, &table)?;
                engine
                    .spanner()
                    .set_row_deletion_policy(&scope.engine(&table), None)
                    .map_err(err)?;
            }
            Statement::CreateIndex { .. } => {}
        }
    }
    let now = super::now_rfc3339(engine);
    Ok(done_operation(
        format!("{}/operations/ddl", db.name),
        json!({
            "@type": format!("{TYPE_PREFIX}UpdateDatabaseDdlMetadata"),
            "database": db.name,
            "statements": texts,
            "commitTimestamps": vec![now; texts.len()],
        }),
        json!({"@type": "type.googleapis.com/google.protobuf.Empty"}),
    ))
}

fn require_policy(engine: &Engine, scope: &Scope, table: &str) -> Result<(), SpannerError> {
    let def = engine
        .spanner()
        .describe_table(&scope.engine(table))
        .map_err(|e| table_error(e, |n| scope.user(n)))?;
    if def.row_deletion_policy.is_none() {
        return Err(SpannerError::new(
            Code::FailedPrecondition,
            format!("Table {table} has no row deletion policy"),
        ));
    }
    Ok(())
}

/// `POST …/databases:restore`: `databaseId` (new) and `backup`
/// (`projects/P/instances/I/backups/B`). The restored tables have no row
/// deletion policy ("Spanner: About TTL", backups and restore) and are
/// top-level tables (the engine's restore does not keep interleaving).
pub(crate) fn restore(
    engine: &Engine,
    instance: &str,
    body: &Value,
) -> Result<Value, SpannerError> {
    let id = required_str(body, "databaseId")?;
    let backup = required_str(body, "backup")?;
    names::check_id("database", id)?;
    let backup_id = backup
        .strip_prefix(&format!("{instance}/backups/"))
        .ok_or_else(|| {
            SpannerError::invalid(format!(
                "backup: {backup:?} is not a backup of {instance} ({instance}/backups/ID)"
            ))
        })?;
    names::check_id("backup", backup_id)?;
    let from = Scope {
        prefix: names::backup_prefix(backup_id),
    };
    let to = Database {
        name: format!("{instance}/databases/{id}"),
        scope: Scope {
            prefix: names::database_prefix(id),
        },
    };
    let sources = from.tables(
        &engine
            .spanner()
            .list_tables()
            .map_err(|e| read_error(e, str::to_string))?,
    );
    if sources.is_empty() {
        return Err(SpannerError::new(
            Code::NotFound,
            format!("Backup not found: {backup}"),
        ));
    }
    if !tables(engine, &to.scope)?.is_empty() {
        return Err(SpannerError::new(
            Code::AlreadyExists,
            format!("Database already exists: {}", to.name),
        ));
    }
    for t in &sources {
        engine
            .spanner()
            .restore_table_from_backup(&from.engine(t), &to.scope.engine(t))
            .map_err(|e| table_error(e, |n| to.scope.user(n)))?;
    }
    Ok(done_operation(
        format!("{}/operations/restore", to.name),
        json!({
            "@type": format!("{TYPE_PREFIX}RestoreDatabaseMetadata"),
            "name": to.name,
            "sourceType": "BACKUP",
            "backupInfo": {"backup": backup},
        }),
        database_resource(&to.name, "GOOGLE_STANDARD_SQL"),
    ))
}
