//! Reading a Tablestore-model or Spanner-model table's change records: the
//! same [`ReadFrom`] positions (after a `SequenceNumber`, or exactly an
//! in-flight range again) as the DynamoDB model's shard reads, so the
//! pipeline's checkpoint, commit and crash replay are the same for every
//! model. One read per call on the pipeline's thread: no read-ahead (the
//! DynamoDB model's read-ahead is measured on its own workload only).
//!
//! Record shapes ([`TtlModel`]): a Tablestore change record is the engine's
//! DynamoDB-shaped record, written as the Lambda shape by
//! [`Record::from_change`]; a Spanner record is the `DataChangeRecord` JSON
//! in Spanner's field names ("Spanner: Change streams overview").

use ttlstream_engine::spanner::DataChangeRecord;
use ttlstream_engine::{SequenceNumber, StreamPosition};

use super::{ReadFrom, ShardReader, TtlModel};
use crate::error::SourceError;
use crate::record::{Record, RecordContext};

impl ShardReader {
    /// Records of a Tablestore or Spanner table from `from`, at most
    /// `max_records`, each whole (its JSON written).
    pub(super) fn read_model(
        &self,
        from: &ReadFrom,
        max_records: usize,
    ) -> Result<Vec<Record>, SourceError> {
        let (after, until) = match from {
            ReadFrom::TrimHorizon => (None, None),
            ReadFrom::After(sequence) => (Some(self.parse_sequence(sequence)?), None),
            ReadFrom::Range { first, last } => {
                let first = self.parse_sequence(first)?;
                (
                    first.0.checked_sub(1).map(SequenceNumber),
                    Some(self.parse_sequence(last)?),
                )
            }
        };
        let within = |sequence: SequenceNumber| until.is_none_or(|last| sequence <= last);
        match self.model {
            TtlModel::Tablestore => {
                let position = after.map_or(StreamPosition::TrimHorizon, |s| {
                    StreamPosition::AfterSequenceNumber(s)
                });
                let context = RecordContext::new(self.region.as_str(), self.tablestore_arn());
                self.engine
                    .tablestore()
                    .read_stream(&self.table, position, max_records)
                    .map_err(|e| self.stream_error(e))?
                    .iter()
                    .take_while(|change| within(change.sequence_number))
                    .map(|change| Record::from_change(change, &context))
                    .collect()
            }
            TtlModel::Spanner => self
                .engine
                .spanner()
                .read_change_stream(&self.table, after, max_records)
                .map_err(|e| self.stream_error(e))?
                .into_iter()
                .take_while(|entry| within(entry.sequence_number))
                .map(|entry| self.spanner_record(entry.sequence_number, &entry.record))
                .collect(),
            TtlModel::Dynamodb => self.read_now(from, max_records),
        }
    }

    /// The `SequenceNumber` of the table's newest record, `None` when it
    /// has none: where a LATEST start reads after (every model).
    pub(super) fn latest_of_model(&self) -> Result<Option<String>, SourceError> {
        let latest = match self.model {
            TtlModel::Tablestore => self.engine.tablestore().latest_sequence_number(&self.table),
            TtlModel::Spanner => self.engine.spanner().latest_sequence_number(&self.table),
            TtlModel::Dynamodb => self.engine.dynamodb().latest_sequence_number(&self.table),
        };
        Ok(latest
            .map_err(|e| self.stream_error(e))?
            .map(|sequence| sequence.to_string()))
    }

    /// Whether the engine holds the table in this model.
    pub(super) fn has_model_table(&self) -> bool {
        match self.model {
            TtlModel::Dynamodb => self.engine.dynamodb().describe_table(&self.table).is_ok(),
            TtlModel::Tablestore => self.engine.tablestore().describe_table(&self.table).is_ok(),
            TtlModel::Spanner => self.engine.spanner().describe_table(&self.table).is_ok(),
        }
    }

    /// `eventSourceARN` of a Tablestore table's records: the table in
    /// Alibaba Cloud's resource-name form (`acs:ots:{region}:{account}:
    /// instance/{instance}/table/{table}`), with the engine's account and
    /// instance `ttlstream`. Tablestore's stream has no ARN of its own.
    fn tablestore_arn(&self) -> String {
        format!(
            "acs:ots:{}:{}:instance/ttlstream/table/{}",
            self.region,
            ttlstream_engine::STREAM_ARN_ACCOUNT,
            self.table
        )
    }

    /// A Spanner data change record as a [`Record`]: its JSON is the
    /// record's own; its time is `commit_timestamp`; it is a TTL deletion
    /// when the row deletion policy made it, of as many rows as it has
    /// `mods`.
    fn spanner_record(
        &self,
        sequence_number: SequenceNumber,
        record: &DataChangeRecord,
    ) -> Result<Record, SourceError> {
        let error = |message: String| SourceError::Record {
            table: self.table.clone(),
            sequence_number: sequence_number.to_string(),
            message,
        };
        let committed =
            chrono::DateTime::parse_from_rfc3339(&record.commit_timestamp).map_err(|e| {
                error(format!(
                    "commit_timestamp {:?}: {e}",
                    record.commit_timestamp
                ))
            })?;
        let json = serde_json::to_vec(record).map_err(|e| error(e.to_string()))?;
        Ok(Record {
            // One record holds every row of its transaction and table.
            deleted_rows: u32::try_from(record.mods.len()).unwrap_or(u32::MAX),
            ..Record::new(
                record.table_name.clone(),
                sequence_number.to_string(),
                committed.timestamp_millis(),
                record.is_row_deletion_policy_delete(),
                json,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use ttlstream_engine::spanner::{
        SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue, ValueCaptureType,
    };
    use ttlstream_engine::tablestore::{PutColumn, TablestoreTableDefinition};
    use ttlstream_engine::{AttributeValue, Engine, Item, ScalarAttributeType, StreamViewType};

    use super::super::{EngineSource, EngineSourceConfig};
    use super::*;

    /// Sources of a Tablestore table `T` and a Spanner table `S`, each with
    /// five INSERT records.
    fn sources(dir: &std::path::Path) -> [EngineSource; 2] {
        let engine = Engine::open(dir, Default::default()).expect("engine");
        engine
            .tablestore()
            .create_table(
                TablestoreTableDefinition::new("T", "id", ScalarAttributeType::N)
                    .with_stream(StreamViewType::NewImage),
            )
            .expect("tablestore table");
        engine
            .spanner()
            .create_table(
                SpannerTableDefinition::new("S")
                    .column("id", SpannerType::Int64)
                    .primary_key(["id"])
                    .change_stream(ValueCaptureType::NewRow),
            )
            .expect("spanner table");
        for i in 0..5 {
            let key = Item::from(HashMap::from([(
                "id".to_string(),
                AttributeValue::N(i.to_string()),
            )]));
            let cell = PutColumn::new("c", AttributeValue::N(i.to_string()));
            engine
                .tablestore()
                .put_row("T", key, vec![cell])
                .expect("row");
            let row = SpannerRow::from([("id".to_string(), SpannerValue::Int64(i))]);
            engine.spanner().insert_row("S", row).expect("row");
        }
        [("T", TtlModel::Tablestore), ("S", TtlModel::Spanner)].map(|(table, model)| {
            let config = EngineSourceConfig {
                model,
                ..EngineSourceConfig::new(table)
            };
            EngineSource::new(engine.clone(), &config)
        })
    }

    fn numbers(records: &[Record]) -> Vec<String> {
        records.iter().map(|r| r.sequence_number.clone()).collect()
    }

    /// An in-flight range is read again exactly, first and last included,
    /// and a read after a `SequenceNumber` starts right after it.
    #[test]
    fn ranges_and_positions_read_what_they_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        for source in sources(dir.path()) {
            let reader = &source.reader;
            let all = numbers(&reader.read_model(&ReadFrom::TrimHorizon, 10).expect("all"));
            assert_eq!(all.len(), 5, "{:?}", reader.model);
            let range = ReadFrom::Range {
                first: all[1].clone(),
                last: all[3].clone(),
            };
            let again = numbers(&reader.read_model(&range, 10).expect("range"));
            assert_eq!(again, all[1..=3], "{:?}", reader.model);
            let after = ReadFrom::After(all[1].clone());
            let rest = numbers(&reader.read_model(&after, 2).expect("after"));
            assert_eq!(rest, all[2..4], "{:?}", reader.model);
            let latest = reader.latest_of_model().expect("latest");
            assert_eq!(latest.as_ref(), all.last(), "{:?}", reader.model);
            assert!(source.checked().is_ok());
        }
    }

    /// A table of another model is not found: the error names the table
    /// and the model asked for.
    #[test]
    fn a_table_of_another_model_is_not_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let [tablestore, _] = sources(dir.path());
        let config = EngineSourceConfig {
            model: TtlModel::Spanner,
            ..EngineSourceConfig::new("T")
        };
        let source = EngineSource::new(tablestore.reader.engine.clone(), &config);
        let Err(error) = source.checked() else {
            panic!("T is a Tablestore table");
        };
        let message = error.to_string();
        assert!(
            message.contains("`T`") && message.contains("spanner"),
            "{message}"
        );
    }
}
