//! The AWS JSON 1.0 protocol ("DynamoDB low-level API"): every request is a
//! `POST /` whose `X-Amz-Target: DynamoDB_20120810.<Operation>` (or
//! `DynamoDBStreams_20120810.<Operation>`) header names the operation and whose body is a JSON object; answers carry
//! `Content-Type: application/x-amz-json-1.0`.

use super::error::{ApiError, ErrorKind};
use super::streams::STREAMS_TARGET_PREFIX;
use super::{AppState, dynamodb};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

/// The content type of requests and responses.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

/// The `X-Amz-Target` prefix of DynamoDB operations.
pub const TARGET_PREFIX: &str = "DynamoDB_20120810.";

/// The handler of `POST /`: admits the request (`admission.rs`: body limit,
/// SigV4), dispatches on `X-Amz-Target` on a blocking thread, and answers
/// JSON or an AWS error shape.
pub(super) async fn handle(
    State(state): State<AppState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match handle_inner(state, &method, &uri, headers, body).await {
        Ok(json) => {
            let mut response = json.to_string().into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
            response
        }
        Err(e) => e.into_response(),
    }
}

async fn handle_inner(
    state: AppState,
    method: &Method,
    uri: &Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<serde_json::Value, ApiError> {
    let bytes = super::admission::admit(&state, method, uri, &headers, body).await?;
    // The region the client signed for names the ARNs and records it gets.
    let region = super::sigv4::signed_region(&headers).unwrap_or_else(|| state.region.clone());
    check_content_type(&headers)?;
    let target = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let (streams, operation) = if let Some(op) = target.strip_prefix(TARGET_PREFIX) {
        (false, op.to_string())
    } else if let Some(op) = target.strip_prefix(STREAMS_TARGET_PREFIX) {
        (true, op.to_string())
    } else {
        return Err(unknown(&target));
    };
    super::admission::on_blocking_thread(move || {
        if streams {
            super::streams::dispatch(&state.engine, &region, &operation, &bytes)
        } else {
            dynamodb::dispatch(&state, &region, &operation, &bytes)
        }
    })
    .await?
}

/// Accepts `application/x-amz-json-1.0` (what SDKs send), `application/json`
/// (with parameters such as `charset`) or no `Content-Type`. DynamoDB answers
/// any other type (e.g. `application/x-amz-json-1.1`) with HTTP 404 and an
/// HTML page; here it is a 404 with an `UnknownOperationException`, so the
/// caller still gets a JSON error shape.
fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let text = value.to_str().unwrap_or_default();
    let essence = text.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case(CONTENT_TYPE)
        || essence.eq_ignore_ascii_case("application/json")
    {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorKind::UnsupportedContentType,
        format!("Content-Type `{text}` is not served: send {CONTENT_TYPE}"),
    ))
}

fn unknown(target: &str) -> ApiError {
    ApiError::new(
        ErrorKind::UnknownOperation,
        format!("X-Amz-Target `{target}` names no operation of this server"),
    )
}

/// The error for an unknown operation name (after the prefix).
pub(super) fn unknown_operation(operation: &str) -> ApiError {
    unknown(&format!("{TARGET_PREFIX}{operation}"))
}

/// Parses a request body: not JSON, or not an object, is a
/// `SerializationException`; a member of the wrong JSON type (e.g. a number
/// where DynamoDB wants a string) too, as AWS answers. A member this server
/// does not implement is a `ValidationException` naming it (the request
/// shapes refuse unknown members), so no parameter is silently dropped.
///
/// # Errors
///
/// [`ErrorKind::Serialization`]; [`ErrorKind::Validation`].
pub(super) fn parse<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::new(ErrorKind::Serialization, format!("malformed JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::new(
            ErrorKind::Serialization,
            "the request body must be a JSON object",
        ));
    }
    serde_json::from_value(value).map_err(|e| decode_error(&e.to_string()))
}

/// The AWS error for a request body that does not decode into its shape.
fn decode_error(message: &str) -> ApiError {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let member = rest.split('`').next().unwrap_or_default();
        return ApiError::validation(format!(
            "The request parameter {member} is not implemented by this server (ttlstream serve); the request was not run"
        ));
    }
    let validation = |m: &str| ApiError::validation(m.to_string());
    if message.contains("found none") || message.contains("is not a known DynamoDB prefix") {
        return validation(
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
        );
    }
    if message.contains("found multiple keys") {
        return validation(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
        );
    }
    // DynamoDB's SerializationException wording for the common type errors.
    let aws = if message.contains("expected a string")
        && message.starts_with("invalid type: integer")
        || message.starts_with("invalid type: floating point")
    {
        "NUMBER_VALUE cannot be converted to String".to_string()
    } else if message.starts_with("invalid type: map") {
        "Start of structure or map found where not expected".to_string()
    } else if message.starts_with("invalid type: sequence") {
        "Start of list found where not expected".to_string()
    } else {
        message.to_string()
    };
    ApiError::new(ErrorKind::Serialization, aws)
}
