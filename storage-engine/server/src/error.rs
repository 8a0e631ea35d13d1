//! AWS error shapes of the DynamoDB API ("Error handling with DynamoDB",
//! "Errors" in the DynamoDB API Reference): a JSON body
//! `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"..."}`,
//! HTTP 400 for client errors, 413 for a body over the limit, 500 for a
//! storage failure.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use ttlstream_engine::{ItemError, ReadError, TableError, WriteError};

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
    /// The `Item` member of a `ConditionalCheckFailedException` (the item
    /// as it was, when the request set `ReturnValuesOnConditionCheckFailure`
    /// to `ALL_OLD`), in DynamoDB JSON.
    pub item: Option<serde_json::Value>,
}

/// The `ValidationException` DynamoDB answers for a value outside a
/// member's enum: `Value 'X' at 'member' failed to satisfy constraint:
/// Member must satisfy enum value set: [A, B]`.
pub(super) fn enum_constraint(value: &str, member: &str, allowed: &[&str]) -> ApiError {
    ApiError::validation(format!(
        "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
        allowed.join(", ")
    ))
}

/// The message DynamoDB answers for a table that does not exist, for the
/// table operations (DescribeTable, UpdateTable, DeleteTable, the TTL
/// operations); the item operations answer without the name.
pub(super) fn table_not_found(table: &str) -> ApiError {
    ApiError::new(
        ErrorKind::ResourceNotFound,
        format!("Requested resource not found: Table: {table} not found"),
    )
}

/// The message of the item operations for a table that does not exist.
pub(super) const RESOURCE_NOT_FOUND: &str = "Requested resource not found";

impl ApiError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            item: None,
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
        let mut body = serde_json::json!({
            "__type": self.kind.type_name(),
            "message": self.message,
        });
        if let Some(item) = self.item {
            body["Item"] = item;
        }
        let mut response = (self.kind.status(), body.to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(super::protocol::CONTENT_TYPE),
        );
        response
    }
}

impl From<TableError> for ApiError {
    /// DynamoDB's answer to a table operation that failed: the engine's
    /// own wording for a refused request is DynamoDB's already.
    fn from(e: TableError) -> Self {
        match e {
            TableError::NotFound { table } => table_not_found(&table),
            TableError::AlreadyExists { table } => Self::new(
                ErrorKind::ResourceInUse,
                format!("Table already exists: {table}"),
            ),
            TableError::Invalid { message, .. } => Self::validation(message),
            other => Self::new(ErrorKind::InternalServerError, other.to_string()),
        }
    }
}

impl From<WriteError> for ApiError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::TableNotFound { .. } => {
                Self::new(ErrorKind::ResourceNotFound, RESOURCE_NOT_FOUND)
            }
            WriteError::Validation { message, .. } => Self::validation(message),
            WriteError::Expression { source, .. } => Self::validation(source.to_string()),
            WriteError::ConditionalCheckFailed { item, .. } => Self {
                kind: ErrorKind::ConditionalCheckFailed,
                message: "The conditional request failed".to_string(),
                item: item.map(|i| serde_json::json!(i)),
            },
            other => Self::new(ErrorKind::InternalServerError, other.to_string()),
        }
    }
}

impl From<ItemError> for ApiError {
    fn from(e: ItemError) -> Self {
        match e {
            ItemError::Invalid { message, .. } => Self::validation(message),
            other => Self::validation(other.to_string()),
        }
    }
}

impl From<ReadError> for ApiError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::TableNotFound { .. } => {
                Self::new(ErrorKind::ResourceNotFound, RESOURCE_NOT_FOUND)
            }
            ReadError::Validation { message, .. } => Self::validation(message),
            ReadError::Expression { source, .. } => Self::validation(source.to_string()),
            other => Self::new(ErrorKind::InternalServerError, other.to_string()),
        }
    }
}
