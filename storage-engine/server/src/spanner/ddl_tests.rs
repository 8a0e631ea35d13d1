//! Tests of the DDL parser and renderer (`ddl.rs`).
#![allow(clippy::unwrap_used)]

use super::*;
use ttlstream_engine::spanner::SpannerType as T;

#[test]
fn googlesql_create_table_with_policy_and_interleave() {
    let st = parse(
        0,
        "CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, \
         Title STRING(MAX), CreatedAt TIMESTAMP) PRIMARY KEY (SingerId, AlbumId), \
         INTERLEAVE IN PARENT Singers ON DELETE CASCADE, \
         ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 30 DAY))",
    )
    .unwrap();
    let want = SpannerTableDefinition::new("Albums")
        .column("SingerId", T::Int64)
        .column("AlbumId", T::Int64)
        .column("Title", T::String)
        .column("CreatedAt", T::Timestamp)
        .primary_key(["SingerId", "AlbumId"])
        .interleave_in_parent("Singers")
        .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 30));
    assert_eq!(st, Statement::CreateTable(want));
}

#[test]
fn postgresql_create_table_with_ttl() {
    let st = parse(
        0,
        "create table events (id bigint primary key, body text, created_at timestamptz) \
         TTL INTERVAL '5 days' ON created_at",
    )
    .unwrap();
    let want = SpannerTableDefinition::new("events")
        .column("id", T::Int64)
        .column("body", T::String)
        .column("created_at", T::Timestamp)
        .primary_key(["id"])
        .row_deletion_policy(RowDeletionPolicy::older_than("created_at", 5));
    assert_eq!(st, Statement::CreateTable(want));
}

#[test]
fn alter_forms() {
    let p = RowDeletionPolicy::older_than("ts", 3);
    let cases = [
        (
            "ALTER TABLE t ADD ROW DELETION POLICY (OLDER_THAN(ts, INTERVAL 3 DAY))",
            Statement::AddPolicy {
                table: "t".into(),
                policy: p.clone(),
            },
        ),
        (
            "alter table t replace row deletion policy (older_than(ts, interval 3 day));",
            Statement::ReplacePolicy {
                table: "t".into(),
                policy: p.clone(),
            },
        ),
        (
            "ALTER TABLE t DROP ROW DELETION POLICY",
            Statement::DropPolicy { table: "t".into() },
        ),
        (
            "ALTER TABLE t ADD TTL INTERVAL '3 days' ON ts",
            Statement::AddPolicy {
                table: "t".into(),
                policy: p.clone(),
            },
        ),
        (
            "ALTER TABLE t ALTER TTL INTERVAL '72 hours' ON ts",
            Statement::ReplacePolicy {
                table: "t".into(),
                policy: p,
            },
        ),
        (
            "ALTER TABLE t DROP TTL",
            Statement::DropPolicy { table: "t".into() },
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse(0, text).unwrap(), want, "{text}");
    }
}

#[test]
fn bad_statements_name_the_place() {
    for (text, needle) in [
        ("DROP TABLE t", "CREATE TABLE, CREATE INDEX or ALTER TABLE"),
        (
            "CREATE TABLE t (a JSON) PRIMARY KEY (a)",
            "supported column type",
        ),
        (
            "CREATE TABLE t (a INT64) PRIMARY KEY (a), INTERLEAVE IN PARENT p ON DELETE NO ACTION",
            "CASCADE",
        ),
        (
            "ALTER TABLE t ADD ROW DELETION POLICY (OLDER_THAN(ts, INTERVAL 1 HOUR))",
            "DAY",
        ),
        ("CREATE TABLE t (a 'x", "no closing"),
        (
            "CREATE TABLE t (a INT64) PRIMARY KEY (a) extra",
            "end of the statement",
        ),
    ] {
        let e = parse(3, text).unwrap_err();
        assert!(e.message.starts_with("statements[3]: "), "{}", e.message);
        assert!(e.message.contains(needle), "{text}: {}", e.message);
    }
}

#[test]
fn parse_never_panics_on_prefixes() {
    let text = "CREATE TABLE t (a INT64 NOT NULL, ts TIMESTAMP) PRIMARY KEY (a), ROW DELETION POLICY (OLDER_THAN(ts, INTERVAL 1 DAY))";
    for (i, _) in text.char_indices() {
        let _ = parse(0, &text[..i]);
    }
}

#[test]
fn render_reparses() {
    let def = SpannerTableDefinition::new("S")
        .column("Id", T::Int64)
        .column("Ts", T::Timestamp)
        .primary_key(["Id"])
        .row_deletion_policy(RowDeletionPolicy::older_than("Ts", 7));
    let ddl = render(&def);
    assert_eq!(parse(0, &ddl[0]).unwrap(), Statement::CreateTable(def));
}
