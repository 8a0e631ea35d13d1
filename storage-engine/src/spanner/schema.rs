//! Spanner table definitions: columns, primary key, interleaving, secondary
//! indexes, the row deletion policy and the change stream's value capture
//! type ("Spanner: Schema and data model", "Spanner: About TTL").

use super::ddl::RowDeletionPolicy;
use super::record::ValueCaptureType;
use super::value::{SpannerType, SpannerValue};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A row: column name to value. A column left out is NULL.
pub type SpannerRow = BTreeMap<String, SpannerValue>;

/// A column and its type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpannerColumn {
    /// Column name (1 to 128 bytes).
    pub name: String,
    /// Its type.
    pub spanner_type: SpannerType,
}

/// A secondary index (`CREATE INDEX name ON table (columns)`), maintained in
/// the same atomic batch as every row change, including policy deletions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpannerIndex {
    /// Index name.
    pub index_name: String,
    /// Indexed columns, in order.
    pub columns: Vec<String>,
}

/// A Spanner-model table (`CREATE TABLE`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpannerTableDefinition {
    /// Table name: 1 to 128 bytes of `a-z A-Z 0-9 _`.
    pub table_name: String,
    /// Columns, in order.
    pub columns: Vec<SpannerColumn>,
    /// Primary key column names, in key order (never FLOAT64; never NULL).
    pub primary_key: Vec<String>,
    /// `INTERLEAVE IN PARENT <table> ON DELETE CASCADE`: this table's primary
    /// key starts with the parent's, and deleting a parent row deletes its
    /// child rows in the same atomic batch.
    pub interleave_in_parent: Option<String>,
    /// At most one row deletion policy.
    pub row_deletion_policy: Option<RowDeletionPolicy>,
    /// Secondary indexes.
    pub indexes: Vec<SpannerIndex>,
    /// `None`: no change stream; `Some(v)`: writes and policy deletions
    /// append [`DataChangeRecord`](super::DataChangeRecord)s with this
    /// value capture type.
    pub value_capture_type: Option<ValueCaptureType>,
}

impl SpannerTableDefinition {
    /// An empty definition named `table_name`; add columns and a key.
    pub fn new(table_name: impl Into<String>) -> Self {
        Self {
            table_name: table_name.into(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            interleave_in_parent: None,
            row_deletion_policy: None,
            indexes: Vec::new(),
            value_capture_type: None,
        }
    }

    /// Builder-style: adds a column.
    #[must_use]
    pub fn column(mut self, name: impl Into<String>, spanner_type: SpannerType) -> Self {
        self.columns.push(SpannerColumn {
            name: name.into(),
            spanner_type,
        });
        self
    }

    /// Builder-style: sets the primary key columns.
    #[must_use]
    pub fn primary_key<S: Into<String>>(mut self, columns: impl IntoIterator<Item = S>) -> Self {
        self.primary_key = columns.into_iter().map(Into::into).collect();
        self
    }

    /// Builder-style: `INTERLEAVE IN PARENT parent ON DELETE CASCADE`.
    #[must_use]
    pub fn interleave_in_parent(mut self, parent: impl Into<String>) -> Self {
        self.interleave_in_parent = Some(parent.into());
        self
    }

    /// Builder-style: sets the row deletion policy.
    #[must_use]
    pub fn row_deletion_policy(mut self, policy: RowDeletionPolicy) -> Self {
        self.row_deletion_policy = Some(policy);
        self
    }

    /// Builder-style: adds a secondary index.
    #[must_use]
    pub fn index<S: Into<String>>(
        mut self,
        index_name: impl Into<String>,
        columns: impl IntoIterator<Item = S>,
    ) -> Self {
        self.indexes.push(SpannerIndex {
            index_name: index_name.into(),
            columns: columns.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Builder-style: watches the table with a change stream.
    #[must_use]
    pub fn change_stream(mut self, value_capture_type: ValueCaptureType) -> Self {
        self.value_capture_type = Some(value_capture_type);
        self
    }

    /// The type of column `name`.
    pub fn column_type(&self, name: &str) -> Option<SpannerType> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.spanner_type)
    }

    /// Checks names, key, indexes, policy and interleaving against `parent`.
    pub(crate) fn validate(&self, parent: Option<&SpannerTableDefinition>) -> Result<(), String> {
        let ident_ok = |s: &str| {
            !s.is_empty()
                && s.len() <= 128
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        };
        if !ident_ok(&self.table_name) {
            return Err("table names are 1 to 128 characters of a-z A-Z 0-9 _".into());
        }
        for (i, c) in self.columns.iter().enumerate() {
            if c.name.is_empty() || c.name.len() > 128 {
                return Err(format!("column {i}: names are 1 to 128 bytes"));
            }
            if self.columns[..i].iter().any(|p| p.name == c.name) {
                return Err(format!("column `{}` is declared twice", c.name));
            }
        }
        if self.primary_key.is_empty() {
            return Err("the primary key needs at least one column".into());
        }
        for k in &self.primary_key {
            match self.column_type(k) {
                None => return Err(format!("primary key column `{k}` is not a column")),
                Some(SpannerType::Float64) => {
                    return Err(format!(
                        "primary key column `{k}` is FLOAT64; keys cannot be"
                    ));
                }
                Some(_) => {}
            }
        }
        for ix in &self.indexes {
            if ix.index_name.is_empty() || ix.columns.is_empty() {
                return Err("an index needs a name and at least one column".into());
            }
            if let Some(c) = ix.columns.iter().find(|c| self.column_type(c).is_none()) {
                return Err(format!("index `{}`: `{c}` is not a column", ix.index_name));
            }
        }
        if let Some(p) = &self.row_deletion_policy {
            check_policy(self, p)?;
        }
        match (&self.interleave_in_parent, parent) {
            (None, _) => Ok(()),
            (Some(name), None) => Err(format!("parent table `{name}` does not exist")),
            (Some(name), Some(parent)) => {
                let prefix_ok = parent.primary_key.len() < self.primary_key.len()
                    && parent.primary_key.iter().enumerate().all(|(i, k)| {
                        self.primary_key[i] == *k && self.column_type(k) == parent.column_type(k)
                    });
                if prefix_ok {
                    Ok(())
                } else {
                    Err(format!(
                        "an interleaved table's primary key must start with the primary key of `{name}` ({}) and add columns",
                        parent.primary_key.join(", ")
                    ))
                }
            }
        }
    }

    /// The encoded primary key of `row`.
    pub(crate) fn encode_key_of(&self, row: &SpannerRow) -> Result<Vec<u8>, String> {
        let values: Vec<SpannerValue> = self
            .primary_key
            .iter()
            .map(|k| row.get(k).cloned().unwrap_or(SpannerValue::Null))
            .collect();
        self.encode_key(&values)
    }

    /// The encoding of a full primary key given as values in key order.
    pub(crate) fn encode_key(&self, key: &[SpannerValue]) -> Result<Vec<u8>, String> {
        if key.len() != self.primary_key.len() {
            return Err(format!(
                "the primary key has {} columns ({}), {} values were given",
                self.primary_key.len(),
                self.primary_key.join(", "),
                key.len()
            ));
        }
        let mut out = Vec::new();
        for (name, v) in self.primary_key.iter().zip(key) {
            let ty = self.column_type(name);
            if matches!(v, SpannerValue::Null) || !ty.is_some_and(|t| v.fits(t)) {
                return Err(format!(
                    "primary key column `{name}` needs a non-NULL {} value",
                    ty.map_or("?", SpannerType::as_str)
                ));
            }
            v.encode_key(&mut out);
        }
        Ok(out)
    }

    /// The expiry timestamp (epoch ms) of `row` under the current policy:
    /// `None` if no policy or the column is NULL (never expires).
    pub(crate) fn policy_timestamp(&self, row: &SpannerRow) -> Option<i64> {
        let p = self.row_deletion_policy.as_ref()?;
        match row.get(&p.column) {
            Some(SpannerValue::Timestamp(ms)) => Some(*ms),
            _ => None,
        }
    }
}

/// The policy's column must exist and be a TIMESTAMP.
pub(crate) fn check_policy(
    def: &SpannerTableDefinition,
    p: &RowDeletionPolicy,
) -> Result<(), String> {
    match def.column_type(&p.column) {
        Some(SpannerType::Timestamp) => Ok(()),
        Some(t) => Err(format!(
            "row deletion policy column `{}` is {}, not TIMESTAMP",
            p.column,
            t.as_str()
        )),
        None => Err(format!(
            "row deletion policy column `{}` is not a column",
            p.column
        )),
    }
}
