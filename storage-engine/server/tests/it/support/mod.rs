//! Shared harness for the server's tests: an engine on a manual
//! clock behind a server on a free 127.0.0.1 port, and an SDK client for it.
#![allow(dead_code, clippy::unwrap_used)]

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, KeySchemaElement, KeyType, ScalarAttributeType,
    TimeToLiveSpecification,
};
use std::sync::Arc;
use ttlstream_engine::{Engine, EngineOptions, ManualClock, StreamOptions};
use ttlstream_server::{Server, ServerOptions};

/// The engine clock's start: 2023-11-14T22:13:20Z in epoch milliseconds.
pub const START_MILLIS: i64 = 1_700_000_000_000;

pub struct Harness {
    pub engine: Engine,
    pub clock: Arc<ManualClock>,
    pub url: String,
    pub client: Client,
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A server with default options (but port 0).
pub async fn start() -> Harness {
    start_with(|_| {}).await
}

/// A server whose options `configure` may change (listen is 127.0.0.1:0
/// and the manual clock is the engine's, unless changed; `url` is on
/// 127.0.0.1 for an unspecified listen address). The SDK client signs with
/// `AKID` / `SECRET`.
pub async fn start_with(configure: impl FnOnce(&mut ServerOptions)) -> Harness {
    start_with_stream(StreamOptions::default(), configure).await
}

/// [`start_with`] over an engine with these stream options (shard rotation
/// and retention).
pub async fn start_with_stream(
    stream: StreamOptions,
    configure: impl FnOnce(&mut ServerOptions),
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock: clock.clone(),
            stream,
            ..EngineOptions::default()
        },
    )
    .unwrap();
    let mut options = ServerOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        manual_clock: Some(clock.clone()),
        ..ServerOptions::default()
    };
    configure(&mut options);
    let server = Server::bind(engine.clone(), options).await.unwrap();
    let mut addr = server.local_addr().unwrap();
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let url = format!("http://{addr}");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    let client = client(&url, "AKID", "SECRET");
    Harness {
        engine,
        clock,
        url,
        client,
        _dir: dir,
        _stop: stop,
    }
}

/// An SDK client for `url` signing with these credentials.
pub fn client(url: &str, access_key: &str, secret: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new(access_key, secret, None, None, "test"))
        .endpoint_url(url)
        .build();
    Client::from_conf(config)
}

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub fn key(name: &str, ty: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(ty)
        .build()
        .unwrap()
}

pub fn attr(name: &str, ty: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ty)
        .build()
        .unwrap()
}

/// A table with a String partition key `Id` and no stream.
pub async fn create_simple(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .key_schema(key("Id", KeyType::Hash))
        .attribute_definitions(attr("Id", ScalarAttributeType::S))
        .send()
        .await
        .unwrap();
}

/// UpdateTimeToLive: TTL on `attribute` of `table` (it must succeed).
pub async fn enable_ttl(client: &Client, table: &str, attribute: &str) {
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name(attribute)
                .enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

/// POSTs a raw JSON 1.0 request; returns the status and the JSON body.
pub async fn raw(url: &str, operation: &str, body: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", format!("DynamoDB_20120810.{operation}"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A POST to `url` (`http://host:port/path`) signed with SigV4 by the SDK's
/// signer, as an SDK would sign it; `target` becomes `X-Amz-Target` if set.
pub async fn signed_post(
    url: &str,
    target: Option<&str>,
    body: &str,
    access_key: &str,
    secret: &str,
) -> reqwest::Response {
    use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
    use aws_smithy_runtime_api::client::identity::Identity;
    let parsed = reqwest::Url::parse(url).unwrap();
    let host = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap());
    let mut headers = vec![
        ("host".to_string(), host),
        (
            "content-type".to_string(),
            "application/x-amz-json-1.0".to_string(),
        ),
    ];
    if let Some(t) = target {
        headers.push(("x-amz-target".to_string(), t.to_string()));
    }
    let identity: Identity =
        aws_credential_types::Credentials::new(access_key, secret, None, None, "test").into();
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name("dynamodb")
        .time(std::time::SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .unwrap()
        .into();
    let request = SignableRequest::new(
        "POST",
        url,
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        SignableBody::Bytes(body.as_bytes()),
    )
    .unwrap();
    let (instructions, _) = sign(request, &params).unwrap().into_parts();
    let (added, _) = instructions.into_parts();
    let mut builder = reqwest::Client::new().post(url).body(body.to_string());
    for (k, v) in headers.iter().filter(|(k, _)| k != "host") {
        builder = builder.header(k, v);
    }
    for h in added {
        builder = builder.header(h.name(), h.value());
    }
    builder.send().await.unwrap()
}

/// The `__type` of DynamoDB's ValidationException.
pub const VALIDATION: &str = "com.amazonaws.dynamodb.v20120810#ValidationException";

/// POSTs `body` as `operation` and asserts a 400 ValidationException with
/// exactly `message`.
pub async fn refused(url: &str, operation: &str, body: &serde_json::Value, message: &str) {
    let (status, answer) = raw(url, operation, &body.to_string()).await;
    assert_eq!(status, 400, "{operation}: {answer}");
    assert_eq!(answer["__type"], VALIDATION, "{operation}: {answer}");
    assert_eq!(answer["message"], message, "{operation}: {body}");
}

/// POSTs `body` as `operation` and asserts HTTP 200; returns the answer.
pub async fn ok(url: &str, operation: &str, body: &serde_json::Value) -> serde_json::Value {
    let (status, answer) = raw(url, operation, &body.to_string()).await;
    assert_eq!(status, 200, "{operation}: {answer}");
    answer
}

/// POSTs a DynamoDB Streams `operation` (raw JSON 1.0) and asserts HTTP 200.
pub async fn streams_raw(
    url: &str,
    operation: &str,
    body: &serde_json::Value,
) -> serde_json::Value {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-amz-json-1.0")
        .header(
            "x-amz-target",
            format!("DynamoDBStreams_20120810.{operation}"),
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let answer: serde_json::Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{operation}: {answer}");
    answer
}

/// An SDK client for `url` signing for `region` (AKID / SECRET).
pub fn client_in(url: &str, region: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region.to_string()))
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "test"))
        .endpoint_url(url)
        .build();
    Client::from_conf(config)
}

/// A DynamoDB Streams SDK client for `url` signing for `region`.
pub fn streams_client_in(url: &str, region: &str) -> aws_sdk_dynamodbstreams::Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodbstreams::config::Region::new(
            region.to_string(),
        ))
        .credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
            "AKID", "SECRET", None, None, "test",
        ))
        .endpoint_url(url)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}
