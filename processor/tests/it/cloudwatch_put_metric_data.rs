//! PutMetricData requests as the AWS SDK sends them, recorded by the SDK's
//! `StaticReplayClient` (the current CloudWatch SDK speaks Smithy RPC v2 CBOR,
//! which moto does not). Limits from the CloudWatch API Reference,
//! "PutMetricData": 1000 metrics and 1 MB per request; no `AWS/` namespaces.

use crate::common;

use aws_sdk_cloudwatch::Client;
use aws_smithy_http_client::test_util::StaticReplayClient;
use common::cloudwatch_replay;
use ttlstream::metrics::MetricDatum;
use ttlstream::metrics::cloudwatch::{self, MAX_REQUEST_BYTES, PublishError};

fn client(responses: usize) -> (Client, StaticReplayClient) {
    cloudwatch_replay(&vec![200; responses])
}

fn datum(name: &str, table: &str, value: f64) -> MetricDatum {
    MetricDatum {
        name: name.to_string(),
        dimensions: vec![("TableName".to_string(), table.to_string())],
        value,
        unit: "Count",
    }
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[tokio::test]
async fn batches_of_at_most_1000_metrics_with_explicit_zeros() {
    let data: Vec<MetricDatum> = (0..2500)
        .map(|i| datum("TimeToLiveDeletedItemCount", &format!("Table{i:04}"), 0.0))
        .collect();
    let (client, http) = client(3);
    let calls = cloudwatch::publish(&client, "TTLStream", 1_571_820_360_000, &data)
        .await
        .expect("published");
    assert_eq!(calls, 3);
    let requests: Vec<_> = http.actual_requests().collect();
    assert_eq!(requests.len(), 3);
    let per_request: Vec<usize> = requests
        .iter()
        .map(|r| count(r.body().bytes().unwrap_or_default(), b"MetricName"))
        .collect();
    assert_eq!(per_request, [1000, 1000, 500]);
    for r in &requests {
        assert!(r.uri().ends_with("/operation/PutMetricData"), "{}", r.uri());
        let body = r.body().bytes().unwrap_or_default();
        assert!(body.len() < MAX_REQUEST_BYTES);
        assert_eq!(count(body, b"TTLStream"), 1, "one Namespace per request");
        assert!(count(body, b"TimeToLiveDeletedItemCount") > 0);
    }
    let first = requests[0].body().bytes().unwrap_or_default();
    assert_eq!(count(first, b"Table0000"), 1);
    assert_eq!(
        count(first, b"Table1000"),
        0,
        "the 1001st metric is in request 2"
    );
}

#[tokio::test]
async fn aws_namespaces_are_rejected_before_any_call() {
    let (client, http) = client(1);
    let err = cloudwatch::publish(&client, "AWS/DynamoDB", 0, &[datum("M", "T", 1.0)])
        .await
        .expect_err("reserved");
    assert!(
        matches!(err, PublishError::ReservedNamespace { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("AWS/"), "{err}");
    assert_eq!(http.actual_requests().count(), 0);
}

#[tokio::test]
async fn a_failed_call_names_the_batch() {
    let (client, _http) = cloudwatch_replay(&[400]);
    let err = cloudwatch::publish(&client, "TTLStream", 0, &[datum("M", "T", 1.0)])
        .await
        .expect_err("400");
    assert!(
        matches!(
            err,
            PublishError::Call {
                batch: 1,
                batches: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn large_dimensions_split_by_bytes_and_non_finite_values_are_dropped() {
    let big = "v".repeat(1024);
    let data: Vec<MetricDatum> = (0..900)
        .map(|i| MetricDatum {
            name: format!("M{i}"),
            dimensions: (0..2).map(|d| (format!("D{d}"), big.clone())).collect(),
            value: 1.0,
            unit: "Count",
        })
        .chain([
            datum("Nan", "T", f64::NAN),
            datum("Inf", "T", f64::INFINITY),
        ])
        .collect();
    let batches = cloudwatch::batches(&data);
    assert!(batches.len() >= 2, "900 x ~2 KB must not fit 1 MB");
    assert_eq!(batches.iter().map(Vec::len).sum::<usize>(), 900);
    for b in &batches {
        let bytes: usize = b
            .iter()
            .map(|d| {
                d.name.len()
                    + d.dimensions
                        .iter()
                        .map(|(n, v)| n.len() + v.len())
                        .sum::<usize>()
            })
            .sum();
        assert!(bytes < MAX_REQUEST_BYTES);
    }
}
