//! Fuzz target: no expression text and no request body crashes the engine
//! or the server, or makes a request task panic.
//!
//! Input layout: a mode byte, then the rest.
//!
//! * mode % 4 == 0: the rest is expression text, tried in every
//!   expression slot through the engine's public API (FilterExpression of a
//!   Scan, KeyConditionExpression and FilterExpression of a Query,
//!   UpdateExpression and ConditionExpression of an UpdateItem,
//!   ConditionExpression of a PutItem, ProjectionExpression of a GetItem)
//!   against a table holding nested documents, sets and numbers.
//! * otherwise: the rest is the JSON body of the DynamoDB or DynamoDB
//!   Streams operation `OPERATIONS[mode % len]`, sent through the server's
//!   router (the request decoder, validation and dispatch `ttlstream serve`
//!   runs). An answer saying a task panicked is a failure.

#![no_main]

use axum::body::{Body, to_bytes};
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use std::sync::OnceLock;
use tower::ServiceExt;
use ttlstream_engine::{
    AttributeValue, DeleteItemInput, Engine, EngineOptions, GetItemInput, GlobalSecondaryIndex,
    Item, KeyAttribute, Projection, PutItemInput, QueryInput, ScalarAttributeType, ScanInput,
    StreamViewType, TableDefinition, UpdateItemInput,
};
use ttlstream_server::{ServerOptions, router};

const OPERATIONS: &[&str] = &[
    "DynamoDB_20120810.PutItem",
    "DynamoDB_20120810.GetItem",
    "DynamoDB_20120810.UpdateItem",
    "DynamoDB_20120810.DeleteItem",
    "DynamoDB_20120810.Query",
    "DynamoDB_20120810.Scan",
    "DynamoDB_20120810.BatchWriteItem",
    "DynamoDB_20120810.BatchGetItem",
    "DynamoDB_20120810.CreateTable",
    "DynamoDB_20120810.DescribeTable",
    "DynamoDB_20120810.UpdateTable",
    "DynamoDB_20120810.DeleteTable",
    "DynamoDB_20120810.ListTables",
    "DynamoDB_20120810.UpdateTimeToLive",
    "DynamoDB_20120810.DescribeTimeToLive",
    "DynamoDB_20120810.TagResource",
    "DynamoDB_20120810.UntagResource",
    "DynamoDB_20120810.ListTagsOfResource",
    "DynamoDBStreams_20120810.ListStreams",
    "DynamoDBStreams_20120810.DescribeStream",
    "DynamoDBStreams_20120810.GetShardIterator",
    "DynamoDBStreams_20120810.GetRecords",
];

struct World {
    /// The engine the expression mode reads and writes directly.
    engine: Engine,
    /// The server's router, on an engine of its own (requests may delete
    /// tables).
    router: axum::Router,
    runtime: tokio::runtime::Runtime,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// Table `Fuzz` (`pk` S, `sk` N, a stream, an index on `cat`) with items
/// holding every type.
fn populate(engine: &Engine) {
    let def = TableDefinition::new("Fuzz", "pk", ScalarAttributeType::S)
        .with_sort_key("sk", ScalarAttributeType::N)
        .with_stream(StreamViewType::NewAndOldImages)
        .with_global_secondary_index(GlobalSecondaryIndex {
            index_name: "ByCat".into(),
            partition_key: KeyAttribute::new("cat", ScalarAttributeType::S),
            sort_key: None,
            projection: Projection::All,
        });
    let _ = engine.dynamodb().create_table(def);
    for i in 0..4 {
        let mut nested = HashMap::new();
        nested.insert("b".to_string(), AttributeValue::L(vec![n("1"), s("x")]));
        let item: Item = HashMap::from([
            ("pk".to_string(), s("p")),
            ("sk".to_string(), n(&i.to_string())),
            ("cat".to_string(), s("c")),
            ("a".to_string(), n("5")),
            ("name".to_string(), s("alice")),
            ("m".to_string(), AttributeValue::M(nested)),
            (
                "ss".to_string(),
                AttributeValue::Ss(vec!["a".into(), "b".into()]),
            ),
            (
                "ns".to_string(),
                AttributeValue::Ns(vec!["1".into(), "2".into()]),
            ),
            ("l".to_string(), AttributeValue::L(vec![s("y"), n("3")])),
            ("flag".to_string(), AttributeValue::Bool(true)),
        ])
        .into();
        let _ = engine.dynamodb().put_item("Fuzz", item);
    }
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let engine = Engine::open(a.path(), EngineOptions::default()).unwrap();
        populate(&engine);
        let served = Engine::open(b.path(), EngineOptions::default()).unwrap();
        populate(&served);
        World {
            engine,
            router: router(served, &ServerOptions::default()),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            _dirs: (a, b),
        }
    })
}

fn placeholders() -> (HashMap<String, String>, HashMap<String, AttributeValue>) {
    let names = HashMap::from([
        ("#n".to_string(), "name".to_string()),
        ("#m".to_string(), "m".to_string()),
    ]);
    let values = HashMap::from([
        (":v".to_string(), n("1")),
        (":s".to_string(), s("a")),
        (":p".to_string(), s("p")),
        (":l".to_string(), AttributeValue::L(vec![n("1")])),
        (":ss".to_string(), AttributeValue::Ss(vec!["b".into()])),
    ]);
    (names, values)
}

fn key() -> Item {
    HashMap::from([("pk".to_string(), s("p")), ("sk".to_string(), n("1"))]).into()
}

/// `text` in every expression slot; errors are fine, panics are not.
fn expressions(engine: &Engine, text: &str) {
    let (names, values) = placeholders();
    let _ = engine.dynamodb().scan_with(ScanInput {
        table_name: "Fuzz".into(),
        filter_expression: Some(text.into()),
        expression_attribute_names: names.clone(),
        expression_attribute_values: values.clone(),
        ..Default::default()
    });
    let mut query = QueryInput::new("Fuzz", text);
    query.expression_attribute_names = names.clone();
    query.expression_attribute_values = values.clone();
    let _ = engine.dynamodb().query_with(query);
    let mut query = QueryInput::new("Fuzz", "pk = :p");
    query.filter_expression = Some(text.into());
    query.expression_attribute_values = values.clone();
    let _ = engine.dynamodb().query_with(query);
    let _ = engine.dynamodb().update_item_with(UpdateItemInput {
        table_name: "Fuzz".into(),
        key: key(),
        update_expression: Some(text.into()),
        expression_attribute_names: names.clone(),
        expression_attribute_values: values.clone(),
        ..Default::default()
    });
    let _ = engine.dynamodb().update_item_with(UpdateItemInput {
        table_name: "Fuzz".into(),
        key: key(),
        update_expression: Some("SET a = :v".into()),
        condition_expression: Some(text.into()),
        expression_attribute_names: names.clone(),
        expression_attribute_values: values.clone(),
        ..Default::default()
    });
    let mut item = key();
    item.insert("a".into(), n("5"));
    let _ = engine.dynamodb().put_item_with(PutItemInput {
        table_name: "Fuzz".into(),
        item,
        condition_expression: Some(text.into()),
        expression_attribute_names: names.clone(),
        expression_attribute_values: values.clone(),
        ..Default::default()
    });
    let _ = engine.dynamodb().delete_item_with(DeleteItemInput {
        table_name: "Fuzz".into(),
        key: HashMap::from([("pk".to_string(), s("q")), ("sk".to_string(), n("9"))]).into(),
        condition_expression: Some(text.into()),
        expression_attribute_names: names.clone(),
        expression_attribute_values: values,
        ..Default::default()
    });
    let _ = engine.dynamodb().get_item_with(GetItemInput {
        table_name: "Fuzz".into(),
        key: key(),
        projection_expression: Some(text.into()),
        expression_attribute_names: names,
        attributes_to_get: None,
    });
}

/// `body` as operation `target` through the router.
fn request(w: &World, target: &str, body: &[u8]) {
    let request = Request::post("/")
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", target)
        .body(Body::from(body.to_vec()))
        .unwrap();
    let router = w.router.clone();
    w.runtime.block_on(async move {
        let response = router.oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !(status == 500 && text.contains("panicked")),
            "{target}: a request task panicked: {text}"
        );
    });
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let w = world();
    if mode % 4 == 0 {
        expressions(&w.engine, &String::from_utf8_lossy(rest));
    } else {
        request(w, OPERATIONS[usize::from(mode) % OPERATIONS.len()], rest);
    }
});
