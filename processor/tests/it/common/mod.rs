//! Helpers shared by the processor's integration tests.

#![allow(dead_code)]

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_http_client::test_util::{ReplayEvent, StaticReplayClient};
use aws_smithy_types::body::SdkBody;

/// A CloudWatch client whose HTTP layer is the SDK's recorded-request test
/// client (moto does not speak the SDK's CBOR protocol): one empty CBOR reply
/// per entry of `statuses`, in order. Request compression is off so the CBOR
/// request bodies can be inspected.
pub fn cloudwatch_replay(statuses: &[u16]) -> (Client, StaticReplayClient) {
    let events = statuses
        .iter()
        .map(|status| {
            ReplayEvent::new(
                http::Request::builder()
                    .uri("https://monitoring.us-east-1.amazonaws.com/")
                    .body(SdkBody::empty())
                    .expect("request"),
                http::Response::builder()
                    .status(*status)
                    .header("smithy-protocol", "rpc-v2-cbor")
                    .header("content-type", "application/cbor")
                    .body(SdkBody::from(vec![0xa0_u8]))
                    .expect("response"),
            )
        })
        .collect();
    let http = StaticReplayClient::new(events);
    let conf = aws_sdk_cloudwatch::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "test"))
        .http_client(http.clone())
        .disable_request_compression(true)
        .build();
    (Client::from_conf(conf), http)
}

/// Every JSON line of the `.ndjson` files directly in `dir`, files in name
/// order (sinks name files by sequence number, so this is delivery order).
/// A missing directory reads as no lines.
pub fn ndjson_lines(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.expect("entry").path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "ndjson"));
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .expect("read")
                .lines()
                .map(|l| serde_json::from_str(l).expect("json"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// An engine under `dir/data` on `clock` holding the seed's five sessions in
/// `SessionData` (keys `UserName`, `SessionId`; TTL on `ExpirationTime`;
/// stream view `view`): five INSERT records, nothing expired yet.
pub fn seed_engine(
    dir: &std::path::Path,
    clock: std::sync::Arc<ttlstream_engine::ManualClock>,
    view: ttlstream_engine::StreamViewType,
) -> ttlstream_engine::Engine {
    use ttlstream_engine::{
        Engine, EngineOptions, ScalarAttributeType, TableDefinition, TimeToLiveSpecification,
    };
    let engine = Engine::open(
        dir.join("data"),
        EngineOptions {
            clock,
            ..Default::default()
        },
    )
    .expect("engine");
    engine
        .create_table(
            TableDefinition::new("SessionData", "UserName", ScalarAttributeType::S)
                .with_sort_key("SessionId", ScalarAttributeType::S)
                .with_stream(view),
        )
        .expect("table");
    engine
        .update_time_to_live(
            "SessionData",
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".into(),
                enabled: true,
            },
        )
        .expect("ttl");
    engine
        .put_items("SessionData", ttlstream::demo::items::seed_items())
        .expect("items");
    engine
}
