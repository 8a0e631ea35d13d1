//! The expiry index of a table whose TTL was just enabled, built in the
//! background: [`Engine::update_time_to_live`] returns at once, as
//! DynamoDB's does ("UpdateTimeToLive", DynamoDB API Reference: "It can take
//! up to one hour for the change to fully process"), however many items the
//! table holds.
//!
//! Enabling TTL commits the setting together with a build marker
//! ([`TtlIndexBuild`], in the table's metadata) and nothing else. From then
//! on every write keeps the expiry entry of the item it writes, as on any
//! table with TTL enabled; the items already there get theirs from the
//! build, which each sweep pass advances before it deletes
//! ([`Engine::build_ttl_indexes`]), in primary-key order, a chunk of items
//! per atomic batch. Why that is enough:
//!
//! * A chunk runs under the write lock: it reads the next items after the
//!   marker, writes the entry of each one whose TTL value is eligible, and
//!   moves the marker to the last, in one batch. A write comes before or
//!   after a whole chunk, so the entry a chunk writes is that of the item as
//!   it is; a writer waits for at most one chunk.
//! * An item written during the build has its entry from its own write,
//!   whichever side of the marker it lies; if the build reaches it later, it
//!   writes the same key again. The build only adds entries, so it never
//!   undoes a write's removal of an old one.
//! * A crash loses nothing: the marker moves in the batch that writes the
//!   entries it covers, and the first pass after the engine is opened
//!   resumes after it.
//! * Disabling TTL drops the marker with the setting (the next chunk, which
//!   reads the metadata under the lock, finds none and stops) and clears the
//!   index; enabling again starts a new build at the first item.
//! * The sweeper deletes only indexed items, each after re-reading its
//!   current TTL value, as for every entry: an item the build indexed and a
//!   user then changed, or whose TTL was removed, is not deleted.
//!
//! The expired items a build finds are deleted by the same passes, within
//! their budget, like any others. While a build runs,
//! [`Engine::expired_backlog`] and [`Engine::sweeper_lag_millis`] see only
//! the items indexed so far.

use crate::engine::Engine;
use crate::error::{StorageError, SweepError, TableError};
use crate::storage::{TtlIndexBuild, expiry_key, item_key};
use crate::ttl::item_expiry_epoch_secs;
use crate::write::decode_stored_item;
use std::ops::Bound;

impl Engine {
    /// Whether the expiry index of `table` is still being built after TTL
    /// was enabled: its items written before are not all indexed yet, so
    /// some of them cannot expire yet. `false` once the build is done, and
    /// while TTL is disabled.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn time_to_live_index_building(&self, table: &str) -> Result<bool, TableError> {
        self.table_meta(table)
            .map(|m| m.time_to_live_index_build.is_some())
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Advances the expiry-index build of every table that has one: at most
    /// `limit` items per table (`None`: to its end), `chunk` (at least 1)
    /// items per atomic batch. Returns whether a build is left unfinished.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table; chunks committed before the
    /// failure stay committed, and the next call resumes after them.
    pub(crate) fn build_ttl_indexes(
        &self,
        limit: Option<usize>,
        chunk: usize,
    ) -> Result<bool, SweepError> {
        let mut unfinished = false;
        for meta in self.all_table_metas() {
            if meta.time_to_live_index_build.is_none() {
                continue;
            }
            let table = &meta.definition.table_name;
            let mut indexed = 0usize;
            loop {
                let max = limit.map_or(chunk, |l| chunk.min(l.saturating_sub(indexed)));
                if max == 0 {
                    unfinished = true;
                    break;
                }
                let more =
                    self.index_chunk(table, max.max(1))
                        .map_err(|source| SweepError::Storage {
                            table: table.clone(),
                            source,
                        })?;
                if !more {
                    break;
                }
                indexed += max;
            }
        }
        Ok(unfinished)
    }

    /// One chunk of `table`'s build, under the write lock: the entries of up
    /// to `max` items after the marker, and the marker moved past them (or
    /// removed, when fewer than `max` were left), in one batch. Returns
    /// whether the build goes on (`false`: done, TTL disabled, or the table
    /// deleted).
    fn index_chunk(&self, table: &str, max: usize) -> Result<bool, StorageError> {
        let _state = self.lock_writes();
        let Some(meta) = self.table_meta(table) else {
            return Ok(false);
        };
        let (Some(build), Some(spec)) = (&meta.time_to_live_index_build, meta.ttl_enabled()) else {
            return Ok(false);
        };
        let store = &self.inner.store;
        let prefix = meta.id.to_be_bytes();
        let from = match &build.indexed_through_key {
            Some(pk) => Bound::Excluded(item_key(meta.id, pk)),
            None => Bound::Included(prefix.to_vec()),
        };
        let attribute = [spec.attribute_name.as_str()];
        let mut batch = store.db.batch();
        let mut read = 0usize;
        let mut last: Option<Vec<u8>> = None;
        for guard in store
            .items
            .range::<Vec<u8>, _>((from, Bound::Unbounded))
            .take(max)
        {
            let (key, value) = guard.into_inner()?;
            let Some(pk) = key.strip_prefix(&prefix[..]) else {
                break;
            };
            let item = decode_stored_item(&value, Some(&attribute))?;
            if let Some(secs) = item_expiry_epoch_secs(&item, Some(spec)) {
                let entry = expiry_key(meta.id, secs, pk);
                self.inner.swept_floors.lower(meta.id, &entry);
                batch.insert(&store.expiry, entry, Vec::<u8>::new());
            }
            read += 1;
            last = Some(pk.to_vec());
        }
        let done = read < max;
        let mut new_meta = (*meta).clone();
        new_meta.time_to_live_index_build = (!done).then(|| TtlIndexBuild {
            indexed_through_key: last.or_else(|| build.indexed_through_key.clone()),
        });
        batch.insert(
            &store.meta,
            crate::storage::table_meta_key(table),
            crate::storage::encode_json("table metadata", &new_meta)?,
        );
        batch.commit()?;
        self.cache_meta(new_meta);
        if done {
            tracing::debug!(table, "TTL expiry index built");
        }
        Ok(!done)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::sweeper::PassLimits;
    use crate::{
        AttributeValue, EngineOptions, Item, ManualClock, ScalarAttributeType, StreamPosition,
        StreamViewType, TableDefinition, TimeToLiveSpecification, Update, UserIdentity,
    };
    use std::collections::{BTreeSet, HashMap};
    use std::sync::Arc;
    use std::time::Duration;

    const TABLE: &str = "Tbl";
    /// The clock's start, epoch seconds; the items expire a second before.
    const NOW_SECS: i64 = 1_000_000;

    fn item(pk: &str, ttl: Option<i64>) -> Item {
        let mut item = HashMap::from([("pk".to_string(), AttributeValue::S(pk.into()))]);
        if let Some(ttl) = ttl {
            item.insert("ttl".to_string(), AttributeValue::N(ttl.to_string()));
        }
        item.into()
    }

    fn key(pk: &str) -> Item {
        item(pk, None)
    }

    fn enabled() -> TimeToLiveSpecification {
        TimeToLiveSpecification::enabled("ttl")
    }

    fn disabled() -> TimeToLiveSpecification {
        TimeToLiveSpecification {
            attribute_name: "ttl".into(),
            enabled: false,
        }
    }

    /// An engine with `Tbl` (key `pk`, a KEYS_ONLY stream, TTL off) holding
    /// `k000` to `k099`, all expired at the clock's time.
    fn table_of_100(dir: &std::path::Path) -> (Engine, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(NOW_SECS * 1000));
        let engine = open(dir, &clock);
        engine
            .create_table(
                TableDefinition::new(TABLE, "pk", ScalarAttributeType::S)
                    .with_stream(StreamViewType::KeysOnly),
            )
            .unwrap();
        let items = (0..100)
            .map(|i| item(&format!("k{i:03}"), Some(NOW_SECS - 1)))
            .collect();
        engine.put_items(TABLE, items).unwrap();
        (engine, clock)
    }

    fn open(dir: &std::path::Path, clock: &Arc<ManualClock>) -> Engine {
        let options = EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        };
        Engine::open(dir, options).unwrap()
    }

    /// One explicit step: a pass that may delete nothing and index at most
    /// `items` items. Returns whether the build is left unfinished.
    fn build_step(engine: &Engine, items: usize) -> bool {
        let limits = PassLimits {
            max_deletes: Some(0),
            max_indexed: Some(items),
            batch: 7,
            first: 0,
        };
        let pass = engine.sweep(limits).unwrap();
        assert_eq!(pass.report.deleted, 0);
        pass.more
    }

    /// The table's expiry entries, as (expiry second, encoded key).
    fn index(engine: &Engine) -> BTreeSet<(i64, Vec<u8>)> {
        let id = engine.table_meta(TABLE).unwrap().id;
        let prefix = crate::storage::expiry_table_prefix(id);
        engine
            .inner
            .store
            .expiry
            .prefix(prefix)
            .map(|g| {
                let key = g.key().unwrap();
                let (secs, pk) = crate::storage::decode_expiry_key(&key).unwrap();
                (secs, pk.to_vec())
            })
            .collect()
    }

    /// The entries the index must hold: one per item with an eligible TTL,
    /// derived from the items themselves.
    fn derived_index(engine: &Engine) -> BTreeSet<(i64, Vec<u8>)> {
        let meta = engine.table_meta(TABLE).unwrap();
        engine
            .scan(TABLE)
            .unwrap()
            .iter()
            .filter_map(|i| {
                let secs = crate::ttl::item_expiry_epoch_secs(i, meta.ttl_enabled())?;
                Some((
                    secs,
                    crate::item::primary_key_bytes(&meta.definition, i).unwrap(),
                ))
            })
            .collect()
    }

    /// Keys of the table's TTL REMOVE records, and how many records it has.
    fn ttl_removed(engine: &Engine) -> (Vec<String>, usize) {
        let records = engine
            .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
            .unwrap();
        let removed = records
            .iter()
            .filter(|r| r.user_identity == Some(UserIdentity::dynamodb_ttl()))
            .map(|r| match &r.keys["pk"] {
                AttributeValue::S(k) => k.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        (removed, records.len())
    }

    #[test]
    fn enabling_returns_before_indexing_and_a_pass_builds_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, _clock) = table_of_100(dir.path());
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(engine.time_to_live_index_building(TABLE).unwrap());
        assert!(index(&engine).is_empty(), "nothing indexed by the call");
        assert!(build_step(&engine, 40));
        assert_eq!(index(&engine).len(), 40);
        assert!(!build_step(&engine, 1_000), "the build is done");
        assert!(!engine.time_to_live_index_building(TABLE).unwrap());
        assert_eq!(index(&engine), derived_index(&engine));
    }

    #[test]
    fn enabling_on_an_empty_table_starts_no_build() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(NOW_SECS * 1000));
        let engine = open(dir.path(), &clock);
        let table = TableDefinition::new(TABLE, "pk", ScalarAttributeType::S);
        engine.create_table(table).unwrap();
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(!engine.time_to_live_index_building(TABLE).unwrap());
        engine
            .put_item(TABLE, item("k", Some(NOW_SECS - 1)))
            .unwrap();
        assert_eq!(index(&engine), derived_index(&engine));
        assert_eq!(index(&engine).len(), 1);
    }

    #[test]
    fn writes_during_a_build_leave_the_index_the_items_derive() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, clock) = table_of_100(dir.path());
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(build_step(&engine, 40)); // k000 to k039 indexed
        let (_, records_before) = ttl_removed(&engine);
        // On each side of the build's marker: an expiry moved to the future,
        // a TTL removed, an item deleted by the user, a new expired item.
        let later = Update::default().set("ttl", AttributeValue::N((NOW_SECS + 3_600).to_string()));
        for k in ["k010", "k060"] {
            engine.update_item(TABLE, &key(k), later.clone()).unwrap();
        }
        for k in ["k020", "k070"] {
            engine
                .update_item(TABLE, &key(k), Update::default().remove("ttl"))
                .unwrap();
        }
        for k in ["k030", "k080"] {
            engine.delete_item(TABLE, &key(k)).unwrap();
        }
        for k in ["k0005", "k0995"] {
            engine.put_item(TABLE, item(k, Some(NOW_SECS - 1))).unwrap();
        }
        let (_, records) = ttl_removed(&engine);
        assert_eq!(
            records,
            records_before + 8,
            "one record per write, none from the build"
        );
        assert!(!build_step(&engine, 1_000), "the build is done");
        assert!(!engine.time_to_live_index_building(TABLE).unwrap());
        assert_eq!(index(&engine), derived_index(&engine));

        // The sweep deletes every expired item once, and none whose TTL
        // moved or went.
        clock.advance(Duration::from_secs(1));
        let deleted = engine.sweep_now().unwrap().deleted;
        let (removed, _) = ttl_removed(&engine);
        let expected: BTreeSet<String> = (0..100)
            .map(|i| format!("k{i:03}"))
            .filter(|k| !["k010", "k060", "k020", "k070", "k030", "k080"].contains(&k.as_str()))
            .chain(["k0005".into(), "k0995".into()])
            .collect();
        assert_eq!(deleted as usize, expected.len());
        assert_eq!(removed.len(), expected.len(), "one REMOVE per deletion");
        assert_eq!(removed.into_iter().collect::<BTreeSet<_>>(), expected);
        let left: BTreeSet<String> = engine
            .scan(TABLE)
            .unwrap()
            .iter()
            .map(|i| match &i["pk"] {
                AttributeValue::S(k) => k.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            left,
            ["k010", "k020", "k060", "k070"].map(String::from).into()
        );
    }

    #[test]
    fn disabling_during_a_build_stops_it_and_enabling_again_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, clock) = table_of_100(dir.path());
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(build_step(&engine, 30));
        engine.update_time_to_live(TABLE, disabled()).unwrap();
        assert!(!engine.time_to_live_index_building(TABLE).unwrap());
        assert!(index(&engine).is_empty(), "disabling clears what was built");
        assert!(!build_step(&engine, 1_000), "no build while TTL is off");
        assert!(index(&engine).is_empty());
        // Written while TTL is off: no entry, until a build indexes it.
        engine
            .put_item(TABLE, item("k0005", Some(NOW_SECS - 1)))
            .unwrap();
        clock.advance(Duration::from_secs(1));
        assert_eq!(engine.sweep_now().unwrap().deleted, 0);

        engine.update_time_to_live(TABLE, enabled()).unwrap();
        let meta = engine.table_meta(TABLE).unwrap();
        assert_eq!(
            meta.time_to_live_index_build,
            Some(TtlIndexBuild::default()),
            "from the first item again"
        );
        assert!(!build_step(&engine, 1_000), "the build is done");
        assert_eq!(index(&engine).len(), 101);
        assert_eq!(index(&engine), derived_index(&engine));
        assert_eq!(engine.sweep_now().unwrap().deleted, 101);
    }

    #[test]
    fn a_build_cut_short_by_a_crash_resumes_when_the_engine_is_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, clock) = table_of_100(dir.path());
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(build_step(&engine, 35));
        engine
            .put_item(TABLE, item("k0995", Some(NOW_SECS - 1)))
            .unwrap();
        // Each chunk is one atomic batch, so a crash leaves the engine as it
        // is between two chunks: as here, closed after the 35th item.
        drop(engine);
        let engine = open(dir.path(), &clock);
        let meta = engine.table_meta(TABLE).unwrap();
        let build = meta.time_to_live_index_build.clone().unwrap();
        let mut k034 = Vec::new();
        crate::key::encode_key_value(
            ScalarAttributeType::S,
            &AttributeValue::S("k034".into()),
            &mut k034,
        )
        .unwrap();
        assert_eq!(build.indexed_through_key, Some(k034));
        assert_eq!(index(&engine).len(), 36, "35 built, 1 written");
        clock.advance(Duration::from_secs(1));
        assert_eq!(engine.sweep_now().unwrap().deleted, 101);
        let (removed, _) = ttl_removed(&engine);
        assert_eq!(removed.len(), 101, "each item deleted once");
        assert!(index(&engine).is_empty());
    }

    #[test]
    fn items_in_other_tables_are_not_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, _clock) = table_of_100(dir.path());
        // A table created after `Tbl`: its items follow `Tbl`'s in key order.
        engine
            .create_table(TableDefinition::new("Next", "pk", ScalarAttributeType::S))
            .unwrap();
        engine
            .put_item("Next", item("n", Some(NOW_SECS - 1)))
            .unwrap();
        engine.update_time_to_live(TABLE, enabled()).unwrap();
        assert!(!build_step(&engine, 1_000), "the build is done");
        assert_eq!(index(&engine), derived_index(&engine));
        assert_eq!(index(&engine).len(), 100);
        assert_eq!(engine.expired_backlog("Next").unwrap(), 0);
    }
}
