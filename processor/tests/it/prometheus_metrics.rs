//! Prometheus text on `/metrics`, served by the exporter on 127.0.0.1 and read
//! over real HTTP.

use std::net::{SocketAddr, TcpListener};

use ttlstream::metrics::names;
use ttlstream::metrics::prometheus;

pub fn free_loopback_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

#[tokio::test]
async fn metrics_endpoint_serves_counters_gauges_and_explicit_zeros() {
    let addr = free_loopback_port();
    let recorder = prometheus::start(addr).expect("exporter");
    metrics::with_local_recorder(&recorder, || {
        metrics::counter!(names::RECORDS_READ).increment(42);
        metrics::counter!(names::RECORDS_DEAD_LETTERED).increment(0);
        metrics::counter!("TimeToLiveDeletedItemCount", names::TABLE_NAME => "SessionData")
            .increment(0);
        metrics::gauge!(names::ITERATOR_AGE_MILLISECONDS).set(1500.0);
    });
    let body = scrape(addr).await;
    assert!(body.contains("RecordsRead 42"), "{body}");
    assert!(body.contains("RecordsDeadLettered 0"), "{body}");
    assert!(
        body.contains("TimeToLiveDeletedItemCount{TableName=\"SessionData\"} 0"),
        "{body}"
    );
    assert!(body.contains("IteratorAgeMilliseconds 1500"), "{body}");
}

/// `GET http://<addr>/metrics`, polled until the exporter's listener task
/// answers (it starts asynchronously), for at most 30 s.
pub async fn scrape(addr: SocketAddr) -> String {
    let url = format!("http://{addr}/metrics");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match reqwest::get(&url).await {
            Ok(response) => {
                assert!(response.status().is_success());
                return response.text().await.expect("body");
            }
            Err(error) => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no answer from {url}: {error}"
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    }
}

#[test]
fn loopback_is_the_documented_default() {
    let addr: SocketAddr = prometheus::DEFAULT_LISTEN.parse().expect("addr");
    assert!(addr.ip().is_loopback());
}
