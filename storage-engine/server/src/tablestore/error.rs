//! Tablestore's error shape ("Tablestore: Error codes"): a body
//! `{"code": "OTSParameterInvalid", "message": "..."}` with the HTTP status
//! the service answers for that code.

use crate::error::{ApiError, ErrorKind};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use ttlstream_engine::{ReadError, TableError, WriteError};

/// A Tablestore error code, with the HTTP status of "Tablestore: Error codes".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OtsCode {
    /// 400: a missing or invalid parameter, or an unsupported operation.
    ParameterInvalid,
    /// 404: the table does not exist.
    ObjectNotExist,
    /// 409: the table exists already.
    ObjectAlreadyExist,
    /// 403: the `condition` of a write did not hold.
    ConditionCheckFail,
    /// 403: a missing or invalid signature (when `serve` has credentials).
    AuthFailed,
    /// 405: a method other than POST.
    MethodNotAllowed,
    /// 413: the body is over the limit.
    RequestBodyTooLarge,
    /// 500: the storage layer failed.
    InternalServerError,
}

impl OtsCode {
    fn name(self) -> &'static str {
        match self {
            Self::ParameterInvalid => "OTSParameterInvalid",
            Self::ObjectNotExist => "OTSObjectNotExist",
            Self::ObjectAlreadyExist => "OTSObjectAlreadyExist",
            Self::ConditionCheckFail => "OTSConditionCheckFail",
            Self::AuthFailed => "OTSAuthFailed",
            Self::MethodNotAllowed => "OTSMethodNotAllowed",
            Self::RequestBodyTooLarge => "OTSRequestBodyTooLarge",
            Self::InternalServerError => "OTSInternalServerError",
        }
    }

    fn status(self) -> StatusCode {
        match self {
            Self::ParameterInvalid => StatusCode::BAD_REQUEST,
            Self::ObjectNotExist => StatusCode::NOT_FOUND,
            Self::ObjectAlreadyExist => StatusCode::CONFLICT,
            Self::ConditionCheckFail | Self::AuthFailed => StatusCode::FORBIDDEN,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::RequestBodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::InternalServerError => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error answered in Tablestore's shape.
#[derive(Debug)]
pub(crate) struct OtsError {
    pub code: OtsCode,
    pub message: String,
}

impl OtsError {
    pub fn new(code: OtsCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(OtsCode::ParameterInvalid, message)
    }

    fn not_found(table: &str) -> Self {
        Self::new(
            OtsCode::ObjectNotExist,
            format!("Requested table does not exist: {table}"),
        )
    }
}

impl IntoResponse for OtsError {
    fn into_response(self) -> Response {
        let body = json!({"code": self.code.name(), "message": self.message});
        (self.code.status(), Json(body)).into_response()
    }
}

/// The shared request checks (signature, body size) answer in the
/// DynamoDB API's kinds; here they keep their message under Tablestore's code.
impl From<ApiError> for OtsError {
    fn from(e: ApiError) -> Self {
        let code = match e.kind {
            ErrorKind::RequestTooLarge => OtsCode::RequestBodyTooLarge,
            ErrorKind::MissingAuthenticationToken
            | ErrorKind::UnrecognizedClient
            | ErrorKind::InvalidSignature
            | ErrorKind::IncompleteSignature
            | ErrorKind::AccessDenied => OtsCode::AuthFailed,
            ErrorKind::InternalServerError => OtsCode::InternalServerError,
            _ => OtsCode::ParameterInvalid,
        };
        Self::new(code, e.message)
    }
}

impl From<TableError> for OtsError {
    fn from(e: TableError) -> Self {
        match e {
            TableError::NotFound { table } => Self::not_found(&table),
            TableError::AlreadyExists { table } => Self::new(
                OtsCode::ObjectAlreadyExist,
                format!("Requested table already exists: {table}"),
            ),
            TableError::Invalid { .. } => Self::invalid(e.to_string()),
            other => Self::new(OtsCode::InternalServerError, other.to_string()),
        }
    }
}

impl From<WriteError> for OtsError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::TableNotFound { table } => Self::not_found(&table),
            WriteError::ConditionalCheckFailed { table, .. } => Self::new(
                OtsCode::ConditionCheckFail,
                format!("Condition check failed: table {table}"),
            ),
            WriteError::Validation { .. } | WriteError::Expression { .. } => {
                Self::invalid(e.to_string())
            }
            other => Self::new(OtsCode::InternalServerError, other.to_string()),
        }
    }
}

impl From<ReadError> for OtsError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::TableNotFound { table } => Self::not_found(&table),
            ReadError::Validation { .. } | ReadError::Expression { .. } => {
                Self::invalid(e.to_string())
            }
            other => Self::new(OtsCode::InternalServerError, other.to_string()),
        }
    }
}
