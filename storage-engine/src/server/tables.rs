//! Table operations: CreateTable, DescribeTable, ListTables (DynamoDB API
//! Reference pages of the same names).

use super::error::ApiError;
use super::shapes::{
    AttributeDefinition, CreateTableRequest, IndexDescription, IndexShape, KeySchemaElement,
    ListTablesRequest, ProjectionShape, StreamSpecification, TableDescription, TableNameRequest,
};
use crate::{
    Engine, GlobalSecondaryIndex, KeyAttribute, LocalSecondaryIndex, Projection,
    ScalarAttributeType, StreamViewType, TableDefinition,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;

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

/// `CreateTable`.
pub(super) fn create_table(engine: &Engine, req: CreateTableRequest) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let definitions = required(req.attribute_definitions, "attributeDefinitions")?;
    let mut types = BTreeMap::new();
    for d in &definitions {
        types.insert(d.attribute_name.clone(), scalar_type(&d.attribute_type)?);
    }
    let key = |element: &KeySchemaElement| -> Result<KeyAttribute, ApiError> {
        let ty = types.get(&element.attribute_name).ok_or_else(|| {
            ApiError::validation(format!(
                "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [{}]",
                element.attribute_name
            ))
        })?;
        Ok(KeyAttribute::new(element.attribute_name.clone(), *ty))
    };
    let (hash, range) = split_key_schema(&required(req.key_schema, "keySchema")?)?;
    let mut def = TableDefinition::new(name.clone(), "", ScalarAttributeType::S);
    def.partition_key = key(&hash)?;
    def.sort_key = range.as_ref().map(key).transpose()?;
    for ix in req.global_secondary_indexes.unwrap_or_default() {
        let index_name = required(ix.index_name.clone(), "globalSecondaryIndexes.indexName")?;
        let (h, r) = split_key_schema(&index_key_schema(&ix)?)?;
        def.global_secondary_indexes.push(GlobalSecondaryIndex {
            index_name,
            partition_key: key(&h)?,
            sort_key: r.as_ref().map(key).transpose()?,
            projection: projection(ix.projection.as_ref())?,
        });
    }
    for ix in req.local_secondary_indexes.unwrap_or_default() {
        let index_name = required(ix.index_name.clone(), "localSecondaryIndexes.indexName")?;
        let (h, r) = split_key_schema(&index_key_schema(&ix)?)?;
        if h.attribute_name != def.partition_key.attribute_name {
            return Err(ApiError::validation(format!(
                "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: {index_name}"
            )));
        }
        let sort = r.ok_or_else(|| {
            ApiError::validation(format!(
                "One or more parameter values were invalid: Local secondary index {index_name} must have a range key"
            ))
        })?;
        def.local_secondary_indexes.push(LocalSecondaryIndex {
            index_name,
            sort_key: key(&sort)?,
            projection: projection(ix.projection.as_ref())?,
        });
    }
    if let Some(spec) = req.stream_specification.filter(|s| s.stream_enabled) {
        let view = required(spec.stream_view_type, "streamSpecification.streamViewType")?;
        def.stream_view_type = Some(view.parse::<StreamViewType>().map_err(|_| {
            ApiError::validation(format!(
                "1 validation error detected: Value '{view}' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]"
            ))
        })?);
    }
    super::table_update::check_billing_mode(req.billing_mode.as_deref())?;
    engine.create_table(def)?;
    Ok(json!({ "TableDescription": describe(engine, &name)? }))
}

fn index_key_schema(ix: &IndexShape) -> Result<Vec<KeySchemaElement>, ApiError> {
    required(ix.key_schema.clone(), "index.keySchema")
}

fn scalar_type(text: &str) -> Result<ScalarAttributeType, ApiError> {
    match text {
        "S" => Ok(ScalarAttributeType::S),
        "N" => Ok(ScalarAttributeType::N),
        "B" => Ok(ScalarAttributeType::B),
        other => Err(ApiError::validation(format!(
            "1 validation error detected: Value '{other}' at 'attributeDefinitions.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"
        ))),
    }
}

fn split_key_schema(
    schema: &[KeySchemaElement],
) -> Result<(KeySchemaElement, Option<KeySchemaElement>), ApiError> {
    match schema {
        [h] if h.key_type == "HASH" => Ok((h.clone(), None)),
        [h, r] if h.key_type == "HASH" && r.key_type == "RANGE" => Ok((h.clone(), Some(r.clone()))),
        _ => Err(ApiError::validation(
            "Invalid KeySchema: a HASH key, optionally followed by one RANGE key, is required",
        )),
    }
}

fn projection(shape: Option<&ProjectionShape>) -> Result<Projection, ApiError> {
    let Some(shape) = shape else {
        return Err(ApiError::missing("index.projection"));
    };
    match shape.projection_type.as_deref().unwrap_or("ALL") {
        "ALL" => Ok(Projection::All),
        "KEYS_ONLY" => Ok(Projection::KeysOnly),
        "INCLUDE" => Ok(Projection::Include(
            shape.non_key_attributes.clone().unwrap_or_default(),
        )),
        other => Err(ApiError::validation(format!(
            "Unknown ProjectionType `{other}`: expected ALL, KEYS_ONLY or INCLUDE"
        ))),
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

pub(super) fn describe(engine: &Engine, name: &str) -> Result<TableDescription, ApiError> {
    let def = engine.describe_table(name)?;
    // The newest stream, ENABLED or DISABLED, as DescribeTable reports it.
    let latest = engine.latest_stream(name)?;
    // The same region and account as the engine's StreamArns.
    let arn = format!(
        "arn:aws:dynamodb:{}:{}:table/{name}",
        crate::STREAM_ARN_REGION,
        crate::STREAM_ARN_ACCOUNT
    );
    let mut attributes = BTreeMap::new();
    let mut note = |k: &KeyAttribute| {
        attributes.insert(k.attribute_name.clone(), k.attribute_type.as_str());
    };
    note(&def.partition_key);
    def.sort_key.iter().for_each(&mut note);
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
            }
        })
        .collect();
    Ok(TableDescription {
        table_name: name.to_string(),
        key_schema: key_schema(&def.partition_key, def.sort_key.as_ref()),
        attribute_definitions: attributes
            .into_iter()
            .map(|(attribute_name, ty)| AttributeDefinition {
                attribute_name,
                attribute_type: ty.to_string(),
            })
            .collect(),
        table_status: "ACTIVE",
        global_secondary_indexes: gsis,
        local_secondary_indexes: lsis,
        stream_specification: def.stream_view_type.map(|v| StreamSpecification {
            stream_enabled: true,
            stream_view_type: Some(v.as_str().to_string()),
        }),
        latest_stream_arn: latest.as_ref().map(|s| s.stream_arn.clone()),
        latest_stream_label: latest.map(|s| s.stream_label),
        table_arn: arn,
    })
}

/// `DescribeTable`.
pub(super) fn describe_table(engine: &Engine, req: TableNameRequest) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    Ok(json!({ "Table": describe(engine, &name)? }))
}

/// `ListTables`.
pub(super) fn list_tables(engine: &Engine, req: ListTablesRequest) -> Result<Value, ApiError> {
    let limit = page_limit(req.limit, 100)?;
    let names: Vec<String> = engine
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
