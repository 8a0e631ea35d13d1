//! Single-row operations: `PutRow`, `UpdateRow`, `DeleteRow`, `GetRow`
//! ("Tablestore: PutRow", "UpdateRow", "DeleteRow", "GetRow"; message
//! fields of the SDK's `table_store.proto`, rows as in the SDKs'
//! `Row` / `RowUpdateChange`).

use super::error::OtsError;
use super::value::{
    AttributeColumn, PrimaryKeyColumn, from_attribute, from_key, to_attribute, to_key,
};
use serde::Deserialize;
use serde_json::{Value, json};
use ttlstream_engine::tablestore::{
    ColumnChange, PutColumn, ReadOptions, Row, RowExistence, TimeRange,
};
use ttlstream_engine::{Engine, ScalarAttributeType};

/// `condition`: `{"row_existence": "IGNORE" | "EXPECT_EXIST" | "EXPECT_NOT_EXIST"}`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Condition {
    row_existence: String,
}

impl Condition {
    fn existence(&self) -> Result<RowExistence, OtsError> {
        match self.row_existence.as_str() {
            "" | "IGNORE" => Ok(RowExistence::Ignore),
            "EXPECT_EXIST" => Ok(RowExistence::ExpectExist),
            "EXPECT_NOT_EXIST" => Ok(RowExistence::ExpectNotExist),
            other => Err(OtsError::invalid(format!(
                "condition.row_existence {other:?} is not one of IGNORE, EXPECT_EXIST, EXPECT_NOT_EXIST"
            ))),
        }
    }
}

/// `return_content`: `{"return_type": "RT_NONE" | "RT_PK"}`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReturnContent {
    return_type: String,
}

impl ReturnContent {
    /// Whether the primary key is returned (`RT_PK`).
    fn primary_key(&self) -> Result<bool, OtsError> {
        match self.return_type.as_str() {
            "" | "RT_NONE" => Ok(false),
            "RT_PK" => Ok(true),
            other => Err(OtsError::invalid(format!(
                "return_content.return_type {other:?} is not one of RT_NONE, RT_PK"
            ))),
        }
    }
}

/// `time_range`: `{"start_time", "end_time"}` (`[start, end)`, epoch ms) or
/// `{"specific_time"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimeRangeIn {
    start_time: Option<i64>,
    end_time: Option<i64>,
    specific_time: Option<i64>,
}

/// The engine's read options from `max_versions` / `time_range`: one of
/// them is required, as the SDKs require.
pub(super) fn read_options(
    max_versions: Option<i32>,
    time_range: Option<&TimeRangeIn>,
) -> Result<ReadOptions, OtsError> {
    let time_range = match time_range {
        None => None,
        Some(TimeRangeIn {
            specific_time: Some(t),
            start_time: None,
            end_time: None,
        }) => Some(TimeRange {
            start_millis: *t,
            end_millis: t.saturating_add(1),
        }),
        Some(TimeRangeIn {
            specific_time: None,
            start_time: Some(start),
            end_time: Some(end),
        }) if start < end => Some(TimeRange {
            start_millis: *start,
            end_millis: *end,
        }),
        Some(_) => {
            return Err(OtsError::invalid(
                "time_range: give specific_time, or start_time below end_time (epoch ms)",
            ));
        }
    };
    let max_versions = match (max_versions, time_range) {
        (Some(v), _) if v >= 1 => u32::try_from(v).unwrap_or(u32::MAX),
        (Some(v), _) => {
            return Err(OtsError::invalid(format!(
                "max_versions {v} is out of range: at least 1"
            )));
        }
        (None, Some(_)) => u32::MAX,
        (None, None) => {
            return Err(OtsError::invalid("max_versions or time_range must be set"));
        }
    };
    Ok(ReadOptions {
        max_versions,
        time_range,
    })
}

/// A row as JSON: `{"primary_key": [...], "attribute_columns": [...]}`,
/// one attribute entry per version, columns in name order, newest version
/// first; only the `columns_to_get` columns when given.
pub(super) fn row_json(row: &Row, key_order: &[String], columns_to_get: &[String]) -> Value {
    let mut attributes = Vec::new();
    for (name, versions) in &row.columns {
        if !columns_to_get.is_empty() && !columns_to_get.contains(name) {
            continue;
        }
        for cell in versions {
            attributes.push(AttributeColumn {
                name: name.clone(),
                value: from_attribute(&cell.value),
                timestamp: Some(cell.version_millis),
            });
        }
    }
    json!({
        "primary_key": from_key(&row.primary_key, key_order),
        "attribute_columns": attributes,
    })
}

/// The table's primary-key column names in order, after checking that
/// `key` gives INTEGER values for INTEGER columns (the engine's Numbers
/// would also take a DOUBLE).
pub(super) fn key_order(
    engine: &Engine,
    table: &str,
    key: &[PrimaryKeyColumn],
    member: &str,
) -> Result<Vec<String>, OtsError> {
    let d = engine.tablestore().describe_table(table)?;
    for k in &d.primary_key {
        let given = key.iter().find(|c| c.name == k.attribute_name);
        if let Some(c) = given {
            let integer = matches!(c.value, super::value::CellValue::Integer(_));
            if k.attribute_type == ScalarAttributeType::N
                && !integer
                && !matches!(
                    c.value,
                    super::value::CellValue::InfMin | super::value::CellValue::InfMax
                )
            {
                return Err(OtsError::invalid(format!(
                    "{member}: primary key column `{}` is INTEGER",
                    k.attribute_name
                )));
            }
        }
    }
    Ok(d.primary_key
        .into_iter()
        .map(|k| k.attribute_name)
        .collect())
}

fn returned(wants_pk: bool, key: &[PrimaryKeyColumn]) -> Value {
    if wants_pk {
        json!({ "row": { "primary_key": key } })
    } else {
        json!({ "row": null })
    }
}

fn put_column(c: &AttributeColumn, member: &str) -> Result<PutColumn, OtsError> {
    let where_ = format!("{member}: column `{}`", c.name);
    Ok(PutColumn {
        name: c.name.clone(),
        value: to_attribute(&c.value, &where_)?,
        version_millis: c.timestamp,
    })
}

/// `row` of PutRow.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowIn {
    primary_key: Vec<PrimaryKeyColumn>,
    #[serde(default)]
    attribute_columns: Vec<AttributeColumn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutRowRequest {
    table_name: String,
    row: RowIn,
    #[serde(default)]
    condition: Condition,
    #[serde(default)]
    return_content: ReturnContent,
}

pub(super) fn put_row(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: PutRowRequest = super::parse(body)?;
    key_order(engine, &r.table_name, &r.row.primary_key, "row.primary_key")?;
    let key = to_key(&r.row.primary_key, "row.primary_key")?;
    let changes = r
        .row
        .attribute_columns
        .iter()
        .map(|c| put_column(c, "row.attribute_columns").map(ColumnChange::Put))
        .collect::<Result<Vec<_>, _>>()?;
    let wants_pk = r.return_content.primary_key()?;
    engine
        .tablestore()
        .change_row(&r.table_name, key, changes, true, r.condition.existence()?)?;
    Ok(returned(wants_pk, &r.row.primary_key))
}

/// `row_change.update_of_attribute_columns`, as the SDKs group it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ColumnUpdates {
    #[serde(default, rename = "PUT")]
    put: Vec<AttributeColumn>,
    #[serde(default, rename = "DELETE")]
    delete: Vec<DeleteVersion>,
    #[serde(default, rename = "DELETE_ALL")]
    delete_all: Vec<String>,
}

/// `DELETE`: one version of a column, `{"name", "timestamp"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteVersion {
    name: String,
    timestamp: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowChange {
    primary_key: Vec<PrimaryKeyColumn>,
    update_of_attribute_columns: ColumnUpdates,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateRowRequest {
    table_name: String,
    row_change: RowChange,
    #[serde(default)]
    condition: Condition,
    #[serde(default)]
    return_content: ReturnContent,
}

pub(super) fn update_row(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: UpdateRowRequest = super::parse(body)?;
    let member = "row_change.primary_key";
    key_order(engine, &r.table_name, &r.row_change.primary_key, member)?;
    let key = to_key(&r.row_change.primary_key, member)?;
    let updates = &r.row_change.update_of_attribute_columns;
    let mut changes = Vec::new();
    for c in &updates.put {
        let member = "row_change.update_of_attribute_columns.PUT";
        changes.push(ColumnChange::Put(put_column(c, member)?));
    }
    for d in &updates.delete {
        changes.push(ColumnChange::DeleteVersion {
            name: d.name.clone(),
            version_millis: d.timestamp,
        });
    }
    for name in &updates.delete_all {
        changes.push(ColumnChange::DeleteAll { name: name.clone() });
    }
    if changes.is_empty() {
        return Err(OtsError::invalid(
            "row_change.update_of_attribute_columns: no column to update",
        ));
    }
    let wants_pk = r.return_content.primary_key()?;
    engine
        .tablestore()
        .change_row(&r.table_name, key, changes, false, r.condition.existence()?)?;
    Ok(returned(wants_pk, &r.row_change.primary_key))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteRowRequest {
    table_name: String,
    primary_key: Vec<PrimaryKeyColumn>,
    #[serde(default)]
    condition: Condition,
    #[serde(default)]
    return_content: ReturnContent,
}

pub(super) fn delete_row(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: DeleteRowRequest = super::parse(body)?;
    key_order(engine, &r.table_name, &r.primary_key, "primary_key")?;
    let key = to_key(&r.primary_key, "primary_key")?;
    let wants_pk = r.return_content.primary_key()?;
    engine
        .tablestore()
        .delete_row_if(&r.table_name, &key, r.condition.existence()?)?;
    Ok(returned(wants_pk, &r.primary_key))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetRowRequest {
    table_name: String,
    primary_key: Vec<PrimaryKeyColumn>,
    #[serde(default)]
    columns_to_get: Vec<String>,
    max_versions: Option<i32>,
    time_range: Option<TimeRangeIn>,
}

pub(super) fn get_row(engine: &Engine, body: &[u8]) -> Result<Value, OtsError> {
    let r: GetRowRequest = super::parse(body)?;
    let order = key_order(engine, &r.table_name, &r.primary_key, "primary_key")?;
    let key = to_key(&r.primary_key, "primary_key")?;
    let read = read_options(r.max_versions, r.time_range.as_ref())?;
    let row = engine.tablestore().get_row(&r.table_name, &key, read)?;
    Ok(json!({
        "row": row.map(|row| row_json(&row, &order, &r.columns_to_get)),
    }))
}
