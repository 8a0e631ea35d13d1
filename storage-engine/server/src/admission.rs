//! What every API `serve` answers does with a request before its operation
//! runs: read the body, at most `max_request_body_bytes`, verify its SigV4
//! signature when credentials are configured, and run the operation on a
//! blocking thread (the engine does synchronous I/O). One place for the
//! DynamoDB protocol (`protocol.rs`), Tablestore's JSON rendering
//! (`tablestore/`) and Spanner's REST routes (`spanner/`), so no API can skip
//! the limit or the signature; each renders the refusal, an [`ApiError`] in
//! the DynamoDB API's kinds, in its own error shape (`From<ApiError>`).

use super::AppState;
use super::error::{ApiError, ErrorKind};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Uri};

/// The request's body, read and checked.
///
/// # Errors
///
/// [`ErrorKind::RequestTooLarge`] for a body over the limit,
/// [`ErrorKind::Serialization`] for one that cannot be read, and the
/// signature errors of [`crate::Credentials::verify`].
pub(crate) async fn admit(
    state: &AppState,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, ApiError> {
    let limit = state.max_request_body_bytes;
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|e| body_error(&e, limit))?;
    if let Some(credentials) = &state.credentials {
        credentials.verify(method, uri, headers, &bytes)?;
    }
    Ok(bytes)
}

/// What `operation` returns, run on a blocking thread.
///
/// # Errors
///
/// [`ErrorKind::InternalServerError`] if the thread panicked.
pub(crate) async fn on_blocking_thread<T: Send + 'static>(
    operation: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(operation).await.map_err(|e| {
        ApiError::new(
            ErrorKind::InternalServerError,
            format!("request failed: {e}"),
        )
    })
}

/// A body over the limit (axum's length-limit error, somewhere in the
/// chain) or one that could not be read.
fn body_error(e: &axum::Error, limit: usize) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.to_string().contains("length limit") {
            return ApiError::new(
                ErrorKind::RequestTooLarge,
                format!("Request body is larger than the limit of {limit} bytes"),
            );
        }
        source = s.source();
    }
    ApiError::new(
        ErrorKind::Serialization,
        format!("cannot read the request body: {e}"),
    )
}
