//! Where the shared parts meet the three TTL models. The sweeper's pass
//! (`sweeper/pass.rs`) and stream retention (`stream/shards/trim.rs`) never
//! name a model: they ask the engine here which tables to visit, and this
//! file hands each to its model.

use crate::dynamodb::meta::TableMeta;
use crate::engine::Engine;
use crate::error::{StorageError, SweepError};
use crate::stream::shards::trim::{RecordTimeMillis, change_record_time_millis};
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::Pass;
use std::sync::Arc;

/// One table of a sweep pass, in whichever TTL model.
pub(crate) enum SweepTarget {
    DynamoDb(Arc<TableMeta>),
    Tablestore(String),
    Spanner(String),
}

impl SweepTarget {
    /// The table's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            SweepTarget::DynamoDb(meta) => &meta.definition.table_name,
            SweepTarget::Tablestore(name) | SweepTarget::Spanner(name) => name,
        }
    }
}

impl Engine {
    /// The tables a pass visits, in a fixed order: DynamoDB tables with TTL
    /// enabled, Tablestore tables, Spanner tables with a row deletion policy.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the model whose tables did not load.
    pub(crate) fn sweep_targets(&self) -> Result<Vec<SweepTarget>, SweepError> {
        let store = &self.inner.store;
        let storage = |model: &'static str| {
            move |source| SweepError::Storage {
                table: format!("({model} tables)"),
                source,
            }
        };
        let mut targets: Vec<SweepTarget> = self
            .dynamodb()
            .all_table_metas()
            .into_iter()
            .filter(|m| m.ttl_enabled().is_some())
            .map(SweepTarget::DynamoDb)
            .collect();
        let tablestore = crate::tablestore::load_all(store).map_err(storage("Tablestore"))?;
        targets.extend(
            tablestore
                .into_iter()
                .map(|m| SweepTarget::Tablestore(m.definition.table_name)),
        );
        let spanner = crate::spanner::load_all(store).map_err(storage("Spanner"))?;
        targets.extend(
            spanner
                .into_iter()
                .filter(|m| m.definition.row_deletion_policy.is_some())
                .map(|m| SweepTarget::Spanner(m.definition.table_name)),
        );
        Ok(targets)
    }

    /// Sweeps one table of a pass with its model's rules; returns how many
    /// items or rows it deleted.
    ///
    /// # Errors
    ///
    /// [`StorageError`]; deletions committed before it stay committed.
    pub(crate) fn sweep_target(
        &self,
        target: &SweepTarget,
        pass: Pass,
        lag: &mut LagHistogram,
    ) -> Result<u64, StorageError> {
        match target {
            SweepTarget::DynamoDb(meta) => self.dynamodb().sweep_table(meta, pass, lag),
            SweepTarget::Tablestore(name) => {
                self.tablestore().sweep_tablestore_table(name, pass, lag)
            }
            SweepTarget::Spanner(name) => self.spanner().sweep_spanner_table(name, pass, lag),
        }
    }

    /// Before a pass deletes anything: advances the DynamoDB expiry-index
    /// builds and purges (`dynamodb/ttl_index.rs`) by up to `max_indexed`
    /// items each, `batch` per atomic batch; returns whether any is left
    /// unfinished.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table.
    pub(crate) fn prepare_sweep(
        &self,
        max_indexed: Option<usize>,
        batch: usize,
    ) -> Result<bool, SweepError> {
        self.dynamodb().advance_ttl_indexes(max_indexed, batch)
    }

    /// The tables whose change records are kept unsharded (Tablestore tables
    /// with a stream, Spanner tables with a change stream), each with how
    /// to read a stored record's time; stream retention trims them as it
    /// trims the DynamoDB model's shards.
    ///
    /// # Errors
    ///
    /// [`StorageError`] if their metadata does not load.
    pub(crate) fn unsharded_stream_tables(
        &self,
    ) -> Result<Vec<(u32, RecordTimeMillis)>, StorageError> {
        let store = &self.inner.store;
        let mut out: Vec<(u32, RecordTimeMillis)> = Vec::new();
        for meta in crate::tablestore::load_all(store)? {
            if meta.definition.stream_view_type.is_some() {
                out.push((meta.id, change_record_time_millis));
            }
        }
        for meta in crate::spanner::load_all(store)? {
            if meta.definition.value_capture_type.is_some() {
                out.push((meta.id, crate::spanner::record_time_millis));
            }
        }
        Ok(out)
    }
}
