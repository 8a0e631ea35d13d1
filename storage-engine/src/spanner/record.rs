//! Spanner data change records ("Spanner: Change streams overview", data
//! change records; the `DataChangeRecord` message of the Spanner API).

use super::value::parse_rfc3339_millis;
use crate::error::StorageError;
use crate::storage::{STREAM, corrupt, decode_json};
use crate::stream::record::SequenceNumber;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `transaction_tag` of deletions made by a row deletion policy.
pub const ROW_DELETION_POLICY_TAG: &str = "RowDeletionPolicy";

/// The `commit_timestamp` (epoch ms) of a stored data change record, for
/// stream retention (`stream/shards/trim.rs`).
///
/// # Errors
///
/// [`StorageError::Corrupt`] for a record that does not decode or whose
/// `commit_timestamp` is not RFC 3339 with milliseconds.
pub(crate) fn record_time_millis(value: &[u8]) -> Result<i64, StorageError> {
    /// Only the field the trim needs (serde passes over the mods).
    #[derive(Deserialize)]
    struct CommitTimestamp {
        commit_timestamp: String,
    }
    let record: CommitTimestamp = decode_json(STREAM, "data change record", value)?;
    parse_rfc3339_millis(&record.commit_timestamp).ok_or_else(|| {
        let message = format!(
            "commit_timestamp {:?} is not RFC 3339 with milliseconds",
            record.commit_timestamp
        );
        corrupt(STREAM, "data change record", message)
    })
}

/// What a change stream records of each change (`value_capture_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ValueCaptureType {
    /// Old and new values of the changed columns.
    OldAndNewValues,
    /// New values of the changed columns only.
    NewValues,
    /// The whole new row, no old values.
    NewRow,
    /// The whole new row and the old values of changed columns.
    NewRowAndOldValues,
}

impl ValueCaptureType {
    /// Whether `old_values` are recorded.
    pub fn includes_old_values(self) -> bool {
        matches!(self, Self::OldAndNewValues | Self::NewRowAndOldValues)
    }
}

/// `mod_type` of a data change record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ModType {
    /// Rows inserted.
    Insert,
    /// Rows updated.
    Update,
    /// Rows deleted (by a user or by a row deletion policy).
    Delete,
}

/// A column's type as records carry it: `{"code": "INT64"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeCode {
    /// `"INT64"`, `"STRING"`, `"TIMESTAMP"`, ...
    pub code: String,
}

/// One entry of `column_types`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnType {
    /// Column name.
    pub name: String,
    /// Column type.
    pub r#type: TypeCode,
    /// Whether the column is part of the primary key.
    pub is_primary_key: bool,
    /// 1-based position in the table definition.
    pub ordinal_position: u32,
}

/// One changed row (`mods[]`): values in their JSON form (INT64 as a
/// decimal string, TIMESTAMP as RFC 3339, BYTES as base64).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mod {
    /// Primary key columns.
    pub keys: Map<String, Value>,
    /// New values of non-key columns (`{}` for a DELETE).
    pub new_values: Map<String, Value>,
    /// Old values of non-key columns, if the capture type includes them.
    pub old_values: Map<String, Value>,
}

/// A data change record: the changes of one transaction to one table with
/// one `mod_type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataChangeRecord {
    /// Commit time, RFC 3339 UTC with milliseconds.
    pub commit_timestamp: String,
    /// 8-digit position of this record within its transaction (`"00000000"`).
    pub record_sequence: String,
    /// Unique id of the transaction (the engine sequence number of its first
    /// record, decimal).
    pub server_transaction_id: String,
    /// Whether this is the transaction's last record (one partition here).
    pub is_last_record_in_transaction_in_partition: bool,
    /// The table changed.
    pub table_name: String,
    /// The table's columns.
    pub column_types: Vec<ColumnType>,
    /// The changed rows.
    pub mods: Vec<Mod>,
    /// INSERT, UPDATE or DELETE.
    pub mod_type: ModType,
    /// The table's capture type.
    pub value_capture_type: ValueCaptureType,
    /// Records in the transaction.
    pub number_of_records_in_transaction: u32,
    /// Always 1 (one partition).
    pub number_of_partitions_in_transaction: u32,
    /// `"RowDeletionPolicy"` for policy deletions, `""` for user writes.
    pub transaction_tag: String,
    /// `true` only for deletions by a row deletion policy.
    pub is_system_transaction: bool,
}

impl DataChangeRecord {
    /// Whether this is a TTL deletion by a row deletion policy.
    pub fn is_row_deletion_policy_delete(&self) -> bool {
        self.mod_type == ModType::Delete
            && self.is_system_transaction
            && self.transaction_tag == ROW_DELETION_POLICY_TAG
    }
}

/// A record with its position in the engine's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpannerStreamEntry {
    /// Strictly increasing engine sequence number (the read checkpoint).
    pub sequence_number: SequenceNumber,
    /// The record.
    pub record: DataChangeRecord,
}
