//! `ReturnConsumedCapacity`: the capacity units a request would consume in
//! DynamoDB ("Read/write capacity mode": a read unit is one strongly
//! consistent read of up to 4 KB, half of it eventually consistent; a write
//! unit is one write of up to 1 KB; a write is billed by the larger of the
//! item before and after it; a Query or Scan by the total size of the
//! items it read). Nothing is throttled: the figures are reported only.

use super::error::{ApiError, enum_constraint};
use serde_json::{Value, json};

/// Which `ConsumedCapacity` a request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Report {
    /// `NONE` or absent.
    None,
    /// `TOTAL`: the table's units.
    Total,
    /// `INDEXES`: the table's units, and the same figure as `Table` (index
    /// writes are not counted apart).
    Indexes,
}

/// Parses `ReturnConsumedCapacity`.
///
/// # Errors
///
/// A `ValidationException` for a value outside `INDEXES`, `TOTAL`, `NONE`.
pub(super) fn report(text: Option<&str>) -> Result<Report, ApiError> {
    match text {
        None | Some("NONE") => Ok(Report::None),
        Some("TOTAL") => Ok(Report::Total),
        Some("INDEXES") => Ok(Report::Indexes),
        Some(other) => Err(enum_constraint(
            other,
            "returnConsumedCapacity",
            &["INDEXES", "TOTAL", "NONE"],
        )),
    }
}

/// Read units for `bytes` read (at least one 4 KB unit).
pub(super) fn read_units(bytes: u64, consistent: bool) -> f64 {
    let units = bytes.div_ceil(4096).max(1) as f64;
    if consistent { units } else { units / 2.0 }
}

/// Write units for an item of `bytes` (at least one 1 KB unit).
pub(super) fn write_units(bytes: u64) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

/// The `ConsumedCapacity` object, or `None` when not asked for.
pub(super) fn consumed(report: Report, table: &str, units: f64) -> Option<Value> {
    match report {
        Report::None => None,
        Report::Total => Some(json!({ "TableName": table, "CapacityUnits": units })),
        Report::Indexes => Some(json!({
            "TableName": table,
            "CapacityUnits": units,
            "Table": { "CapacityUnits": units },
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_round_up_as_dynamodb_bills() {
        assert_eq!(read_units(1, true), 1.0);
        assert_eq!(read_units(4096, true), 1.0);
        assert_eq!(read_units(4097, true), 2.0);
        assert_eq!(read_units(4097, false), 1.0);
        assert_eq!(write_units(0), 1.0);
        assert_eq!(write_units(1025), 2.0);
    }
}
