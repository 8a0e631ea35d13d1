//! DynamoDB's request limits through the HTTP API, with DynamoDB's
//! messages ("Constraints in Amazon DynamoDB": expression parameters,
//! attribute names, nesting, key sizes), and the server's survival of
//! requests built to exhaust a parser.

#![allow(clippy::unwrap_used)]

use crate::support::{self, Harness, VALIDATION, ok, raw, start};
use serde_json::{Value, json};

/// A table `Limits` with a String partition key `pk` and String sort key `sk`.
async fn table(h: &Harness) {
    let (status, body) = raw(
        &h.url,
        "CreateTable",
        r#"{"TableName":"Limits","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// Sends `body` and expects a ValidationException whose message is `message`.
async fn refused(h: &Harness, operation: &str, body: &Value, message: &str) {
    support::refused(&h.url, operation, body, message).await;
}

async fn still_answers(h: &Harness) {
    let (status, _) = raw(&h.url, "ListTables", "{}").await;
    assert_eq!(status, 200, "the server stopped answering");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deeply_nested_expressions_are_refused_and_the_server_lives() {
    let h = start().await;
    table(&h).await;
    // 1,500 parentheses (3 KB, under the 4 KB limit): this used to overflow
    // a worker's stack and abort the process.
    let nested = format!("{}a < b{}", "(".repeat(1500), ")".repeat(1500));
    let condition = json!({
        "TableName": "Limits",
        "Item": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "ConditionExpression": nested,
    });
    refused(
        &h,
        "PutItem",
        &condition,
        "Invalid ConditionExpression: The expression has redundant parentheses;",
    )
    .await;
    let filter = json!({"TableName": "Limits", "FilterExpression": nested});
    refused(
        &h,
        "Scan",
        &filter,
        "Invalid FilterExpression: The expression has redundant parentheses;",
    )
    .await;
    // Unbalanced: a syntax error, not a crash.
    let open = json!({"TableName": "Limits", "FilterExpression": "(".repeat(4000)});
    let (status, answer) = raw(&h.url, "Scan", &open.to_string()).await;
    assert_eq!(status, 400);
    assert_eq!(answer["__type"], VALIDATION);
    // 1,000 NOTs: more than DynamoDB's 300 operators.
    let nots = json!({
        "TableName": "Limits",
        "FilterExpression": format!("{}a < b", "NOT ".repeat(1000)),
    });
    refused(
        &h,
        "Scan",
        &nots,
        "Invalid FilterExpression: The expression contains too many operators; operator count: 301",
    )
    .await;
    // Nested ORs within the limit work ("a<b or (a<b or (...))", 299
    // operators, accepted by DynamoDB).
    let ok = json!({
        "TableName": "Limits",
        "FilterExpression": format!("a < b {}{}", "or (a < b ".repeat(149), ")".repeat(149)),
    });
    let (status, answer) = raw(&h.url, "Scan", &ok.to_string()).await;
    assert_eq!(status, 200, "{answer}");
    still_answers(&h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_over_4_kb_are_refused_before_parsing() {
    let h = start().await;
    table(&h).await;
    // 4,096 bytes are allowed ...
    let spaces = " ".repeat(4085);
    let ok = json!({
        "TableName": "Limits",
        "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "UpdateExpression": format!("SET{spaces}a = :val"),
        "ExpressionAttributeValues": {":val": {"N": "1"}},
    });
    let (status, answer) = raw(&h.url, "UpdateItem", &ok.to_string()).await;
    assert_eq!(status, 200, "{answer}");
    // ... 4,097 are not, whatever the expression.
    let long = json!({
        "TableName": "Limits",
        "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "UpdateExpression": format!("SET {spaces}a = :val"),
        "ExpressionAttributeValues": {":val": {"N": "1"}},
    });
    refused(
        &h,
        "UpdateItem",
        &long,
        "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size; expression size: 4097",
    )
    .await;
    let parens = json!({
        "TableName": "Limits",
        "Item": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "ConditionExpression": format!("{}a < b{}", "(".repeat(20_000), ")".repeat(20_000)),
    });
    refused(
        &h,
        "PutItem",
        &parens,
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 40005",
    )
    .await;
    let projection = json!({
        "TableName": "Limits",
        "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "ProjectionExpression": "x".repeat(4097),
    });
    refused(
        &h,
        "GetItem",
        &projection,
        "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097",
    )
    .await;
    still_answers(&h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_functions_are_named() {
    let h = start().await;
    table(&h).await;
    let body = json!({
        "TableName": "Limits",
        "FilterExpression": "a < f(b)",
    });
    refused(
        &h,
        "Scan",
        &body,
        "Invalid FilterExpression: Invalid function name; function: f",
    )
    .await;
    support::raw(&h.url, "ListTables", "{}").await;
}

const HASHKEY_TOO_LARGE: &str = "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes";
const RANGEKEY_TOO_LARGE: &str = "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes";

fn put(pk: &str, sk: &str) -> Value {
    json!({"TableName": "Limits", "Item": {"pk": {"S": pk}, "sk": {"S": sk}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_sizes_are_refused_before_anything_is_written() {
    // "Constraints in Amazon DynamoDB": partition key values up to 2,048
    // bytes, sort key values up to 1,024, on writes and reads alike.
    let h = start().await;
    table(&h).await;
    ok(
        &h.url,
        "PutItem",
        &put(&"p".repeat(2048), &"s".repeat(1024)),
    )
    .await;
    refused(
        &h,
        "PutItem",
        &put(&"p".repeat(2049), "s"),
        HASHKEY_TOO_LARGE,
    )
    .await;
    refused(
        &h,
        "PutItem",
        &put("p", &"s".repeat(1025)),
        RANGEKEY_TOO_LARGE,
    )
    .await;
    // A key far past fjall's own key limit (64 KB): refused, not a panic.
    refused(
        &h,
        "PutItem",
        &put(&"p".repeat(100_000), "s"),
        HASHKEY_TOO_LARGE,
    )
    .await;
    let get =
        json!({"TableName": "Limits", "Key": {"pk": {"S": "p".repeat(2049)}, "sk": {"S": "s"}}});
    refused(&h, "GetItem", &get, HASHKEY_TOO_LARGE).await;
    let delete =
        json!({"TableName": "Limits", "Key": {"pk": {"S": "p"}, "sk": {"S": "s".repeat(1025)}}});
    refused(&h, "DeleteItem", &delete, RANGEKEY_TOO_LARGE).await;
    let scan = ok(&h.url, "Scan", &json!({"TableName": "Limits"})).await;
    assert_eq!(
        scan["Count"], 1,
        "only the item within the limits was written"
    );
    still_answers(&h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attribute_names_and_nesting_have_dynamodb_limits() {
    let h = start().await;
    table(&h).await;
    // Attribute names: 65,535 bytes accepted, 65,536 refused, at any depth.
    let mut item = put("p", "s");
    item["Item"]["n".repeat(65_535)] = json!({"N": "1"});
    ok(&h.url, "PutItem", &item).await;
    let too_long =
        "1 validation error detected: Attribute name is too large, must be less than 65536 bytes";
    let mut item = put("p", "s");
    item["Item"]["n".repeat(65_536)] = json!({"N": "1"});
    refused(&h, "PutItem", &item, too_long).await;
    let mut item = put("p", "s");
    item["Item"]["m"] = json!({"M": {"n".repeat(65_536): {"S": "x"}}});
    refused(&h, "PutItem", &item, too_long).await;
    // Nesting: 32 levels, the attribute being level 1 (31 Maps around a leaf).
    let nest = |wraps: usize| {
        let mut v = json!({"S": "leaf"});
        for _ in 0..wraps {
            v = json!({"M": {"n": v}});
        }
        v
    };
    let mut item = put("p", "s");
    item["Item"]["deep"] = nest(31);
    ok(&h.url, "PutItem", &item).await;
    let mut item = put("p", "s");
    item["Item"]["deep"] = nest(32);
    refused(
        &h,
        "PutItem",
        &item,
        "1 validation error detected: Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit",
    )
    .await;
    still_answers(&h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placeholder_maps_are_checked_as_dynamodb_checks_them() {
    let h = start().await;
    table(&h).await;
    let update = |names: Value, values: Value| {
        json!({
            "TableName": "Limits",
            "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
            "UpdateExpression": "SET #a = :v",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        })
    };
    refused(
        &h,
        "UpdateItem",
        &update(json!({"a": "x"}), json!({":v": {"N": "1"}})),
        "ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"",
    )
    .await;
    refused(
        &h,
        "UpdateItem",
        &update(json!({"#a": "x"}), json!({"v": {"N": "1"}})),
        "ExpressionAttributeValues contains invalid key: Syntax error; key: \"v\"",
    )
    .await;
    refused(
        &h,
        "UpdateItem",
        &update(json!({"#a": "x"}), json!({":v": {"SS": []}})),
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v",
    )
    .await;
    refused(
        &h,
        "UpdateItem",
        &update(json!({}), json!({":v": {"N": "1"}})),
        "ExpressionAttributeNames must not be empty",
    )
    .await;
    // A placeholder is at most 255 bytes, its `#` included.
    let long = format!("#{}", "a".repeat(255));
    let body = json!({
        "TableName": "Limits",
        "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
        "UpdateExpression": format!("SET {long} = :v"),
        "ExpressionAttributeNames": {long.clone(): "x"},
        "ExpressionAttributeValues": {":v": {"N": "1"}},
    });
    let (status, answer) = raw(&h.url, "UpdateItem", &body.to_string()).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["__type"], VALIDATION);
    // A name mapped to an attribute name over 64 KB.
    refused(
        &h,
        "UpdateItem",
        &update(json!({"#a": "n".repeat(65_536)}), json!({":v": {"N": "1"}})),
        "1 validation error detected: Attribute name is too large, must be less than 65536 bytes",
    )
    .await;
    still_answers(&h).await;
}
