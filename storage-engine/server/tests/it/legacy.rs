//! The legacy conditional parameters through `aws-sdk-dynamodb`, as older
//! SDK code sends them ("Legacy conditional parameters" in the DynamoDB
//! Developer Guide): each behaves as its expression form, and a request
//! mixing a legacy parameter with its expression form is refused with
//! DynamoDB's message.

#![allow(clippy::unwrap_used)]

use crate::support::{Harness, n, ok, refused, s, start};
use aws_sdk_dynamodb::types::{
    AttributeAction, AttributeValue, AttributeValueUpdate, ComparisonOperator, Condition,
    ConditionalOperator, ExpectedAttributeValue,
};
use serde_json::json;

async fn table(h: &Harness) {
    ok(
        &h.url,
        "CreateTable",
        &json!({
            "TableName": "Legacy",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        }),
    )
    .await;
}

fn value(v: AttributeValue) -> ExpectedAttributeValue {
    ExpectedAttributeValue::builder().value(v).build()
}

fn compare(op: ComparisonOperator, values: Vec<AttributeValue>) -> Condition {
    Condition::builder()
        .comparison_operator(op)
        .set_attribute_value_list(Some(values))
        .build()
        .unwrap()
}

async fn get(
    h: &Harness,
    pk: &str,
    sk: i64,
) -> Option<std::collections::HashMap<String, AttributeValue>> {
    h.client
        .get_item()
        .table_name("Legacy")
        .key("pk", s(pk))
        .key("sk", n(sk))
        .send()
        .await
        .unwrap()
        .item
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expected_guards_writes() {
    let h = start().await;
    table(&h).await;
    let put = |v: i64| {
        h.client
            .put_item()
            .table_name("Legacy")
            .item("pk", s("a"))
            .item("sk", n(1))
            .item("v", n(v))
    };
    put(1).send().await.unwrap();
    // A false Expected condition writes nothing (it used to be ignored).
    let err = put(2).expected("v", value(n(99))).send().await.unwrap_err();
    assert!(
        err.as_service_error()
            .is_some_and(|e| e.is_conditional_check_failed_exception()),
        "{err:?}"
    );
    assert_eq!(get(&h, "a", 1).await.unwrap()["v"], n(1));
    // A true one writes.
    put(3).expected("v", value(n(1))).send().await.unwrap();
    assert_eq!(get(&h, "a", 1).await.unwrap()["v"], n(3));
    // Exists: false.
    let err = put(4)
        .expected("v", ExpectedAttributeValue::builder().exists(false).build())
        .send()
        .await
        .unwrap_err();
    assert!(
        err.as_service_error()
            .is_some_and(|e| e.is_conditional_check_failed_exception())
    );
    // ComparisonOperator with ConditionalOperator OR: one holds.
    put(5)
        .expected(
            "v",
            ExpectedAttributeValue::builder()
                .comparison_operator(ComparisonOperator::Gt)
                .attribute_value_list(n(100))
                .build(),
        )
        .expected(
            "missing",
            ExpectedAttributeValue::builder()
                .comparison_operator(ComparisonOperator::Null)
                .build(),
        )
        .conditional_operator(ConditionalOperator::Or)
        .send()
        .await
        .unwrap();
    assert_eq!(get(&h, "a", 1).await.unwrap()["v"], n(5));
    // NOT_CONTAINS is false on a missing attribute (NE is true).
    let err = h
        .client
        .delete_item()
        .table_name("Legacy")
        .key("pk", s("a"))
        .key("sk", n(1))
        .expected(
            "missing",
            ExpectedAttributeValue::builder()
                .comparison_operator(ComparisonOperator::NotContains)
                .attribute_value_list(s("x"))
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert!(
        err.as_service_error()
            .is_some_and(|e| e.is_conditional_check_failed_exception())
    );
    h.client
        .delete_item()
        .table_name("Legacy")
        .key("pk", s("a"))
        .key("sk", n(1))
        .expected(
            "missing",
            ExpectedAttributeValue::builder()
                .comparison_operator(ComparisonOperator::Ne)
                .attribute_value_list(s("x"))
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert!(get(&h, "a", 1).await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attribute_updates_put_add_delete() {
    let h = start().await;
    table(&h).await;
    let update = |name: &str, action: AttributeAction, v: Option<AttributeValue>| {
        h.client
            .update_item()
            .table_name("Legacy")
            .key("pk", s("u"))
            .key("sk", n(1))
            .attribute_updates(
                name,
                AttributeValueUpdate::builder()
                    .action(action)
                    .set_value(v)
                    .build(),
            )
    };
    // DELETE alone on a missing item creates nothing.
    update("x", AttributeAction::Delete, None)
        .send()
        .await
        .unwrap();
    assert!(get(&h, "u", 1).await.is_none());
    update("count", AttributeAction::Add, Some(n(2)))
        .send()
        .await
        .unwrap();
    update("count", AttributeAction::Add, Some(n(3)))
        .send()
        .await
        .unwrap();
    update(
        "tags",
        AttributeAction::Put,
        Some(AttributeValue::Ss(vec!["a".into(), "b".into()])),
    )
    .send()
    .await
    .unwrap();
    update(
        "tags",
        AttributeAction::Delete,
        Some(AttributeValue::Ss(vec!["a".into()])),
    )
    .send()
    .await
    .unwrap();
    let item = get(&h, "u", 1).await.unwrap();
    assert_eq!(item["count"], n(5));
    assert_eq!(item["tags"], AttributeValue::Ss(vec!["b".into()]));
    update("count", AttributeAction::Delete, None)
        .send()
        .await
        .unwrap();
    assert!(!get(&h, "u", 1).await.unwrap().contains_key("count"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_conditions_filters_and_attributes_to_get() {
    let h = start().await;
    table(&h).await;
    for i in 1..=5 {
        h.client
            .put_item()
            .table_name("Legacy")
            .item("pk", s("q"))
            .item("sk", n(i))
            .item("even", AttributeValue::Bool(i % 2 == 0))
            .item("other", s("x"))
            .send()
            .await
            .unwrap();
    }
    let q = h
        .client
        .query()
        .table_name("Legacy")
        .key_conditions("pk", compare(ComparisonOperator::Eq, vec![s("q")]))
        .key_conditions("sk", compare(ComparisonOperator::Between, vec![n(2), n(4)]))
        .query_filter(
            "even",
            compare(ComparisonOperator::Eq, vec![AttributeValue::Bool(true)]),
        )
        .attributes_to_get("sk")
        .send()
        .await;
    // BOOL is not a type the legacy EQ takes in AttributeValueList.
    assert!(q.is_err());
    let q = h
        .client
        .query()
        .table_name("Legacy")
        .key_conditions("pk", compare(ComparisonOperator::Eq, vec![s("q")]))
        .key_conditions("sk", compare(ComparisonOperator::Between, vec![n(2), n(4)]))
        .query_filter(
            "other",
            compare(ComparisonOperator::BeginsWith, vec![s("x")]),
        )
        .attributes_to_get("sk")
        .send()
        .await
        .unwrap();
    assert_eq!(q.count(), 3);
    assert_eq!(q.scanned_count(), 3);
    assert!(
        q.items()
            .iter()
            .all(|i| i.len() == 1 && i.contains_key("sk"))
    );
    let scan = h
        .client
        .scan()
        .table_name("Legacy")
        .scan_filter("sk", compare(ComparisonOperator::In, vec![n(1), n(5)]))
        .send()
        .await
        .unwrap();
    assert_eq!(scan.count(), 2);
    let got = h
        .client
        .get_item()
        .table_name("Legacy")
        .key("pk", s("q"))
        .key("sk", n(1))
        .attributes_to_get("other")
        .send()
        .await
        .unwrap();
    assert_eq!(got.item().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixing_legacy_and_expression_parameters_is_refused() {
    let h = start().await;
    table(&h).await;
    refused(
        &h.url,
        "PutItem",
        &json!({
            "TableName": "Legacy",
            "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "ConditionExpression": "attribute_not_exists(pk)",
            "Expected": {"pk": {"Exists": false}},
        }),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}",
    )
    .await;
    refused(
        &h.url,
        "UpdateItem",
        &json!({
            "TableName": "Legacy",
            "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "UpdateExpression": "SET a = :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
            "AttributeUpdates": {"b": {"Value": {"N": "1"}}},
        }),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
    )
    .await;
    refused(
        &h.url,
        "GetItem",
        &json!({
            "TableName": "Legacy",
            "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "ProjectionExpression": "a",
            "AttributesToGet": ["a"],
        }),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
    )
    .await;
    refused(
        &h.url,
        "Scan",
        &json!({"TableName": "Legacy", "FilterExpression": "a = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}, "ScanFilter": {"a": {"ComparisonOperator": "NULL"}}}),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}",
    )
    .await;
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Legacy", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"x": {"Exists": true}}}),
        "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: x",
    )
    .await;
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Legacy", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"x": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}, {"N": "2"}]}}}),
        "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator",
    )
    .await;
    refused(
        &h.url,
        "PutItem",
        &json!({"TableName": "Legacy", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ExpressionAttributeValues": {":v": {"N": "1"}}}),
        "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null",
    )
    .await;
}
