//! Range reads in primary-key order (Tablestore `GetRange`): forward or
//! backward between two primary keys whose columns may be `INF_MIN` /
//! `INF_MAX`, at most `limit` rows per page, with the key to continue from.

use super::Tablestore;
use super::row::{ReadOptions, Row, StoredRow};
use crate::error::ReadError;
use crate::storage::key::encode_key_value;
use crate::storage::{ITEMS, decode_json};
use serde_dynamo::AttributeValue;
use std::cmp::Ordering;

/// The most rows one [`Tablestore::get_range`] page returns (Tablestore's
/// `GetRange` returns at most 5,000 rows per call).
pub const MAX_RANGE_ROWS: usize = 5_000;

/// One primary-key column of a range bound.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum KeyBound {
    /// A value of the column's type.
    Value(AttributeValue),
    /// `INF_MIN`: below every value.
    InfMin,
    /// `INF_MAX`: above every value.
    InfMax,
}

/// Which way a range read goes (Tablestore `Direction`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Direction {
    /// `FORWARD`: ascending keys; the start is the smaller key.
    #[default]
    Forward,
    /// `BACKWARD`: descending keys; the start is the larger key.
    Backward,
}

/// A `GetRange` request: bounds are lists of `(column name, bound)` in the
/// table's primary-key order, one per primary-key column.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeRequest {
    /// Read direction.
    pub direction: Direction,
    /// `inclusive_start_primary_key`.
    pub inclusive_start: Vec<(String, KeyBound)>,
    /// `exclusive_end_primary_key`.
    pub exclusive_end: Vec<(String, KeyBound)>,
    /// Most rows returned (at most [`MAX_RANGE_ROWS`]); `None` = the maximum.
    pub limit: Option<usize>,
    /// Versions and time range per column, as for [`Tablestore::get_row`].
    pub read: ReadOptions,
}

/// One page of a range read.
#[derive(Clone, Debug, PartialEq)]
pub struct RangePage {
    /// Visible rows in the requested direction.
    pub rows: Vec<Row>,
    /// `next_start_primary_key`: where the next page starts; `None` when
    /// the range is exhausted.
    pub next_start_primary_key: Option<serde_dynamo::Item>,
}

/// A bound as encoded key bytes: the encoding of the leading value columns
/// and what the first infinite column (if any) means.
struct EncodedBound {
    prefix: Vec<u8>,
    tail: Option<Ordering>,
}

impl EncodedBound {
    /// How an encoded row key compares with this bound.
    fn cmp_key(&self, key: &[u8]) -> Ordering {
        match self.tail {
            None => key.cmp(&self.prefix),
            // Every key under the prefix is above INF_MIN / below INF_MAX.
            Some(inf) if key.starts_with(&self.prefix) => inf.reverse(),
            Some(_) => key.cmp(&self.prefix),
        }
    }
}

impl Tablestore<'_> {
    /// Reads rows between two primary keys (Tablestore `GetRange`): each
    /// row as [`Tablestore::get_row`] would return it, rows whose cells have
    /// all expired left out.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for a bound
    /// whose columns are not the primary key's, in order, or a value of the
    /// wrong type; [`ReadError::Storage`].
    pub fn get_range(&self, table: &str, request: &RangeRequest) -> Result<RangePage, ReadError> {
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })?;
        let invalid = |message: String| ReadError::Validation {
            table: table.to_string(),
            message,
        };
        let def = &meta.definition;
        let encode = |what: &str, bound: &[(String, KeyBound)]| {
            if bound.len() != def.primary_key.len() {
                return Err(invalid(format!(
                    "{what}: the primary key has {} columns, {} were given",
                    def.primary_key.len(),
                    bound.len()
                )));
            }
            let mut prefix = Vec::new();
            for (k, (name, b)) in def.primary_key.iter().zip(bound) {
                if *name != k.attribute_name {
                    return Err(invalid(format!(
                        "{what}: column `{name}` is not the primary key column `{}` at this position",
                        k.attribute_name
                    )));
                }
                match b {
                    KeyBound::Value(v) => encode_key_value(k.attribute_type, v, &mut prefix)
                        .map_err(|m| invalid(format!("{what}: column `{name}` {m}")))?,
                    KeyBound::InfMin => {
                        return Ok(EncodedBound {
                            prefix,
                            tail: Some(Ordering::Less),
                        });
                    }
                    KeyBound::InfMax => {
                        return Ok(EncodedBound {
                            prefix,
                            tail: Some(Ordering::Greater),
                        });
                    }
                }
            }
            Ok(EncodedBound { prefix, tail: None })
        };
        let start = encode("inclusive_start_primary_key", &request.inclusive_start)?;
        let end = encode("exclusive_end_primary_key", &request.exclusive_end)?;
        let limit = request
            .limit
            .unwrap_or(MAX_RANGE_ROWS)
            .clamp(1, MAX_RANGE_ROWS);
        let now = self.inner.clock.now_millis();
        let forward = request.direction == Direction::Forward;
        let mut rows = Vec::new();
        let scan = self.inner.store.items.prefix(meta.id.to_be_bytes());
        let scan: Box<dyn Iterator<Item = _>> = if forward {
            Box::new(scan)
        } else {
            Box::new(scan.rev())
        };
        for guard in scan {
            let (key, value) = guard.into_inner()?;
            let Some(pk) = key.get(4..) else { continue };
            // Before the start: skip; at or past the end: stop.
            let (before_start, past_end) = if forward {
                (start.cmp_key(pk).is_lt(), end.cmp_key(pk).is_ge())
            } else {
                (start.cmp_key(pk).is_gt(), end.cmp_key(pk).is_le())
            };
            if before_start {
                continue;
            }
            if past_end {
                break;
            }
            let row: StoredRow = decode_json(ITEMS, "Tablestore row", &value)?;
            let Some(visible) = row.read(&def.options, now, &request.read) else {
                continue;
            };
            if rows.len() == limit {
                return Ok(RangePage {
                    rows,
                    next_start_primary_key: Some(visible.primary_key),
                });
            }
            rows.push(visible);
        }
        Ok(RangePage {
            rows,
            next_start_primary_key: None,
        })
    }
}
