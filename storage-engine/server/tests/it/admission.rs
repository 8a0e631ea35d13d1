//! Every API `serve` answers (DynamoDB's protocol, Tablestore's JSON, Spanner's
//! REST) refuses an unsigned request and an over-limit body before the
//! operation runs, each in its own error shape.

use crate::support;
use ttlstream_server::Credentials;

/// A body over a 1,024-byte limit, and an unsigned request, to each API:
/// (status, error code) as each service answers them.
#[tokio::test]
async fn every_api_refuses_unsigned_requests_and_bodies_over_the_limit() {
    let h = support::start_with(|o| {
        o.max_request_body_bytes = 1024;
        o.credentials = Some(Credentials::new("AKID", "SECRET"));
    })
    .await;
    let http = reqwest::Client::new();
    let big = format!(r#"{{"padding": "{}"}}"#, "x".repeat(2048));
    let spanner = format!("{}/v1/projects/p/instances/i/databases/d/sessions", h.url);
    let requests = [
        (
            "DynamoDB",
            h.url.clone(),
            Some("DynamoDB_20120810.ListTables"),
        ),
        ("Tablestore", format!("{}/ListTable", h.url), None),
        ("Spanner", spanner, None),
    ];
    let code = |api: &str, json: &serde_json::Value| match api {
        "DynamoDB" => json["__type"].as_str().unwrap_or_default().to_string(),
        "Tablestore" => json["code"].as_str().unwrap_or_default().to_string(),
        _ => json["error"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    };
    let mut answers = Vec::new();
    for (api, url, target) in &requests {
        for body in [big.clone(), "{}".to_string()] {
            let mut request = http.post(url).body(body);
            if let Some(target) = target {
                request = request.header("x-amz-target", *target);
            }
            let response = request.send().await.expect("the server answers");
            let status = response.status().as_u16();
            let json: serde_json::Value = response.json().await.expect("a JSON error body");
            let code = code(api, &json);
            answers.push((
                *api,
                status,
                code.rsplit('#').next().unwrap_or_default().to_string(),
            ));
        }
    }
    let expected = [
        // DynamoDB: 413 for the size ("Service quotas": 16 MB request), then
        // MissingAuthenticationToken for no Authorization header.
        ("DynamoDB", 413, "ValidationException"),
        ("DynamoDB", 400, "MissingAuthenticationTokenException"),
        // Tablestore's error codes: OTSRequestBodyTooLarge, OTSAuthFailed.
        ("Tablestore", 413, "OTSRequestBodyTooLarge"),
        ("Tablestore", 403, "OTSAuthFailed"),
        // Google's: INVALID_ARGUMENT, PERMISSION_DENIED ("Cloud APIs: Errors").
        ("Spanner", 400, "INVALID_ARGUMENT"),
        ("Spanner", 403, "PERMISSION_DENIED"),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(a, s, c)| (*a, *s, (*c).to_string()))
        .collect();
    assert_eq!(answers, expected);
}
