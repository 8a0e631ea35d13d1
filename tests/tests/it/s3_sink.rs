//! The S3 sink against a real S3-compatible server (s3s-fs on 127.0.0.1):
//! objects are read back with the SDK and compared record by record, in
//! batched and one-object-per-record mode, plain, gzip and zstd, and through a
//! multipart upload.

use serde_json::{Value, json};
use ttlstream::record::Record;
use ttlstream::sinks::encoding::Compression;
use ttlstream::sinks::s3::{ObjectsPer, S3Sink, S3SinkConfig};
use ttlstream::sinks::template::KeyTemplate;
use ttlstream::sinks::{Sink, SinkBatch};
use ttlstream_tests::s3::{S3Server, objects};

/// Lambda-shaped TTL deletions of `SessionData` items, `payload_bytes` of
/// payload each, one second apart from 2019-10-24T12:59:58Z.
fn records(count: usize, payload_bytes: usize) -> Vec<Record> {
    (0..count)
        .map(|i| {
            let sequence = format!("{:021}", 100 + i);
            let millis = 1_571_921_998_000 + i as i64 * 1000;
            let value = json!({
                "awsRegion": "local",
                "eventName": "REMOVE",
                "eventSource": "aws:dynamodb",
                "dynamodb": {
                    "Keys": {"UserName": {"S": format!("user-{}", i % 3)}, "SessionId": {"S": format!("s{i}")}},
                    "OldImage": {
                        "UserName": {"S": format!("user-{}", i % 3)},
                        "SessionId": {"S": format!("s{i}")},
                        "Payload": {"S": "p".repeat(payload_bytes)},
                        "ExpirationTime": {"N": (1_571_900_000 + i).to_string()}
                    },
                    "SequenceNumber": sequence,
                    "SizeBytes": 100,
                    "StreamViewType": "OLD_IMAGE"
                },
                "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
            });
            Record::new(
                "SessionData".into(),
                sequence,
                millis,
                true,
                serde_json::to_vec(&value).expect("json"),
            )
        })
        .collect()
}

fn batch(records: &[Record]) -> SinkBatch<'_> {
    SinkBatch {
        table_name: "SessionData",
        first_sequence_number: &records[0].sequence_number,
        last_sequence_number: &records[records.len() - 1].sequence_number,
        records: records.iter().collect(),
    }
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn expected(records: &[Record]) -> Vec<Value> {
    records
        .iter()
        .map(|r| serde_json::from_slice(&r.json).expect("json"))
        .collect()
}

async fn server(dir: &std::path::Path) -> Option<S3Server> {
    let server = S3Server::start(&dir.join("s3"))?;
    server.create_bucket("archive").await;
    Some(server)
}

fn config(objects: ObjectsPer, compression: Compression) -> S3SinkConfig {
    let mut config = S3SinkConfig::new("archive");
    config.objects = objects;
    config.compression = compression;
    config
}

#[tokio::test]
async fn batched_objects_hold_every_record_in_order_plain_gzip_and_zstd() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = server(dir.path()).await else {
        return;
    };
    let client = server.client();
    let records = records(5, 64);
    for (compression, prefix) in [
        (Compression::None, "plain"),
        (Compression::Gzip, "gzip"),
        (Compression::Zstd, "zstd"),
    ] {
        let mut config = config(ObjectsPer::Batch, compression);
        config.key_template = Some(
            KeyTemplate::parse(&format!(
                "{prefix}/{{table}}/{{date}}/{{hour}}/{{first_sequence}}-{{last_sequence}}.ndjson{}",
                compression.extension()
            ))
            .expect("template"),
        );
        let sink = S3Sink::with_client("archive", &config, client.clone(), false);
        sink.write(&batch(&records)).await.expect("write");
        // A retried batch overwrites: same names, no second copy.
        sink.write(&batch(&records)).await.expect("rewrite");

        let stored = objects(&client, "archive", prefix).await;
        let keys: Vec<&str> = stored.iter().map(|(k, _)| k.as_str()).collect();
        let ext = compression.extension();
        // Records 0 and 1 were written at 12:59, records 2..4 at 13:00: two objects.
        assert_eq!(
            keys,
            vec![
                format!(
                    "{prefix}/SessionData/2019-10-24/12/000000000000000000100-000000000000000000101.ndjson{ext}"
                ),
                format!(
                    "{prefix}/SessionData/2019-10-24/13/000000000000000000102-000000000000000000104.ndjson{ext}"
                ),
            ],
            "{compression:?}"
        );
        let mut archived = Vec::new();
        for (_, bytes) in &stored {
            archived.extend(lines(&compression.decode(bytes).expect("decompress")));
        }
        assert_eq!(archived, expected(&records), "{compression:?}");
    }
}

#[tokio::test]
async fn one_object_per_record_as_the_seed_lambda_names_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = server(dir.path()).await else {
        return;
    };
    let client = server.client();
    let records = records(4, 16);
    let config = config(ObjectsPer::Record, Compression::None);
    let sink = S3Sink::with_client("archive", &config, client.clone(), false);
    sink.write(&batch(&records)).await.expect("write");
    sink.write(&batch(&records)).await.expect("rewrite");
    let stored = objects(&client, "archive", "archives/").await;
    let keys: Vec<&str> = stored.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        vec![
            "archives/2019-10-24T12:59:58.000Z/s0_user-0.json",
            "archives/2019-10-24T12:59:59.000Z/s1_user-1.json",
            "archives/2019-10-24T13:00:00.000Z/s2_user-2.json",
            "archives/2019-10-24T13:00:01.000Z/s3_user-0.json",
        ]
    );
    let archived: Vec<Value> = stored.iter().flat_map(|(_, b)| lines(b)).collect();
    assert_eq!(archived, expected(&records));
}

#[tokio::test]
async fn a_large_batch_goes_up_in_parts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = server(dir.path()).await else {
        return;
    };
    let client = server.client();
    // 6,000 records of about 1.3 KB: about 7.8 MB, two 5 MiB parts.
    let records = records(6_000, 1_000);
    let mut config = config(ObjectsPer::Batch, Compression::None);
    config.key_template =
        Some(KeyTemplate::parse("big/{first_sequence}-{last_sequence}.ndjson").expect("template"));
    config.part_size_bytes = 5 * 1024 * 1024;
    config.multipart_threshold_bytes = 5 * 1024 * 1024;
    let sink = S3Sink::with_client("archive", &config, client.clone(), false);
    sink.write(&batch(&records)).await.expect("multipart write");
    let stored = objects(&client, "archive", "big/").await;
    assert_eq!(stored.len(), 1);
    assert!(stored[0].1.len() > 5 * 1024 * 1024, "{}", stored[0].1.len());
    assert_eq!(lines(&stored[0].1), expected(&records));
    let head = client
        .head_object()
        .bucket("archive")
        .key(&stored[0].0)
        .send()
        .await
        .expect("HeadObject");
    // S3 gives a multipart object the ETag `"<md5 of the part md5s>-<parts>"`.
    let etag = head.e_tag().unwrap_or_default();
    assert!(
        etag.trim_matches('"').ends_with("-2"),
        "ETag of a 2-part upload: {etag}"
    );
}

#[tokio::test]
async fn server_side_encryption_settings_are_accepted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = server(dir.path()).await else {
        return;
    };
    let client = server.client();
    let records = records(2, 8);
    let config: S3SinkConfig = toml::from_str(
        r#"
bucket = "archive"
key_template = "sse/{first_sequence}-{last_sequence}.ndjson"
server_side_encryption = "AES256"
"#,
    )
    .expect("config");
    let sink = S3Sink::with_client("archive", &config, client.clone(), false);
    sink.write(&batch(&records))
        .await
        .expect("write with SSE-S3");
    let stored = objects(&client, "archive", "sse/").await;
    assert_eq!(lines(&stored[0].1), expected(&records));
}
