//! What differs between the models when the engine source reads a
//! Tablestore-model or Spanner-model table: the records' shape. Their
//! shards are read by the same loop as a DynamoDB table's
//! ([`ShardReader::read_shards`]), from the same [`ReadFrom`] positions
//! (after a `SequenceNumber`, or exactly an in-flight range again), so the
//! pipeline's checkpoint, commit and crash replay are the same for every
//! model. One read per call on the pipeline's thread: no read-ahead (the
//! DynamoDB model's read-ahead is measured on its own workload only).
//!
//! Record shapes ([`TtlModel`]): a Tablestore change record is the engine's
//! DynamoDB-shaped record, written as the Lambda shape with the table's
//! `acs:ots:` eventSourceARN ([`ShardReader::tablestore_arn`]); a Spanner
//! record is the `DataChangeRecord` JSON in Spanner's field names
//! ("Spanner: Change streams overview").

use ttlstream_engine::SequenceNumber;
use ttlstream_engine::spanner::{DataChangeRecord, SpannerStreamEntry};

use super::shards::ModelShard;
use super::{ReadFrom, ShardReader, TtlModel};
use crate::error::SourceError;
use crate::record::Record;

impl ShardReader {
    /// Records of a Spanner table from `from`, at most `max_records`, read
    /// partition by partition by the one read loop
    /// ([`ShardReader::read_shards`]), each data change record whole.
    pub(super) fn read_spanner(
        &self,
        from: &ReadFrom,
        max_records: usize,
    ) -> Result<Vec<Record>, SourceError> {
        let spanner = self.engine.spanner();
        let mut entries = Vec::new();
        self.read_shards(
            from,
            max_records,
            &mut entries,
            |partition: &ModelShard, position, want| {
                spanner.read_partition(&self.table, partition.shard_id(), position, want)
            },
            |entry: &SpannerStreamEntry| entry.sequence_number,
            |_, entry| entry,
        )?;
        entries
            .iter()
            .map(|entry| self.spanner_record(entry.sequence_number, &entry.record))
            .collect()
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
    pub(super) fn tablestore_arn(&self) -> String {
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
    use ttlstream_engine::{
        AttributeValue, Engine, EngineOptions, Item, ScalarAttributeType, StreamOptions,
        StreamViewType,
    };

    use crate::checkpoint::{Checkpoint, InFlight};
    use crate::sources::{ReadLimits, Source};

    use super::super::{EngineSource, EngineSourceConfig};
    use super::*;

    /// Sources of a Tablestore table `T` and a Spanner table `S`, each with
    /// five INSERT records.
    fn sources(dir: &std::path::Path) -> [EngineSource; 2] {
        sources_with(dir, EngineOptions::default(), 5)
    }

    /// Sources of a Tablestore table `T` and a Spanner table `S` in an
    /// engine opened with `options`, each with `rows` INSERT records.
    fn sources_with(dir: &std::path::Path, options: EngineOptions, rows: i64) -> [EngineSource; 2] {
        let engine = Engine::open(dir, options).expect("engine");
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
        for i in 0..rows {
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
            let all = numbers(&reader.read_now(&ReadFrom::TrimHorizon, 10).expect("all"));
            assert_eq!(all.len(), 5, "{:?}", reader.model);
            let range = ReadFrom::Range {
                first: all[1].clone(),
                last: all[3].clone(),
            };
            let again = numbers(&reader.read_now(&range, 10).expect("range"));
            assert_eq!(again, all[1..=3], "{:?}", reader.model);
            let after = ReadFrom::After(all[1].clone());
            let rest = numbers(&reader.read_now(&after, 2).expect("after"));
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

    /// The sequence numbers of the table's records as the engine keeps them
    /// (its unsharded read), and the shards they are in.
    fn kept(source: &EngineSource) -> (Vec<String>, usize) {
        let (engine, table) = (&source.reader.engine, source.reader.table.as_str());
        match source.reader.model {
            TtlModel::Tablestore => {
                let records = engine
                    .tablestore()
                    .read_stream(table, ttlstream_engine::StreamPosition::TrimHorizon, 100)
                    .expect("records");
                let shards = engine.tablestore().describe_stream(table).expect("shards");
                let numbers = records.iter().map(|r| r.sequence_number.to_string());
                (numbers.collect(), shards.len())
            }
            _ => {
                let entries = engine
                    .spanner()
                    .read_change_stream(table, None, 100)
                    .expect("records");
                let partitions = engine
                    .spanner()
                    .change_stream_partitions(table)
                    .expect("partitions");
                let numbers = entries.iter().map(|e| e.sequence_number.to_string());
                (numbers.collect(), partitions.len())
            }
        }
    }

    /// With 3 records per shard, 10 records of a Tablestore table and of a
    /// Spanner table span four shards each. The source, reading 2 records
    /// at a time from its checkpoint, reads every record exactly once in
    /// order across the rotations; an in-flight range replayed after a
    /// crash across a shard boundary is exactly the same records; and
    /// Tablestore records keep their `acs:ots:` eventSourceARN.
    #[tokio::test]
    async fn every_record_is_read_once_across_shard_rotations() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = EngineOptions {
            stream: StreamOptions {
                max_records_per_shard: 3,
                ..StreamOptions::default()
            },
            ..EngineOptions::default()
        };
        let limits = ReadLimits {
            max_records: 2,
            max_bytes: usize::MAX,
        };
        for mut source in sources_with(dir.path(), options.clone(), 10) {
            let model = source.reader.model;
            let (expected, shards) = kept(&source);
            assert_eq!((expected.len(), shards), (10, 4), "{model:?}");
            let mut checkpoint = Checkpoint::default();
            let mut read = Vec::new();
            let mut batches = Vec::new();
            loop {
                let batch = source.read(&checkpoint, limits).await.expect("read");
                if batch.records.is_empty() {
                    break;
                }
                assert!(batch.records.len() <= 2);
                checkpoint.sequence_number =
                    batch.records.last().map(|r| r.sequence_number.clone());
                read.extend(numbers(&batch.records));
                batches.push(batch.records);
            }
            assert_eq!(read, expected, "{model:?}: each record once, in order");
            if model == TtlModel::Tablestore {
                let json = String::from_utf8(batches[0][0].json.clone()).expect("utf-8");
                assert!(json.contains("\"eventSourceARN\":\"acs:ots:"), "{json}");
            }
            // Records 3 and 4 (0-based) are in the first and second shards.
            let crashed = Checkpoint {
                sequence_number: Some(expected[1].clone()),
                in_flight: Some(InFlight {
                    first: expected[2].clone(),
                    last: expected[4].clone(),
                    partition: None,
                }),
                ..Checkpoint::default()
            };
            let limits = ReadLimits {
                max_records: 100,
                ..limits
            };
            let replay = source.read(&crashed, limits).await.expect("replay");
            assert_eq!(numbers(&replay.records), expected[2..=4], "{model:?}");
            let first_read: Vec<&Record> = batches.iter().flatten().skip(2).take(3).collect();
            for (again, before) in replay.records.iter().zip(first_read) {
                assert_eq!(again.json, before.json, "{model:?}: the same record");
            }
        }
    }
}
