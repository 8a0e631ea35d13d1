//! The `dynamodb_streams` source against moto_server on 127.0.0.1: a table with
//! a stream is written and deleted from with aws-sdk-dynamodb; the pipeline
//! reads the stream with aws-sdk-dynamodbstreams into a file sink, checkpoints
//! per shard, and a second pipeline resumes after the checkpoint.
//!
//! moto does not run TTL, so the REMOVE here is a user's DeleteItem (no
//! `userIdentity`): the plumbing is what is under test. moto keeps one shard
//! per stream and never expires iterators or trims records.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use ttlstream::config::SourceConfig;
use ttlstream::sources::dynamodb_streams::DynamodbStreamsSource;
use ttlstream_tests::dynamodb::{
    archived, config, create_table, delete, drain, pipeline, put, sdk_config,
};
use ttlstream_tests::server::{ServerProcess, tool};

#[tokio::test]
async fn reads_a_moto_stream_into_the_file_sink_and_resumes_from_the_shard_checkpoint() {
    let Some(moto) = tool("TTLSTREAM_MOTO_SERVER") else {
        return;
    };
    let server = ServerProcess::start(&moto, &["-H", "127.0.0.1", "-p", "{port}"]);
    let sdk = sdk_config(&server.endpoint());
    let client = Client::new(&sdk);
    let table = "SessionData";
    create_table(&client, table).await;
    put(&client, table, "user1", 1_571_827_560).await;
    put(&client, table, "user2", 1_571_827_561).await;
    put(&client, table, "user1", 1_571_827_999).await; // MODIFY
    delete(&client, table, "user2").await; // a user's delete: REMOVE without userIdentity

    let dir = tempfile::tempdir().expect("tempdir");
    let endpoint = server.endpoint();
    let by_table = config(
        dir.path(),
        &format!(
            "[source.dynamodb_streams]\ntable = \"{table}\"\nendpoint_url = \"{endpoint}\"\nregion = \"us-east-1\""
        ),
    );
    let mut first = pipeline(&by_table, &sdk).await;
    assert_eq!(drain(&mut first).await, 4);
    let records = archived(dir.path(), table);
    let names: Vec<&str> = records
        .iter()
        .map(|r| r["eventName"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["INSERT", "INSERT", "MODIFY", "REMOVE"]);
    let remove = &records[3];
    assert_eq!(
        remove["dynamodb"]["Keys"],
        serde_json::json!({"UserName": {"S": "user2"}})
    );
    assert_eq!(
        remove["dynamodb"]["OldImage"]["ExpirationTime"]["N"],
        "1571827561"
    );
    assert!(
        remove.get("userIdentity").is_none(),
        "a user delete carries no userIdentity: {remove}"
    );
    let created = remove["dynamodb"]["ApproximateCreationDateTime"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(
        created > 1.6e9,
        "ApproximateCreationDateTime read from moto: {remove}"
    );
    let arn = remove["eventSourceARN"]
        .as_str()
        .expect("eventSourceARN")
        .to_string();
    assert!(arn.contains(":table/SessionData/stream/"), "{arn}");
    let sequences: Vec<String> = records
        .iter()
        .map(|r| {
            r["dynamodb"]["SequenceNumber"]
                .as_str()
                .expect("seq")
                .to_string()
        })
        .collect();

    // The checkpoint holds the shard's last acknowledged SequenceNumber.
    let checkpoint = first.checkpoint().clone();
    let (shard, position) = checkpoint.partitions.iter().next().expect("one shard");
    assert!(shard.starts_with("shardId-"), "{shard}");
    assert_eq!(&position.position, sequences.last().expect("last"));
    assert!(!position.finished, "moto's shard stays open");
    drop(first);

    // New writes; a new pipeline, opened by stream ARN, resumes after the checkpoint.
    put(&client, table, "user3", 1_571_828_000).await;
    delete(&client, table, "user1").await;
    let by_arn = config(
        dir.path(),
        &format!(
            "[source.dynamodb_streams]\nstream_arn = \"{arn}\"\nendpoint_url = \"{endpoint}\"\nregion = \"us-east-1\""
        ),
    );
    let mut second = pipeline(&by_arn, &sdk).await;
    assert_eq!(
        drain(&mut second).await,
        2,
        "only the records after the checkpoint"
    );
    let records = archived(dir.path(), table);
    let names: Vec<&str> = records
        .iter()
        .map(|r| r["eventName"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        ["INSERT", "INSERT", "MODIFY", "REMOVE", "INSERT", "REMOVE"]
    );
    let mut all: Vec<&str> = records
        .iter()
        .map(|r| r["dynamodb"]["SequenceNumber"].as_str().expect("seq"))
        .collect();
    all.dedup();
    assert_eq!(all.len(), 6, "no record archived twice");
}

#[tokio::test]
async fn a_table_without_a_stream_is_a_clear_error() {
    let Some(moto) = tool("TTLSTREAM_MOTO_SERVER") else {
        return;
    };
    let server = ServerProcess::start(&moto, &["-H", "127.0.0.1", "-p", "{port}"]);
    let sdk = sdk_config(&server.endpoint());
    let client = Client::new(&sdk);
    client
        .create_table()
        .table_name("NoStream")
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("k")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("attribute"),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("k")
                .key_type(KeyType::Hash)
                .build()
                .expect("key"),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("CreateTable");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = config(
        dir.path(),
        "[source.dynamodb_streams]\ntable = \"NoStream\"",
    );
    let Some(SourceConfig::DynamodbStreams(streams)) = &config.source else {
        panic!("config");
    };
    let error = DynamodbStreamsSource::with_sdk_config(streams, &sdk)
        .await
        .err()
        .expect("no stream");
    let message = error.to_string();
    assert!(
        message.starts_with("DescribeTable on NoStream: the table has no stream"),
        "{message}"
    );
    let missing = DynamodbStreamsSource::with_sdk_config(
        &ttlstream::sources::dynamodb_streams::DynamodbStreamsConfig {
            table: Some("Missing".into()),
            ..streams.clone()
        },
        &sdk,
    )
    .await
    .err()
    .expect("no table");
    assert!(
        missing.to_string().contains("ResourceNotFoundException"),
        "{missing}"
    );
}

#[tokio::test]
async fn ttlstream_run_reads_the_stream_with_the_default_aws_configuration() {
    let Some(moto) = tool("TTLSTREAM_MOTO_SERVER") else {
        return;
    };
    let server = ServerProcess::start(&moto, &["-H", "127.0.0.1", "-p", "{port}"]);
    let sdk = sdk_config(&server.endpoint());
    let client = Client::new(&sdk);
    create_table(&client, "Sessions").await;
    for i in 0..5 {
        put(&client, "Sessions", &format!("user{i}"), 1_571_827_560 + i).await;
    }
    delete(&client, "Sessions", "user0").await;
    let dir = tempfile::tempdir().expect("tempdir");
    // No endpoint in the file: AWS_ENDPOINT_URL, as any AWS SDK reads it.
    config(
        dir.path(),
        "[source.dynamodb_streams]\ntable = \"Sessions\"",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ttlstream-e2e"))
        .args(["run", "--config"])
        .arg(dir.path().join("ttlstream.toml"))
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start ttlstream run");
    let archive = dir.path().join("archive/Sessions");
    let done = ttlstream_tests::wait_until(std::time::Duration::from_secs(60), || {
        ttlstream_tests::read_archive(&archive).len() >= 6
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        done,
        "6 records archived: {:?}",
        ttlstream_tests::read_archive(&archive)
    );
    let records = ttlstream_tests::read_archive(&archive);
    assert_eq!(records.len(), 6);
    assert_eq!(records[5]["eventName"], "REMOVE");
}
