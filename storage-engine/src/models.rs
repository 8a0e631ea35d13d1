//! Where the shared parts meet the three TTL models. The sweeper
//! (`sweeper/pass.rs`, `sweeper/thread.rs`) and stream retention
//! (`stream/shards/trim.rs`) never name a model: the engine here tells them
//! which tables to visit and hands each to its model, through the traits
//! they define ([`SweepModels`], [`SweptEngine`]).

use crate::dynamodb::meta::TableMeta;
use crate::engine::Engine;
use crate::error::{StorageError, SweepError};
use crate::storage::Store;
use crate::stream::error::StreamError;
use crate::stream::shards::TrimReport;
use crate::stream::shards::lifecycle::StreamedTable;
use crate::stream::shards::meta::StreamKind;
use crate::stream::shards::trim::{RecordTimeMillis, change_record_time_millis, trim};
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::{
    Pass, PassLimits, PassOutcome, SWEEP_CHUNK, SweepModels, SweepReport, sweep,
};
use crate::sweeper::thread::{Sweeper, SweeperOptions, SweptEngine};
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

impl SweepModels for Engine {
    type Target = SweepTarget;

    fn now_millis(&self) -> i64 {
        self.inner.clock.now_millis()
    }

    fn target_name<'t>(&self, target: &'t SweepTarget) -> &'t str {
        target.name()
    }

    /// The tables a pass visits, in a fixed order: DynamoDB tables with TTL
    /// enabled, Tablestore tables, Spanner tables with a row deletion policy.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the model whose tables did not load.
    fn sweep_targets(&self) -> Result<Vec<SweepTarget>, SweepError> {
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
    fn sweep_target(
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
    fn prepare_sweep(&self, max_indexed: Option<usize>, batch: usize) -> Result<bool, SweepError> {
        self.dynamodb().advance_ttl_indexes(max_indexed, batch)
    }
}

impl SweptEngine for Engine {
    fn sweep(&self, limits: PassLimits) -> Result<PassOutcome, SweepError> {
        Engine::sweep(self, limits)
    }

    fn trim(&self, max_records: usize) -> Result<TrimReport, StorageError> {
        Engine::trim(self, max_records)
    }
}

impl Engine {
    /// Deletes everything expired per the clock, now, on the calling thread
    /// (deterministic tests; the background [`Sweeper`](crate::Sweeper) calls the same code).
    /// First finishes the expiry index of any table whose TTL was just
    /// enabled (see [`DynamoDb::update_time_to_live`](crate::DynamoDb::update_time_to_live)), so that its items
    /// already expired are deleted too.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table; deletions committed before
    /// the failure stay committed.
    pub fn sweep_now(&self) -> Result<SweepReport, SweepError> {
        let limits = PassLimits {
            max_deletes: None,
            max_indexed: None,
            batch: SWEEP_CHUNK,
            first: 0,
        };
        Ok(self.sweep(limits)?.report)
    }
    /// One pass of the sweeper ([`sweep`]).
    pub(crate) fn sweep(&self, limits: PassLimits) -> Result<PassOutcome, SweepError> {
        sweep(self, limits)
    }

    /// Starts a background sweeper thread: a pass at once, then one every
    /// `options.interval` (or at once on [`Sweeper::trigger`]), paced by
    /// `options.max_deletes_per_sec`. If the OS refuses to spawn a thread,
    /// the error is logged and the returned handle is inert; use
    /// [`Engine::try_start_sweeper`] to handle that case.
    pub fn start_sweeper(&self, options: SweeperOptions) -> Sweeper {
        match self.try_start_sweeper(options) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the TTL sweeper thread");
                Sweeper::inert()
            }
        }
    }

    /// Like [`Engine::start_sweeper`], reporting a failure to spawn. The
    /// thread holds the engine only during a pass, so dropping the last
    /// [`Engine`] clone stops it.
    ///
    /// # Errors
    ///
    /// The I/O error from [`std::thread::Builder::spawn`].
    pub fn try_start_sweeper(&self, options: SweeperOptions) -> std::io::Result<Sweeper> {
        let inner = Arc::downgrade(&self.inner);
        let dynamodb = Arc::clone(&self.dynamodb);
        Sweeper::spawn(
            move || {
                let inner = inner.upgrade()?;
                Some(Engine {
                    inner,
                    dynamodb: Arc::clone(&dynamodb),
                })
            },
            options,
        )
    }

    /// Applies retention now, on the calling thread (the background sweeper
    /// thread runs the same code after each sweep pass): removes every
    /// record whose ApproximateCreationDateTime is more than the retention
    /// before the engine clock's now, then closed shards closed for longer
    /// than the retention that hold no record, then DISABLED streams with no
    /// shard left.
    ///
    /// # Errors
    ///
    /// [`StreamError::Storage`]; batches committed before a failure stay
    /// committed (each with its trimmed-through mark).
    pub fn trim_streams(&self) -> Result<TrimReport, StreamError> {
        Ok(self.trim(usize::MAX)?)
    }

    /// One retention pass removing at most about `max_records` records
    /// (`stream/shards/trim.rs`), over every model's change records.
    pub(crate) fn trim(&self, max_records: usize) -> Result<TrimReport, StorageError> {
        let inner = &self.inner;
        let retention =
            i64::try_from(inner.stream_options.retention.as_millis()).unwrap_or(i64::MAX);
        let horizon = inner.clock.now_millis().saturating_sub(retention);
        trim(&inner.store, horizon, record_time_millis, max_records)
    }
}

/// How to read the time (epoch ms) of a stored record of a stream of this
/// kind: a [`ChangeRecord`](crate::ChangeRecord)'s
/// ApproximateCreationDateTime (DynamoDB and Tablestore), a Spanner data
/// change record's `commit_timestamp`.
fn record_time_millis(kind: &StreamKind) -> RecordTimeMillis {
    match kind {
        StreamKind::DynamoDb { .. } | StreamKind::Tablestore => change_record_time_millis,
        StreamKind::Spanner => crate::spanner::record_time_millis,
    }
}

/// The Tablestore tables with a stream and the Spanner tables with a change
/// stream: at open, each has its open shard recovered, as a DynamoDB table
/// with a stream does.
///
/// # Errors
///
/// [`StorageError`] if their metadata does not load.
pub(crate) fn streamed_tables(store: &Store) -> Result<Vec<StreamedTable>, StorageError> {
    let mut out = Vec::new();
    for meta in crate::tablestore::load_all(store)? {
        if meta.definition.stream_view_type.is_some() {
            out.push(StreamedTable {
                id: meta.id,
                name: meta.definition.table_name,
            });
        }
    }
    for meta in crate::spanner::load_all(store)? {
        if meta.definition.value_capture_type.is_some() {
            out.push(StreamedTable {
                id: meta.id,
                name: meta.definition.table_name,
            });
        }
    }
    Ok(out)
}
