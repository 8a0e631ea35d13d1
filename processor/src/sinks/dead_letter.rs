//! Dead letters: a record a sink could not take after its retries, wrapped with
//! the error and the sink's name, for the sink named by `[dead_letter] sink`.
//!
//! Each dead letter is one JSON line:
//! `{"sink":"archive","error":"sink archive: PutObject ...","record":{...Lambda record...}}`.
//! It keeps the original record's table, `SequenceNumber` and time, so the
//! dead-letter sink names its files or objects after the same range and a
//! replayed batch overwrites its dead letters too.

use serde::Deserialize;

use crate::record::Record;

/// `[dead_letter]`: where records go that a sink could not take.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadLetterConfig {
    /// A sink under `[sinks.<name>]` (file, or S3 with a key template without
    /// `{keys...}`), not used by any route.
    pub sink: String,
}

/// The dead letter of `record` that `sink` failed to write with `error`.
pub fn envelope(record: &Record, sink: &str, error: &str) -> Record {
    let mut json = Vec::with_capacity(record.json.len() + error.len() + sink.len() + 40);
    json.extend_from_slice(b"{\"sink\":");
    json.extend_from_slice(&serde_json::to_vec(sink).unwrap_or_default());
    json.extend_from_slice(b",\"error\":");
    json.extend_from_slice(&serde_json::to_vec(error).unwrap_or_default());
    json.extend_from_slice(b",\"record\":");
    json.extend_from_slice(&record.json);
    json.push(b'}');
    Record::new(
        record.table_name.clone(),
        record.sequence_number.clone(),
        record.approximate_creation_millis,
        record.is_ttl_deletion,
        json,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_json_holding_the_record_sink_and_error() {
        let record = Record::new(
            "T".into(),
            "5".into(),
            7,
            true,
            br#"{"eventName":"REMOVE"}"#.to_vec(),
        );
        let letter = envelope(&record, "archive", "sink archive: \"down\"");
        let value: serde_json::Value = serde_json::from_slice(&letter.json).expect("JSON");
        assert_eq!(value["sink"], "archive");
        assert_eq!(value["error"], "sink archive: \"down\"");
        assert_eq!(value["record"]["eventName"], "REMOVE");
        assert_eq!(letter.sequence_number, "5");
    }
}
