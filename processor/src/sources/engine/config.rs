//! `[source.engine]`: what the user writes to read a table's stream from the
//! bundled engine.

use std::path::PathBuf;

use serde::Deserialize;

use crate::sources::StartingPosition;

/// `[source.engine]`: read a table's stream from an engine. The engine is
/// the config's `[engine]` (this process owns it and sweeps it,
/// [`crate::engine`]), the one `ttlstream serve --pipeline` serves, or,
/// without either, the one at `data_dir`, opened to read and not swept (an
/// engine's directory is opened by one process at a time, so not one a
/// running `serve` has open).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSourceConfig {
    /// The data directory of an engine to read without sweeping it
    /// (relative paths: against the config file). Required without
    /// `[engine]`; not allowed with it (the source reads `[engine]`'s
    /// database) nor under `ttlstream serve --pipeline` (it reads the
    /// served engine). It must
    /// exist and hold the table: a reader never creates a database.
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
    /// The table whose stream is read. It must exist and have a stream.
    pub table: String,
    /// The TTL model `table` belongs to: `"dynamodb"` (default),
    /// `"tablestore"` or `"spanner"`. The engine keeps each model's tables
    /// apart, so the same name may exist in two models; the model says
    /// which one, and what its records look like ([`TtlModel`]).
    #[serde(default)]
    pub model: TtlModel,
    /// Where to start when there is no checkpoint. Default `TRIM_HORIZON`.
    #[serde(default)]
    pub starting_position: StartingPosition,
    /// `awsRegion` written into records. Default `ddblocal`
    /// ([`ttlstream_engine::STREAM_ARN_REGION`], the region in the engine's
    /// stream ARNs, as DynamoDB Local names it).
    #[serde(default = "default_region")]
    pub region: String,
}

impl EngineSourceConfig {
    /// A `[source.engine]` reading `table` from the config's `[engine]` (or
    /// an engine handed to [`super::EngineSource::new`]), every other key at
    /// its default.
    #[must_use]
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            data_dir: None,
            table: table.into(),
            model: TtlModel::default(),
            starting_position: StartingPosition::default(),
            region: default_region(),
        }
    }
}

pub(super) fn default_region() -> String {
    ttlstream_engine::STREAM_ARN_REGION.to_string()
}

/// The TTL model of the table a `[source.engine]` reads, and so the shape of
/// its records (`model = "..."`; `ttlstream demo --model ...`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TtlModel {
    /// DynamoDB item TTL: the table's DynamoDB Streams records, in the
    /// shape a Lambda function receives them ("Using AWS Lambda with Amazon
    /// DynamoDB"); TTL deletions carry `userIdentity` `Service` /
    /// `dynamodb.amazonaws.com`.
    #[default]
    Dynamodb,
    /// Tablestore table TTL and max versions: the table's change records
    /// as the engine records them, in the same Lambda shape as DynamoDB's
    /// (Tablestore's own stream record, `GetStreamRecord`, is protobuf and
    /// carries no system-deletion tag). A row the sweeper removed once all
    /// its cells expired is a `REMOVE` with `userIdentity` `Service` /
    /// `dynamodb.amazonaws.com`, the engine's system-deletion tag.
    Tablestore,
    /// Spanner row deletion policy: the table's data change records as
    /// Spanner's change stream returns them (the `DataChangeRecord` of
    /// "Spanner: Change streams overview", in Spanner's field names:
    /// `commit_timestamp`, `mod_type`, `mods`, `is_system_transaction`,
    /// `transaction_tag`, ...). Deletions by the policy have
    /// `is_system_transaction: true` and `transaction_tag:
    /// "RowDeletionPolicy"` ("Spanner: About TTL").
    Spanner,
}

impl TtlModel {
    /// The name written in `[source.engine] model`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dynamodb => "dynamodb",
            Self::Tablestore => "tablestore",
            Self::Spanner => "spanner",
        }
    }

    /// The metric the model's TTL deletions are counted under: DynamoDB's
    /// `TimeToLiveDeletedItemCount`, Spanner's
    /// `row_deletion_policy/deleted_rows`, or
    /// [`TABLESTORE_DELETED_ROWS`](crate::metrics::TABLESTORE_DELETED_ROWS).
    #[must_use]
    pub fn ttl_metric_name(self) -> &'static str {
        match self {
            Self::Dynamodb => crate::metrics::TIME_TO_LIVE_DELETED_ITEM_COUNT,
            Self::Tablestore => crate::metrics::TABLESTORE_DELETED_ROWS,
            Self::Spanner => crate::metrics::SPANNER_DELETED_ROWS,
        }
    }
}
