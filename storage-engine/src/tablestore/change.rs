//! Row changes with Tablestore's request options: the `row_existence`
//! condition, and `UpdateRow`'s three column actions (PUT a version,
//! DELETE one version, DELETE_ALL versions of a column) ("Tablestore:
//! UpdateRow", "Tablestore: Condition"). Each change runs under the
//! engine's write lock, so the condition and the write are atomic.

use super::Tablestore;
use super::row::{Cell, StoredRow};
use super::write::PutColumn;
use crate::error::WriteError;
use crate::storage::attribute::validate_attribute;
use serde_dynamo::Item;

/// The row-existence condition of a write (Tablestore `RowExistenceExpectation`).
/// A row whose cells have all expired does not exist, as for reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowExistence {
    /// `IGNORE`: no check (the default).
    #[default]
    Ignore,
    /// `EXPECT_EXIST`: the row must exist.
    ExpectExist,
    /// `EXPECT_NOT_EXIST`: the row must not exist.
    ExpectNotExist,
}

/// One column action of an `UpdateRow` (Tablestore `OperationType`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ColumnChange {
    /// `PUT`: adds (or overwrites) one version.
    Put(PutColumn),
    /// `DELETE`: removes the version `version_millis` of column `name`.
    DeleteVersion {
        /// Column name.
        name: String,
        /// The version removed, epoch milliseconds.
        version_millis: i64,
    },
    /// `DELETE_ALL`: removes every version of column `name`.
    DeleteAll {
        /// Column name.
        name: String,
    },
}

impl Tablestore<'_> {
    /// Writes a row under a row-existence condition: with `replace`, the
    /// row becomes exactly the `Put` changes (Tablestore `PutRow`);
    /// without, the changes apply to the stored row, creating it if absent
    /// (Tablestore `UpdateRow`). A PUT version must lie in the table's
    /// writable range ([`TablestoreOptions::writable_version_range`](super::TablestoreOptions::writable_version_range)).
    /// An update that leaves a row without columns deletes it, appending
    /// REMOVE (a row with no cells could otherwise never expire).
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::ConditionalCheckFailed`]
    /// when `expect` does not hold (nothing written);
    /// [`WriteError::Validation`] for a bad primary key or column, or a
    /// version outside the writable range (the message names the column
    /// and the range in ms); [`WriteError::Storage`].
    pub fn change_row(
        &self,
        table: &str,
        primary_key: Item,
        changes: Vec<ColumnChange>,
        replace: bool,
        expect: RowExistence,
    ) -> Result<(), WriteError> {
        let mut state = self.inner.lock_writes();
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| WriteError::TableNotFound {
                table: table.to_string(),
            })?;
        let def = &meta.definition;
        let invalid = |message: String| WriteError::Validation {
            table: table.to_string(),
            message,
        };
        let pk = def.encode_key(&primary_key).map_err(invalid)?;
        let now = self.inner.clock.now_millis();
        let old = self.load_stored_row(meta.id, &pk)?;
        check_existence(table, old.as_ref(), expect, &def.options, now)?;
        let (low, high) = def.options.writable_version_range(now);
        let mut new = match (&old, replace) {
            (Some(o), false) => o.clone(),
            _ => StoredRow {
                primary_key,
                ..StoredRow::default()
            },
        };
        for change in changes {
            let name = match &change {
                ColumnChange::Put(c) => &c.name,
                ColumnChange::DeleteVersion { name, .. } | ColumnChange::DeleteAll { name } => name,
            };
            if name.is_empty() || name.len() > 255 {
                return Err(invalid("column names must be 1 to 255 bytes".into()));
            }
            if def.primary_key.iter().any(|k| &k.attribute_name == name) {
                return Err(invalid(format!("column `{name}` is a primary key column")));
            }
            match change {
                ColumnChange::Put(c) => {
                    validate_attribute(&c.name, &c.value).map_err(invalid)?;
                    let version = c.version_millis.unwrap_or(now);
                    if version < low || version >= high {
                        return Err(invalid(format!(
                            "column `{}`: version {version} ms is outside the allowed range [{low}, {high}) ms \
                             (max(now - max_time_deviation, now - time_to_live) to now + max_time_deviation)",
                            c.name
                        )));
                    }
                    new.insert(
                        &c.name,
                        Cell {
                            version_millis: version,
                            value: c.value,
                        },
                    );
                }
                ColumnChange::DeleteVersion {
                    name,
                    version_millis,
                } => {
                    if let Some(versions) = new.columns.get_mut(&name) {
                        versions.retain(|c| c.version_millis != version_millis);
                        if versions.is_empty() {
                            new.columns.remove(&name);
                        }
                    }
                }
                ColumnChange::DeleteAll { name } => {
                    new.columns.remove(&name);
                }
            }
        }
        if old.as_ref() == Some(&new) {
            return Ok(());
        }
        // An update that removed every column removes the row; a PutRow of
        // a primary key alone keeps it.
        let new = (replace || !new.columns.is_empty()).then_some(new);
        if old.is_none() && new.is_none() {
            return Ok(());
        }
        let mut batch = self.inner.store.db.batch();
        let mut alloc = state.alloc();
        self.stage_row(
            &mut batch,
            &mut alloc,
            &meta,
            &pk,
            old.as_ref(),
            new.as_ref(),
            None,
        )?;
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        Ok(())
    }

    /// Deletes a row under a row-existence condition (Tablestore
    /// `DeleteRow`); returns whether a stored row was removed. Appends
    /// REMOVE without `user_identity`.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::ConditionalCheckFailed`]
    /// when `expect` does not hold; [`WriteError::Validation`] for a bad
    /// primary key; [`WriteError::Storage`].
    pub fn delete_row_if(
        &self,
        table: &str,
        primary_key: &Item,
        expect: RowExistence,
    ) -> Result<bool, WriteError> {
        let mut state = self.inner.lock_writes();
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| WriteError::TableNotFound {
                table: table.to_string(),
            })?;
        let pk =
            meta.definition
                .encode_key(primary_key)
                .map_err(|message| WriteError::Validation {
                    table: table.to_string(),
                    message,
                })?;
        let now = self.inner.clock.now_millis();
        let old = self.load_stored_row(meta.id, &pk)?;
        check_existence(table, old.as_ref(), expect, &meta.definition.options, now)?;
        let Some(old) = old else {
            return Ok(false);
        };
        let mut batch = self.inner.store.db.batch();
        let mut alloc = state.alloc();
        self.stage_row(&mut batch, &mut alloc, &meta, &pk, Some(&old), None, None)?;
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        Ok(true)
    }
}

fn check_existence(
    table: &str,
    old: Option<&StoredRow>,
    expect: RowExistence,
    options: &super::TablestoreOptions,
    now_millis: i64,
) -> Result<(), WriteError> {
    let exists = old.is_some_and(|r| !r.is_expired(options, now_millis));
    let holds = match expect {
        RowExistence::Ignore => true,
        RowExistence::ExpectExist => exists,
        RowExistence::ExpectNotExist => !exists,
    };
    if holds {
        Ok(())
    } else {
        Err(WriteError::ConditionalCheckFailed {
            table: table.to_string(),
            item: None,
        })
    }
}
