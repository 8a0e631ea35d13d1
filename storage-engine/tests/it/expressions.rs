//! Public-API tests of the expression-aware operations: conditions,
//! update expressions, Query/Scan with key conditions, filters, projections
//! and pagination ("Condition expressions", "Update expressions", "Key
//! condition expressions for query", "Paginating table query results").
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::collections::HashMap;
use std::sync::Arc;
use ttlstream_engine::{
    AttributeValue, DeleteItemInput, ExpressionError, ManualClock, PutItemInput, QueryInput,
    ReadError, ReturnValue, ScalarAttributeType, ScanInput, StreamViewType, TableDefinition,
    UpdateItemInput, WriteError,
};

fn values(pairs: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect()
}

#[test]
fn revival_prevention_update_refuses_expired_items() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    session_table(&engine, StreamViewType::NewAndOldImages);
    engine
        .dynamodb()
        .put_item(TABLE, session("alive", START_SECS + 100))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("expired", START_SECS - 100))
        .unwrap();
    let revive = |user: &str| UpdateItemInput {
        table_name: TABLE.into(),
        key: key(user),
        update_expression: Some("SET #d = :d".into()),
        condition_expression: Some(
            "attribute_not_exists(ExpirationTime) OR ExpirationTime > :now".into(),
        ),
        expression_attribute_names: HashMap::from([("#d".into(), "Data".into())]),
        expression_attribute_values: values(&[(":d", s("new")), (":now", n(START_SECS))]),
        return_values: ReturnValue::AllNew,
        ..Default::default()
    };
    let out = engine.dynamodb().update_item_with(revive("alive")).unwrap();
    assert_eq!(out.attributes.unwrap().get("Data"), Some(&s("new")));
    let err = engine
        .dynamodb()
        .update_item_with(revive("expired"))
        .unwrap_err();
    assert!(matches!(err, WriteError::ConditionalCheckFailed { .. }));
    assert_eq!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("expired"))
            .unwrap()
            .unwrap()
            .get("Data"),
        Some(&s("x"))
    );
    // A missing item has no expiresAt: the update creates it.
    assert!(
        engine
            .dynamodb()
            .update_item_with(revive("new-user"))
            .is_ok()
    );
}

#[test]
fn put_and_delete_conditions() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    session_table(&engine, StreamViewType::NewAndOldImages);
    let put = |cond: &str| PutItemInput {
        table_name: TABLE.into(),
        item: session("a", START_SECS + 10),
        condition_expression: Some(cond.into()),
        return_values: ReturnValue::AllOld,
        ..Default::default()
    };
    let first = engine
        .dynamodb()
        .put_item_with(put("attribute_not_exists(UserName)"))
        .unwrap();
    assert_eq!(first.attributes, None);
    let again = engine
        .dynamodb()
        .put_item_with(put("attribute_not_exists(UserName)"));
    assert!(matches!(
        again,
        Err(WriteError::ConditionalCheckFailed { .. })
    ));
    let del = |cond: &str, v: AttributeValue| DeleteItemInput {
        table_name: TABLE.into(),
        key: key("a"),
        condition_expression: Some(cond.into()),
        expression_attribute_values: values(&[(":v", v)]),
        return_values: ReturnValue::AllOld,
        ..Default::default()
    };
    assert!(matches!(
        engine
            .dynamodb()
            .delete_item_with(del("#missing = :v", s("y"))),
        Err(WriteError::Expression {
            source: ExpressionError::UndefinedName { .. },
            ..
        })
    ));
    assert!(matches!(
        engine.dynamodb().delete_item_with(del("Data = :v", s("y"))),
        Err(WriteError::ConditionalCheckFailed { .. })
    ));
    let out = engine
        .dynamodb()
        .delete_item_with(del("Data = :v", s("x")))
        .unwrap();
    assert_eq!(out.attributes.unwrap().get("Data"), Some(&s("x")));
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("a"))
            .unwrap()
            .is_none()
    );
    // Nothing was written by the failed operations: INSERT and REMOVE only.
    let records = engine
        .dynamodb()
        .read_stream(TABLE, ttlstream_engine::StreamPosition::TrimHorizon, 10)
        .unwrap();
    assert_eq!(records.len(), 2);
}

#[test]
fn update_expressions_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    session_table(&engine, StreamViewType::NewAndOldImages);
    let update = |expr: &str, vals: &[(&str, AttributeValue)], rv| {
        engine.dynamodb().update_item_with(UpdateItemInput {
            table_name: TABLE.into(),
            key: key("u"),
            update_expression: Some(expr.into()),
            expression_attribute_values: values(vals),
            return_values: rv,
            ..Default::default()
        })
    };
    let out = update(
        "SET n = if_not_exists(n, :z) + :d",
        &[(":z", n(0)), (":d", n("1.5"))],
        ReturnValue::UpdatedNew,
    )
    .unwrap();
    assert_eq!(out.attributes.unwrap().get("n"), Some(&n("1.5")));
    let out = update(
        "ADD n :d, s :s",
        &[
            (":d", n("0.25")),
            (":s", AttributeValue::Ss(vec!["x".into()])),
        ],
        ReturnValue::UpdatedOld,
    )
    .unwrap();
    assert_eq!(out.attributes.unwrap().get("n"), Some(&n("1.5")));
    let out = update(
        "DELETE s :s REMOVE n",
        &[(":s", AttributeValue::Ss(vec!["x".into()]))],
        ReturnValue::AllNew,
    )
    .unwrap();
    assert_eq!(out.attributes.unwrap(), key("u"));
    let err = update("SET UserName = :v", &[(":v", s("x"))], ReturnValue::None).unwrap_err();
    assert!(
        matches!(err, WriteError::Validation { ref message, .. } if message.contains("part of the key"))
    );
    let err = update("SET a = = :v", &[(":v", s("x"))], ReturnValue::None).unwrap_err();
    assert!(
        err.to_string()
            .contains("Invalid UpdateExpression: Syntax error; token: \"=\""),
        "{err}"
    );
    let err = update(
        "SET a = :v",
        &[(":v", s("x")), (":unused", s("y"))],
        ReturnValue::None,
    )
    .unwrap_err();
    assert!(matches!(
        err,
        WriteError::Expression {
            source: ExpressionError::Unused { .. },
            ..
        }
    ));
}

fn orders_table(engine: &ttlstream_engine::Engine) {
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Orders", "customer", ScalarAttributeType::S)
                .with_sort_key("order", ScalarAttributeType::N),
        )
        .unwrap();
    for i in 1..=10 {
        engine
            .dynamodb()
            .put_item(
                "Orders",
                item(&[("customer", s("c1")), ("order", n(i)), ("total", n(i * 10))]),
            )
            .unwrap();
    }
    engine
        .dynamodb()
        .put_item("Orders", item(&[("customer", s("c2")), ("order", n(1))]))
        .unwrap();
}

#[test]
fn query_key_conditions_filter_projection_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    orders_table(&engine);
    let q = |kc: &str, vals: &[(&str, AttributeValue)]| {
        let mut input = QueryInput::new("Orders", kc);
        input.expression_attribute_values = values(vals);
        input
    };
    let orders = |out: ttlstream_engine::ReadOutput| -> Vec<String> {
        out.items
            .iter()
            .map(|i| match i.get("order") {
                Some(AttributeValue::N(x)) => x.clone(),
                _ => "-".into(),
            })
            .collect()
    };
    let all = engine
        .dynamodb()
        .query_with(q("customer = :c", &[(":c", s("c1"))]))
        .unwrap();
    assert_eq!(all.items.len(), 10);
    assert_eq!(
        orders(
            engine
                .dynamodb()
                .query_with(
                    q(
                        "customer = :c AND #o > :x",
                        &[(":c", s("c1")), (":x", n(8))]
                    )
                    .tap_names()
                )
                .unwrap()
        ),
        ["9", "10"]
    );
    assert_eq!(
        orders(
            engine
                .dynamodb()
                .query_with(q(
                    "customer = :c AND order BETWEEN :a AND :b",
                    &[(":c", s("c1")), (":a", n(2)), (":b", n(4))]
                ))
                .unwrap()
        ),
        ["2", "3", "4"]
    );
    assert_eq!(
        orders(
            engine
                .dynamodb()
                .query_with(q(
                    "customer = :c AND order <= :a",
                    &[(":c", s("c1")), (":a", n(2))]
                ))
                .unwrap()
        ),
        ["1", "2"]
    );
    let mut desc = q("customer = :c", &[(":c", s("c1")), (":t", n(50))]);
    desc.scan_index_forward = false;
    desc.filter_expression = Some("total >= :t".into());
    desc.projection_expression = Some("order".into());
    let out = engine.dynamodb().query_with(desc).unwrap();
    assert_eq!(orders(out.clone()), ["10", "9", "8", "7", "6", "5"]);
    assert_eq!(out.items[0].len(), 1);
    let bad = engine
        .dynamodb()
        .query_with(q("order = :a", &[(":a", n(1))]));
    assert!(matches!(bad, Err(ReadError::Expression { .. })));
}

trait TapNames {
    fn tap_names(self) -> Self;
}
impl TapNames for QueryInput {
    fn tap_names(mut self) -> Self {
        self.expression_attribute_names = HashMap::from([("#o".into(), "order".into())]);
        self
    }
}

#[test]
fn pagination_counts_items_read_before_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    orders_table(&engine);
    let mut seen = Vec::new();
    let mut start = None;
    let mut pages = 0;
    loop {
        let mut input = QueryInput::new("Orders", "customer = :c");
        input.expression_attribute_values = values(&[(":c", s("c1")), (":t", n(30))]);
        input.filter_expression = Some("total > :t".into());
        input.limit = Some(3);
        input.exclusive_start_key = start.take();
        let out = engine.dynamodb().query_with(input).unwrap();
        assert!(out.scanned_count <= 3);
        pages += 1;
        seen.extend(out.items);
        match out.last_evaluated_key {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    assert_eq!(seen.len(), 7); // orders 4..=10
    assert_eq!(pages, 4); // 3 + 3 + 3 + 1 read
    let scan = engine
        .dynamodb()
        .scan_with(ScanInput {
            table_name: "Orders".into(),
            filter_expression: Some("attribute_not_exists(total)".into()),
            limit: Some(100),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(scan.items.len(), 1);
    assert_eq!(scan.scanned_count, 11);
    assert!(scan.last_evaluated_key.is_none());
}
