//! The `dynamodb_streams` source's harder behaviours against a real
//! `ttlstream serve` process on 127.0.0.1 with a manual clock (Amazon DynamoDB
//! Developer Guide, "Reading and processing a stream"; DynamoDB Streams API
//! Reference, GetShardIterator and GetRecords):
//!
//! * shards rotated by `--shard-max-records` and `--shard-max-age`: parents
//!   are read before their children and every record is archived once, in
//!   SequenceNumber order;
//! * `LATEST`: records written before the first read are skipped, records
//!   after it are read, also when they land in a child shard;
//! * an iterator that expired (15 minutes of engine time) is renewed from the
//!   checkpoint without loss or duplication;
//! * records trimmed by `--stream-retention` before they were read are a
//!   `TrimmedDataAccessException` counted in `TrimmedDataAccessExceptions`,
//!   through GetRecords (a live iterator) and GetShardIterator (a restart).

use std::path::Path;

use aws_config::SdkConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use serde_json::Value;
use ttlstream::metrics::SnapshotRecorder;
use ttlstream::sources::dynamodb_streams::compare_sequence_numbers;
use ttlstream::{Config, Pipeline};
use ttlstream_tests::dynamodb::{
    admin, advance_clock, archived, config, create_table, pipeline, put, sdk_config, serve,
    user_names,
};
use ttlstream_tests::server::ServerProcess;

const TABLE: &str = "SessionData";

/// A far-future ExpirationTime: these items never expire in the tests.
const NEVER: i64 = 4_102_444_800;

/// `ttlstream serve` with `flags`, the table created, and a source config
/// (`source` lines added under `[source.dynamodb_streams]`).
async fn start(
    dir: &Path,
    flags: &[&str],
    source: &str,
) -> (ServerProcess, SdkConfig, Client, Config) {
    let server = serve(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &dir.join("data"),
        flags,
    );
    let endpoint = server.endpoint();
    let sdk = sdk_config(&endpoint);
    let client = Client::new(&sdk);
    create_table(&client, TABLE).await;
    let config = config(
        dir,
        &format!(
            "[source.dynamodb_streams]\ntable = \"{TABLE}\"\nendpoint_url = \"{endpoint}\"\nregion = \"us-east-1\"\n{source}"
        ),
    );
    (server, sdk, client, config)
}

/// Steps until `expected` records were read in all, then three more steps
/// that must read nothing; flushes the open batch.
///
/// # Panics
/// When a step fails, reads past `expected`, or `expected` is not reached in
/// 50 steps.
async fn read_exactly(pipeline: &mut Pipeline, expected: usize) {
    let mut total = 0;
    for _ in 0..50 {
        if total == expected {
            break;
        }
        total += pipeline.step().await.expect("step").records;
        assert!(
            total <= expected,
            "read {total} records, expected {expected}"
        );
    }
    assert_eq!(total, expected, "records read in 50 steps");
    for _ in 0..3 {
        assert_eq!(
            pipeline.step().await.expect("step").records,
            0,
            "nothing more"
        );
    }
    pipeline.flush().await.expect("flush");
}

/// The archived records' SequenceNumbers, checked to be strictly increasing
/// in archive order (no duplicate, nothing out of order).
fn sequence_numbers(records: &[Value]) -> Vec<String> {
    let numbers: Vec<String> = records
        .iter()
        .map(|r| {
            r["dynamodb"]["SequenceNumber"]
                .as_str()
                .expect("SequenceNumber")
                .to_string()
        })
        .collect();
    for pair in numbers.windows(2) {
        assert!(
            compare_sequence_numbers(&pair[0], &pair[1]).is_lt(),
            "archive out of SequenceNumber order: {numbers:?}"
        );
    }
    numbers
}

fn users(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// The stream's shards as `(ShardId, ParentShardId, closed)`.
async fn shards(sdk: &SdkConfig, client: &Client) -> Vec<(String, Option<String>, bool)> {
    let arn = client
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("DescribeTable")
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("LatestStreamArn");
    let streams = aws_sdk_dynamodbstreams::Client::new(sdk);
    let description = streams
        .describe_stream()
        .stream_arn(arn)
        .send()
        .await
        .expect("DescribeStream")
        .stream_description
        .expect("StreamDescription");
    description
        .shards
        .unwrap_or_default()
        .into_iter()
        .map(|s| {
            let closed = s
                .sequence_number_range
                .is_some_and(|r| r.ending_sequence_number.is_some());
            (s.shard_id.expect("ShardId"), s.parent_shard_id, closed)
        })
        .collect()
}

#[tokio::test]
async fn parents_are_read_before_children_across_rotated_shards() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, sdk, client, config) = start(dir.path(), &["--shard-max-records", "3"], "").await;
    let written: Vec<String> = (0..10).map(|i| format!("user{i:02}")).collect();
    for user in &written {
        put(&client, TABLE, user, NEVER).await;
    }
    // 3 records per shard: 4 shards in one chain, all but the last closed.
    let chain = shards(&sdk, &client).await;
    assert_eq!(chain.len(), 4, "{chain:?}");
    for (i, (_, parent, closed)) in chain.iter().enumerate() {
        let expected_parent = i.checked_sub(1).map(|p| chain[p].0.clone());
        assert_eq!(parent, &expected_parent, "lineage {chain:?}");
        assert_eq!(*closed, i < 3, "only the last shard is open: {chain:?}");
    }

    let mut reader = pipeline(&config, &sdk).await;
    let mut total = 0;
    for _ in 0..50 {
        total += reader.step().await.expect("step").records;
        // A shard is read only once its parent is finished.
        let checkpoint = reader.checkpoint();
        for (shard, parent, _) in &chain {
            let started = checkpoint
                .partitions
                .get(shard)
                .is_some_and(|c| !c.position.is_empty());
            if let (true, Some(parent)) = (started, parent) {
                assert!(
                    checkpoint
                        .partitions
                        .get(parent)
                        .is_some_and(|c| c.finished),
                    "{shard} read before its parent {parent} was finished: {:?}",
                    checkpoint.partitions
                );
            }
        }
        if total == written.len() {
            break;
        }
    }
    read_exactly(&mut reader, 0).await;
    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(user_names(&records), written);
    let checkpoint = reader.checkpoint();
    for (i, (shard, _, _)) in chain.iter().enumerate() {
        let progress = &checkpoint.partitions[shard];
        assert_eq!(progress.finished, i < 3, "{shard}: {progress:?}");
    }
    assert_eq!(
        checkpoint.sequence_number.as_deref(),
        records
            .last()
            .and_then(|r| r["dynamodb"]["SequenceNumber"].as_str())
    );
}

#[tokio::test]
async fn a_shard_older_than_shard_max_age_closes_and_its_child_is_read_after_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, sdk, client, config) = start(dir.path(), &["--shard-max-age", "10m"], "").await;
    put(&client, TABLE, "old0", NEVER).await;
    put(&client, TABLE, "old1", NEVER).await;
    // Still one shard until it is 10 minutes old and the next record comes.
    assert_eq!(shards(&sdk, &client).await.len(), 1);
    advance_clock(&server.endpoint(), 11 * 60 * 1000).await;
    put(&client, TABLE, "new0", NEVER).await;
    put(&client, TABLE, "new1", NEVER).await;
    let chain = shards(&sdk, &client).await;
    assert_eq!(chain.len(), 2, "{chain:?}");
    assert_eq!(chain[1].1.as_ref(), Some(&chain[0].0), "lineage {chain:?}");
    assert!(chain[0].2 && !chain[1].2, "the old shard closed: {chain:?}");

    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 4).await;
    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(
        user_names(&records),
        users(&["old0", "old1", "new0", "new1"])
    );
    assert!(reader.checkpoint().partitions[&chain[0].0].finished);
}

#[tokio::test]
async fn latest_skips_records_written_before_the_start_and_reads_those_after() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, sdk, client, config) = start(
        dir.path(),
        &["--shard-max-records", "3"],
        "starting_position = \"LATEST\"",
    )
    .await;
    for user in ["before0", "before1", "before2"] {
        put(&client, TABLE, user, NEVER).await;
    }
    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 0).await;
    // The first shard is full: the first of these closes it and opens a child.
    let after = users(&["after0", "after1", "after2", "after3"]);
    for user in &after {
        put(&client, TABLE, user, NEVER).await;
    }
    assert_eq!(shards(&sdk, &client).await.len(), 3);
    read_exactly(&mut reader, after.len()).await;
    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(user_names(&records), after);
}

#[tokio::test]
async fn an_expired_iterator_is_renewed_from_the_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, sdk, client, config) = start(dir.path(), &[], "").await;
    for user in ["user0", "user1", "user2"] {
        put(&client, TABLE, user, NEVER).await;
    }
    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 3).await;

    // An iterator issued now is expired after 15 minutes of engine time.
    let (shard, _, _) = shards(&sdk, &client).await.remove(0);
    let streams = aws_sdk_dynamodbstreams::Client::new(&sdk);
    let old = streams
        .get_shard_iterator()
        .stream_arn(stream_arn(&client).await)
        .shard_id(&shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .expect("GetShardIterator")
        .shard_iterator
        .expect("ShardIterator");
    advance_clock(&server.endpoint(), 15 * 60 * 1000 + 1000).await;
    let expired = streams
        .get_records()
        .shard_iterator(old)
        .send()
        .await
        .expect_err("the iterator expired");
    assert!(
        matches!(
            expired.as_service_error(),
            Some(GetRecordsError::ExpiredIteratorException(_))
        ),
        "{expired:?}"
    );

    for user in ["user3", "user4"] {
        put(&client, TABLE, user, NEVER).await;
    }
    read_exactly(&mut reader, 2).await;
    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(
        user_names(&records),
        users(&["user0", "user1", "user2", "user3", "user4"])
    );
}

async fn stream_arn(client: &Client) -> String {
    client
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("DescribeTable")
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("LatestStreamArn")
}

/// `TrimmedDataAccessExceptions` recorded for the table since the last flush.
fn trimmed_count(recorder: &SnapshotRecorder) -> f64 {
    recorder
        .flush()
        .iter()
        .find(|d| {
            d.name == "TrimmedDataAccessExceptions"
                && d.dimensions == [("TableName".to_string(), TABLE.to_string())]
        })
        .map_or(0.0, |d| d.value)
}

#[tokio::test]
async fn records_trimmed_before_they_are_read_are_reported_and_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, sdk, client, config) = start(dir.path(), &["--stream-retention", "1m"], "").await;
    let endpoint = server.endpoint();
    let recorder = SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&recorder);
    put(&client, TABLE, "read0", NEVER).await;
    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 1).await;

    // Written, then trimmed (older than the 1-minute retention) before the
    // source's live iterator reads them: GetRecords fails.
    put(&client, TABLE, "lost0", NEVER).await;
    put(&client, TABLE, "lost1", NEVER).await;
    advance_clock(&endpoint, 120_000).await;
    let swept = admin(&endpoint, "/_ttlstream/sweep", "{}").await;
    assert_eq!(swept["RecordsTrimmed"], 3, "{swept}");
    put(&client, TABLE, "read1", NEVER).await;
    assert_eq!(trimmed_count(&recorder), 0.0);
    read_exactly(&mut reader, 1).await;
    assert_eq!(
        trimmed_count(&recorder),
        1.0,
        "counted once through GetRecords"
    );

    // Again while the sidecar is down: on restart GetShardIterator
    // (AFTER_SEQUENCE_NUMBER of the checkpoint) fails.
    drop(reader);
    put(&client, TABLE, "lost2", NEVER).await;
    advance_clock(&endpoint, 120_000).await;
    let swept = admin(&endpoint, "/_ttlstream/sweep", "{}").await;
    assert_eq!(swept["RecordsTrimmed"], 2, "{swept}");
    put(&client, TABLE, "read2", NEVER).await;
    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 1).await;
    assert_eq!(
        trimmed_count(&recorder),
        1.0,
        "counted once through GetShardIterator"
    );

    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(user_names(&records), users(&["read0", "read1", "read2"]));
}

#[tokio::test]
async fn a_parent_shard_removed_by_retention_is_reported_and_its_child_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, sdk, client, config) = start(
        dir.path(),
        &["--shard-max-records", "2", "--stream-retention", "1m"],
        "",
    )
    .await;
    let endpoint = server.endpoint();
    let recorder = SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&recorder);
    put(&client, TABLE, "read0", NEVER).await;
    let mut reader = pipeline(&config, &sdk).await;
    read_exactly(&mut reader, 1).await;
    // lost0 fills the first shard, lost1 opens its child; both are trimmed,
    // and the closed first shard, left empty, is removed from the stream.
    put(&client, TABLE, "lost0", NEVER).await;
    put(&client, TABLE, "lost1", NEVER).await;
    let parent = shards(&sdk, &client).await.remove(0).0;
    advance_clock(&endpoint, 120_000).await;
    let swept = admin(&endpoint, "/_ttlstream/sweep", "{}").await;
    assert_eq!(swept["RecordsTrimmed"], 3, "{swept}");
    let chain = shards(&sdk, &client).await;
    assert_eq!(chain.len(), 1, "the parent is gone: {chain:?}");
    assert_eq!(chain[0].1.as_ref(), Some(&parent));
    put(&client, TABLE, "read1", NEVER).await;

    read_exactly(&mut reader, 1).await;
    // The rest of the removed parent (lost0) and the trimmed start of the
    // child (lost1): each reported once.
    assert_eq!(trimmed_count(&recorder), 2.0);
    let records = archived(dir.path(), TABLE);
    sequence_numbers(&records);
    assert_eq!(user_names(&records), users(&["read0", "read1"]));
    assert!(reader.checkpoint().partitions[&parent].finished);
}
