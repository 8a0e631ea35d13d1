//! Rows of cell versions, and which versions a read may see
//! ("Tablestore: Data versions and TTL").
//!
//! A stored row keeps every written version of every attribute column until
//! the sweeper removes it. Reads apply the table's current options to the
//! stored versions, so a version that is expired, or older than the newest
//! `max_versions`, is invisible at once — and visible again if the options
//! are relaxed before the sweeper has removed it.

use super::options::TablestoreOptions;
use serde::{Deserialize, Serialize};
use serde_dynamo::{AttributeValue, Item};
use std::collections::{BTreeMap, HashMap};

/// One version of an attribute column's value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The version: a timestamp in epoch **milliseconds**.
    pub version_millis: i64,
    /// The value (any DynamoDB attribute value).
    pub value: AttributeValue,
}

/// A row as a read returns it: the primary key, and for each attribute
/// column the visible versions, newest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The primary key columns.
    pub primary_key: Item,
    /// Attribute columns; each list is sorted by `version_millis`, newest
    /// first, and never empty.
    pub columns: BTreeMap<String, Vec<Cell>>,
}

/// What a read asks for (Tablestore `GetRow`'s `max_versions` / `time_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Most versions returned per column (newest first); at least 1.
    /// Default: 1.
    pub max_versions: u32,
    /// Only versions in this range; `None` = all visible versions.
    pub time_range: Option<TimeRange>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            max_versions: 1,
            time_range: None,
        }
    }
}

/// A version range `[start_millis, end_millis)` in epoch milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRange {
    /// Inclusive lower bound, epoch ms.
    pub start_millis: i64,
    /// Exclusive upper bound, epoch ms.
    pub end_millis: i64,
}

/// The stored form of a row (`items` value, JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredRow {
    /// Primary key columns.
    pub primary_key: Item,
    /// Every version not yet removed, newest first per column.
    pub columns: BTreeMap<String, Vec<Cell>>,
}

impl StoredRow {
    /// Adds (or overwrites, for an equal version) a version of `column`.
    pub fn insert(&mut self, column: &str, cell: Cell) {
        let versions = self.columns.entry(column.to_string()).or_default();
        match versions.binary_search_by(|c| cell.version_millis.cmp(&c.version_millis)) {
            Ok(i) => versions[i] = cell,
            Err(i) => versions.insert(i, cell),
        }
    }

    /// The versions of each column the table's options let a read see at
    /// `now_millis`: the newest `max_versions`, minus expired ones.
    pub fn visible(
        &self,
        options: &TablestoreOptions,
        now_millis: i64,
    ) -> BTreeMap<String, Vec<Cell>> {
        let mut out = BTreeMap::new();
        for (name, versions) in &self.columns {
            let kept: Vec<Cell> = versions
                .iter()
                .take(options.max_versions as usize)
                .filter(|c| !options.is_version_expired(c.version_millis, now_millis))
                .cloned()
                .collect();
            if !kept.is_empty() {
                out.insert(name.clone(), kept);
            }
        }
        out
    }

    /// Whether the row is gone to readers: it has attribute columns, and
    /// none of their versions is visible. (A row with only a primary key has
    /// nothing that can expire.)
    pub fn is_expired(&self, options: &TablestoreOptions, now_millis: i64) -> bool {
        !self.columns.is_empty() && self.visible(options, now_millis).is_empty()
    }

    /// The row a read sees, or `None` if [`StoredRow::is_expired`].
    pub fn read(
        &self,
        options: &TablestoreOptions,
        now_millis: i64,
        read: &ReadOptions,
    ) -> Option<Row> {
        if self.is_expired(options, now_millis) {
            return None;
        }
        let mut columns = BTreeMap::new();
        for (name, versions) in self.visible(options, now_millis) {
            let kept: Vec<Cell> = versions
                .into_iter()
                .filter(|c| {
                    read.time_range.is_none_or(|r| {
                        c.version_millis >= r.start_millis && c.version_millis < r.end_millis
                    })
                })
                .take(read.max_versions.max(1) as usize)
                .collect();
            if !kept.is_empty() {
                columns.insert(name, kept);
            }
        }
        Some(Row {
            primary_key: self.primary_key.clone(),
            columns,
        })
    }

    /// Removes every version a read can no longer see; returns how many.
    pub fn prune(&mut self, options: &TablestoreOptions, now_millis: i64) -> usize {
        let before: usize = self.columns.values().map(Vec::len).sum();
        let visible = self.visible(options, now_millis);
        let after: usize = visible.values().map(Vec::len).sum();
        self.columns = visible;
        before - after
    }

    /// The primary key plus the newest stored version of each column, as a
    /// DynamoDB item (the image carried by change records).
    pub fn latest_image(&self) -> Item {
        let mut map: HashMap<String, AttributeValue> = self.primary_key.clone().into();
        for (name, versions) in &self.columns {
            if let Some(c) = versions.first() {
                map.insert(name.clone(), c.value.clone());
            }
        }
        map.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(versions: &[i64]) -> StoredRow {
        let mut r = StoredRow::default();
        for &v in versions {
            r.insert(
                "c",
                Cell {
                    version_millis: v,
                    value: AttributeValue::N(v.to_string()),
                },
            );
        }
        r
    }

    #[test]
    fn versions_are_kept_newest_first_and_overwritten_by_equal_version() {
        let mut r = row(&[5, 9, 7]);
        r.insert(
            "c",
            Cell {
                version_millis: 7,
                value: AttributeValue::S("x".into()),
            },
        );
        let got: Vec<i64> = r.columns["c"].iter().map(|c| c.version_millis).collect();
        assert_eq!(got, vec![9, 7, 5]);
        assert_eq!(r.columns["c"][1].value, AttributeValue::S("x".into()));
    }

    #[test]
    fn prune_removes_what_reads_cannot_see() {
        let options = TablestoreOptions {
            max_versions: 2,
            ..TablestoreOptions::default()
        };
        let mut r = row(&[1, 2, 3]);
        assert_eq!(r.prune(&options, 10), 1);
        assert_eq!(r.columns["c"].len(), 2);
    }
}
