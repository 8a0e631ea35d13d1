//! The engine handle: opening a data directory (recovering every model's
//! tables and the change stream), a handle per model, and durability. The
//! crate root assembles the shared state (`state/`) and each model's, so it
//! is the one place that names them all (with `models.rs`).

use crate::dynamodb::{DynamoDb, DynamoDbCache};
use crate::error::{OpenError, StorageError, WriteError};
use crate::spanner::Spanner;
use crate::state::Inner;
use crate::state::clock::{Clock, SystemClock};
use crate::storage::{FORMAT_KEY, FORMAT_VERSION, Store};
use crate::stream::keys::last_sequence_number;
use crate::stream::shards::StreamOptions;
use crate::stream::shards::Streams;
use crate::stream::shards::alloc::WriteState;
use crate::stream::shards::lifecycle::{StreamedTable, recover};
use crate::tablestore::Tablestore;
use fjall::PersistMode;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

/// Options for [`Engine::open`](crate::Engine::open). Build with `..Default::default()` so that
/// later options do not break your code.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// The time source for TTL expiry, record timestamps, the sweeper and
    /// stream retention. Default: [`SystemClock`].
    pub clock: Arc<dyn Clock>,
    /// Shard rotation and retention of every model's streams. Default:
    /// [`StreamOptions::default`] (24 hours, 100,000 records or 4 hours per shard).
    pub stream: StreamOptions,
    /// Bytes of fjall's block cache: recently read blocks of items and
    /// stream records, kept decoded in memory. Default:
    /// [`DEFAULT_CACHE_SIZE_BYTES`] (256 MiB). fjall's own default is
    /// 32 MiB and its docs recommend 20 to 25 % of the memory available; a
    /// stream reader catching up on a backlog larger than the cache reads
    /// every block from disk again (the pipeline benchmark's file sink
    /// archives about 7 % more per second with 256 MiB than with 32 MiB).
    pub cache_size_bytes: u64,
}

/// [`EngineOptions::cache_size_bytes`]'s default: 256 MiB.
pub const DEFAULT_CACHE_SIZE_BYTES: u64 = 256 * 1024 * 1024;

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            stream: StreamOptions::default(),
            cache_size_bytes: DEFAULT_CACHE_SIZE_BYTES,
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
    /// What every model shares.
    pub(crate) inner: Arc<Inner>,
    /// The DynamoDB model's in-memory caches.
    pub(crate) dynamodb: Arc<DynamoDbCache>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("clock", &self.inner.clock)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Opens (or creates) the engine in directory `path`, recovering tables,
    /// TTL settings, items and the change stream. The next sequence number is
    /// one past the highest stored in the stream keyspace.
    ///
    /// # Errors
    ///
    /// [`OpenError::InUse`] when another process or engine has the
    /// directory open; [`OpenError::Storage`] if fjall cannot open or
    /// recover it;
    /// [`OpenError::UnsupportedFormat`] for a directory of another format
    /// version.
    pub fn open(path: impl AsRef<Path>, options: EngineOptions) -> Result<Engine, OpenError> {
        let path = path.as_ref();
        let storage_err = |source: StorageError| OpenError::Storage {
            path: path.display().to_string(),
            source,
        };
        let store = Store::open(path, options.cache_size_bytes).map_err(|e| match e {
            fjall::Error::Locked => OpenError::InUse {
                path: path.display().to_string(),
            },
            e => storage_err(e.into()),
        })?;
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
        // Every model's tables with a stream: each has an open shard.
        let mut streamed = Vec::new();
        for meta in metas {
            if let Some(seq) = last_sequence_number(&store, meta.id).map_err(storage_err)? {
                max_seq = max_seq.max(seq.0);
            }
            max_id = max_id.max(meta.id);
            if meta.definition.stream_view_type.is_some() {
                streamed.push(StreamedTable {
                    id: meta.id,
                    name: meta.definition.table_name.clone(),
                });
            }
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
        streamed.extend(crate::models::streamed_tables(&store).map_err(storage_err)?);
        let recovered = recover(&store, &streamed, max_seq).map_err(storage_err)?;
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
                write: Mutex::new(WriteState {
                    next_sequence_number: recovered.next_sequence_number,
                    next_table_id: max_id.max(recovered.max_table_id).saturating_add(1),
                    open_shards: recovered.open_shards,
                }),
                sweep_resume: crate::sweeper::resume::SweepResume::default(),
                processed_watermarks: Default::default(),
            }),
            dynamodb: Arc::new(DynamoDbCache {
                tables: RwLock::new(tables),
                swept_floors: crate::dynamodb::swept_floor::SweptFloors::default(),
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

    /// Persists (like [`Engine::persist`](crate::Engine::persist)) and drops this handle. The data
    /// directory is closed once every clone (and any running sweeper pass)
    /// has let go of it.
    ///
    /// # Errors
    ///
    /// [`WriteError::Storage`] on I/O failure.
    pub fn close(self) -> Result<(), WriteError> {
        self.persist()
    }

    /// The DynamoDB model: tables, items, expressions, secondary indexes,
    /// item TTL and each table's stream settings.
    pub fn dynamodb(&self) -> DynamoDb<'_> {
        DynamoDb {
            inner: &self.inner,
            cache: &self.dynamodb,
        }
    }

    /// The DynamoDB Streams API over the DynamoDB model's change streams:
    /// ListStreams, DescribeStream, GetShardIterator, GetRecords.
    pub fn streams(&self) -> Streams<'_> {
        Streams {
            store: &self.inner.store,
        }
    }

    /// The Tablestore model: tables with TTL and max versions over versioned
    /// cells, rows and their change records.
    pub fn tablestore(&self) -> Tablestore<'_> {
        Tablestore { inner: &self.inner }
    }

    /// The Spanner model: tables with a row deletion policy, rows, indexes,
    /// change streams, backup and restore.
    pub fn spanner(&self) -> Spanner<'_> {
        Spanner { inner: &self.inner }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::META;
    use fjall::KeyspaceCreateOptions;

    #[test]
    fn the_block_cache_has_the_configured_size() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        assert_eq!(engine.inner.store.db.cache_capacity(), 256 * 1024 * 1024);
        drop(engine);
        let options = EngineOptions {
            cache_size_bytes: 8 * 1024 * 1024,
            ..EngineOptions::default()
        };
        let engine = Engine::open(dir.path(), options).unwrap();
        assert_eq!(engine.inner.store.db.cache_capacity(), 8 * 1024 * 1024);
    }

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
        engine.dynamodb().create_table(def).unwrap();
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
