//! SigV4 verification: the Rust SDK with the configured credentials works,
//! a wrong secret, an unknown key and an unsigned request are refused with
//! DynamoDB's exceptions, and with credentials the server listens on a
//! non-loopback address. The admin paths require a signature too.

#![allow(clippy::unwrap_used)]

use crate::support;

use support::{client, create_simple, signed_post, start_with};
use ttlstream_server::Credentials;

const TYPE_PREFIX: &str = "com.amazon.coral.service#";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_requests_signed_with_the_configured_secret_are_served() {
    let h = start_with(|o| {
        o.credentials = Some(Credentials::new("AKID", "SECRET"));
        o.listen = "0.0.0.0:0".parse().unwrap();
    })
    .await;
    // The harness's client signs with AKID / SECRET.
    create_simple(&h.client, "Signed").await;
    let listed = h.client.list_tables().send().await.unwrap();
    assert_eq!(listed.table_names(), ["Signed"]);

    let wrong_secret = client(&h.url, "AKID", "NOT-THE-SECRET");
    let err = wrong_secret
        .list_tables()
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.meta().code(),
        Some("InvalidSignatureException"),
        "{err:?}"
    );
    let wrong_key = client(&h.url, "SOMEONE", "SECRET");
    let err = wrong_key
        .list_tables()
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.meta().code(),
        Some("UnrecognizedClientException"),
        "{err:?}"
    );

    let unsigned = reqwest::Client::new()
        .post(&h.url)
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", "DynamoDB_20120810.ListTables")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status().as_u16(), 400);
    let body: serde_json::Value = unsigned.json().await.unwrap();
    assert_eq!(
        body["__type"],
        format!("{TYPE_PREFIX}MissingAuthenticationTokenException")
    );

    // Admin paths: unsigned refused, signed served.
    let sweep = format!("{}/_ttlstream/sweep", h.url);
    let unsigned = reqwest::Client::new().post(&sweep).send().await.unwrap();
    assert_eq!(unsigned.status().as_u16(), 400);
    let signed = signed_post(&sweep, None, "", "AKID", "SECRET").await;
    assert_eq!(signed.status().as_u16(), 200);
    let wrong = signed_post(&sweep, None, "", "AKID", "WRONG").await;
    let body: serde_json::Value = wrong.json().await.unwrap();
    assert_eq!(
        body["__type"],
        format!("{TYPE_PREFIX}InvalidSignatureException")
    );

    // Reachable on a non-loopback address of this machine, if it has one.
    let port = reqwest::Url::parse(&h.url).unwrap().port().unwrap();
    let outside = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").map(|()| s))
        .and_then(|s| s.local_addr())
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_loopback() && !ip.is_unspecified());
    match outside {
        Some(ip) => {
            let remote = client(&format!("http://{ip}:{port}"), "AKID", "SECRET");
            let listed = remote.list_tables().send().await.unwrap();
            assert_eq!(listed.table_names(), ["Signed"]);
        }
        None => println!("note: no non-loopback IPv4 address; skipped the remote call"),
    }
}
