//! AWS error shapes of the DynamoDB API ("Error handling with DynamoDB",
//! "Errors" in the DynamoDB API Reference): a JSON body
//! `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"..."}`,
//! HTTP 400 for client errors, 413 for a body over the limit, 500 for a
//! storage failure.

use crate::error::{ReadError, TableError, WriteError};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The `__type` prefix of DynamoDB's own exceptions.
const DYNAMODB: &str = "com.amazonaws.dynamodb.v20120810#";
/// The `__type` prefix AWS uses for protocol-level exceptions
/// (`SerializationException`, `UnknownOperationException`) and for
/// authentication failures.
const CORAL: &str = "com.amazon.coral.service#";

/// Which AWS exception a request failed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `ResourceNotFoundException`: no such table (or index).
    ResourceNotFound,
    /// `ResourceInUseException`: the table exists already.
    ResourceInUse,
    /// `ValidationException`: a missing or invalid parameter or expression.
    Validation,
    /// `ConditionalCheckFailedException`: a `ConditionExpression` was false.
    ConditionalCheckFailed,
    /// `SerializationException`: the body is not JSON of the expected shape.
    Serialization,
    /// `UnknownOperationException`: `X-Amz-Target` names no operation served here.
    UnknownOperation,
    /// A `ValidationException` answered with HTTP 413: the body is over the limit.
    RequestTooLarge,
    /// `InternalServerError`: the storage layer failed (HTTP 500).
    InternalServerError,
    /// `MissingAuthenticationTokenException`: no `Authorization` header
    /// while credentials are configured.
    MissingAuthenticationToken,
    /// `UnrecognizedClientException`: an access key id that is not configured.
    UnrecognizedClient,
    /// `InvalidSignatureException`: the signature does not match, or is dated
    /// more than 15 minutes away.
    InvalidSignature,
    /// `IncompleteSignatureException`: a malformed `Authorization` header.
    IncompleteSignature,
    /// `AccessDeniedException`: the admin paths from a non-loopback peer.
    AccessDenied,
    /// `ExpiredIteratorException` (DynamoDB Streams): a shard iterator older
    /// than 15 minutes.
    ExpiredIterator,
    /// `TrimmedDataAccessException` (DynamoDB Streams): records past the
    /// retention period.
    TrimmedDataAccess,
    /// An `UnknownOperationException` answered with HTTP 404: a
    /// `Content-Type` other than the JSON 1.0 protocol's (DynamoDB answers 404).
    UnsupportedContentType,
}

impl ErrorKind {
    /// The full `__type` string.
    pub fn type_name(self) -> String {
        let (prefix, name) = match self {
            Self::ResourceNotFound => (DYNAMODB, "ResourceNotFoundException"),
            Self::ResourceInUse => (DYNAMODB, "ResourceInUseException"),
            Self::Validation | Self::RequestTooLarge => (DYNAMODB, "ValidationException"),
            Self::ConditionalCheckFailed => (DYNAMODB, "ConditionalCheckFailedException"),
            Self::Serialization => (CORAL, "SerializationException"),
            Self::UnknownOperation | Self::UnsupportedContentType => {
                (CORAL, "UnknownOperationException")
            }
            Self::InternalServerError => (DYNAMODB, "InternalServerError"),
            Self::MissingAuthenticationToken => (CORAL, "MissingAuthenticationTokenException"),
            Self::UnrecognizedClient => (CORAL, "UnrecognizedClientException"),
            Self::InvalidSignature => (CORAL, "InvalidSignatureException"),
            Self::IncompleteSignature => (CORAL, "IncompleteSignatureException"),
            Self::AccessDenied => (CORAL, "AccessDeniedException"),
            Self::ExpiredIterator => (DYNAMODB, "ExpiredIteratorException"),
            Self::TrimmedDataAccess => (DYNAMODB, "TrimmedDataAccessException"),
        };
        format!("{prefix}{name}")
    }

    /// The HTTP status: 400, 404 (content type), 413 (body size) or 500.
    pub fn status(self) -> StatusCode {
        match self {
            Self::RequestTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedContentType => StatusCode::NOT_FOUND,
            Self::InternalServerError => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

/// A failed request: the AWS exception and its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", kind.type_name())]
pub struct ApiError {
    /// The exception.
    pub kind: ErrorKind,
    /// The `message` field.
    pub message: String,
}

impl ApiError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// A `ValidationException`.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, message)
    }

    /// The `ValidationException` AWS answers for a missing required member,
    /// e.g. `tableName`.
    pub fn missing(member: &str) -> Self {
        Self::validation(format!(
            "1 validation error detected: Value null at '{member}' failed to satisfy constraint: Member must not be null"
        ))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "__type": self.kind.type_name(),
            "message": self.message,
        });
        let mut response = (self.kind.status(), body.to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(super::protocol::CONTENT_TYPE),
        );
        response
    }
}

impl From<TableError> for ApiError {
    fn from(e: TableError) -> Self {
        let kind = match &e {
            TableError::NotFound { .. } => ErrorKind::ResourceNotFound,
            TableError::AlreadyExists { .. } => ErrorKind::ResourceInUse,
            TableError::Invalid { .. } => ErrorKind::Validation,
            _ => ErrorKind::InternalServerError,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<WriteError> for ApiError {
    fn from(e: WriteError) -> Self {
        let kind = match &e {
            WriteError::TableNotFound { .. } => ErrorKind::ResourceNotFound,
            WriteError::Validation { .. } | WriteError::Expression { .. } => ErrorKind::Validation,
            WriteError::ConditionalCheckFailed { .. } => {
                return Self::new(
                    ErrorKind::ConditionalCheckFailed,
                    "The conditional request failed",
                );
            }
            _ => ErrorKind::InternalServerError,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<ReadError> for ApiError {
    fn from(e: ReadError) -> Self {
        let kind = match &e {
            ReadError::TableNotFound { .. } => ErrorKind::ResourceNotFound,
            ReadError::Validation { .. } | ReadError::Expression { .. } => ErrorKind::Validation,
            _ => ErrorKind::InternalServerError,
        };
        Self::new(kind, e.to_string())
    }
}
