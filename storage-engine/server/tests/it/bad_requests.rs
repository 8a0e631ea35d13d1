//! A table of malformed and invalid requests, sent as raw HTTP, each
//! answered with the AWS error type DynamoDB answers (and never a panic or a
//! dropped connection).

#![allow(clippy::unwrap_used)]

use crate::support;

use support::start;

const DDB: &str = "com.amazonaws.dynamodb.v20120810#";
const CORAL: &str = "com.amazon.coral.service#";
const JSON_1_0: &str = "application/x-amz-json-1.0";

struct Case {
    what: &'static str,
    /// `None`: no `X-Amz-Target` header.
    operation: Option<&'static str>,
    content_type: Option<&'static str>,
    body: String,
    status: u16,
    error: String,
}

fn case(what: &'static str, operation: &'static str, body: &str, status: u16, error: &str) -> Case {
    Case {
        what,
        operation: Some(operation),
        content_type: Some(JSON_1_0),
        body: body.to_string(),
        status,
        error: error.to_string(),
    }
}

fn validation(what: &'static str, operation: &'static str, body: &str) -> Case {
    case(
        what,
        operation,
        body,
        400,
        &format!("{DDB}ValidationException"),
    )
}

fn serialization(what: &'static str, operation: &'static str, body: &str) -> Case {
    case(
        what,
        operation,
        body,
        400,
        &format!("{CORAL}SerializationException"),
    )
}

fn cases() -> Vec<Case> {
    let long_name = "T".repeat(256);
    let big_item = format!(
        r#"{{"TableName":"Events","Item":{{"Device":{{"S":"d"}},"At":{{"N":"1"}},"Blob":{{"S":"{}"}}}}}}"#,
        "x".repeat(400 * 1024 + 1)
    );
    let key = r#""Key":{"Device":{"S":"d1"},"At":{"N":"1"}}"#;
    vec![
        serialization("not JSON", "PutItem", "{not json"),
        serialization("JSON, not an object", "PutItem", "[1]"),
        serialization("empty body", "ListTables", ""),
        serialization(
            "number where a string belongs",
            "PutItem",
            r#"{"TableName":5}"#,
        ),
        serialization(
            "attribute value of the wrong JSON type",
            "PutItem",
            r#"{"TableName":"Events","Item":{"Device":{"S":5}}}"#,
        ),
        case(
            "unknown operation",
            "DropDatabase",
            "{}",
            400,
            &format!("{CORAL}UnknownOperationException"),
        ),
        Case {
            what: "missing X-Amz-Target",
            operation: None,
            content_type: Some(JSON_1_0),
            body: "{}".into(),
            status: 400,
            error: format!("{CORAL}UnknownOperationException"),
        },
        Case {
            what: "wrong content type (JSON 1.1): DynamoDB answers 404",
            operation: Some("ListTables"),
            content_type: Some("application/x-amz-json-1.1"),
            body: "{}".into(),
            status: 404,
            error: format!("{CORAL}UnknownOperationException"),
        },
        Case {
            what: "form content type",
            operation: Some("ListTables"),
            content_type: Some("application/x-www-form-urlencoded"),
            body: "{}".into(),
            status: 404,
            error: format!("{CORAL}UnknownOperationException"),
        },
        validation("missing TableName", "GetItem", &format!("{{{key}}}")),
        validation("missing TableName (DescribeTable)", "DescribeTable", "{}"),
        validation(
            "empty TableName",
            "GetItem",
            &format!(r#"{{"TableName":"",{key}}}"#),
        ),
        validation(
            "TableName too short",
            "DescribeTable",
            r#"{"TableName":"ab"}"#,
        ),
        validation(
            "TableName too long",
            "DescribeTable",
            &format!(r#"{{"TableName":"{long_name}"}}"#),
        ),
        validation(
            "TableName with a bad character",
            "DescribeTable",
            r#"{"TableName":"bad/name"}"#,
        ),
        validation(
            "TableName too long at CreateTable",
            "CreateTable",
            &format!(
                r#"{{"TableName":"{long_name}","KeySchema":[{{"AttributeName":"Id","KeyType":"HASH"}}],"AttributeDefinitions":[{{"AttributeName":"Id","AttributeType":"S"}}]}}"#
            ),
        ),
        case(
            "unknown table",
            "DescribeTable",
            r#"{"TableName":"Nope"}"#,
            400,
            &format!("{DDB}ResourceNotFoundException"),
        ),
        validation(
            "key of the wrong type",
            "PutItem",
            r#"{"TableName":"Events","Item":{"Device":{"N":"1"},"At":{"N":"1"}}}"#,
        ),
        validation(
            "key missing its sort key",
            "GetItem",
            r#"{"TableName":"Events","Key":{"Device":{"S":"d1"}}}"#,
        ),
        validation(
            "key with an extra attribute",
            "GetItem",
            r#"{"TableName":"Events","Key":{"Device":{"S":"d1"},"At":{"N":"1"},"X":{"S":"y"}}}"#,
        ),
        validation(
            "not a number",
            "PutItem",
            r#"{"TableName":"Events","Item":{"Device":{"S":"d"},"At":{"N":"abc"}}}"#,
        ),
        validation("item over 400 KB", "PutItem", &big_item),
        validation(
            "Limit 0",
            "Query",
            r#"{"TableName":"Events","KeyConditionExpression":"Device = :d","ExpressionAttributeValues":{":d":{"S":"x"}},"Limit":0}"#,
        ),
        validation(
            "Limit 0 (Scan)",
            "Scan",
            r#"{"TableName":"Events","Limit":0}"#,
        ),
        validation("ListTables Limit 101", "ListTables", r#"{"Limit":101}"#),
        validation(
            "syntax error in an expression",
            "Query",
            r#"{"TableName":"Events","KeyConditionExpression":"Device = = :d"}"#,
        ),
        validation(
            "undefined expression value",
            "Query",
            r#"{"TableName":"Events","KeyConditionExpression":"Device = :d"}"#,
        ),
        validation(
            "unknown ReturnValues",
            "PutItem",
            r#"{"TableName":"Events","Item":{"Device":{"S":"a"},"At":{"N":"1"}},"ReturnValues":"SOME"}"#,
        ),
        validation(
            "unknown Select",
            "Scan",
            r#"{"TableName":"Events","Select":"MOST"}"#,
        ),
        validation(
            "AttributeDefinitions missing the key",
            "CreateTable",
            r#"{"TableName":"T2T","KeySchema":[{"AttributeName":"Id","KeyType":"HASH"}],"AttributeDefinitions":[]}"#,
        ),
        validation(
            "unknown attribute type",
            "CreateTable",
            r#"{"TableName":"T3T","KeySchema":[{"AttributeName":"Id","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"Id","AttributeType":"X"}]}"#,
        ),
        case(
            "table exists",
            "CreateTable",
            r#"{"TableName":"Events","KeySchema":[{"AttributeName":"Device","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"Device","AttributeType":"S"}]}"#,
            400,
            &format!("{DDB}ResourceInUseException"),
        ),
        case(
            "condition false",
            "PutItem",
            r#"{"TableName":"Events","Item":{"Device":{"S":"d1"},"At":{"N":"1"}},"ConditionExpression":"attribute_not_exists(Device)"}"#,
            400,
            &format!("{DDB}ConditionalCheckFailedException"),
        ),
        validation(
            "BatchWriteItem request with neither put nor delete",
            "BatchWriteItem",
            r#"{"RequestItems":{"Events":[{}]}}"#,
        ),
        validation(
            "UpdateTimeToLive with an empty attribute name",
            "UpdateTimeToLive",
            r#"{"TableName":"Events","TimeToLiveSpecification":{"AttributeName":"","Enabled":true}}"#,
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_bad_request_gets_the_aws_error_type() {
    let h = start().await;
    let (status, _) = support::raw(
        &h.url,
        "CreateTable",
        r#"{"TableName":"Events","KeySchema":[{"AttributeName":"Device","KeyType":"HASH"},{"AttributeName":"At","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"Device","AttributeType":"S"},{"AttributeName":"At","AttributeType":"N"}]}"#,
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = support::raw(
        &h.url,
        "PutItem",
        r#"{"TableName":"Events","Item":{"Device":{"S":"d1"},"At":{"N":"1"}}}"#,
    )
    .await;
    assert_eq!(status, 200);

    // One connection for every case: an error never drops it.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .unwrap();
    let mut failures = Vec::new();
    for c in cases() {
        let mut request = http.post(&h.url).body(c.body.clone());
        if let Some(t) = c.content_type {
            request = request.header("content-type", t);
        }
        if let Some(op) = c.operation {
            request = request.header("x-amz-target", format!("DynamoDB_20120810.{op}"));
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        let json: serde_json::Value = response.json().await.unwrap();
        let message_ok = json["message"].as_str().is_some_and(|m| !m.is_empty());
        if status != c.status
            || json["__type"] != c.error
            || !message_ok
            || content_type != JSON_1_0
        {
            failures.push(format!(
                "{}: expected {} {}, got {status} {json}",
                c.what, c.status, c.error
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Over the 16 MiB limit: 413 with a ValidationException.
    let big = format!(
        r#"{{"TableName":"Events","Item":{{"Device":{{"S":"{}"}}}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    let response = http
        .post(&h.url)
        .header("x-amz-target", "DynamoDB_20120810.PutItem")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let json: serde_json::Value = response.json().await.unwrap();
    assert_eq!(json["__type"], format!("{DDB}ValidationException"));

    // And the server still answers.
    let (status, _) = support::raw(&h.url, "ListTables", "{}").await;
    assert_eq!(status, 200);
}
