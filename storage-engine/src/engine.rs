//! The engine handle: opening a data directory (recovering every model's
//! tables and the change stream), the state all models share, and
//! durability. The crate root: it owns every model's state, so it is the one
//! place that names them all (with `models.rs`).

use crate::clock::{Clock, SystemClock};
use crate::dynamodb::meta::TableMeta;
use crate::error::{OpenError, StorageError, WriteError};
use crate::storage::{FORMAT_KEY, FORMAT_VERSION, Store};
use crate::stream::keys::last_sequence_number;
use crate::stream::shards::StreamOptions;
use crate::stream::shards::alloc::OpenShard;
use fjall::PersistMode;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

/// Options for [`Engine::open`]. Build with `..Default::default()` so that
/// later options do not break your code.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// The time source for TTL expiry, record timestamps, the sweeper and
    /// stream retention. Default: [`SystemClock`].
    pub clock: Arc<dyn Clock>,
    /// Shard rotation and retention of DynamoDB-model streams. Default:
    /// [`StreamOptions::default`] (24 hours, 100,000 records or 4 hours per shard).
    pub stream: StreamOptions,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            stream: StreamOptions::default(),
        }
    }
}

/// An open storage engine. Cheap to clone (an `Arc` inside); `Send + Sync`.
///
/// Writes are serialised by one mutex (item, expiry-index entry and change
/// record are read-modified-written together); reads take no lock. The data
/// directory is persisted (fsync) when the last clone is dropped.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("clock", &self.inner.clock)
            .finish_non_exhaustive()
    }
}

/// State shared by all clones of an [`Engine`] and its sweeper.
pub(crate) struct Inner {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Shard rotation and retention.
    pub stream_options: StreamOptions,
    /// Table metadata cache; changed only under `write`, after the commit.
    pub tables: RwLock<BTreeMap<String, Arc<TableMeta>>>,
    /// The write lock and the counters it protects.
    pub write: Mutex<WriteState>,
    /// Where each table's expiry index is known empty below (see `dynamodb/swept_floor.rs`).
    pub swept_floors: crate::dynamodb::swept_floor::SweptFloors,
    /// Where the last budget-limited pass stopped in each Tablestore and
    /// Spanner table (see `sweeper/resume.rs`).
    pub sweep_resume: crate::sweeper::resume::SweepResume,
    /// Each Spanner table's processed watermark (see `spanner/watermark.rs`).
    pub spanner_watermarks: crate::spanner::watermark::ProcessedWatermarks,
}

/// Counters allocated under the write lock.
pub(crate) struct WriteState {
    /// Next change-record sequence number (engine-wide).
    pub next_sequence_number: u64,
    /// Next table id.
    pub next_table_id: u32,
    /// The open shard of each DynamoDB-model table whose stream is enabled.
    pub open_shards: HashMap<u32, OpenShard>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Err(e) = self.store.db.persist(PersistMode::SyncAll) {
            tracing::error!(error = %e, "persisting the engine on close failed");
        }
    }
}

impl Engine {
    /// Opens (or creates) the engine in directory `path`, recovering tables,
    /// TTL settings, items and the change stream. The next sequence number is
    /// one past the highest stored in the stream keyspace.
    ///
    /// # Errors
    ///
    /// [`OpenError::Storage`] if fjall cannot open or recover the directory
    /// (including when another process or engine has it open);
    /// [`OpenError::UnsupportedFormat`] for a directory of another format
    /// version.
    pub fn open(path: impl AsRef<Path>, options: EngineOptions) -> Result<Engine, OpenError> {
        let path = path.as_ref();
        let storage_err = |source: StorageError| OpenError::Storage {
            path: path.display().to_string(),
            source,
        };
        let store = Store::open(path).map_err(|e| storage_err(e.into()))?;
        let version = store
            .meta
            .get(FORMAT_KEY)
            .map_err(|e| storage_err(e.into()))?;
        match version.as_deref() {
            Some(v) if v == FORMAT_VERSION.as_bytes() => {}
            Some(v) => {
                return Err(OpenError::UnsupportedFormat {
                    path: path.display().to_string(),
                    found: String::from_utf8_lossy(v).into_owned(),
                    expected: FORMAT_VERSION.to_string(),
                });
            }
            None => {
                let mut batch = store.db.batch();
                batch.insert(&store.meta, FORMAT_KEY, FORMAT_VERSION.as_bytes());
                batch.commit().map_err(|e| storage_err(e.into()))?;
            }
        }
        let metas = crate::dynamodb::meta::load_tables(&store).map_err(storage_err)?;
        let mut max_seq = 0u64;
        let mut max_id = 0u32;
        let mut tables = BTreeMap::new();
        for meta in metas {
            if let Some(seq) = last_sequence_number(&store, meta.id).map_err(storage_err)? {
                max_seq = max_seq.max(seq.0);
            }
            max_id = max_id.max(meta.id);
            tables.insert(meta.definition.table_name.clone(), Arc::new(meta));
        }
        // Tablestore and Spanner tables share the id space and the stream.
        let mut other_ids = crate::tablestore::table_ids(&store).map_err(storage_err)?;
        other_ids.extend(crate::spanner::table_ids(&store).map_err(storage_err)?);
        for id in other_ids {
            max_id = max_id.max(id);
            if let Some(seq) = last_sequence_number(&store, id).map_err(storage_err)? {
                max_seq = max_seq.max(seq.0);
            }
        }
        let recovered = crate::dynamodb::stream_admin::recover(&store, &tables, max_seq)
            .map_err(storage_err)?;
        tracing::debug!(
            tables = tables.len(),
            next_sequence_number = recovered.next_sequence_number,
            "engine opened"
        );
        Ok(Engine {
            inner: Arc::new(Inner {
                store,
                clock: options.clock,
                stream_options: options.stream,
                tables: RwLock::new(tables),
                write: Mutex::new(WriteState {
                    next_sequence_number: recovered.next_sequence_number,
                    next_table_id: max_id.max(recovered.max_table_id).saturating_add(1),
                    open_shards: recovered.open_shards,
                }),
                swept_floors: crate::dynamodb::swept_floor::SweptFloors::default(),
                sweep_resume: crate::sweeper::resume::SweepResume::default(),
                spanner_watermarks: Default::default(),
            }),
        })
    }

    /// The engine's clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        Arc::clone(&self.inner.clock)
    }

    /// Flushes and fsyncs everything written so far (fjall `PersistMode::SyncAll`),
    /// so it survives power loss, not only a process kill.
    ///
    /// # Errors
    ///
    /// [`WriteError::Storage`] on I/O failure.
    pub fn persist(&self) -> Result<(), WriteError> {
        self.inner.store.db.persist(PersistMode::SyncAll)?;
        Ok(())
    }

    /// Persists (like [`Engine::persist`]) and drops this handle. The data
    /// directory is closed once every clone (and any running sweeper pass)
    /// has let go of it.
    ///
    /// # Errors
    ///
    /// [`WriteError::Storage`] on I/O failure.
    pub fn close(self) -> Result<(), WriteError> {
        self.persist()
    }

    pub(crate) fn lock_writes(&self) -> MutexGuard<'_, WriteState> {
        // The state is two counters that are only advanced after a successful
        // commit, so it is consistent even if a holder panicked.
        self.inner
            .write
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::META;
    use fjall::KeyspaceCreateOptions;

    #[test]
    fn a_directory_of_another_format_version_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        drop(Engine::open(dir.path(), EngineOptions::default()).unwrap());
        {
            let db = fjall::Database::builder(dir.path()).open().unwrap();
            let meta = db.keyspace(META, KeyspaceCreateOptions::default).unwrap();
            meta.insert(FORMAT_KEY, b"1").unwrap();
            db.persist(PersistMode::SyncAll).unwrap();
        }
        let err = Engine::open(dir.path(), EngineOptions::default()).unwrap_err();
        assert!(matches!(
            &err,
            OpenError::UnsupportedFormat { found, expected, .. }
                if found == "1" && expected == FORMAT_VERSION
        ));
        assert!(err.to_string().contains("format version 1"), "{err}");
    }

    #[test]
    fn a_table_with_a_stream_setting_and_no_open_shard_is_corrupt() {
        use crate::{ScalarAttributeType, StreamViewType, TableDefinition};
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let def = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S)
            .with_stream(StreamViewType::KeysOnly);
        engine.create_table(def).unwrap();
        drop(engine);
        {
            let db = fjall::Database::builder(dir.path()).open().unwrap();
            let shards = db
                .keyspace(crate::storage::SHARDS, KeyspaceCreateOptions::default)
                .unwrap();
            let keys: Vec<fjall::Slice> = shards.iter().map(|g| g.key().unwrap()).collect();
            assert!(!keys.is_empty());
            for key in keys {
                shards.remove(key).unwrap();
            }
            db.persist(PersistMode::SyncAll).unwrap();
        }
        let err = Engine::open(dir.path(), EngineOptions::default()).unwrap_err();
        assert!(
            matches!(
                &err,
                OpenError::Storage {
                    source: StorageError::Corrupt {
                        keyspace: "shards",
                        ..
                    },
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("Tbl"), "{err}");
    }
}
