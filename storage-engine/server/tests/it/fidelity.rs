//! The server answers as DynamoDB answers: expression semantics, invalid
//! inputs DynamoDB refuses, canonical Numbers, error wording, parameters it
//! does not implement refused by name. Each expected value is DynamoDB's
//! (the Developer Guide's rule, or the service's message).

#![allow(clippy::unwrap_used)]

use crate::support::{Harness, ok, raw, refused, start};
use serde_json::{Value, json};

/// A table `Fid` (`pk` S, `sk` N, a stream with both images) and a table
/// `Gsi` with an index `ByCat` on `cat`.
async fn tables(h: &Harness) {
    ok(
        &h.url,
        "CreateTable",
        &json!({
            "TableName": "Fid",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        }),
    )
    .await;
    ok(
        &h.url,
        "CreateTable",
        &json!({
            "TableName": "Gsi",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "cat", "AttributeType": "S"}],
            "GlobalSecondaryIndexes": [{"IndexName": "ByCat", "KeySchema": [{"AttributeName": "cat", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        }),
    )
    .await;
}

fn key(pk: &str, sk: &str) -> Value {
    json!({"pk": {"S": pk}, "sk": {"N": sk}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_follow_dynamodb_semantics() {
    let h = start().await;
    tables(&h).await;
    ok(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "5"}}}),
    )
    .await;
    // `<>` against a missing attribute is true ("Comparison operator and
    // function reference": a <> b is true if a is not present).
    ok(
        &h.url,
        "PutItem",
        &json!({
            "TableName": "Fid",
            "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "6"}},
            "ConditionExpression": "missing <> :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        }),
    )
    .await;
    // A key condition may put the value first.
    let q = ok(
        &h.url,
        "Query",
        &json!({
            "TableName": "Fid",
            "KeyConditionExpression": ":p = pk AND :lo <= sk",
            "ExpressionAttributeValues": {":p": {"S": "a"}, ":lo": {"N": "1"}},
        }),
    )
    .await;
    assert_eq!(q["Count"], 1, "{q}");
    // UpdateItem with only REMOVE on a missing item creates nothing.
    ok(
        &h.url,
        "UpdateItem",
        &json!({"TableName": "Fid", "Key": key("ghost", "1"), "UpdateExpression": "REMOVE x"}),
    )
    .await;
    let got = ok(
        &h.url,
        "GetItem",
        &json!({"TableName": "Fid", "Key": key("ghost", "1")}),
    )
    .await;
    assert!(got.get("Item").is_none(), "{got}");
    // ... while an update that sets something creates the item.
    ok(
        &h.url,
        "UpdateItem",
        &json!({"TableName": "Fid", "Key": key("made", "1"), "UpdateExpression": "SET y = :v", "ExpressionAttributeValues": {":v": {"S": "z"}}}),
    )
    .await;
    let got = ok(
        &h.url,
        "GetItem",
        &json!({"TableName": "Fid", "Key": key("made", "1")}),
    )
    .await;
    assert_eq!(got["Item"]["y"], json!({"S": "z"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_inputs_dynamodb_refuses_are_refused() {
    let h = start().await;
    tables(&h).await;
    // A projection naming an attribute twice, or overlapping paths.
    for projection in ["a, b, a", "a, a.b"] {
        let (status, answer) = raw(
            &h.url,
            "GetItem",
            &json!({"TableName": "Fid", "Key": key("a", "1"), "ProjectionExpression": projection})
                .to_string(),
        )
        .await;
        assert_eq!(status, 400);
        let message = answer["message"].as_str().unwrap();
        assert!(
            message.starts_with("Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths"),
            "{message}"
        );
    }
    // Conflicting document paths in an update.
    let (status, answer) = raw(
        &h.url,
        "UpdateItem",
        &json!({"TableName": "Fid", "Key": key("a", "1"), "UpdateExpression": "SET m.b = :v, m[0] = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}).to_string(),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid UpdateExpression: Two document paths conflict with each other"),
        "{answer}"
    );
    // A FilterExpression on a key attribute in Query.
    refused(
        &h.url,
        "Query",
        &json!({"TableName": "Fid", "KeyConditionExpression": "pk = :p", "FilterExpression": "sk > :n", "ExpressionAttributeValues": {":p": {"S": "a"}, ":n": {"N": "1"}}}),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
    )
    .await;
    // begins_with on a numeric key, a value of the wrong type for a key.
    refused(
        &h.url,
        "Query",
        &json!({"TableName": "Fid", "KeyConditionExpression": "pk = :p AND begins_with(sk, :n)", "ExpressionAttributeValues": {":p": {"S": "a"}, ":n": {"N": "1"}}}),
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
    )
    .await;
    refused(
        &h.url,
        "Query",
        &json!({"TableName": "Fid", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"N": "1"}}}),
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
    )
    .await;
    // DELETE with an empty set.
    refused(
        &h.url,
        "UpdateItem",
        &json!({"TableName": "Fid", "Key": key("a", "1"), "UpdateExpression": "DELETE s :e", "ExpressionAttributeValues": {":e": {"SS": []}}}),
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :e",
    )
    .await;
    // Select=ALL_PROJECTED_ATTRIBUTES on a base table.
    refused(
        &h.url,
        "Scan",
        &json!({"TableName": "Fid", "Select": "ALL_PROJECTED_ATTRIBUTES"}),
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
    )
    .await;
    // Sets with duplicates: Numbers compare by value (1 and 1.0).
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "s": {"SS": ["a", "a"]}}}),
        "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
    )
    .await;
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"NS": ["1", "1.0"]}}}),
        "Input collection contains duplicates",
    )
    .await;
    // AttributeValues with no type or two.
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "e": {}}}),
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
    )
    .await;
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "e": {"S": "x", "N": "1"}}}),
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_are_canonical_in_items_keys_and_stream_images() {
    let h = start().await;
    tables(&h).await;
    ok(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {
            "pk": {"S": "n"}, "sk": {"N": "007"},
            "a": {"N": "1e3"}, "b": {"N": "+3"}, "c": {"N": "1.0"}, "d": {"N": "-0.50"},
            "ns": {"NS": ["1e1", "2.50"]}, "l": {"L": [{"N": "0010"}]},
        }}),
    )
    .await;
    // The key `007` is the key `7`.
    let got = ok(
        &h.url,
        "GetItem",
        &json!({"TableName": "Fid", "Key": key("n", "7")}),
    )
    .await;
    let item = &got["Item"];
    assert_eq!(item["sk"], json!({"N": "7"}));
    assert_eq!(item["a"], json!({"N": "1000"}));
    assert_eq!(item["b"], json!({"N": "3"}));
    assert_eq!(item["c"], json!({"N": "1"}));
    assert_eq!(item["d"], json!({"N": "-0.5"}));
    let mut ns: Vec<String> = item["ns"]["NS"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    ns.sort();
    assert_eq!(ns, ["10", "2.5"]);
    assert_eq!(item["l"], json!({"L": [{"N": "10"}]}));
    // The stream record's Keys and NewImage print the same numbers.
    let streams =
        crate::support::streams_raw(&h.url, "ListStreams", &json!({"TableName": "Fid"})).await;
    let arn = streams["Streams"][0]["StreamArn"]
        .as_str()
        .unwrap()
        .to_string();
    let description =
        crate::support::streams_raw(&h.url, "DescribeStream", &json!({"StreamArn": arn})).await;
    let shard = description["StreamDescription"]["Shards"][0]["ShardId"]
        .as_str()
        .unwrap()
        .to_string();
    let iterator = crate::support::streams_raw(
        &h.url,
        "GetShardIterator",
        &json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
    )
    .await;
    let records = crate::support::streams_raw(
        &h.url,
        "GetRecords",
        &json!({"ShardIterator": iterator["ShardIterator"]}),
    )
    .await;
    let record = &records["Records"][0]["dynamodb"];
    assert_eq!(record["Keys"]["sk"], json!({"N": "7"}));
    assert_eq!(record["NewImage"]["a"], json!({"N": "1000"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_use_dynamodb_wording_and_types() {
    let h = start().await;
    tables(&h).await;
    let (status, answer) = raw(&h.url, "DescribeTable", r#"{"TableName":"Nope"}"#).await;
    assert_eq!(status, 400);
    assert_eq!(
        answer["__type"],
        "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    );
    assert_eq!(
        answer["message"],
        "Requested resource not found: Table: Nope not found"
    );
    let (_, answer) = raw(
        &h.url,
        "GetItem",
        &json!({"TableName": "Nope", "Key": key("a", "1")}).to_string(),
    )
    .await;
    assert_eq!(answer["message"], "Requested resource not found");
    let (_, answer) = raw(
        &h.url,
        "GetItem",
        &json!({"TableName": "Fid", "Key": {"pk": {"S": "a"}}}).to_string(),
    )
    .await;
    assert_eq!(
        answer["message"],
        "The provided key element does not match the schema"
    );
    let (_, answer) = raw(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}}}).to_string(),
    )
    .await;
    assert_eq!(
        answer["message"],
        "One or more parameter values were invalid: Missing the key sk in the item"
    );
    let (_, answer) = raw(
        &h.url,
        "PutItem",
        &json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}).to_string(),
    )
    .await;
    assert_eq!(
        answer["message"],
        "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S"
    );
    let (_, answer) = raw(
        &h.url,
        "UpdateItem",
        &json!({"TableName": "Fid", "Key": key("a", "1"), "UpdateExpression": "SET = :v"})
            .to_string(),
    )
    .await;
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid UpdateExpression: Syntax error; token: \"=\""),
        "{answer}"
    );
    // A member of the wrong JSON type is a SerializationException, as AWS says.
    let (status, answer) = raw(
        &h.url,
        "PutItem",
        r#"{"TableName":"Fid","Item":{"pk":{"S":5}}}"#,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        answer["__type"],
        "com.amazon.coral.service#SerializationException"
    );
    assert_eq!(
        answer["message"],
        "NUMBER_VALUE cannot be converted to String"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_not_implemented_are_refused_by_name() {
    let h = start().await;
    tables(&h).await;
    for (operation, body, member) in [
        (
            "PutItem",
            json!({"TableName": "Fid", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Bogus": 1}),
            "Bogus",
        ),
        (
            "CreateTable",
            json!({"TableName": "T4T", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "SSESpecification": {"Enabled": true}}),
            "SSESpecification",
        ),
        (
            "UpdateTable",
            json!({"TableName": "Fid", "GlobalSecondaryIndexUpdates": []}),
            "GlobalSecondaryIndexUpdates",
        ),
        (
            "Query",
            json!({"TableName": "Fid", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Bogus": true}),
            "Bogus",
        ),
    ] {
        let (status, answer) = raw(&h.url, operation, &body.to_string()).await;
        assert_eq!(status, 400, "{operation}: {answer}");
        assert_eq!(answer["__type"], crate::support::VALIDATION);
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains(member), "{operation}: {message}");
    }
    // Nothing was written by the refused PutItem.
    let got = ok(
        &h.url,
        "GetItem",
        &json!({"TableName": "Fid", "Key": key("a", "1")}),
    )
    .await;
    assert!(got.get("Item").is_none());
}
