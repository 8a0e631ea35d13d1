//! The demo's tables and rows for each TTL model (`ttlstream demo --model`):
//! what is created and written before the clock runs, how many rows the TTL
//! will delete, and what is left at the end.
//!
//! * DynamoDB: the guide's `SessionData` ([`super::items`]).
//! * Tablestore ("Tablestore: Data versions and TTL"): a table with
//!   `time_to_live` 86,400 s and `max_versions` 2, whose rows' cells carry
//!   versions spread over the day before the clock starts, so they expire
//!   over the accelerated day; each row's `PagesViewed` gets three versions,
//!   the oldest hidden at once by `max_versions` (and pruned without a
//!   record); a row goes, with one system-deletion record, when its last
//!   cell has expired.
//! * Spanner ("Spanner: About TTL", its `Singers` / `Albums` example):
//!   `Singers` with `ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 1
//!   DAY))`, `Albums` `INTERLEAVE IN PARENT Singers ON DELETE CASCADE` with
//!   the index `AlbumsByAlbumTitle`; `CreatedAt` spread over the day before
//!   the clock starts, two albums per singer. The policy's deletions of
//!   `Singers` are archived; the albums go with their singer.

use std::collections::HashMap;

use ttlstream_engine::spanner::{
    RowDeletionPolicy, SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue,
    ValueCaptureType,
};
use ttlstream_engine::tablestore::{
    PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition,
};
use ttlstream_engine::{AttributeValue, Engine, Item, ScalarAttributeType, StreamViewType};

use super::{DemoError, engine_error, items};
use crate::sources::engine::TtlModel;

/// A day in milliseconds: the Tablestore table's TTL and the Spanner
/// policy's interval.
const DAY_MILLIS: i64 = 86_400_000;

/// The table each model's demo archives.
pub(super) fn table(model: TtlModel) -> &'static str {
    match model {
        TtlModel::Dynamodb | TtlModel::Tablestore => super::TABLE,
        TtlModel::Spanner => "Singers",
    }
}

/// The summary's first line: the tables the demo made.
pub(super) fn description(model: TtlModel) -> &'static str {
    match model {
        TtlModel::Dynamodb => {
            "table SessionData (UserName, SessionId), TTL attribute ExpirationTime, stream OLD_IMAGE"
        }
        TtlModel::Tablestore => {
            "Tablestore table SessionData (UserName), time_to_live 86400 s, max_versions 2, stream OLD_IMAGE"
        }
        TtlModel::Spanner => {
            "Spanner table Singers, ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 1 DAY)); Albums INTERLEAVE IN PARENT Singers ON DELETE CASCADE, index AlbumsByAlbumTitle"
        }
    }
}

/// The filter file each model's demo archives through, and its name.
pub(super) fn filter(model: TtlModel) -> (&'static str, &'static str) {
    match model {
        TtlModel::Dynamodb => ("ttl-system-deletes.json", super::TTL_FILTER),
        TtlModel::Tablestore => (
            "tablestore-ttl-deletes.json",
            include_str!("../../../deploy/filters/tablestore-ttl-deletes.json"),
        ),
        TtlModel::Spanner => (
            "spanner-row-deletion-policy.json",
            include_str!("../../../deploy/filters/spanner-row-deletion-policy.json"),
        ),
    }
}

/// What was written: rows the TTL will delete, and when the last expires
/// (epoch seconds).
pub(super) struct Loaded {
    pub rows: u64,
    pub last_expiry_secs: i64,
}

/// Creates the model's tables and writes `items` rows (the DynamoDB model:
/// the guide's five items besides), the clock held at the seed's
/// `CreationTime`.
pub(super) fn load(engine: &Engine, model: TtlModel, items: u64) -> Result<Loaded, DemoError> {
    match model {
        TtlModel::Dynamodb => super::load_session_data(engine, items),
        TtlModel::Tablestore => load_tablestore(engine, items),
        TtlModel::Spanner => load_spanner(engine, items),
    }
}

/// The start of row `index` of `count`'s life: spread over the day before
/// the clock starts, from one second after its start, epoch ms.
fn spread_over_the_day_before(index: u64, count: u64) -> i64 {
    let start = items::SEED_CREATION_TIME_SECS * 1000;
    let offset = i128::from(index) * i128::from(DAY_MILLIS - 10_000) / i128::from(count.max(1));
    start - DAY_MILLIS + 1000 + i64::try_from(offset).unwrap_or(0)
}

fn load_tablestore(engine: &Engine, rows: u64) -> Result<Loaded, DemoError> {
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new(super::TABLE, "UserName", ScalarAttributeType::S)
                .with_options(TablestoreOptions {
                    time_to_live_secs: 86_400,
                    max_versions: 2,
                    max_time_deviation_secs: 86_400,
                })
                .with_stream(StreamViewType::OldImage),
        )
        .map_err(engine_error)?;
    let mut last_version = 0;
    for i in 0..rows {
        let first = spread_over_the_day_before(i, rows);
        let key = Item::from(HashMap::from([(
            "UserName".to_string(),
            AttributeValue::S(format!("user{i:07}")),
        )]));
        let device = ["browser", "mobile", "tablet"][(i % 3) as usize];
        let mut cells = vec![PutColumn::at(
            "Device",
            AttributeValue::S(device.into()),
            first,
        )];
        // Three versions; max_versions 2 hides the oldest at once.
        for (n, version) in [first, first + 1000, first + 2000].into_iter().enumerate() {
            let pages = AttributeValue::N((i % 40 + n as u64).to_string());
            cells.push(PutColumn::at("PagesViewed", pages, version));
        }
        engine
            .tablestore()
            .put_row(super::TABLE, key, cells)
            .map_err(engine_error)?;
        last_version = first + 2000;
    }
    Ok(Loaded {
        rows,
        last_expiry_secs: (last_version + DAY_MILLIS).div_euclid(1000) + 1,
    })
}

fn load_spanner(engine: &Engine, singers: u64) -> Result<Loaded, DemoError> {
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Singers")
                .column("SingerId", SpannerType::Int64)
                .column("FirstName", SpannerType::String)
                .column("LastName", SpannerType::String)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["SingerId"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1))
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .map_err(engine_error)?;
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Albums")
                .column("SingerId", SpannerType::Int64)
                .column("AlbumId", SpannerType::Int64)
                .column("AlbumTitle", SpannerType::String)
                .primary_key(["SingerId", "AlbumId"])
                .interleave_in_parent("Singers")
                .index("AlbumsByAlbumTitle", ["AlbumTitle"])
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .map_err(engine_error)?;
    let mut last_created = 0;
    for i in 0..singers {
        let id = i64::try_from(i).unwrap_or(i64::MAX);
        let created = spread_over_the_day_before(i, singers);
        let singer = SpannerRow::from([
            ("SingerId".to_string(), SpannerValue::Int64(id)),
            (
                "FirstName".to_string(),
                SpannerValue::String(format!("First{i}")),
            ),
            (
                "LastName".to_string(),
                SpannerValue::String(format!("Last{i}")),
            ),
            ("CreatedAt".to_string(), SpannerValue::Timestamp(created)),
        ]);
        engine
            .spanner()
            .insert_row("Singers", singer)
            .map_err(engine_error)?;
        for album in 1..=2 {
            let row = SpannerRow::from([
                ("SingerId".to_string(), SpannerValue::Int64(id)),
                ("AlbumId".to_string(), SpannerValue::Int64(album)),
                (
                    "AlbumTitle".to_string(),
                    SpannerValue::String(format!("Album {album} of singer {i}")),
                ),
            ]);
            engine
                .spanner()
                .insert_row("Albums", row)
                .map_err(engine_error)?;
        }
        last_created = created;
    }
    Ok(Loaded {
        rows: singers,
        last_expiry_secs: (last_created + DAY_MILLIS).div_euclid(1000) + 1,
    })
}

/// Rows left in the model's tables (Spanner: `Singers` and `Albums`).
pub(super) fn remaining(engine: &Engine, model: TtlModel) -> Result<u64, DemoError> {
    let rows = match model {
        TtlModel::Dynamodb => engine
            .dynamodb()
            .scan(super::TABLE)
            .map_err(engine_error)?
            .len(),
        TtlModel::Tablestore => engine
            .tablestore()
            .scan_rows(super::TABLE, ReadOptions::default())
            .map_err(engine_error)?
            .len(),
        TtlModel::Spanner => {
            engine
                .spanner()
                .scan_table("Singers")
                .map_err(engine_error)?
                .len()
                + engine
                    .spanner()
                    .scan_table("Albums")
                    .map_err(engine_error)?
                    .len()
        }
    };
    Ok(rows as u64)
}
