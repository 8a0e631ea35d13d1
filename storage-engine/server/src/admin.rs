//! Time control for tests, outside the AWS API, under `/_ttlstream/`:
//!
//! * `POST /_ttlstream/sweep`: one TTL sweep pass now, on the engine's
//!   clock, followed by a stream retention pass as the background sweeper
//!   does ([`Engine::trim_streams`](ttlstream_engine::Engine::trim_streams)); answers
//!   `{"Deleted": n, "RecordsTrimmed": m}` once both have committed.
//! * `POST /_ttlstream/clock` with `{"AdvanceMillis": n}` (n ≥ 0) or
//!   `{"EpochMillis": t}`: moves the manual clock (only when the server was
//!   given one, [`ServerOptions::manual_clock`](super::ServerOptions::manual_clock);
//!   `ttlstream serve --clock manual`); answers `{"EpochMillis": now}`.
//!   `GET /_ttlstream/clock` reads the engine clock.
//!
//! Reachable only from a loopback peer while no credentials are configured;
//! with credentials, only with a valid SigV4 signature (from any peer).
//! Errors use the API's shapes: `AccessDeniedException` for a refused peer,
//! `ValidationException` for a bad body or no manual clock.

use super::AppState;
use super::error::{ApiError, ErrorKind};
use axum::Json;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;

/// The admin paths' common prefix.
pub const ADMIN_PREFIX: &str = "/_ttlstream/";

/// Body of `POST /_ttlstream/clock`: exactly one member.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct ClockRequest {
    advance_millis: Option<i64>,
    epoch_millis: Option<i64>,
}

/// Checks that the caller may use the admin paths.
fn authorize(
    state: &AppState,
    peer: SocketAddr,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), ApiError> {
    match &state.credentials {
        Some(credentials) => credentials.verify(method, uri, headers, body),
        None if peer.ip().is_loopback() => Ok(()),
        None => Err(ApiError::new(
            ErrorKind::AccessDenied,
            format!(
                "{ADMIN_PREFIX} is reachable only from loopback when no credentials are configured; {peer} is not"
            ),
        )),
    }
}

fn answer(result: Result<Value, ApiError>) -> Response {
    match result {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `POST /_ttlstream/sweep`.
pub(super) async fn sweep(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(e) = authorize(&state, peer, &method, &uri, &headers, &body) {
        return e.into_response();
    }
    let engine = state.engine.clone();
    let result = tokio::task::spawn_blocking(move || {
        let swept = engine.sweep_now().map_err(|e| e.to_string())?;
        let trimmed = engine.trim_streams().map_err(|e| e.to_string())?;
        Ok::<_, String>((swept, trimmed))
    })
    .await;
    answer(match result {
        Ok(Ok((swept, trimmed))) => Ok(json!({
            "Deleted": swept.deleted,
            "RecordsTrimmed": trimmed.records_trimmed,
        })),
        Ok(Err(e)) => Err(ApiError::new(ErrorKind::InternalServerError, e)),
        Err(e) => Err(ApiError::new(
            ErrorKind::InternalServerError,
            format!("sweep failed: {e}"),
        )),
    })
}

/// `GET` and `POST /_ttlstream/clock`.
pub(super) async fn clock(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(e) = authorize(&state, peer, &method, &uri, &headers, &body) {
        return e.into_response();
    }
    answer(move_clock(&state, &method, &body))
}

fn move_clock(state: &AppState, method: &Method, body: &[u8]) -> Result<Value, ApiError> {
    if method == Method::POST {
        let Some(clock) = &state.manual_clock else {
            return Err(ApiError::validation(
                "the engine clock is not manual: start `ttlstream serve --clock manual` to move it",
            ));
        };
        let req: ClockRequest = serde_json::from_slice(body).map_err(|e| {
            ApiError::validation(format!(
                "clock request: expected {{\"AdvanceMillis\": n}} or {{\"EpochMillis\": t}}: {e}"
            ))
        })?;
        match (req.advance_millis, req.epoch_millis) {
            (Some(n), None) => {
                let by = u64::try_from(n).map_err(|_| {
                    ApiError::validation(format!(
                        "AdvanceMillis must be 0 or more (the clock does not go back by steps), got {n}"
                    ))
                })?;
                clock.advance(Duration::from_millis(by));
            }
            (None, Some(t)) => clock.set_millis(t),
            _ => {
                return Err(ApiError::validation(
                    "clock request: give exactly one of AdvanceMillis or EpochMillis",
                ));
            }
        }
    }
    Ok(json!({ "EpochMillis": state.engine.clock().now_millis() }))
}
