//! A JSON rendering of Tablestore's API (its wire format is protobuf):
//! `POST /<Operation>` (`/CreateTable`, `/PutRow`, ...) with a JSON body
//! whose members are the fields of the Tablestore SDK's `table_store.proto`
//! messages; `storage-engine/server/TABLESTORE.md` documents every request
//! and response. Errors are Tablestore's `{"code", "message"}` with the
//! service's HTTP status (`error.rs`).
//!
//! Same listener and access control as the DynamoDB API: with
//! [`ServerOptions::credentials`](crate::ServerOptions::credentials) every
//! request must carry a valid SigV4 signature made with them (an invalid
//! one is `OTSAuthFailed`); without, the server listens on loopback only.

mod error;
mod range;
mod row;
mod stream;
mod table;
mod value;

use super::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use error::{OtsCode, OtsError};
use serde::de::DeserializeOwned;
use serde_json::Value;
use ttlstream_engine::Engine;

/// The operations served, each at `POST /<name>`.
const OPERATIONS: [&str; 14] = [
    "CreateTable",
    "UpdateTable",
    "DescribeTable",
    "DeleteTable",
    "ListTable",
    "PutRow",
    "UpdateRow",
    "DeleteRow",
    "GetRow",
    "GetRange",
    "ListStream",
    "DescribeStream",
    "GetShardIterator",
    "GetStreamRecord",
];

/// The Tablestore routes, to merge into the server's router.
pub(crate) fn routes() -> Router<AppState> {
    OPERATIONS.iter().fold(Router::new(), |router, op| {
        router.route(&format!("/{op}"), any(handle))
    })
}

async fn handle(
    State(state): State<AppState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match handle_inner(state, method, uri, headers, body).await {
        Ok(json) => axum::Json(json).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn handle_inner(
    state: AppState,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Value, OtsError> {
    if method != Method::POST {
        return Err(OtsError::new(
            OtsCode::MethodNotAllowed,
            "Only POST method for requests is supported.",
        ));
    }
    let bytes = crate::admission::admit(&state, &method, &uri, &headers, body).await?;
    let operation = uri.path().trim_start_matches('/').to_string();
    crate::admission::on_blocking_thread(move || dispatch(&state.engine, &operation, &bytes))
        .await?
}

fn dispatch(engine: &Engine, operation: &str, body: &[u8]) -> Result<Value, OtsError> {
    match operation {
        "CreateTable" => table::create_table(engine, body),
        "UpdateTable" => table::update_table(engine, body),
        "DescribeTable" => table::describe_table(engine, body),
        "DeleteTable" => table::delete_table(engine, body),
        "ListTable" => table::list_table(engine, body),
        "PutRow" => row::put_row(engine, body),
        "UpdateRow" => row::update_row(engine, body),
        "DeleteRow" => row::delete_row(engine, body),
        "GetRow" => row::get_row(engine, body),
        "GetRange" => range::get_range(engine, body),
        "ListStream" => stream::list_stream(engine, body),
        "DescribeStream" => stream::describe_stream(engine, body),
        "GetShardIterator" => stream::get_shard_iterator(engine, body),
        "GetStreamRecord" => stream::get_stream_record(engine, body),
        other => Err(OtsError::invalid(format!(
            "Unsupported operation: {other}."
        ))),
    }
}

/// Parses a request body (empty = `{}`): malformed JSON, a member of the
/// wrong type, a missing required member, or a member this server does not
/// implement is `OTSParameterInvalid` naming it.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, OtsError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| OtsError::invalid(format!("malformed JSON body: {e}")))?;
    if !value.is_object() {
        return Err(OtsError::invalid("the request body must be a JSON object"));
    }
    serde_json::from_value(value).map_err(|e| {
        let message = e.to_string();
        match message.strip_prefix("unknown field `") {
            Some(rest) => OtsError::invalid(format!(
                "parameter `{}` is not implemented by this server (ttlstream serve); the request was not run",
                rest.split('`').next().unwrap_or_default()
            )),
            None => OtsError::invalid(format!("invalid request body: {message}")),
        }
    })
}
