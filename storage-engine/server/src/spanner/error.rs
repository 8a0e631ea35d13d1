//! Google's JSON error shape for the Spanner routes ("Cloud APIs: Errors",
//! the `google.rpc.Status` mapping): `{"error": {"code": <HTTP status>,
//! "message": "...", "status": "INVALID_ARGUMENT"}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::{ApiError, ErrorKind};
use ttlstream_engine::spanner::MutationError;
use ttlstream_engine::{ReadError, StorageError, TableError};

/// A canonical error code and its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    /// 400: the request is malformed or names something invalid.
    InvalidArgument,
    /// 400: the request is valid but the state does not allow it.
    FailedPrecondition,
    /// 404: the database, table, row, session or backup does not exist.
    NotFound,
    /// 409: the database, table, row or backup exists already.
    AlreadyExists,
    /// 403: the request is not signed as the server requires.
    PermissionDenied,
    /// 500: the storage layer failed.
    Internal,
}

impl Code {
    fn status(self) -> (StatusCode, &'static str) {
        match self {
            Code::InvalidArgument => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
            Code::FailedPrecondition => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
            Code::NotFound => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            Code::AlreadyExists => (StatusCode::CONFLICT, "ALREADY_EXISTS"),
            Code::PermissionDenied => (StatusCode::FORBIDDEN, "PERMISSION_DENIED"),
            Code::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
        }
    }
}

/// An error answered to a Spanner request.
#[derive(Debug)]
pub(crate) struct SpannerError {
    pub(crate) code: Code,
    pub(crate) message: String,
}

/// The shared request checks (`admission.rs`: body size, signature) answer
/// in the DynamoDB API's kinds; here they keep their message under Google's
/// code ("Cloud APIs: Errors": 403 `PERMISSION_DENIED` for a request not
/// authorised).
impl From<ApiError> for SpannerError {
    fn from(e: ApiError) -> Self {
        let code = match e.kind {
            ErrorKind::MissingAuthenticationToken
            | ErrorKind::UnrecognizedClient
            | ErrorKind::InvalidSignature
            | ErrorKind::IncompleteSignature
            | ErrorKind::AccessDenied => Code::PermissionDenied,
            ErrorKind::InternalServerError => Code::Internal,
            _ => Code::InvalidArgument,
        };
        Self::new(code, e.message)
    }
}

impl SpannerError {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
}

impl IntoResponse for SpannerError {
    fn into_response(self) -> Response {
        let (status, name) = self.code.status();
        let body = json!({"error": {
            "code": status.as_u16(),
            "message": self.message,
            "status": name,
        }});
        (status, Json(body)).into_response()
    }
}

impl From<StorageError> for SpannerError {
    fn from(e: StorageError) -> Self {
        Self::new(Code::Internal, e.to_string())
    }
}

/// Maps an engine table error; `names` turns engine table names back into
/// the caller's.
pub(crate) fn table_error(e: TableError, names: impl Fn(&str) -> String) -> SpannerError {
    match e {
        TableError::NotFound { table } => SpannerError::new(
            Code::NotFound,
            format!("Table not found: {}", names(&table)),
        ),
        TableError::AlreadyExists { table } => SpannerError::new(
            Code::AlreadyExists,
            format!("Duplicate name in schema: {}", names(&table)),
        ),
        TableError::Invalid { table, message } => SpannerError::new(
            Code::FailedPrecondition,
            format!("table {}: {message}", names(&table)),
        ),
        other => SpannerError::new(Code::Internal, other.to_string()),
    }
}

/// Maps an engine commit error.
pub(crate) fn mutation_error(e: MutationError, names: impl Fn(&str) -> String) -> SpannerError {
    match e {
        MutationError::TableNotFound { table } => SpannerError::new(
            Code::NotFound,
            format!("Table not found: {}", names(&table)),
        ),
        MutationError::Invalid {
            table,
            index,
            message,
        } => SpannerError::invalid(format!(
            "mutations[{index}] on table {}: {message}",
            names(&table)
        )),
        MutationError::AlreadyExists { table, index, key } => SpannerError::new(
            Code::AlreadyExists,
            format!(
                "mutations[{index}]: Row {key} in table {} already exists",
                names(&table)
            ),
        ),
        MutationError::RowNotFound {
            table,
            index,
            message,
        } => SpannerError::new(
            Code::NotFound,
            format!("mutations[{index}] on table {}: {message}", names(&table)),
        ),
        other => SpannerError::new(Code::Internal, other.to_string()),
    }
}

/// Maps an engine read error.
pub(crate) fn read_error(e: ReadError, names: impl Fn(&str) -> String) -> SpannerError {
    match e {
        ReadError::TableNotFound { table } => SpannerError::new(
            Code::NotFound,
            format!("Table not found: {}", names(&table)),
        ),
        ReadError::Validation { message, .. } => SpannerError::invalid(message),
        other => SpannerError::new(Code::Internal, other.to_string()),
    }
}
