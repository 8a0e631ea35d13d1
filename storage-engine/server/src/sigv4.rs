//! SigV4 verification of requests ("Signature Version 4 signing process",
//! "Create a canonical request for Signature Version 4" in the IAM User
//! Guide): the `Authorization: AWS4-HMAC-SHA256 Credential=.../SignedHeaders=
//! .../Signature=...` header is parsed, the signature the configured secret
//! gives for the same request is computed with `aws-sigv4` (the AWS SDK's
//! own signer) over exactly the signed headers, and the two are compared.
//!
//! Errors as DynamoDB answers them: no `Authorization` header is
//! `MissingAuthenticationTokenException`; an unknown access key id is
//! `UnrecognizedClientException`; a malformed header is
//! `IncompleteSignatureException`; a wrong signature, an `x-amz-date` more
//! than 15 minutes from the server's wall clock or an `x-amz-content-sha256`
//! that is not the body's hash is `InvalidSignatureException`. The wall
//! clock, not the engine clock, dates signatures.

use super::error::{ApiError, ErrorKind};
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use axum::http::{HeaderMap, Method, Uri};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime};

/// How far `x-amz-date` may be from the server's clock (AWS: 15 minutes).
pub const MAX_CLOCK_SKEW: Duration = Duration::from_secs(15 * 60);

/// The one access key id and secret access key requests must be signed with.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    access_key_id: String,
    secret_access_key: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"** redacted **")
            .finish()
    }
}

/// A credentials text that is not `ACCESS_KEY_ID:SECRET_ACCESS_KEY`.
#[derive(Debug, thiserror::Error)]
#[error("credentials must be ACCESS_KEY_ID:SECRET_ACCESS_KEY, both non-empty, without whitespace")]
pub struct ParseCredentialsError;

impl Credentials {
    /// Credentials from an access key id and a secret access key.
    pub fn new(access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        Self {
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
        }
    }

    /// The access key id.
    pub fn access_key_id(&self) -> &str {
        &self.access_key_id
    }

    /// Verifies the request's SigV4 signature against these credentials.
    ///
    /// # Errors
    ///
    /// The AWS exception DynamoDB answers (see the module documentation).
    pub fn verify(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<(), ApiError> {
        self.verify_at(method, uri, headers, body, SystemTime::now())
    }

    fn verify_at(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        body: &[u8],
        now: SystemTime,
    ) -> Result<(), ApiError> {
        let Some(authorization) = headers.get("authorization") else {
            return Err(ApiError::new(
                ErrorKind::MissingAuthenticationToken,
                "Request is missing Authentication Token",
            ));
        };
        let auth = Authorization::parse(authorization.to_str().unwrap_or_default())?;
        if auth.access_key_id != self.access_key_id {
            return Err(ApiError::new(
                ErrorKind::UnrecognizedClient,
                "The security token included in the request is invalid.",
            ));
        }
        let date_text = header(headers, "x-amz-date").ok_or_else(|| {
            incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
        })?;
        let signed_at = parse_amz_date(date_text)?;
        check_skew(date_text, signed_at, now)?;
        let body_hash = match header(headers, "x-amz-content-sha256") {
            None => None,
            Some("UNSIGNED-PAYLOAD") => Some("UNSIGNED-PAYLOAD".to_string()),
            Some(claimed) => {
                let actual = hex::encode(Sha256::digest(body));
                if !claimed.eq_ignore_ascii_case(&actual) {
                    return Err(invalid_signature(
                        "The provided 'x-amz-content-sha256' header does not match what was computed.",
                    ));
                }
                Some(claimed.to_ascii_lowercase())
            }
        };
        let expected = self.signature(method, uri, headers, &auth, body, body_hash, signed_at)?;
        if !constant_time_eq(expected.as_bytes(), auth.signature.as_bytes()) {
            return Err(invalid_signature(
                "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
            ));
        }
        Ok(())
    }

    /// The signature these credentials give the request, over exactly the
    /// headers the client signed.
    #[allow(clippy::too_many_arguments)]
    fn signature(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        auth: &Authorization<'_>,
        body: &[u8],
        body_hash: Option<String>,
        signed_at: SystemTime,
    ) -> Result<String, ApiError> {
        let host = header(headers, "host")
            .filter(|_| auth.signed_headers.contains(&"host"))
            .ok_or_else(|| incomplete("the 'host' header must be present and signed"))?;
        let mut signed = Vec::with_capacity(auth.signed_headers.len());
        for name in &auth.signed_headers {
            let values: Vec<&str> = headers
                .get_all(*name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            if values.is_empty() {
                return Err(incomplete(&format!(
                    "signed header '{name}' is not in the request"
                )));
            }
            for value in values {
                signed.push((*name, value));
            }
        }
        let path_and_query = uri.path_and_query().map_or("/", |p| p.as_str());
        let full_uri = format!("http://{host}{path_and_query}");
        let signable_body = match body_hash.as_deref() {
            Some("UNSIGNED-PAYLOAD") => SignableBody::UnsignedPayload,
            Some(hash) => SignableBody::Precomputed(hash.to_string()),
            None => SignableBody::Bytes(body),
        };
        let request =
            SignableRequest::new(method.as_str(), full_uri, signed.into_iter(), signable_body)
                .map_err(|e| incomplete(&format!("cannot canonicalise the request: {e}")))?;
        let identity: Identity = aws_credential_types::Credentials::new(
            &self.access_key_id,
            &self.secret_access_key,
            None,
            None,
            "ttlstream serve",
        )
        .into();
        let mut settings = SigningSettings::default();
        // Sign exactly what the client listed, whatever its SDK excludes.
        settings.excluded_headers = None;
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(auth.region)
            .name(auth.service)
            .time(signed_at)
            .settings(settings)
            .build()
            .map_err(|e| incomplete(&format!("cannot build signing parameters: {e}")))?
            .into();
        let output = sign(request, &params)
            .map_err(|e| invalid_signature(&format!("cannot compute the signature: {e}")))?;
        Ok(output.signature().to_string())
    }
}

impl FromStr for Credentials {
    type Err = ParseCredentialsError;

    /// Parses `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (the secret may contain `:`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (id, secret) = text.trim().split_once(':').ok_or(ParseCredentialsError)?;
        let bad = |s: &str| s.is_empty() || s.chars().any(char::is_whitespace);
        if bad(id) || bad(secret) {
            return Err(ParseCredentialsError);
        }
        Ok(Self::new(id, secret))
    }
}

/// The parts of `Authorization: AWS4-HMAC-SHA256 Credential=AKID/20150830/
/// us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date,
/// Signature=hex`.
struct Authorization<'a> {
    access_key_id: &'a str,
    region: &'a str,
    service: &'a str,
    signed_headers: Vec<&'a str>,
    signature: &'a str,
}

impl<'a> Authorization<'a> {
    fn parse(text: &'a str) -> Result<Self, ApiError> {
        let rest = text.strip_prefix("AWS4-HMAC-SHA256 ").ok_or_else(|| {
            incomplete("Authorization header must start with 'AWS4-HMAC-SHA256 ' (SigV4)")
        })?;
        let (mut credential, mut signed_headers, mut signature) = (None, None, None);
        for part in rest.split(',') {
            match part.trim().split_once('=') {
                Some(("Credential", v)) => credential = Some(v),
                Some(("SignedHeaders", v)) => signed_headers = Some(v),
                Some(("Signature", v)) => signature = Some(v),
                _ => {}
            }
        }
        let missing = |what: &str| {
            incomplete(&format!(
                "Authorization header requires '{what}' parameter. Authorization={text}"
            ))
        };
        let credential = credential.ok_or_else(|| missing("Credential"))?;
        let signed_headers = signed_headers.ok_or_else(|| missing("SignedHeaders"))?;
        let signature = signature.ok_or_else(|| missing("Signature"))?;
        let scope: Vec<&str> = credential.split('/').collect();
        let [access_key_id, _date, region, service, "aws4_request"] = scope.as_slice() else {
            return Err(incomplete(&format!(
                "Credential should be scoped to a valid region, service and 'aws4_request': {credential}"
            )));
        };
        Ok(Self {
            access_key_id,
            region,
            service,
            signed_headers: signed_headers.split(';').collect(),
            signature,
        })
    }
}

/// The region of the request's SigV4 credential scope
/// (`Credential=AKID/DATE/REGION/dynamodb/aws4_request`), if it is signed.
/// The signature itself is not checked here.
pub(super) fn signed_region(headers: &HeaderMap) -> Option<String> {
    let text = header(headers, "authorization")?;
    let auth = Authorization::parse(text).ok()?;
    (!auth.region.is_empty()).then(|| auth.region.to_string())
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn incomplete(message: &str) -> ApiError {
    ApiError::new(ErrorKind::IncompleteSignature, message)
}

fn invalid_signature(message: &str) -> ApiError {
    ApiError::new(ErrorKind::InvalidSignature, message)
}

/// Parses `x-amz-date` (`YYYYMMDDTHHMMSSZ`, UTC).
fn parse_amz_date(text: &str) -> Result<SystemTime, ApiError> {
    let parsed = chrono::NaiveDateTime::parse_from_str(text, "%Y%m%dT%H%M%SZ").map_err(|_| {
        incomplete(&format!(
            "Date must be in ISO-8601 'basic format' (yyyyMMdd'T'HHmmss'Z'); got '{text}'"
        ))
    })?;
    let secs = parsed.and_utc().timestamp();
    let since_epoch = Duration::from_secs(secs.unsigned_abs());
    Ok(if secs >= 0 {
        SystemTime::UNIX_EPOCH + since_epoch
    } else {
        SystemTime::UNIX_EPOCH - since_epoch
    })
}

fn amz_date(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t)
        .format("%Y%m%dT%H%M%SZ")
        .to_string()
}

/// AWS's "Signature expired" / "Signature not yet current" checks.
fn check_skew(text: &str, signed_at: SystemTime, now: SystemTime) -> Result<(), ApiError> {
    if signed_at + MAX_CLOCK_SKEW < now {
        return Err(invalid_signature(&format!(
            "Signature expired: {text} is now earlier than {} ({} - 15 min.)",
            amz_date(now - MAX_CLOCK_SKEW),
            amz_date(now)
        )));
    }
    if signed_at > now + MAX_CLOCK_SKEW {
        return Err(invalid_signature(&format!(
            "Signature not yet current: {text} is still later than {} ({} + 15 min.)",
            amz_date(now + MAX_CLOCK_SKEW),
            amz_date(now)
        )));
    }
    Ok(())
}

/// Compares without stopping at the first difference.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// Signs like an SDK would, with the same crate, for the checks below.
    fn signed(secret: &str, at: SystemTime, body: &[u8]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("127.0.0.1:8000"));
        headers.insert(
            "x-amz-target",
            HeaderValue::from_static("DynamoDB_20120810.ListTables"),
        );
        let identity: Identity =
            aws_credential_types::Credentials::new("AKID", secret, None, None, "t").into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region("us-east-1")
            .name("dynamodb")
            .time(at)
            .settings(SigningSettings::default())
            .build()
            .expect("params")
            .into();
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.to_str().expect("ascii")))
            .collect();
        let request = SignableRequest::new(
            "POST",
            "http://127.0.0.1:8000/",
            pairs.into_iter(),
            SignableBody::Bytes(body),
        )
        .expect("signable");
        let (instructions, _) = sign(request, &params).expect("sign").into_parts();
        let (new_headers, _) = instructions.into_parts();
        let mut out = headers.clone();
        for h in new_headers {
            out.insert(
                axum::http::HeaderName::from_bytes(h.name().as_bytes()).expect("name"),
                HeaderValue::from_str(h.value()).expect("value"),
            );
        }
        out
    }

    fn verify(headers: &HeaderMap, body: &[u8], now: SystemTime) -> Result<(), ErrorKind> {
        Credentials::new("AKID", "SECRET")
            .verify_at(&Method::POST, &Uri::from_static("/"), headers, body, now)
            .map_err(|e| e.kind)
    }

    #[test]
    fn right_secret_passes_and_each_fault_has_its_exception() {
        let now = SystemTime::now();
        let body = br#"{}"#;
        assert_eq!(verify(&signed("SECRET", now, body), body, now), Ok(()));
        assert_eq!(
            verify(&signed("WRONG", now, body), body, now),
            Err(ErrorKind::InvalidSignature)
        );
        // A body changed after signing.
        assert_eq!(
            verify(&signed("SECRET", now, body), br#"{"x":1}"#, now),
            Err(ErrorKind::InvalidSignature)
        );
        // Signed 16 minutes ago, or 16 minutes ahead.
        let sixteen = Duration::from_secs(16 * 60);
        assert_eq!(
            verify(&signed("SECRET", now - sixteen, body), body, now),
            Err(ErrorKind::InvalidSignature)
        );
        assert_eq!(
            verify(&signed("SECRET", now + sixteen, body), body, now),
            Err(ErrorKind::InvalidSignature)
        );
        let mut other_key = signed("SECRET", now, body);
        let text = other_key["authorization"]
            .to_str()
            .expect("ascii")
            .replace("AKID/", "OTHER/");
        other_key.insert(
            "authorization",
            HeaderValue::from_str(&text).expect("value"),
        );
        assert_eq!(
            verify(&other_key, body, now),
            Err(ErrorKind::UnrecognizedClient)
        );
        let mut unsigned = signed("SECRET", now, body);
        unsigned.remove("authorization");
        assert_eq!(
            verify(&unsigned, body, now),
            Err(ErrorKind::MissingAuthenticationToken)
        );
        let mut garbage = signed("SECRET", now, body);
        garbage.insert("authorization", HeaderValue::from_static("Basic abc"));
        assert_eq!(
            verify(&garbage, body, now),
            Err(ErrorKind::IncompleteSignature)
        );
        let mut bad_hash = signed("SECRET", now, body);
        bad_hash.insert("x-amz-content-sha256", HeaderValue::from_static("00"));
        assert_eq!(
            verify(&bad_hash, body, now),
            Err(ErrorKind::InvalidSignature)
        );
    }

    #[test]
    fn credentials_parse_and_redact() {
        let c: Credentials = "AKID:se:cret".parse().expect("parse");
        assert_eq!(c.access_key_id(), "AKID");
        assert!(!format!("{c:?}").contains("se:cret"));
        for bad in ["", "AKID", ":secret", "AKID:", "AK ID:secret"] {
            assert!(bad.parse::<Credentials>().is_err(), "{bad}");
        }
    }
}
