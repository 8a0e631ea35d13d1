//! One sweep pass over the tables of every TTL model, and its limits.
//!
//! One mechanism serves the three TTL models: a pass lists every table with
//! something that can expire (DynamoDB tables with TTL enabled, Tablestore
//! tables, Spanner tables with a row deletion policy), and a pass with a
//! budget shares it fairly: each table first gets an equal share, then what
//! is left goes round again in the same order; the background thread lets a
//! different table lead each pass. DynamoDB deletes expired items "on a
//! best-effort basis to ensure availability of throughput for other data
//! operations" ("UpdateTimeToLive", DynamoDB API Reference); here a table
//! with a large backlog takes its share of each pass, never a whole pass,
//! so the few expired items of another table wait at most one pass. A pass
//! first advances the expiry-index build or purge of any table whose TTL
//! was just enabled or disabled (`dynamodb/ttl_index.rs`). Every table is swept with
//! the same [`Pass`] limits (budget, batch size), and every deletion's lag goes
//! into one histogram ([`SweepReport::lag`]); the background thread's pacing
//! and "sweep now" apply to all of them alike.
//!
//! How each model finds and deletes what has expired is the model's own
//! (`dynamodb/sweep.rs`, `tablestore/sweep.rs`, `spanner/sweep.rs`); the pass
//! reaches them through the crate root (`models.rs`).

use crate::error::{StorageError, SweepError};
use crate::sweeper::lag_histogram::LagHistogram;

/// Most index entries examined (and items deleted) per atomic batch.
pub const SWEEP_CHUNK: usize = 1024;

/// The outcome of one sweep pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Items deleted by TTL in this pass (each with one REMOVE record if the
    /// table has a stream).
    pub deleted: u64,
    /// For every deletion of this pass: time from the item's or row's expiry
    /// instant to its deletion (engine clock, milliseconds). DynamoDB: the
    /// TTL second; Tablestore: the newest version's timestamp plus
    /// `time_to_live`; Spanner: the policy column plus the policy's days.
    pub lag: LagHistogram,
}

/// What a pass needs from the engine that owns the tables: the clock, each
/// model's tables and how to sweep one. The crate root implements it
/// (`models.rs`), so the sweeper names no model.
pub(crate) trait SweepModels {
    /// One table of a pass, in whichever TTL model.
    type Target;

    /// The engine clock's now (epoch ms).
    fn now_millis(&self) -> i64;

    /// Before a pass deletes anything: advances expiry-index builds and
    /// purges by up to `max_indexed` items each, `batch` per atomic batch;
    /// returns whether any is left unfinished.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table.
    fn prepare_sweep(&self, max_indexed: Option<usize>, batch: usize) -> Result<bool, SweepError>;

    /// The tables a pass visits, in a fixed order.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the model whose tables did not load.
    fn sweep_targets(&self) -> Result<Vec<Self::Target>, SweepError>;

    /// The table's name, for errors.
    fn target_name<'t>(&self, target: &'t Self::Target) -> &'t str;

    /// Sweeps one table with its model's rules; returns how many items or
    /// rows it deleted.
    ///
    /// # Errors
    ///
    /// [`StorageError`]; deletions committed before it stay committed.
    fn sweep_target(
        &self,
        target: &Self::Target,
        pass: Pass,
        lag: &mut LagHistogram,
    ) -> Result<u64, StorageError>;
}

/// One pass over every table of all three TTL models, deleting at most
/// `limits.max_deletes` items or rows: each table (whatever its model)
/// first gets an equal share, then what is left goes round again in the
/// same order, so one big table cannot starve the others. The round
/// starts at table number `limits.first` (modulo their count) and wraps
/// around, so that a caller counting its passes there lets every table
/// lead in turn, even with fewer deletions than tables. Before deleting,
/// each table's expiry-index build, if any, indexes up to
/// `limits.max_indexed` items (`dynamodb/ttl_index.rs`). Deletions are committed
/// `limits.batch` (at least 1) at a time; every deletion's lag goes into
/// the report's histogram.
pub(crate) fn sweep(
    models: &impl SweepModels,
    limits: PassLimits,
) -> Result<PassOutcome, SweepError> {
    let PassLimits {
        max_deletes: max,
        max_indexed,
        batch,
        first,
    } = limits;
    let indexing = models.prepare_sweep(max_indexed, batch.max(1))?;
    let now_millis = models.now_millis();
    let mut report = SweepReport::default();
    let mut targets = models.sweep_targets()?;
    if let Some(lead) = first.checked_rem(targets.len()) {
        targets.rotate_left(lead);
    }
    let share = max.map(|m| m.div_ceil(targets.len().max(1)));
    for round in 0..2 {
        for target in &targets {
            let left = max.map(|m| m.saturating_sub(report.deleted as usize));
            let budget = match (left, share) {
                (Some(l), Some(s)) if round == 0 => Some(l.min(s)),
                _ => left,
            };
            if budget == Some(0) {
                continue;
            }
            let pass = Pass {
                now_millis,
                budget,
                batch: batch.max(1),
            };
            let swept = models.sweep_target(target, pass, &mut report.lag);
            report.deleted += swept.map_err(|source| SweepError::Storage {
                table: models.target_name(target).to_string(),
                source,
            })?;
        }
        if max.is_none() {
            break;
        }
    }
    // A pass allowed no deletion (`Some(0)`) knows of no work left.
    let spent = max.is_some_and(|m| m > 0 && report.deleted as usize >= m);
    Ok(PassOutcome {
        report,
        more: indexing || spent,
    })
}

/// What one pass ([`Engine::sweep`](crate::Engine::sweep)) may do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PassLimits {
    /// Most deletions, all tables together; `None` = unbounded.
    pub max_deletes: Option<usize>,
    /// Most items (or entries) each unfinished expiry-index build (or
    /// purge) handles; `None` = to its end.
    pub max_indexed: Option<usize>,
    /// Most deletions (and items indexed) per atomic batch; 0 is taken as 1.
    pub batch: usize,
    /// Which table leads the pass (modulo the number of tables).
    pub first: usize,
}

/// What one pass ([`Engine::sweep`](crate::Engine::sweep)) did, for the sweeper thread.
pub(crate) struct PassOutcome {
    /// The deletions and their lag.
    pub report: SweepReport,
    /// Whether work is known to be left: the pass spent its whole budget,
    /// or an expiry-index build or purge is unfinished. The thread then starts the
    /// next pass at once instead of after its interval.
    pub more: bool,
}

/// The limits of one table's part of a pass (the same for every model).
#[derive(Clone, Copy)]
pub(crate) struct Pass {
    /// The pass's start (engine clock, epoch ms): DynamoDB items due before
    /// it are deleted (Tablestore and Spanner re-read the clock per batch).
    pub now_millis: i64,
    /// Most deletions for this table; `None` = unbounded.
    pub budget: Option<usize>,
    /// Most deletions per atomic batch (at least 1).
    pub batch: usize,
}

#[cfg(test)]
mod tests {
    //! The budget and fairness of a pass across tables and models.
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::testing::{engine_with_table, item};
    use crate::{
        AttributeValue, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType,
        TableDefinition, TimeToLiveSpecification,
    };
    use std::collections::HashMap;
    use std::sync::Arc;

    #[test]
    fn each_pass_lets_another_table_lead_and_reports_work_left() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_000_000));
        let options = EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        };
        let engine = Engine::open(dir.path(), options).unwrap();
        let tables = ["Aaa", "Bbb", "Ccc"];
        for table in tables {
            engine
                .dynamodb()
                .create_table(TableDefinition::new(table, "pk", ScalarAttributeType::S))
                .unwrap();
            engine
                .dynamodb()
                .update_time_to_live(table, TimeToLiveSpecification::enabled("ttl"))
                .unwrap();
            let items = (0..10).map(|i| item(&format!("k{i}"), 999)).collect();
            engine.dynamodb().put_items(table, items).unwrap();
        }
        // Passes of 2 deletions over 3 tables: a share of 1 each, so one
        // table is left out of each pass; a different one each time.
        for first in 0..3 {
            let limits = PassLimits {
                max_deletes: Some(2),
                max_indexed: None,
                batch: 1024,
                first,
            };
            let pass = engine.sweep(limits).unwrap();
            assert_eq!(pass.report.deleted, 2);
            assert!(pass.more, "a pass that spent its budget reports work left");
        }
        for table in tables {
            assert_eq!(engine.dynamodb().scan(table).unwrap().len(), 8, "{table}");
        }
        let rest = PassLimits {
            max_deletes: Some(100),
            max_indexed: None,
            batch: 1024,
            first: 3,
        };
        let pass = engine.sweep(rest).unwrap();
        assert_eq!(pass.report.deleted, 24);
        assert!(!pass.more, "nothing left");
    }

    #[test]
    fn one_budget_is_shared_across_the_three_models() {
        use crate::spanner::{SpannerRow, SpannerValue};
        use crate::tablestore::{
            PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition,
        };
        const DAY_MILLIS: u64 = 86_400_000;
        let dir = tempfile::tempdir().unwrap();
        let table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S);
        let (engine, clock) = engine_with_table(dir.path(), table);
        engine
            .tablestore()
            .create_table(
                TablestoreTableDefinition::new("Ts", "id", ScalarAttributeType::S)
                    .with_options(TablestoreOptions::with_time_to_live_secs(86_400)),
            )
            .unwrap();
        engine
            .spanner()
            .create_table(crate::testing::spanner_one_day_table("Sp"))
            .unwrap();
        let items = (0..300).map(|i| item(&format!("k{i:03}"), 999)).collect();
        engine.dynamodb().put_items("Tbl", items).unwrap();
        for i in 0..10 {
            let key: Item =
                HashMap::from([("id".to_string(), AttributeValue::S(format!("r{i}")))]).into();
            let column = PutColumn::new("col", AttributeValue::N(i.to_string()));
            engine
                .tablestore()
                .put_row("Ts", key, vec![column])
                .unwrap();
            let row = SpannerRow::from([
                ("Id".to_string(), SpannerValue::Int64(i)),
                ("CreatedAt".to_string(), SpannerValue::Timestamp(1_000_000)),
            ]);
            engine.spanner().insert_row("Sp", row).unwrap();
        }
        clock.advance(std::time::Duration::from_millis(DAY_MILLIS + 2_000));
        let limits = PassLimits {
            max_deletes: Some(100),
            max_indexed: None,
            batch: crate::SWEEP_CHUNK,
            first: 0,
        };
        let pass = engine.sweep(limits).unwrap();
        assert_eq!(pass.report.deleted, 100);
        // A third of the budget each first: the two small tables are emptied
        // although the big DynamoDB table comes first; it gets the rest.
        assert!(
            engine
                .tablestore()
                .scan_rows("Ts", ReadOptions::default())
                .unwrap()
                .is_empty()
        );
        assert!(engine.spanner().scan_table("Sp").unwrap().is_empty());
        assert_eq!(engine.dynamodb().scan("Tbl").unwrap().len(), 220);
    }
}
