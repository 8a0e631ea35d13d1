//! DynamoDB table administration: CreateTable, DescribeTable, ListTables,
//! DeleteTable, UpdateTimeToLive / DescribeTimeToLive, the properties kept
//! for DescribeTable and tagging (DynamoDB API Reference), and the
//! in-memory cache of table metadata.

use super::DynamoDb;
use crate::dynamodb::item::decode_item;
use crate::dynamodb::meta::{TableMeta, TtlIndexBuild, TtlIndexPurge, table_meta_key};
use crate::dynamodb::table::{
    TableDefinition, TableProperties, TableSize, TimeToLiveSpecification,
};
use crate::error::{ReadError, StorageError, TableError};
use crate::storage::expiry_table_prefix;
use fjall::Keyspace;
use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError};

/// Keys removed per batch when a table's entries are deleted.
const DELETE_CHUNK: usize = 10_000;

impl DynamoDb<'_> {
    /// Creates a table (DynamoDB `CreateTable`; the table is usable at once).
    ///
    /// # Errors
    ///
    /// [`TableError::AlreadyExists`]; [`TableError::Invalid`] for a bad name or
    /// key schema; [`TableError::Storage`].
    pub fn create_table(&self, definition: TableDefinition) -> Result<(), TableError> {
        self.create_table_with_properties(definition, TableProperties::default())
    }

    /// The definition of `table` (DynamoDB `DescribeTable`).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn describe_table(&self, table: &str) -> Result<TableDefinition, TableError> {
        self.table_meta(table)
            .map(|m| m.definition.clone())
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// All table names, sorted (DynamoDB `ListTables`).
    ///
    /// # Errors
    ///
    /// None at present; the `Result` leaves room for storage-backed listing.
    pub fn list_tables(&self) -> Result<Vec<String>, TableError> {
        Ok(self.read_tables().keys().cloned().collect())
    }

    /// Enables or disables TTL on `table` (DynamoDB `UpdateTimeToLive`,
    /// "Using time to live (TTL) in DynamoDB").
    ///
    /// Commits the setting and returns at once, whatever the size of the
    /// table; the expiry index follows in the background, advanced by the
    /// sweeper's passes ([`Sweeper`](crate::Sweeper), or
    /// [`Engine::sweep_now`](crate::Engine::sweep_now), which finishes it before deleting; see
    /// `ttl_index.rs`), as DynamoDB takes "up to one hour for the change to
    /// fully process" ("UpdateTimeToLive", DynamoDB API Reference).
    /// Enabling: from then on every write keeps its item's expiry entry, and
    /// the items already there are indexed ([`DynamoDb::time_to_live_index_building`](crate::DynamoDb::time_to_live_index_building)
    /// until they all are), so that they expire too. Disabling: nothing
    /// expires from then on, and the table's entries are removed. Unlike
    /// DynamoDB, the change may be repeated at once; enabling again with the
    /// same attribute is a no-op.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] for an empty attribute
    /// name or enabling while TTL is enabled on another attribute (disable
    /// first, as DynamoDB requires); [`TableError::Storage`].
    pub fn update_time_to_live(
        &self,
        table: &str,
        spec: TimeToLiveSpecification,
    ) -> Result<(), TableError> {
        let invalid = |message: String| TableError::Invalid {
            table: table.to_string(),
            message,
        };
        if spec.attribute_name.is_empty() || spec.attribute_name.len() > 255 {
            return Err(invalid(
                "TTL attribute name must be 1 to 255 bytes long".into(),
            ));
        }
        let _state = self.inner.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        if let Some(current) = meta.ttl_enabled() {
            if spec.enabled && current.attribute_name != spec.attribute_name {
                return Err(invalid(format!(
                    "TimeToLive is already enabled on attribute `{}`; disable it before enabling it on `{}`",
                    current.attribute_name, spec.attribute_name
                )));
            }
            if spec.enabled {
                return Ok(());
            }
        }
        self.cache.swept_floors.forget(meta.id);
        let store = &self.inner.store;
        // An empty table has nothing to index (its writes index themselves),
        // a table without entries nothing to purge. A purge restarts from
        // the first entry: a build may have written entries below its cursor.
        let (build, purge) = if spec.enabled {
            let has_items = has_key_with_prefix(&store.items, &meta.id.to_be_bytes())?;
            let build = has_items.then(TtlIndexBuild::default);
            (build, meta.time_to_live_index_purge.clone())
        } else {
            let has_entries = has_key_with_prefix(&store.expiry, &expiry_table_prefix(meta.id))?;
            (None, has_entries.then(TtlIndexPurge::default))
        };
        let new_meta = TableMeta {
            time_to_live: Some(spec),
            time_to_live_updated_at_millis: Some(self.inner.clock.now_millis()),
            time_to_live_index_build: build,
            time_to_live_index_purge: purge,
            ..(*meta).clone()
        };
        self.commit_meta(&new_meta)?;
        self.cache_meta(new_meta);
        Ok(())
    }

    /// The TTL setting of `table` (DynamoDB `DescribeTimeToLive`); `None` if
    /// TTL was never configured.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn describe_time_to_live(
        &self,
        table: &str,
    ) -> Result<Option<TimeToLiveSpecification>, TableError> {
        self.table_meta(table)
            .map(|m| m.time_to_live.clone())
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Creates a table (DynamoDB `CreateTable`; usable at once) with the
    /// properties DynamoDB reports about it (billing mode, throughput,
    /// tags), recording its creation time on the engine clock.
    ///
    /// # Errors
    ///
    /// [`TableError::AlreadyExists`]; [`TableError::Invalid`] for a bad name or
    /// key schema; [`TableError::Storage`].
    pub fn create_table_with_properties(
        &self,
        definition: TableDefinition,
        properties: TableProperties,
    ) -> Result<(), TableError> {
        let table = definition.table_name.clone();
        definition
            .validate()
            .map_err(|message| TableError::Invalid {
                table: table.clone(),
                message,
            })?;
        let mut state = self.inner.lock_writes();
        if self.table_meta(&table).is_some() {
            return Err(TableError::AlreadyExists { table });
        }
        let store = &self.inner.store;
        let now = self.inner.clock.now_millis();
        let meta = TableMeta {
            id: state.next_table_id,
            definition,
            time_to_live: None,
            time_to_live_updated_at_millis: None,
            created_millis: now,
            properties,
            time_to_live_index_build: None,
            time_to_live_index_purge: None,
        };
        // The table and, if it has a stream, its stream and first shard: one batch.
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.insert(
            &store.meta,
            table_meta_key(&table),
            crate::storage::encode_json("table metadata", &meta)?,
        );
        self.stage_stream_enable(&mut batch, &mut alloc, meta.id, &meta.definition, now)?;
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        state.next_table_id = state.next_table_id.saturating_add(1);
        self.cache_meta(meta);
        Ok(())
    }

    /// The properties of `table` (billing mode, throughput, tags).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn table_properties(&self, table: &str) -> Result<TableProperties, TableError> {
        self.table_meta(table)
            .map(|m| m.properties.clone())
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Changes the properties of `table` with `change`, under the write
    /// lock (so two changes never lose one another), and stores them.
    /// Returns the new properties.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] with the message
    /// `change` returned (nothing stored); [`TableError::Storage`].
    pub fn update_table_properties(
        &self,
        table: &str,
        change: impl FnOnce(&mut TableProperties) -> Result<(), String>,
    ) -> Result<TableProperties, TableError> {
        let _state = self.inner.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let mut properties = meta.properties.clone();
        change(&mut properties).map_err(|message| TableError::Invalid {
            table: table.to_string(),
            message,
        })?;
        let new_meta = TableMeta {
            properties: properties.clone(),
            ..(*meta).clone()
        };
        self.commit_meta(&new_meta)?;
        self.cache_meta(new_meta);
        Ok(properties)
    }

    /// When `table` was created (engine clock, epoch milliseconds).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn table_created_at_millis(&self, table: &str) -> Result<i64, TableError> {
        self.table_meta(table)
            .map(|m| m.created_millis)
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// How many items `table` holds and their total size, counted now by
    /// reading every item (DynamoDB refreshes its `ItemCount` and
    /// `TableSizeBytes` about every six hours; this is exact, and costs a
    /// read of the table).
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn table_size(&self, table: &str) -> Result<TableSize, ReadError> {
        let meta = self.read_meta(table)?;
        let mut size = TableSize::default();
        for guard in self.inner.store.items.prefix(meta.id.to_be_bytes()) {
            let value = guard.value()?;
            size.item_count += 1;
            size.table_size_bytes += crate::item_size_bytes(&decode_item(&value)?);
        }
        Ok(size)
    }

    /// Deletes `table` (DynamoDB `DeleteTable`): its metadata, items,
    /// expiry-index entries, secondary-index entries and change records,
    /// under the write lock, and returns the definition it had. The table
    /// is gone for every later call at once (DynamoDB reports `DELETING` for
    /// a while; the server reports that status in the answer).
    ///
    /// The table's stream is not deleted: as in DynamoDB, it becomes
    /// DISABLED (its open shard closed, in the batch that removes the
    /// metadata) and stays readable until retention removes it ("DeleteTable":
    /// the stream is deleted 24 hours after). Entries are removed first and
    /// the metadata last, so a crash part-way leaves the table listed with
    /// part of its items; deleting it again finishes the job.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn delete_table(&self, table: &str) -> Result<TableDefinition, TableError> {
        let mut state = self.inner.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let store = &self.inner.store;
        let prefix = meta.id.to_be_bytes();
        self.cache.swept_floors.forget(meta.id);
        for keyspace in [&store.items, &store.indexes] {
            self.remove_prefix(keyspace, &prefix)?;
        }
        self.remove_prefix(&store.expiry, &expiry_table_prefix(meta.id))?;
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.remove(&store.meta, table_meta_key(table));
        if meta.definition.stream_view_type.is_some() {
            let now = self.inner.clock.now_millis();
            self.stage_stream_disable(&mut batch, &mut alloc, meta.id, now)?;
        }
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        self.uncache_meta(table);
        tracing::debug!(table, "table deleted");
        Ok(meta.definition.clone())
    }

    /// When TTL on `table` was last enabled or disabled (engine clock,
    /// epoch milliseconds); `None` if never. The server reports
    /// `ENABLING` / `DISABLING` for a while after it ("UpdateTimeToLive":
    /// the change takes up to an hour to process in DynamoDB).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn time_to_live_updated_at_millis(&self, table: &str) -> Result<Option<i64>, TableError> {
        self.table_meta(table)
            .map(|m| m.time_to_live_updated_at_millis)
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Removes every key of `keyspace` starting with `prefix`, in chunks.
    fn remove_prefix(&self, keyspace: &Keyspace, prefix: &[u8]) -> Result<(), TableError> {
        let store = &self.inner.store;
        let mut batch = store.db.batch();
        for guard in keyspace.prefix(prefix) {
            batch.remove(keyspace, guard.key()?);
            if batch.len() >= DELETE_CHUNK {
                std::mem::replace(&mut batch, store.db.batch()).commit()?;
            }
        }
        batch.commit()?;
        Ok(())
    }

    fn uncache_meta(&self, table: &str) {
        let mut tables = self
            .cache
            .tables
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _removed: Option<Arc<_>> = tables.remove(table);
    }

    fn read_tables(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Arc<TableMeta>>> {
        self.cache
            .tables
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn table_meta(&self, table: &str) -> Option<Arc<TableMeta>> {
        self.read_tables().get(table).cloned()
    }

    pub(crate) fn all_table_metas(&self) -> Vec<Arc<TableMeta>> {
        self.read_tables().values().cloned().collect()
    }

    pub(crate) fn cache_meta(&self, meta: TableMeta) {
        let mut tables = self
            .cache
            .tables
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        tables.insert(meta.definition.table_name.clone(), Arc::new(meta));
    }

    pub(crate) fn commit_meta(&self, meta: &TableMeta) -> Result<(), TableError> {
        let key = table_meta_key(&meta.definition.table_name);
        Ok(self.inner.store.put_meta("table metadata", key, meta)?)
    }
}

/// Whether `keyspace` holds a key starting with `prefix`.
fn has_key_with_prefix(keyspace: &fjall::Keyspace, prefix: &[u8]) -> Result<bool, StorageError> {
    match keyspace.prefix(prefix).next() {
        Some(guard) => guard.key().map(|_| true).map_err(StorageError::from),
        None => Ok(false),
    }
}
