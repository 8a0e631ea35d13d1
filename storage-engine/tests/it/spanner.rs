//! Spanner model: policy DDL, expiry, cascade batches, records, restore.
#![allow(clippy::unwrap_used, missing_docs)]

use proptest::prelude::*;
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::spanner::{
    DdlError, ModType, RowDeletionPolicy, SpannerRow, SpannerTableDefinition, SpannerType,
    SpannerValue as V, ValueCaptureType,
};
use ttlstream_engine::{Engine, EngineOptions, ManualClock};

const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

#[test]
fn ddl_accepted_forms() {
    let p = RowDeletionPolicy::parse("ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 3 DAY))")
        .unwrap();
    assert_eq!(p, RowDeletionPolicy::older_than("CreatedAt", 3));
    let p = RowDeletionPolicy::parse("row deletion policy (older_than(`ts`, interval 0 day));")
        .unwrap();
    assert_eq!(p, RowDeletionPolicy::older_than("ts", 0));
    assert_eq!(
        RowDeletionPolicy::parse("TTL INTERVAL '3 DAYS' ON ts")
            .unwrap()
            .older_than_days,
        3
    );
    assert_eq!(
        RowDeletionPolicy::parse("TTL INTERVAL '4 DAYS 2 MINUTES - 2 MINUTES' ON ts")
            .unwrap()
            .older_than_days,
        4
    );
    assert_eq!(
        RowDeletionPolicy::parse("ttl interval '1 week' on \"ts\"")
            .unwrap()
            .older_than_days,
        7
    );
}

#[test]
fn ddl_rejected_forms() {
    assert!(matches!(
        RowDeletionPolicy::parse("TTL INTERVAL '4 DAYS 3 MINUTES' ON ts"),
        Err(DdlError::NotWholeDays {
            seconds: 345_780,
            ..
        })
    ));
    assert!(matches!(
        RowDeletionPolicy::parse("TTL INTERVAL '-3 DAYS' ON ts"),
        Err(DdlError::Negative { .. })
    ));
    assert!(matches!(
        RowDeletionPolicy::parse("ROW DELETION POLICY (OLDER_THAN(ts, INTERVAL -3 DAY))"),
        Err(DdlError::Syntax { .. })
    ));
    assert!(matches!(
        RowDeletionPolicy::parse("TTL INTERVAL '3 MONTHS' ON ts"),
        Err(DdlError::Interval { .. })
    ));
    let err = RowDeletionPolicy::parse("ROW DELETION POLICY (OLDER_THAN(ts, INTERVAL 3 HOUR))")
        .unwrap_err();
    assert!(err.to_string().contains("`DAY`"), "{err}");
}

proptest! {
    #[test]
    fn ddl_parser_never_panics(s in ".{0,80}") {
        let _ = RowDeletionPolicy::parse(&s);
    }

    #[test]
    fn ddl_parser_never_panics_on_near_misses(
        n in "-?[0-9]{0,25}", unit in "(DAYS?|MINUTES?|HOURS?|x|)", tail in "[ '();,]{0,3}"
    ) {
        let _ = RowDeletionPolicy::parse(&format!("TTL INTERVAL '{n} {unit}' ON c{tail}"));
        let _ = RowDeletionPolicy::parse(&format!("ROW DELETION POLICY (OLDER_THAN(c, INTERVAL {n} DAY)){tail}"));
    }
}

fn open() -> (tempfile::TempDir, Arc<ManualClock>, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(NOW));
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Singers")
                .column("SingerId", SpannerType::Int64)
                .column("Name", SpannerType::String)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["SingerId"])
                .index("SingersByName", ["Name"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1))
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Albums")
                .column("SingerId", SpannerType::Int64)
                .column("AlbumId", SpannerType::Int64)
                .column("Title", SpannerType::String)
                .primary_key(["SingerId", "AlbumId"])
                .interleave_in_parent("Singers")
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .unwrap();
    (dir, clock, engine)
}

fn singer(id: i64, name: &str, created: Option<i64>) -> SpannerRow {
    SpannerRow::from([
        ("SingerId".to_string(), V::Int64(id)),
        ("Name".to_string(), V::String(name.into())),
        (
            "CreatedAt".to_string(),
            created.map_or(V::Null, V::Timestamp),
        ),
    ])
}

fn album(singer: i64, id: i64) -> SpannerRow {
    SpannerRow::from([
        ("SingerId".to_string(), V::Int64(singer)),
        ("AlbumId".to_string(), V::Int64(id)),
        ("Title".to_string(), V::String(format!("t{id}"))),
    ])
}

#[test]
fn null_never_expires_and_expired_rows_can_be_inserted() {
    let (_d, clock, engine) = open();
    engine
        .spanner()
        .insert_row("Singers", singer(1, "null", None))
        .unwrap();
    engine
        .spanner()
        .insert_row("Singers", singer(2, "old", Some(NOW - 10 * DAY)))
        .unwrap();
    assert!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(2)])
            .unwrap()
            .is_some()
    );
    clock.advance(Duration::from_millis(1000 * DAY as u64));
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(1)])
            .unwrap()
            .is_some()
    );
    assert!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(2)])
            .unwrap()
            .is_none()
    );
}

#[test]
fn policy_batch_deletes_children_and_index_entries_with_one_system_transaction() {
    let (_d, clock, engine) = open();
    engine
        .spanner()
        .insert_row("Singers", singer(1, "Ann", Some(NOW)))
        .unwrap();
    engine.spanner().insert_row("Albums", album(1, 10)).unwrap();
    engine.spanner().insert_row("Albums", album(1, 11)).unwrap();
    engine
        .spanner()
        .insert_row("Singers", singer(2, "Bob", Some(NOW + 5 * DAY)))
        .unwrap();
    assert_eq!(
        engine
            .spanner()
            .read_index("Singers", "SingersByName", &[V::String("Ann".into())])
            .unwrap()
            .len(),
        1
    );
    clock.advance(Duration::from_millis(DAY as u64 + 1));
    assert!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(1)])
            .unwrap()
            .is_some(),
        "visible until swept"
    );
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(engine.spanner().scan_table("Albums").unwrap().is_empty());
    assert!(
        engine
            .spanner()
            .read_index("Singers", "SingersByName", &[V::String("Ann".into())])
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        engine
            .spanner()
            .read_index("Singers", "SingersByName", &[V::String("Bob".into())])
            .unwrap()
            .len(),
        1
    );

    let singers = engine
        .spanner()
        .read_change_stream("Singers", None, 100)
        .unwrap();
    let albums = engine
        .spanner()
        .read_change_stream("Albums", None, 100)
        .unwrap();
    let s_del = singers.last().unwrap();
    let a_del = albums.last().unwrap();
    assert!(s_del.record.is_row_deletion_policy_delete());
    assert!(a_del.record.is_row_deletion_policy_delete());
    assert_eq!(a_del.record.mods.len(), 2);
    assert_eq!(
        s_del.record.server_transaction_id,
        a_del.record.server_transaction_id
    );
    assert_eq!(s_del.record.number_of_records_in_transaction, 2);
}

#[test]
fn data_change_record_shape() {
    let (_d, clock, engine) = open();
    engine
        .spanner()
        .insert_row("Singers", singer(7, "Cy", Some(NOW)))
        .unwrap();
    clock.advance(Duration::from_millis(2 * DAY as u64));
    engine.sweep_now().unwrap();
    let entries = engine
        .spanner()
        .read_change_stream("Singers", None, 10)
        .unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].record.mod_type, ModType::Insert);
    assert!(!entries[0].record.is_system_transaction);
    let json = serde_json::to_value(&entries[1].record).unwrap();
    assert_eq!(json["mod_type"], "DELETE");
    assert_eq!(json["is_system_transaction"], true);
    assert_eq!(json["transaction_tag"], "RowDeletionPolicy");
    assert_eq!(json["table_name"], "Singers");
    assert_eq!(json["value_capture_type"], "OLD_AND_NEW_VALUES");
    assert_eq!(json["record_sequence"], "00000000");
    assert_eq!(json["commit_timestamp"], "2023-11-16T22:13:20.000Z");
    assert_eq!(json["mods"][0]["keys"]["SingerId"], "7");
    assert_eq!(json["mods"][0]["old_values"]["Name"], "Cy");
    assert_eq!(json["mods"][0]["new_values"], serde_json::json!({}));
    assert_eq!(json["column_types"][0]["type"]["code"], "INT64");
    assert_eq!(json["column_types"][0]["is_primary_key"], true);
    assert!(json["server_transaction_id"].is_string());
}

#[test]
fn user_delete_is_not_a_system_transaction() {
    let (_d, _c, engine) = open();
    engine
        .spanner()
        .insert_row("Singers", singer(1, "A", None))
        .unwrap();
    engine.spanner().insert_row("Albums", album(1, 1)).unwrap();
    assert!(
        engine
            .spanner()
            .delete_row("Singers", &[V::Int64(1)])
            .unwrap()
    );
    assert!(engine.spanner().scan_table("Albums").unwrap().is_empty());
    let last = engine
        .spanner()
        .read_change_stream("Singers", None, 10)
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(last.record.mod_type, ModType::Delete);
    assert!(!last.record.is_system_transaction);
    assert_eq!(last.record.transaction_tag, "");
}

#[test]
fn one_policy_at_most_and_ddl_errors_are_reported() {
    let (_d, _c, engine) = open();
    let err = engine
        .spanner()
        .add_row_deletion_policy("Singers", "TTL INTERVAL '2 DAYS' ON CreatedAt")
        .unwrap_err();
    assert!(err.to_string().contains("one at most"), "{err}");
    engine
        .spanner()
        .set_row_deletion_policy("Singers", None)
        .unwrap();
    let err = engine
        .spanner()
        .add_row_deletion_policy("Singers", "TTL INTERVAL '4 DAYS 3 MINUTES' ON CreatedAt")
        .unwrap_err();
    assert!(err.to_string().contains("whole number of days"), "{err}");
    let err = engine
        .spanner()
        .add_row_deletion_policy("Singers", "TTL INTERVAL '2 DAYS' ON Name")
        .unwrap_err();
    assert!(err.to_string().contains("not TIMESTAMP"), "{err}");
    engine
        .spanner()
        .add_row_deletion_policy("Singers", "TTL INTERVAL '2 DAYS' ON CreatedAt")
        .unwrap();
}

#[test]
fn restored_table_has_no_policy() {
    let (_d, clock, engine) = open();
    engine
        .spanner()
        .insert_row("Singers", singer(1, "A", Some(NOW)))
        .unwrap();
    engine
        .spanner()
        .restore_table_from_backup("Singers", "SingersRestored")
        .unwrap();
    let def = engine.spanner().describe_table("SingersRestored").unwrap();
    assert!(def.row_deletion_policy.is_none());
    clock.advance(Duration::from_millis(10 * DAY as u64));
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert_eq!(
        engine
            .spanner()
            .scan_table("SingersRestored")
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        engine
            .spanner()
            .read_index("SingersRestored", "SingersByName", &[V::String("A".into())])
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn tables_and_sequence_numbers_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(NOW));
    let last = {
        let engine = Engine::open(
            dir.path(),
            EngineOptions {
                clock: clock.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        engine
            .spanner()
            .create_table(
                SpannerTableDefinition::new("T")
                    .column("k", SpannerType::Int64)
                    .primary_key(["k"])
                    .change_stream(ValueCaptureType::NewValues),
            )
            .unwrap();
        engine
            .spanner()
            .insert_row("T", SpannerRow::from([("k".to_string(), V::Int64(1))]))
            .unwrap();
        engine.spanner().read_change_stream("T", None, 10).unwrap()[0].sequence_number
    };
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock,
            ..Default::default()
        },
    )
    .unwrap();
    engine
        .spanner()
        .insert_row("T", SpannerRow::from([("k".to_string(), V::Int64(2))]))
        .unwrap();
    let entries = engine
        .spanner()
        .read_change_stream("T", Some(last), 10)
        .unwrap();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].sequence_number > last);
}

/// The processed watermark ("Spanner: TTL metrics and monitoring",
/// `PROCESSED_WATERMARK`): the read time of the last pass that went through
/// every due row; none before such a pass, none without a policy.
#[test]
fn processed_watermark_is_the_last_complete_pass() {
    let (_d, clock, engine) = open();
    assert_eq!(
        engine
            .spanner()
            .processed_watermark_millis("Singers")
            .unwrap(),
        None
    );
    engine
        .spanner()
        .insert_row("Singers", singer(1, "Ann", Some(NOW)))
        .unwrap();
    clock.advance(Duration::from_millis(2 * DAY as u64));
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert_eq!(
        engine
            .spanner()
            .processed_watermark_millis("Singers")
            .unwrap(),
        Some(NOW + 2 * DAY)
    );
    clock.advance(Duration::from_millis(1000));
    engine.sweep_now().unwrap();
    assert_eq!(
        engine
            .spanner()
            .processed_watermark_millis("Singers")
            .unwrap(),
        Some(NOW + 2 * DAY + 1000),
        "a pass with nothing due still processes the table"
    );
    assert_eq!(
        engine
            .spanner()
            .processed_watermark_millis("Albums")
            .unwrap(),
        None
    );
    assert!(matches!(
        engine.spanner().processed_watermark_millis("Nope"),
        Err(ttlstream_engine::ReadError::TableNotFound { .. })
    ));
}
