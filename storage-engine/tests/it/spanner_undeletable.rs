//! Spanner model: a row whose deletion exceeds Spanner's mutation limit for
//! one commit (80,000, index updates included) is undeletable by its row
//! deletion policy: left whole with its interleaved children, counted in
//! `undeletable_rows` with its timestamp, and deleted once it fits.
#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::spanner::{
    MAX_MUTATIONS_PER_COMMIT, RowDeletionPolicy, SpannerMutation, SpannerRow,
    SpannerTableDefinition, SpannerType, SpannerValue as V, UndeletableRows,
};
use ttlstream_engine::{Engine, ManualClock};

const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

/// `Parent` (1-day policy) and `Child` interleaved in it with eight
/// indexes: deleting a parent counts 1 + 8 per child.
fn open() -> (tempfile::TempDir, Arc<ManualClock>, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(NOW));
    let engine = crate::common::open(dir.path(), &clock);
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Parent")
                .column("ParentId", SpannerType::Int64)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["ParentId"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1)),
        )
        .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Child")
                .column("ParentId", SpannerType::Int64)
                .column("ChildId", SpannerType::Int64)
                .column("Label", SpannerType::String)
                .primary_key(["ParentId", "ChildId"])
                .interleave_in_parent("Parent")
                .index("ChildByLabel", ["Label"])
                .index("ChildById", ["ChildId"])
                .index("ChildByParentLabel", ["ParentId", "Label"])
                .index("ChildByLabelId", ["Label", "ChildId"])
                .index("ChildByIdLabel", ["ChildId", "Label"])
                .index("ChildByParent", ["ParentId"])
                .index("ChildByIdParent", ["ChildId", "ParentId"])
                .index("ChildByLabelParent", ["Label", "ParentId"]),
        )
        .unwrap();
    (dir, clock, engine)
}

fn parent(id: i64, created: i64) -> SpannerMutation {
    SpannerMutation::Insert {
        table: "Parent".into(),
        row: SpannerRow::from([
            ("ParentId".to_string(), V::Int64(id)),
            ("CreatedAt".to_string(), V::Timestamp(created)),
        ]),
    }
}

fn children(parent: i64, count: i64) -> Vec<SpannerMutation> {
    (0..count)
        .map(|id| SpannerMutation::Insert {
            table: "Child".into(),
            row: SpannerRow::from([
                ("ParentId".to_string(), V::Int64(parent)),
                ("ChildId".to_string(), V::Int64(id)),
                ("Label".to_string(), V::String(format!("c{id}"))),
            ]),
        })
        .collect()
}

fn child_count(engine: &Engine, parent: i64) -> usize {
    engine
        .spanner()
        .scan_table("Child")
        .unwrap()
        .iter()
        .filter(|row| row.get("ParentId") == Some(&V::Int64(parent)))
        .count()
}

#[test]
fn a_cascade_over_the_mutation_limit_is_undeletable_not_half_deleted() {
    assert_eq!(
        MAX_MUTATIONS_PER_COMMIT, 80_000,
        "Spanner's documented limit"
    );
    let (_dir, clock, engine) = open();
    // Parent 1: 1 + 8 x 10,000 = 80,001 mutations, one over the limit.
    // Parent 2: 1 + 8 x 3, well within it. Both due after a day.
    let mut mutations = vec![parent(1, NOW - 10), parent(2, NOW)];
    mutations.extend(children(1, 10_000));
    mutations.extend(children(2, 3));
    engine.spanner().commit(&mutations).unwrap();
    clock.advance(Duration::from_millis(DAY as u64 + 1));

    assert_eq!(engine.sweep_now().unwrap().deleted, 1, "parent 2 only");
    assert!(
        engine
            .spanner()
            .read_row("Parent", &[V::Int64(1)])
            .unwrap()
            .is_some()
    );
    assert_eq!(
        child_count(&engine, 1),
        10_000,
        "nothing of parent 1 deleted"
    );
    assert!(
        engine
            .spanner()
            .read_row("Parent", &[V::Int64(2)])
            .unwrap()
            .is_none()
    );
    assert_eq!(child_count(&engine, 2), 0);
    assert_eq!(
        engine.spanner().undeletable_rows("Parent").unwrap(),
        Some(expected(1, Some(NOW - 10)))
    );

    // One child fewer: 79,993 mutations fit, and the next pass deletes it.
    engine
        .spanner()
        .commit(&[SpannerMutation::Delete {
            table: "Child".into(),
            keys: vec![vec![V::Int64(1), V::Int64(0)]],
        }])
        .unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert_eq!(child_count(&engine, 1), 0);
    assert_eq!(
        engine.spanner().undeletable_rows("Parent").unwrap(),
        Some(expected(0, None))
    );
    assert_eq!(
        engine.spanner().undeletable_rows("Child").unwrap(),
        None,
        "no policy"
    );
}

fn expected(rows: u64, min_timestamp_millis: Option<i64>) -> UndeletableRows {
    let mut undeletable = UndeletableRows::default();
    undeletable.rows = rows;
    undeletable.min_timestamp_millis = min_timestamp_millis;
    undeletable
}
