//! The `dynamodb_streams` source against `ttlstream serve` (the engine's own
//! DynamoDB and DynamoDB Streams API) on 127.0.0.1: a table written with
//! aws-sdk-dynamodb, an item expired by the server's TTL process (manual
//! clock moved and a sweep run through `/_ttlstream/clock` and
//! `/_ttlstream/sweep`), and the source reading the REMOVE record with its
//! `userIdentity` through aws-sdk-dynamodbstreams into the archive.

use std::path::Path;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::TimeToLiveSpecification;
use serde_json::json;
use ttlstream_tests::dynamodb::{
    admin, archived, config, create_table, delete, drain, pipeline, put, sdk_config, serve,
};

#[tokio::test]
async fn a_ttl_deletion_on_ttlstream_serve_reaches_the_archive_with_its_user_identity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = serve(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &dir.path().join("data"),
        &[],
    );
    let endpoint = server.endpoint();
    let sdk = sdk_config(&endpoint);
    let client = Client::new(&sdk);
    let table = "SessionData";
    create_table(&client, table).await;
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name("ExpirationTime")
                .enabled(true)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect("UpdateTimeToLive");
    let now_millis =
        admin(&endpoint, "/_ttlstream/clock", r#"{"AdvanceMillis":0}"#).await["EpochMillis"]
            .as_i64()
            .expect("EpochMillis");
    let now_secs = now_millis / 1000;
    put(&client, table, "expires-soon", now_secs + 60).await;
    put(&client, table, "expires-tomorrow", now_secs + 86_400).await;
    put(&client, table, "deleted-by-user", now_secs + 60).await;
    delete(&client, table, "deleted-by-user").await;

    // Two minutes later on the engine clock the TTL process deletes the
    // expired item; the user-deleted one is gone already.
    admin(
        &endpoint,
        "/_ttlstream/clock",
        r#"{"AdvanceMillis":120000}"#,
    )
    .await;
    let swept = admin(&endpoint, "/_ttlstream/sweep", "{}").await;
    assert_eq!(swept, json!({"Deleted": 1, "RecordsTrimmed": 0}));

    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("DescribeTable");
    let description = described.table().expect("Table");
    let stream_arn = description
        .latest_stream_arn()
        .expect("LatestStreamArn")
        .to_string();
    let table_arn = description.table_arn().expect("TableArn");
    assert!(
        stream_arn.starts_with(&format!("{table_arn}/stream/")),
        "one region and account for table and stream: {table_arn} / {stream_arn}"
    );
    let config = config(
        dir.path(),
        &format!(
            "[source.dynamodb_streams]\ntable = \"{table}\"\nendpoint_url = \"{endpoint}\"\nregion = \"us-east-1\""
        ),
    );
    let mut pipeline = pipeline(&config, &sdk).await;
    assert_eq!(drain(&mut pipeline).await, 5);

    let records = archived(dir.path(), table);
    let events: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["eventName"].as_str().expect("eventName"),
                r["dynamodb"]["Keys"]["UserName"]["S"]
                    .as_str()
                    .expect("key"),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("INSERT", "expires-soon"),
            ("INSERT", "expires-tomorrow"),
            ("INSERT", "deleted-by-user"),
            ("REMOVE", "deleted-by-user"),
            ("REMOVE", "expires-soon"),
        ]
    );
    let user_delete = &records[3];
    assert!(
        user_delete.get("userIdentity").is_none(),
        "a user's DeleteItem carries no userIdentity: {user_delete}"
    );
    let ttl_delete = &records[4];
    // GetRecords says Type/PrincipalId; the archived Lambda shape says type/principalId.
    assert_eq!(
        ttl_delete["userIdentity"],
        json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"})
    );
    assert_eq!(
        ttl_delete["dynamodb"]["OldImage"]["ExpirationTime"]["N"],
        (now_secs + 60).to_string()
    );
    assert_eq!(ttl_delete["eventSourceARN"], stream_arn.as_str());
    let checkpoint = pipeline.checkpoint();
    assert_eq!(
        checkpoint.sequence_number.as_deref(),
        ttl_delete["dynamodb"]["SequenceNumber"].as_str(),
        "the checkpoint is at the TTL deletion"
    );
}
