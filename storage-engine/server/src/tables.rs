//! DescribeTable and ListTables (DynamoDB API Reference pages of the same
//! names), and the request members every table operation checks.

use super::error::ApiError;
use super::shapes::{
    AttributeDefinition, BillingModeSummary, IndexDescription, KeySchemaElement, ListTablesRequest,
    ProjectionShape, ProvisionedThroughputDescription, StreamSpecification, TableDescription,
    TableNameRequest,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use ttlstream_engine::{BillingMode, Engine, KeyAttribute, Projection};

pub(super) fn required<T>(value: Option<T>, member: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::missing(member))
}

/// A request's `Limit`: `max` when absent, otherwise 1 to `max` (100 for
/// ListTables, ListStreams and DescribeStream; 1,000 for GetRecords).
///
/// # Errors
///
/// A `ValidationException` worded as AWS's constraint message.
pub(super) fn page_limit(value: Option<i64>, max: usize) -> Result<usize, ApiError> {
    match value {
        None => Ok(max),
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                ApiError::validation(format!(
                    "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value between 1 and {max}"
                ))
            }),
    }
}

/// The required `TableName`, checked against DynamoDB's constraints (3 to
/// 255 characters of `a-z A-Z 0-9 _ - .`, "Supported data types and naming
/// rules") before any lookup, as AWS does.
///
/// # Errors
///
/// A `ValidationException` worded as AWS's constraint messages.
pub(super) fn table_name(value: Option<String>) -> Result<String, ApiError> {
    let name = required(value, "tableName")?;
    let constraint = if name.chars().count() < 3 {
        Some("Member must have length greater than or equal to 3")
    } else if name.chars().count() > 255 {
        Some("Member must have length less than or equal to 255")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some("Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    } else {
        None
    };
    match constraint {
        Some(c) => Err(ApiError::validation(format!(
            "1 validation error detected: Value '{name}' at 'tableName' failed to satisfy constraint: {c}"
        ))),
        None => Ok(name),
    }
}

fn key_schema(pk: &KeyAttribute, sk: Option<&KeyAttribute>) -> Vec<KeySchemaElement> {
    let element = |k: &KeyAttribute, t: &str| KeySchemaElement {
        attribute_name: k.attribute_name.clone(),
        key_type: t.to_string(),
    };
    std::iter::once(element(pk, "HASH"))
        .chain(sk.map(|k| element(k, "RANGE")))
        .collect()
}

fn projection_shape(p: &Projection) -> ProjectionShape {
    let (ty, non_key) = match p {
        Projection::All => ("ALL", None),
        Projection::KeysOnly => ("KEYS_ONLY", None),
        Projection::Include(names) => ("INCLUDE", Some(names.clone())),
    };
    ProjectionShape {
        projection_type: Some(ty.to_string()),
        non_key_attributes: non_key,
    }
}

/// A UUID-shaped `TableId`, the same for the table's whole life: derived
/// from its name and creation instant.
fn table_id(name: &str, created_millis: i64) -> String {
    let fnv = |seed: u64| {
        name.bytes()
            .chain(created_millis.to_be_bytes())
            .fold(seed, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
    };
    let (a, b) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4));
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

/// The table's `TableDescription` for a client of `region`.
pub(super) fn describe(
    engine: &Engine,
    region: &str,
    name: &str,
) -> Result<TableDescription, ApiError> {
    let def = engine.dynamodb().describe_table(name)?;
    let properties = engine.dynamodb().table_properties(name)?;
    let created_millis = engine.dynamodb().table_created_at_millis(name)?;
    let size = engine.dynamodb().table_size(name)?;
    // The newest stream, ENABLED or DISABLED, as DescribeTable reports it.
    let latest = engine.streams().latest_stream(name)?;
    let arn = super::arn::table(region, name);
    let mut attributes = BTreeMap::new();
    let mut note = |k: &KeyAttribute| {
        attributes.insert(k.attribute_name.clone(), k.attribute_type.as_str());
    };
    note(&def.partition_key);
    def.sort_key.iter().for_each(&mut note);
    let throughput = ProvisionedThroughputDescription {
        read_capacity_units: properties
            .provisioned_throughput
            .map_or(0, |t| t.read_capacity_units),
        write_capacity_units: properties
            .provisioned_throughput
            .map_or(0, |t| t.write_capacity_units),
        number_of_decreases_today: 0,
    };
    let gsis = def
        .global_secondary_indexes
        .iter()
        .map(|ix| {
            note(&ix.partition_key);
            ix.sort_key.iter().for_each(&mut note);
            IndexDescription {
                index_name: ix.index_name.clone(),
                key_schema: key_schema(&ix.partition_key, ix.sort_key.as_ref()),
                projection: projection_shape(&ix.projection),
                index_arn: format!("{arn}/index/{}", ix.index_name),
                index_status: Some("ACTIVE"),
                provisioned_throughput: Some(throughput.clone()),
            }
        })
        .collect();
    let lsis = def
        .local_secondary_indexes
        .iter()
        .map(|ix| {
            note(&ix.sort_key);
            IndexDescription {
                index_name: ix.index_name.clone(),
                key_schema: key_schema(&def.partition_key, Some(&ix.sort_key)),
                projection: projection_shape(&ix.projection),
                index_arn: format!("{arn}/index/{}", ix.index_name),
                index_status: None,
                provisioned_throughput: None,
            }
        })
        .collect();
    let created_secs = created_millis as f64 / 1000.0;
    Ok(TableDescription {
        table_name: name.to_string(),
        table_id: table_id(name, created_millis),
        creation_date_time: created_secs,
        key_schema: key_schema(&def.partition_key, def.sort_key.as_ref()),
        attribute_definitions: attributes
            .into_iter()
            .map(|(attribute_name, ty)| AttributeDefinition {
                attribute_name,
                attribute_type: ty.to_string(),
            })
            .collect(),
        table_status: "ACTIVE",
        item_count: size.item_count,
        table_size_bytes: size.table_size_bytes,
        billing_mode_summary: BillingModeSummary {
            billing_mode: properties.billing_mode.as_str(),
            last_update_to_pay_per_request_date_time: (properties.billing_mode
                == BillingMode::PayPerRequest)
                .then_some(created_secs),
        },
        provisioned_throughput: throughput,
        global_secondary_indexes: gsis,
        local_secondary_indexes: lsis,
        stream_specification: def.stream_view_type.map(|v| StreamSpecification {
            stream_enabled: true,
            stream_view_type: Some(v.as_str().to_string()),
        }),
        latest_stream_arn: latest
            .as_ref()
            .map(|s| super::arn::for_client(&s.stream_arn, region)),
        latest_stream_label: latest.map(|s| s.stream_label),
        table_arn: arn,
    })
}

/// `DescribeTable`.
pub(super) fn describe_table(
    engine: &Engine,
    region: &str,
    req: TableNameRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    Ok(json!({ "Table": describe(engine, region, &name)? }))
}

/// `ListTables`.
pub(super) fn list_tables(engine: &Engine, req: ListTablesRequest) -> Result<Value, ApiError> {
    let limit = page_limit(req.limit, 100)?;
    let names: Vec<String> = engine
        .dynamodb()
        .list_tables()?
        .into_iter()
        .filter(|n| {
            req.exclusive_start_table_name
                .as_ref()
                .is_none_or(|s| n > s)
        })
        .collect();
    let more = names.len() > limit;
    let page: Vec<String> = names.into_iter().take(limit).collect();
    let mut out = json!({ "TableNames": page });
    if more && let Some(last) = page.last() {
        out["LastEvaluatedTableName"] = json!(last);
    }
    Ok(out)
}
