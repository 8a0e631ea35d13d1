//! Enabling and disabling a DynamoDB table's stream (`UpdateTable`
//! `StreamSpecification`), over the shared stream lifecycle.

use super::DynamoDb;
use crate::dynamodb::meta::table_meta_key;
use crate::dynamodb::table::TableDefinition;
use crate::error::{StorageError, TableError};
use crate::stream::record::StreamViewType;
use crate::stream::shards::alloc::SeqAlloc;
use crate::stream::shards::lifecycle::{stage_stream_end, stage_stream_start};
use crate::stream::shards::meta::StreamKind;
use fjall::OwnedWriteBatch;

impl DynamoDb<'_> {
    /// Enables or disables `table`'s stream (DynamoDB `UpdateTable` with a
    /// `StreamSpecification`; "Change data capture for DynamoDB Streams",
    /// Enabling a stream). `Some(view)` creates a new stream with a new
    /// StreamLabel and an open first shard; `None` closes the open shard
    /// (its EndingSequenceNumber is its last record) and marks the stream
    /// DISABLED, still readable until retention removes it. Takes effect at
    /// once and atomically (table setting, stream and shard entries in one
    /// batch).
    ///
    /// Returns the table's new definition.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] when enabling a
    /// table whose stream is enabled ("Table already has an enabled stream",
    /// as DynamoDB; disable first to change the view type) or disabling one
    /// without an enabled stream; [`TableError::Storage`].
    pub fn update_stream(
        &self,
        table: &str,
        view: Option<StreamViewType>,
    ) -> Result<TableDefinition, TableError> {
        let mut state = self.inner.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let invalid = |message: &str| TableError::Invalid {
            table: table.to_string(),
            message: message.to_string(),
        };
        match (meta.definition.stream_view_type, view) {
            (Some(_), Some(_)) => return Err(invalid("Table already has an enabled stream")),
            (None, None) => return Err(invalid("Table does not have an enabled stream")),
            _ => {}
        }
        let mut new_meta = (*meta).clone();
        new_meta.definition.stream_view_type = view;
        let store = &self.inner.store;
        let now = self.inner.clock.now_millis();
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.insert(
            &store.meta,
            table_meta_key(table),
            crate::storage::encode_json("table metadata", &new_meta)?,
        );
        match view {
            Some(_) => self.stage_stream_enable(
                &mut batch,
                &mut alloc,
                meta.id,
                &new_meta.definition,
                now,
            )?,
            None => self.stage_stream_disable(&mut batch, &mut alloc, meta.id, now)?,
        }
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        let definition = new_meta.definition.clone();
        self.cache_meta(new_meta);
        Ok(definition)
    }

    /// Stages a new ENABLED stream of `definition`'s table (id `table_id`)
    /// with an open first shard (`stream/shards/lifecycle.rs`).
    pub(crate) fn stage_stream_enable(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        table_id: u32,
        definition: &TableDefinition,
        now_millis: i64,
    ) -> Result<(), StorageError> {
        let Some(view) = definition.stream_view_type else {
            return Ok(());
        };
        let kind = StreamKind::DynamoDb {
            partition_key: definition.partition_key.clone(),
            sort_key: definition.sort_key.clone(),
            view,
        };
        let store = &self.inner.store;
        let name = &definition.table_name;
        stage_stream_start(store, batch, alloc, table_id, name, kind, now_millis)
    }

    /// Stages closing the open shard of `table_id` and marking its stream
    /// DISABLED.
    pub(crate) fn stage_stream_disable(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        table_id: u32,
        now_millis: i64,
    ) -> Result<(), StorageError> {
        stage_stream_end(&self.inner.store, batch, alloc, table_id, now_millis)
    }
}
