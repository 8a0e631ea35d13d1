//! A Spanner commit: a list of mutations applied as one atomic write and one
//! transaction ("Spanner REST reference: Mutation", "Spanner: Insert, update,
//! and delete data using mutations"):
//!
//! * `insert`: the row must not exist (else [`MutationError::AlreadyExists`]).
//! * `update`: the row must exist (else [`MutationError::RowNotFound`]); the
//!   columns given are written, the others keep their values.
//! * `insert_or_update`: insert, or update as above.
//! * `replace`: insert, or delete the row (cascading to interleaved child rows)
//!   and insert the given columns; columns not given become NULL.
//! * `delete`: rows by key, with their interleaved child rows; a missing row
//!   is not an error.
//!
//! No mutation is checked against a row deletion policy: a row already past
//! the policy is written and stays readable until the sweeper deletes it. All
//! rows, index and policy entries and data change records of the commit are in
//! one batch; a failing mutation leaves nothing written. Within a commit, a
//! mutation sees the rows written by the mutations before it; a delete's
//! cascade sees only child rows committed before the commit.

use super::schema::SpannerRow;
use super::stage::Txn;
use super::value::SpannerValue;
use super::{Spanner, SpannerMeta, load, load_all};
use crate::error::{StorageError, WriteError};
use std::collections::HashMap;

/// One mutation of a commit, on one table (the REST API's `Mutation`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SpannerMutation {
    /// `insert`: a new row.
    Insert {
        /// Table name.
        table: String,
        /// The row (a column left out is NULL).
        row: SpannerRow,
    },
    /// `update`: an existing row's given columns.
    Update {
        /// Table name.
        table: String,
        /// Key columns and the columns to write.
        row: SpannerRow,
    },
    /// `insertOrUpdate`.
    InsertOrUpdate {
        /// Table name.
        table: String,
        /// Key columns and the columns to write.
        row: SpannerRow,
    },
    /// `replace`.
    Replace {
        /// Table name.
        table: String,
        /// The new row (a column left out is NULL).
        row: SpannerRow,
    },
    /// `delete` of the rows with these primary keys (values in key order).
    Delete {
        /// Table name.
        table: String,
        /// Primary keys.
        keys: Vec<Vec<SpannerValue>>,
    },
}

/// Why a commit was refused; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MutationError {
    /// No Spanner table with this name (Spanner `NOT_FOUND`).
    #[error("table `{table}` not found")]
    TableNotFound {
        /// Table name.
        table: String,
    },
    /// An unknown column, a value of the wrong type, a missing or NULL key
    /// column (Spanner `INVALID_ARGUMENT` / `FAILED_PRECONDITION`).
    #[error("table `{table}`, mutation {index}: {message}")]
    Invalid {
        /// Table name.
        table: String,
        /// 0-based position of the mutation in the commit.
        index: usize,
        /// What is wrong, naming the column.
        message: String,
    },
    /// `insert` of a row that exists (Spanner `ALREADY_EXISTS`).
    #[error("table `{table}`, mutation {index}: row {key} already exists")]
    AlreadyExists {
        /// Table name.
        table: String,
        /// 0-based position of the mutation in the commit.
        index: usize,
        /// The key, as JSON.
        key: String,
    },
    /// `update` of a row that does not exist, or a child row whose parent row
    /// does not exist (Spanner `NOT_FOUND`).
    #[error("table `{table}`, mutation {index}: {message}")]
    RowNotFound {
        /// Table name.
        table: String,
        /// 0-based position of the mutation in the commit.
        index: usize,
        /// Which row is missing.
        message: String,
    },
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Rows written by earlier mutations of the commit: `None` = deleted.
type Overlay = HashMap<(u32, Vec<u8>), Option<SpannerRow>>;

impl MutationError {
    /// The same refusal for a one-row write ([`Spanner::insert_row`],
    /// [`Spanner::delete_row`]): the table, and the message without the
    /// mutation's position.
    pub(super) fn into_write_error(self) -> WriteError {
        match self {
            MutationError::TableNotFound { table } => WriteError::TableNotFound { table },
            MutationError::Invalid { table, message, .. }
            | MutationError::RowNotFound { table, message, .. } => {
                WriteError::Validation { table, message }
            }
            MutationError::AlreadyExists { table, key, .. } => WriteError::Validation {
                table,
                message: format!("row {key} already exists"),
            },
            MutationError::Storage(e) => WriteError::Storage(e),
        }
    }
}

impl Spanner<'_> {
    /// Applies `mutations` in order as one atomic write and one transaction
    /// (Spanner REST `sessions.commit`; the rules are in the module docs).
    /// The transaction's data change records (one per table and mod type,
    /// one mod per row) carry `is_system_transaction: false` and an empty
    /// `transaction_tag`: an INSERT mod per inserted row, an UPDATE mod with
    /// the columns given per updated row (`update`, `insertOrUpdate` of an
    /// existing row), a DELETE and an INSERT mod per replaced row, a DELETE
    /// mod per deleted row and per interleaved child row deleted with it.
    ///
    /// # Errors
    ///
    /// [`MutationError::TableNotFound`], [`MutationError::Invalid`],
    /// [`MutationError::AlreadyExists`], [`MutationError::RowNotFound`],
    /// [`MutationError::Storage`]; the middle three name the failing
    /// mutation's 0-based position. Nothing is written.
    pub fn commit(&self, mutations: &[SpannerMutation]) -> Result<(), MutationError> {
        self.apply(mutations).map(|_| ())
    }

    /// [`Spanner::commit`]; returns how many rows the `delete` mutations
    /// deleted (interleaved child rows not counted).
    pub(super) fn apply(&self, mutations: &[SpannerMutation]) -> Result<u64, MutationError> {
        let mut state = self.inner.lock_writes();
        let store = &self.inner.store;
        let all = load_all(store)?;
        let mut batch = store.db.batch();
        let mut txn = Txn::default();
        let mut overlay = Overlay::new();
        let mut deleted = 0_u64;
        for (index, m) in mutations.iter().enumerate() {
            let (table, row, keys) = match m {
                SpannerMutation::Insert { table, row }
                | SpannerMutation::Update { table, row }
                | SpannerMutation::InsertOrUpdate { table, row }
                | SpannerMutation::Replace { table, row } => (table, Some(row), None),
                SpannerMutation::Delete { table, keys } => (table, None, Some(keys)),
            };
            let meta = load(store, table)?.ok_or_else(|| MutationError::TableNotFound {
                table: table.clone(),
            })?;
            let invalid = |message: String| MutationError::Invalid {
                table: table.clone(),
                index,
                message,
            };
            if let Some(keys) = keys {
                for key in keys {
                    let enc = meta.definition.encode_key(key).map_err(invalid)?;
                    if let Some(old) = self.overlay_row(&overlay, meta.id, &enc)? {
                        self.stage_spanner_delete(&mut batch, &all, &meta, &enc, &old, &mut txn)?;
                        overlay.insert((meta.id, enc), None);
                        deleted += 1;
                    }
                }
                continue;
            }
            let Some(row) = row else { continue };
            check_columns(&meta, row).map_err(invalid)?;
            let enc = meta.definition.encode_key_of(row).map_err(invalid)?;
            let old = self.overlay_row(&overlay, meta.id, &enc)?;
            let key_json = || {
                serde_json::Value::Array(
                    meta.definition
                        .primary_key
                        .iter()
                        .map(|k| row.get(k).unwrap_or(&SpannerValue::Null).to_json())
                        .collect(),
                )
                .to_string()
            };
            let new_row = match (m, old) {
                (SpannerMutation::Insert { .. }, Some(_)) => {
                    return Err(MutationError::AlreadyExists {
                        table: table.clone(),
                        index,
                        key: key_json(),
                    });
                }
                (SpannerMutation::Update { .. }, None) => {
                    return Err(MutationError::RowNotFound {
                        table: table.clone(),
                        index,
                        message: format!("row {} does not exist", key_json()),
                    });
                }
                (
                    SpannerMutation::Update { .. } | SpannerMutation::InsertOrUpdate { .. },
                    Some(old),
                ) => {
                    let mut merged = old.clone();
                    merged.extend(row.clone());
                    self.stage_spanner_update(
                        &mut batch, &meta, &enc, &old, &merged, row, &mut txn,
                    )?;
                    merged
                }
                (SpannerMutation::Replace { .. }, Some(old)) => {
                    self.stage_spanner_delete(&mut batch, &all, &meta, &enc, &old, &mut txn)?;
                    self.stage_spanner_insert(&mut batch, &meta, &enc, row, &mut txn)?;
                    row.clone()
                }
                (_, None) => {
                    self.check_parent(&overlay, &all, &meta, row)
                        .map_err(|e| match e {
                            ParentCheck::Missing(message) => MutationError::RowNotFound {
                                table: table.clone(),
                                index,
                                message,
                            },
                            ParentCheck::Storage(s) => MutationError::Storage(s),
                        })?;
                    self.stage_spanner_insert(&mut batch, &meta, &enc, row, &mut txn)?;
                    row.clone()
                }
                (SpannerMutation::Delete { .. }, _) => continue,
            };
            overlay.insert((meta.id, enc), Some(new_row));
        }
        let mut alloc = state.alloc();
        self.stage_spanner_records(&mut batch, &mut alloc, txn, false, "")?;
        batch.commit().map_err(StorageError::from)?;
        let done = alloc.finish();
        state.apply(done);
        Ok(deleted)
    }

    fn overlay_row(
        &self,
        overlay: &Overlay,
        id: u32,
        key: &[u8],
    ) -> Result<Option<SpannerRow>, StorageError> {
        match overlay.get(&(id, key.to_vec())) {
            Some(row) => Ok(row.clone()),
            None => self.load_spanner_row(id, key),
        }
    }

    fn check_parent(
        &self,
        overlay: &Overlay,
        all: &[SpannerMeta],
        meta: &SpannerMeta,
        row: &SpannerRow,
    ) -> Result<(), ParentCheck> {
        let Some(parent) = &meta.definition.interleave_in_parent else {
            return Ok(());
        };
        let Some(pmeta) = all.iter().find(|m| &m.definition.table_name == parent) else {
            return Err(ParentCheck::Missing(format!(
                "parent table `{parent}` does not exist"
            )));
        };
        let values: Vec<SpannerValue> = pmeta
            .definition
            .primary_key
            .iter()
            .map(|k| row.get(k).cloned().unwrap_or(SpannerValue::Null))
            .collect();
        let found = match pmeta.definition.encode_key(&values) {
            Ok(pkey) => self
                .overlay_row(overlay, pmeta.id, &pkey)
                .map_err(ParentCheck::Storage)?
                .is_some(),
            Err(_) => false,
        };
        if found {
            Ok(())
        } else {
            Err(ParentCheck::Missing(format!(
                "parent row in `{parent}` does not exist"
            )))
        }
    }
}

enum ParentCheck {
    Missing(String),
    Storage(StorageError),
}

/// Every column of `row` exists and its value fits the column's type.
fn check_columns(meta: &SpannerMeta, row: &SpannerRow) -> Result<(), String> {
    for (name, value) in row {
        let ty = meta
            .definition
            .column_type(name)
            .ok_or_else(|| format!("`{name}` is not a column"))?;
        if !value.fits(ty) {
            return Err(format!(
                "column `{name}` is {}, the value is not",
                ty.as_str()
            ));
        }
    }
    Ok(())
}
