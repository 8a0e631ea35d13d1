//! The Spanner REST subset (`/v1/projects/…`): request and response shapes,
//! the TTL life of a table with a row deletion policy, backups, and errors
//! in Google's shape.

#![allow(clippy::unwrap_used)]

use crate::support::{START_MILLIS, start};
use serde_json::{Value, json};

const DB: &str = "/v1/projects/p/instances/i/databases/app-db";
const DAY_MILLIS: i64 = 86_400_000;

async fn call(url: &str, method: &str, path: &str, body: Value) -> (u16, Value) {
    let client = reqwest::Client::new();
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let response = client
        .request(method, format!("{url}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn ok(url: &str, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = call(url, method, path, body).await;
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

/// `Singers` with a 30-day policy on `CreatedAt`, `Albums` interleaved in it.
async fn create_database(url: &str) {
    let op = ok(
        url,
        "POST",
        "/v1/projects/p/instances/i/databases",
        json!({
            "createStatement": "CREATE DATABASE `app-db`",
            "extraStatements": [
                "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX), CreatedAt TIMESTAMP) PRIMARY KEY (SingerId), ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 30 DAY))",
                "CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, Title STRING(MAX)) PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE",
                "CREATE INDEX SingersByName ON Singers (Name)",
            ],
        }),
    )
    .await;
    assert_eq!(op["done"], json!(true));
    assert_eq!(
        op["response"]["name"],
        json!("projects/p/instances/i/databases/app-db")
    );
    assert_eq!(
        op["response"]["databaseDialect"],
        json!("GOOGLE_STANDARD_SQL")
    );
}

async fn commit(url: &str, mutations: Value) -> (u16, Value) {
    call(
        url,
        "POST",
        &format!("{DB}/sessions/1:commit"),
        json!({"singleUseTransaction": {"readWrite": {}}, "mutations": mutations}),
    )
    .await
}

async fn read_all(url: &str, table: &str, columns: Value) -> Value {
    let v = ok(
        url,
        "POST",
        &format!("{DB}/sessions/1:read"),
        json!({"table": table, "columns": columns, "keySet": {"all": true}}),
    )
    .await;
    v["rows"].clone()
}

fn ts(ms: i64) -> String {
    ttlstream_engine::spanner::rfc3339_millis(ms)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_life_through_the_api() {
    let h = start().await;
    create_database(&h.url).await;
    let ddl = ok(&h.url, "GET", &format!("{DB}/ddl"), json!({})).await;
    let statements = ddl["statements"].as_array().unwrap();
    assert_eq!(statements.len(), 3, "{ddl}");
    assert!(
        statements[0]
            .as_str()
            .unwrap()
            .contains("ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 30 DAY))")
    );
    assert!(
        statements[2]
            .as_str()
            .unwrap()
            .contains("INTERLEAVE IN PARENT Singers ON DELETE CASCADE")
    );

    let session = ok(&h.url, "POST", &format!("{DB}/sessions"), json!({})).await;
    assert!(
        session["name"]
            .as_str()
            .unwrap()
            .starts_with("projects/p/instances/i/databases/app-db/sessions/")
    );

    // Singer 1 is already 40 days old (no insert check), 2 is new, 3 has NULL.
    let (status, v) = commit(
        &h.url,
        json!([
            {"insert": {"table": "Singers", "columns": ["SingerId", "Name", "CreatedAt"], "values": [
                ["1", "Old", ts(START_MILLIS - 40 * DAY_MILLIS)],
                ["2", "New", ts(START_MILLIS)],
                ["3", "Never", null],
            ]}},
            {"insert": {"table": "Albums", "columns": ["SingerId", "AlbumId", "Title"], "values": [["1", "10", "A"], ["2", "20", "B"]]}},
            {"update": {"table": "Singers", "columns": ["SingerId", "Name"], "values": [["2", "Newer"]]}},
        ]),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["commitTimestamp"], json!(ts(START_MILLIS)));

    // The due row is still readable before the sweeper runs.
    let rows = read_all(&h.url, "Singers", json!(["SingerId", "Name"])).await;
    assert_eq!(rows, json!([["1", "Old"], ["2", "Newer"], ["3", "Never"]]));
    let by_key = ok(
        &h.url,
        "POST",
        &format!("{DB}/sessions/1:read"),
        json!({"table": "Singers", "columns": ["Name", "CreatedAt"], "keySet": {"keys": [["2"]]}}),
    )
    .await;
    assert_eq!(
        by_key,
        json!({"metadata": {"rowType": {"fields": [
            {"name": "Name", "type": {"code": "STRING"}},
            {"name": "CreatedAt", "type": {"code": "TIMESTAMP"}},
        ]}}, "rows": [["Newer", ts(START_MILLIS)]]})
    );

    // Sweep: singer 1 and its album go in one system transaction.
    let (status, swept) = call(&h.url, "POST", "/_ttlstream/sweep", json!({})).await;
    assert_eq!(status, 200, "{swept}");
    assert_eq!(
        read_all(&h.url, "Singers", json!(["SingerId"])).await,
        json!([["2"], ["3"]])
    );
    assert_eq!(
        read_all(&h.url, "Albums", json!(["AlbumId"])).await,
        json!([["20"]])
    );

    let all = ok(
        &h.url,
        "GET",
        &format!("{DB}/dataChangeRecords?table=Singers"),
        json!({}),
    )
    .await;
    let records: Vec<&Value> = all["dataChangeRecords"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["record"])
        .collect();
    let kinds: Vec<(&str, bool, &str)> = records
        .iter()
        .map(|r| {
            (
                r["mod_type"].as_str().unwrap(),
                r["is_system_transaction"].as_bool().unwrap(),
                r["transaction_tag"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("INSERT", false, ""),
            ("UPDATE", false, ""),
            ("DELETE", true, "RowDeletionPolicy"),
        ]
    );
    assert_eq!(records[0]["table_name"], json!("Singers"));
    assert_eq!(
        records[1]["mods"][0]["new_values"],
        json!({"Name": "Newer"})
    );
    assert_eq!(records[1]["mods"][0]["old_values"], json!({"Name": "New"}));
    assert_eq!(records[2]["mods"][0]["keys"], json!({"SingerId": "1"}));
    // One system transaction: the Albums record first (the cascade is staged
    // before its parent), then the Singers record.
    assert_eq!(records[2]["record_sequence"], json!("00000001"));
    assert_eq!(records[2]["number_of_records_in_transaction"], json!(2));
    assert!(records[2]["commit_timestamp"].is_string());
    let albums = ok(
        &h.url,
        "GET",
        &format!("{DB}/dataChangeRecords?table=Albums&afterSequenceNumber=0"),
        json!({}),
    )
    .await;
    let album_deletes: Vec<&Value> = albums["dataChangeRecords"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["record"]["mod_type"] == json!("DELETE"))
        .collect();
    assert_eq!(album_deletes.len(), 1);
    assert!(
        album_deletes
            .iter()
            .all(|r| r["record"]["transaction_tag"] == json!("RowDeletionPolicy"))
    );
    // 31 days on, singer 2 (and album 20) are due; singer 3 (NULL) never.
    h.clock
        .advance(std::time::Duration::from_millis((31 * DAY_MILLIS) as u64));
    call(&h.url, "POST", "/_ttlstream/sweep", json!({})).await;
    assert_eq!(
        read_all(&h.url, "Singers", json!(["SingerId"])).await,
        json!([["3"]])
    );
    assert_eq!(
        read_all(&h.url, "Albums", json!(["AlbumId"])).await,
        json!([])
    );

    // Records older than the stream's retention (24 hours) are trimmed by
    // the sweep; the new policy deletion is there.
    let last = all["dataChangeRecords"][2]["sequenceNumber"]
        .as_str()
        .unwrap()
        .to_string();
    let later = ok(
        &h.url,
        "GET",
        &format!("{DB}/dataChangeRecords?table=Singers&afterSequenceNumber={last}"),
        json!({}),
    )
    .await;
    let later = later["dataChangeRecords"].as_array().unwrap();
    assert_eq!(later.len(), 1, "{later:?}");
    assert_eq!(
        later[0]["record"]["mods"][0]["keys"],
        json!({"SingerId": "2"})
    );
    assert!(
        later[0]["record"]["is_system_transaction"]
            .as_bool()
            .unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_ddl_and_backup_restore_without_the_policy() {
    let h = start().await;
    create_database(&h.url).await;
    let (status, _) = commit(
        &h.url,
        json!([{"insertOrUpdate": {"table": "Singers", "columns": ["SingerId", "CreatedAt"], "values": [["1", ts(START_MILLIS - 40 * DAY_MILLIS)]]}}]),
    )
    .await;
    assert_eq!(status, 200);
    let backup = ok(
        &h.url,
        "POST",
        "/v1/projects/p/instances/i/backups?backupId=b1",
        json!({"database": "projects/p/instances/i/databases/app-db"}),
    )
    .await;
    assert_eq!(backup["response"]["state"], json!("READY"));
    let restored = ok(
        &h.url,
        "POST",
        "/v1/projects/p/instances/i/databases:restore",
        json!({"databaseId": "restored", "backup": "projects/p/instances/i/backups/b1"}),
    )
    .await;
    assert_eq!(
        restored["response"]["name"],
        json!("projects/p/instances/i/databases/restored")
    );
    let ddl = ok(
        &h.url,
        "GET",
        "/v1/projects/p/instances/i/databases/restored/ddl",
        json!({}),
    )
    .await;
    assert!(!ddl.to_string().contains("ROW DELETION POLICY"), "{ddl}");
    call(&h.url, "POST", "/_ttlstream/sweep", json!({})).await;
    // The source lost its due row; the restored copy keeps it.
    assert_eq!(
        read_all(&h.url, "Singers", json!(["SingerId"])).await,
        json!([])
    );
    let restored_rows = ok(
        &h.url,
        "POST",
        "/v1/projects/p/instances/i/databases/restored/sessions/1:read",
        json!({"table": "Singers", "columns": ["SingerId"], "keySet": {"all": true}}),
    )
    .await;
    assert_eq!(restored_rows["rows"], json!([["1"]]));

    // ALTER TABLE: drop, add, replace.
    let alter = |s: &str| json!({"statements": [s]});
    ok(
        &h.url,
        "PATCH",
        &format!("{DB}/ddl"),
        alter("ALTER TABLE Singers DROP ROW DELETION POLICY"),
    )
    .await;
    ok(
        &h.url,
        "PATCH",
        &format!("{DB}/ddl"),
        alter("ALTER TABLE Singers ADD TTL INTERVAL '2 days' ON CreatedAt"),
    )
    .await;
    ok(&h.url, "PATCH", &format!("{DB}/ddl"), alter("ALTER TABLE Singers REPLACE ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 5 DAY))")).await;
    let ddl = ok(&h.url, "GET", &format!("{DB}/ddl"), json!({})).await;
    assert!(
        ddl["statements"][0]
            .as_str()
            .unwrap()
            .contains("INTERVAL 5 DAY"),
        "{ddl}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_googles_error_shape() {
    let h = start().await;
    create_database(&h.url).await;
    let commit_path = format!("{DB}/sessions/1:commit");
    let cases: Vec<(&str, String, Value, u16, &str)> = vec![
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["CREATE TABLE t (a JSON) PRIMARY KEY (a)"]}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["ALTER TABLE Nope DROP ROW DELETION POLICY"]}),
            404,
            "NOT_FOUND",
        ),
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["ALTER TABLE Singers ADD ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 1 DAY))"]}),
            400,
            "FAILED_PRECONDITION",
        ),
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["ALTER TABLE Albums DROP ROW DELETION POLICY"]}),
            400,
            "FAILED_PRECONDITION",
        ),
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["ALTER TABLE Singers REPLACE ROW DELETION POLICY (OLDER_THAN(Name, INTERVAL 1 DAY))"]}),
            400,
            "FAILED_PRECONDITION",
        ),
        (
            "PATCH",
            format!("{DB}/ddl"),
            json!({"statements": ["CREATE TABLE Singers (X INT64) PRIMARY KEY (X)"]}),
            409,
            "ALREADY_EXISTS",
        ),
        (
            "POST",
            "/v1/projects/p/instances/i/databases".into(),
            json!({"createStatement": "CREATE DATABASE `app-db`"}),
            409,
            "ALREADY_EXISTS",
        ),
        (
            "POST",
            "/v1/projects/p/instances/i/databases".into(),
            json!({"createStatement": "CREATE DATABASE `Bad`"}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"insert": {"table": "Nope", "columns": ["a"], "values": [["1"]]}}]}),
            404,
            "NOT_FOUND",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"insert": {"table": "Singers", "columns": ["SingerId", "Nope"], "values": [["1", "x"]]}}]}),
            404,
            "NOT_FOUND",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"insert": {"table": "Singers", "columns": ["SingerId"], "values": [["x"]]}}]}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"update": {"table": "Singers", "columns": ["SingerId", "Name"], "values": [["9", "x"]]}}]}),
            404,
            "NOT_FOUND",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"insert": {"table": "Albums", "columns": ["SingerId", "AlbumId"], "values": [["9", "1"]]}}]}),
            404,
            "NOT_FOUND",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [
            {"insert": {"table": "Singers", "columns": ["SingerId"], "values": [["5"]]}},
            {"insert": {"table": "Singers", "columns": ["SingerId"], "values": [["5"]]}}]}),
            409,
            "ALREADY_EXISTS",
        ),
        (
            "POST",
            commit_path.clone(),
            json!({"mutations": [{"upsert": {}}]}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            "POST",
            format!("{DB}/sessions/1:read"),
            json!({"table": "Singers", "columns": ["Nope"], "keySet": {"all": true}}),
            404,
            "NOT_FOUND",
        ),
        (
            "POST",
            format!("{DB}/sessions/1:read"),
            json!({"table": "Singers", "columns": ["SingerId"], "keySet": {"ranges": [{"startClosed": ["1"]}]}}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            "POST",
            "/v1/projects/p/instances/i/databases:restore".into(),
            json!({"databaseId": "x1", "backup": "projects/p/instances/i/backups/none"}),
            404,
            "NOT_FOUND",
        ),
        (
            "GET",
            format!("{DB}/dataChangeRecords"),
            json!({}),
            400,
            "INVALID_ARGUMENT",
        ),
        ("GET", format!("{DB}/nothing"), json!({}), 404, "NOT_FOUND"),
    ];
    for (method, path, body, code, status) in cases {
        let (got, v) = call(&h.url, method, &path, body.clone()).await;
        assert_eq!(
            (
                got,
                v["error"]["code"].as_u64(),
                v["error"]["status"].as_str()
            ),
            (code, Some(u64::from(code)), Some(status)),
            "{method} {path} {body}: {v}"
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{v}"
        );
    }
    // The failed two-insert commit left nothing behind.
    assert_eq!(
        read_all(&h.url, "Singers", json!(["SingerId"])).await,
        json!([])
    );
}
