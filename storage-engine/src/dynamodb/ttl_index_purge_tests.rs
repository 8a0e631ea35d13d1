//! Unit tests of `ttl_index.rs`'s purge, step by step, against TTL changes
//! and a crash between chunks (helpers in `ttl_index_tests.rs`).

use super::*;

/// An engine with `Tbl` holding `k000` to `k099`, TTL enabled on `ttl` and
/// every item indexed (by its write); each item also has `ttl2`: expired
/// for the even ones, an hour ahead for the odd ones.
fn indexed_table_of_100(dir: &std::path::Path) -> (Engine, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(NOW_SECS * 1000));
    let engine = open(dir, &clock);
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "pk", ScalarAttributeType::S)
                .with_stream(StreamViewType::KeysOnly),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    let items = (0..100)
        .map(|i| {
            let mut it = item(&format!("k{i:03}"), Some(NOW_SECS - 1));
            let ttl2 = if i % 2 == 0 {
                NOW_SECS - 1
            } else {
                NOW_SECS + 3_600
            };
            it.insert("ttl2".into(), AttributeValue::N(ttl2.to_string()));
            it
        })
        .collect();
    engine.dynamodb().put_items(TABLE, items).unwrap();
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(index(&engine).len(), 100);
    (engine, clock)
}

#[test]
fn disabling_returns_before_purging_and_the_passes_purge_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = indexed_table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert_eq!(index(&engine).len(), 100, "the call removes nothing");
    clock.advance(Duration::from_secs(1));
    assert!(build_step(&engine, 40));
    assert_eq!(index(&engine).len(), 60);
    assert!(!build_step(&engine, 1_000), "the purge is done");
    assert!(index(&engine).is_empty());
    assert_eq!(
        engine
            .dynamodb()
            .table_meta(TABLE)
            .unwrap()
            .time_to_live_index_purge,
        None
    );
    assert_eq!(engine.sweep_now().unwrap().deleted, 0, "TTL is off");
    assert_eq!(engine.dynamodb().scan(TABLE).unwrap().len(), 100);
}

#[test]
fn enabling_during_a_purge_keeps_the_new_settings_entries_and_disabling_again_starts_it_over() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = indexed_table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert!(build_step(&engine, 30)); // 30 of the `ttl` entries gone
    let on_ttl2 = TimeToLiveSpecification::enabled("ttl2");
    engine
        .dynamodb()
        .update_time_to_live(TABLE, on_ttl2.clone())
        .unwrap();
    let meta = engine.dynamodb().table_meta(TABLE).unwrap();
    assert!(meta.time_to_live_index_purge.is_some(), "the purge goes on");
    assert!(meta.time_to_live_index_build.is_some(), "beside a build");
    // Writes during both: each keeps its `ttl2` entry.
    let rescue = Update::default().set("ttl2", AttributeValue::N((NOW_SECS + 60).to_string()));
    engine
        .dynamodb()
        .update_item(TABLE, &key("k050"), rescue)
        .unwrap();
    let mut late = item("k0995", Some(NOW_SECS + 7_200));
    late.insert("ttl2".into(), AttributeValue::N((NOW_SECS - 1).to_string()));
    engine.dynamodb().put_item(TABLE, late).unwrap();
    assert!(!build_step(&engine, 1_000), "both done");
    assert_eq!(
        index(&engine),
        derived_index(&engine),
        "only `ttl2` entries left"
    );
    assert_eq!(index(&engine).len(), 101);

    // Disabling again purges from the first entry: a build may have
    // written entries below where a purge still running had come.
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert!(build_step(&engine, 30));
    engine
        .dynamodb()
        .update_time_to_live(TABLE, on_ttl2.clone())
        .unwrap();
    assert!(build_step(&engine, 10)); // the purge past k039, the build k000 to k009
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert_eq!(
        engine
            .dynamodb()
            .table_meta(TABLE)
            .unwrap()
            .time_to_live_index_purge,
        Some(TtlIndexPurge::default())
    );
    assert!(!build_step(&engine, 1_000));
    assert!(index(&engine).is_empty(), "{:?}", index(&engine));
    engine
        .dynamodb()
        .update_time_to_live(TABLE, on_ttl2)
        .unwrap();
    assert!(!build_step(&engine, 1_000));
    assert_eq!(index(&engine), derived_index(&engine));

    // The sweep deletes the items expired under `ttl2` only: the even ones
    // but k050 (rescued), and k0995.
    clock.advance(Duration::from_secs(1));
    let deleted = engine.sweep_now().unwrap().deleted;
    assert_eq!(deleted, 50);
    let (removed, _) = ttl_removed(&engine);
    let expected: BTreeSet<String> = (0..100)
        .filter(|i| i % 2 == 0 && *i != 50)
        .map(|i| format!("k{i:03}"))
        .chain(["k0995".to_string()])
        .collect();
    assert_eq!(removed.into_iter().collect::<BTreeSet<_>>(), expected);
}

#[test]
fn a_purge_cut_short_by_a_crash_resumes_when_the_engine_is_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = indexed_table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert!(build_step(&engine, 45));
    drop(engine);
    let engine = open(dir.path(), &clock);
    let purge = engine
        .dynamodb()
        .table_meta(TABLE)
        .unwrap()
        .time_to_live_index_purge
        .clone();
    assert!(purge.is_some_and(|p| p.purged_through_key.is_some()));
    assert_eq!(index(&engine).len(), 55);
    assert!(!build_step(&engine, 1_000));
    assert!(index(&engine).is_empty());
}
