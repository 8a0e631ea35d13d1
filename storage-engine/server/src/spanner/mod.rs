//! A subset of Spanner's REST API v1 ("Cloud Spanner API: REST reference"),
//! on the same listener as the DynamoDB API, under `/v1/projects/{project}/instances/{instance}/`.
//! User documentation: `storage-engine/server/SPANNER.md`.
//!
//! | method | path (after `/v1/projects/P/instances/I/`) | operation |
//! |---|---|---|
//! | POST | `databases` | `databases.create` |
//! | GET, PATCH | `databases/D/ddl` | `databases.getDdl`, `databases.updateDdl` |
//! | POST | `databases/D/sessions` | `sessions.create` |
//! | POST | `databases/D/sessions/S:commit` | `sessions.commit` |
//! | POST | `databases/D/sessions/S:read` | `sessions.read` |
//! | POST | `backups?backupId=B` | `backups.create` |
//! | POST | `databases:restore` | `databases.restore` |
//! | GET | `databases/D/dataChangeRecords?table=T` | the table's data change records (this server's own path) |
//!
//! Databases are implicit: a database is its tables (`names.rs`), so every
//! database path can be used at once, and `databases.create` is refused
//! with `ALREADY_EXISTS` only when the database has tables. Long-running
//! operations complete before the answer (`"done": true`). Sessions are not
//! tracked: any session name under the database is accepted.
//!
//! Access: Google OAuth tokens are not checked. When the server has
//! credentials (`ServerOptions::credentials`), every Spanner request must
//! carry a valid SigV4 signature made with them, as DynamoDB requests do;
//! without credentials the server listens on loopback only.

mod backup;
mod changes;
mod commit;
mod databases;
mod ddl;
mod ddl_tokens;
mod error;
mod names;
mod read;
mod values;

use super::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use error::{Code, SpannerError};
use serde_json::{Value, json};

/// The Spanner routes' common prefix.
pub(crate) const PREFIX: &str = "/v1/projects/";

/// The handler of every path under `/v1/`.
pub(crate) async fn handle(
    State(state): State<AppState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match handle_inner(state, method, uri, headers, body).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn handle_inner(
    state: AppState,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Value, SpannerError> {
    let bytes = crate::admission::admit(&state, &method, &uri, &headers, body).await?;
    let body: Value = if bytes.is_empty() {
        json!({})
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|e| SpannerError::invalid(format!("the request body is not JSON: {e}")))?
    };
    let query = uri.query().unwrap_or("").to_string();
    let path = uri.path().to_string();
    let engine = state.engine.clone();
    crate::admission::on_blocking_thread(move || route(&engine, &method, &path, &query, &body))
        .await?
}

/// A request's database: its full name and its tables' scope.
pub(crate) struct Database {
    /// `projects/P/instances/I/databases/D`.
    pub(crate) name: String,
    /// Its engine-table prefix.
    pub(crate) scope: names::Scope,
}

fn route(
    engine: &ttlstream_engine::Engine,
    method: &Method,
    path: &str,
    query: &str,
    body: &Value,
) -> Result<Value, SpannerError> {
    let not_found = || {
        SpannerError::new(
            Code::NotFound,
            format!("{method} {path}: no such method in this server's Spanner API subset"),
        )
    };
    let rest = path.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let (project, instance, tail) = match parts.as_slice() {
        [p, "instances", i, tail @ ..] => (*p, *i, tail),
        _ => return Err(not_found()),
    };
    let instance_name = format!("projects/{project}/instances/{instance}");
    let database = |id: &str| -> Result<Database, SpannerError> {
        names::check_id("database", id)?;
        Ok(Database {
            name: format!("{instance_name}/databases/{id}"),
            scope: names::Scope {
                prefix: names::database_prefix(id),
            },
        })
    };
    match (method.as_str(), tail) {
        ("POST", ["databases"]) => databases::create(engine, &instance_name, body),
        ("POST", ["databases:restore"]) => databases::restore(engine, &instance_name, body),
        ("POST", ["backups"]) => backup::create(engine, &instance_name, query, body),
        ("GET", ["databases", d, "ddl"]) => databases::get_ddl(engine, &database(d)?),
        ("PATCH", ["databases", d, "ddl"]) => databases::update_ddl(engine, &database(d)?, body),
        ("POST", ["databases", d, "sessions"]) => Ok(commit::create_session(&database(d)?)),
        ("POST", ["databases", d, "sessions", s]) => match s.rsplit_once(':') {
            Some((_, "commit")) => commit::commit(engine, &database(d)?, body),
            Some((_, "read")) => read::read(engine, &database(d)?, body),
            _ => Err(not_found()),
        },
        ("GET", ["databases", d, "dataChangeRecords"]) => {
            changes::read(engine, &database(d)?, query)
        }
        _ => Err(not_found()),
    }
}

/// A finished long-running operation ("google.longrunning.Operation").
pub(crate) fn done_operation(name: String, metadata: Value, response: Value) -> Value {
    json!({"name": name, "metadata": metadata, "done": true, "response": response})
}

/// The engine clock as RFC 3339, for operation times and commit timestamps.
pub(crate) fn now_rfc3339(engine: &ttlstream_engine::Engine) -> String {
    ttlstream_engine::spanner::rfc3339_millis(engine.clock().now_millis())
}

/// A string member of a request body, required.
pub(crate) fn required_str<'a>(body: &'a Value, member: &str) -> Result<&'a str, SpannerError> {
    body.get(member)
        .and_then(Value::as_str)
        .ok_or_else(|| SpannerError::invalid(format!("`{member}` is required (a string)")))
}
