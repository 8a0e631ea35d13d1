//! `Spanner::commit`: one atomic transaction per commit.
#![allow(clippy::unwrap_used, missing_docs)]

use crate::spanner::{album, open, singer};
use ttlstream_engine::WriteError;
use ttlstream_engine::spanner::{ModType, MutationError, SpannerMutation as M, SpannerValue as V};

fn insert(row: ttlstream_engine::spanner::SpannerRow) -> M {
    M::Insert {
        table: "Singers".into(),
        row,
    }
}

#[test]
fn a_failing_mutation_leaves_nothing_written() {
    let (_d, _c, engine) = open();
    let err = engine
        .spanner()
        .commit(&[insert(singer(1, "a", None)), insert(singer(1, "b", None))])
        .unwrap_err();
    assert!(
        matches!(err, MutationError::AlreadyExists { index: 1, .. }),
        "{err}"
    );
    assert!(engine.spanner().scan_table("Singers").unwrap().is_empty());
    assert!(
        engine
            .spanner()
            .read_change_stream("Singers", None, 10)
            .unwrap()
            .is_empty()
    );
    let err = engine
        .spanner()
        .commit(&[M::Update {
            table: "Singers".into(),
            row: singer(7, "x", None),
        }])
        .unwrap_err();
    assert!(
        matches!(err, MutationError::RowNotFound { index: 0, .. }),
        "{err}"
    );
    let err = engine
        .spanner()
        .commit(&[M::Insert {
            table: "Albums".into(),
            row: album(7, 1),
        }])
        .unwrap_err();
    assert!(matches!(err, MutationError::RowNotFound { .. }), "{err}");
}

#[test]
fn update_keeps_other_columns_and_replace_cascades() {
    let (_d, _c, engine) = open();
    engine
        .spanner()
        .commit(&[
            insert(singer(1, "a", Some(5))),
            // A child row may follow its parent in the same commit.
            M::Insert {
                table: "Albums".into(),
                row: album(1, 10),
            },
        ])
        .unwrap();
    let name_only = ttlstream_engine::spanner::SpannerRow::from([
        ("SingerId".to_string(), V::Int64(1)),
        ("Name".to_string(), V::String("b".into())),
    ]);
    engine
        .spanner()
        .commit(&[M::InsertOrUpdate {
            table: "Singers".into(),
            row: name_only.clone(),
        }])
        .unwrap();
    assert_eq!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(1)])
            .unwrap(),
        Some(singer(1, "b", Some(5)))
    );
    let records = engine
        .spanner()
        .read_change_stream("Singers", None, 10)
        .unwrap();
    let update = &records.last().unwrap().record;
    assert_eq!(update.mod_type, ModType::Update);
    assert_eq!(
        update.mods[0].new_values,
        serde_json::json!({"Name": "b"})
            .as_object()
            .unwrap()
            .clone()
    );
    assert_eq!(
        update.mods[0].old_values,
        serde_json::json!({"Name": "a"})
            .as_object()
            .unwrap()
            .clone()
    );
    // replace: the columns not given become NULL, the children go.
    engine
        .spanner()
        .commit(&[M::Replace {
            table: "Singers".into(),
            row: name_only,
        }])
        .unwrap();
    let mut expected = singer(1, "b", None);
    expected.remove("CreatedAt");
    assert_eq!(
        engine
            .spanner()
            .read_row("Singers", &[V::Int64(1)])
            .unwrap(),
        Some(expected)
    );
    assert!(engine.spanner().scan_table("Albums").unwrap().is_empty());
    engine
        .spanner()
        .commit(&[M::Delete {
            table: "Singers".into(),
            keys: vec![vec![V::Int64(1)], vec![V::Int64(2)]],
        }])
        .unwrap();
    assert!(engine.spanner().scan_table("Singers").unwrap().is_empty());
}

/// `insert_row` and `delete_row` are commits of one mutation: the commit's
/// refusals come back as `WriteError`s naming the table, and `delete_row`
/// says whether the row existed.
#[test]
fn one_row_writes_are_one_mutation_commits() {
    let (_d, _c, engine) = open();
    let spanner = engine.spanner();
    spanner.insert_row("Singers", singer(1, "a", None)).unwrap();
    let err = spanner
        .insert_row("Singers", singer(1, "b", None))
        .unwrap_err();
    assert!(
        matches!(&err, WriteError::Validation { table, message }
            if table == "Singers" && message == "row [\"1\"] already exists"),
        "{err}"
    );
    let err = spanner.insert_row("Albums", album(9, 1)).unwrap_err();
    assert!(
        matches!(&err, WriteError::Validation { message, .. }
            if message == "parent row in `Singers` does not exist"),
        "{err}"
    );
    assert!(matches!(
        spanner.insert_row("Nope", singer(2, "c", None)),
        Err(WriteError::TableNotFound { .. })
    ));
    assert!(!spanner.delete_row("Singers", &[V::Int64(7)]).unwrap());
    assert!(spanner.delete_row("Singers", &[V::Int64(1)]).unwrap());
    assert!(spanner.scan_table("Singers").unwrap().is_empty());
}
