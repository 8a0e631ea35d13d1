//! CreateTable (DynamoDB API Reference page of the same name), validated as
//! DynamoDB validates it.

use super::error::{ApiError, enum_constraint};
use super::shapes::{
    CreateTableRequest, IndexShape, KeySchemaElement, ProjectionShape, ProvisionedThroughputShape,
    Tag,
};
use super::tables::{describe, required, table_name};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use ttlstream_engine::{
    BillingMode, Engine, GlobalSecondaryIndex, KeyAttribute, LocalSecondaryIndex, Projection,
    ScalarAttributeType, StreamViewType, TableDefinition, TableProperties,
};

/// DynamoDB's limit on key attribute names (and index names): 255 bytes.
const MAX_KEY_NAME_BYTES: usize = 255;

/// `CreateTable`, validated as DynamoDB validates it ("CreateTable" in the
/// API Reference): key attribute names of at most 255 bytes, each
/// attribute defined once and used by a key, a known `BillingMode`, a
/// `ProvisionedThroughput` exactly when the billing mode is `PROVISIONED`
/// (a request naming neither is taken as `PAY_PER_REQUEST`), at most 50
/// tags.
pub(super) fn create_table(
    engine: &Engine,
    region: &str,
    req: CreateTableRequest,
) -> Result<Value, ApiError> {
    let name = table_name(req.table_name)?;
    let definitions = required(req.attribute_definitions, "attributeDefinitions")?;
    let key_schema = required(req.key_schema, "keySchema")?;
    for (i, k) in key_schema.iter().enumerate() {
        key_name_length(
            &k.attribute_name,
            &format!("keySchema.{}.member.attributeName", i + 1),
        )?;
    }
    for (i, d) in definitions.iter().enumerate() {
        key_name_length(
            &d.attribute_name,
            &format!("attributeDefinitions.{}.member.attributeName", i + 1),
        )?;
    }
    let mut types = BTreeMap::new();
    for d in &definitions {
        if types
            .insert(d.attribute_name.clone(), scalar_type(&d.attribute_type)?)
            .is_some()
        {
            return Err(ApiError::validation(format!(
                "Attribute Name is duplicated: {}",
                d.attribute_name
            )));
        }
    }
    let mut used = std::collections::BTreeSet::new();
    let mut key = |element: &KeySchemaElement| -> Result<KeyAttribute, ApiError> {
        let ty = types.get(&element.attribute_name).ok_or_else(|| {
            ApiError::validation(format!(
                "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [{}], AttributeDefinitions: [{}]",
                element.attribute_name,
                types.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })?;
        used.insert(element.attribute_name.clone());
        Ok(KeyAttribute::new(element.attribute_name.clone(), *ty))
    };
    let (hash, range) = split_key_schema(&key_schema)?;
    let mut def = TableDefinition::new(name.clone(), "", ScalarAttributeType::S);
    def.partition_key = key(&hash)?;
    def.sort_key = range.as_ref().map(&mut key).transpose()?;
    let properties = properties(
        req.billing_mode.as_deref(),
        req.provisioned_throughput.as_ref(),
        req.tags,
    )?;
    for ix in req.global_secondary_indexes.unwrap_or_default() {
        let index_name = required(
            ix.index_name.clone(),
            "globalSecondaryIndexes.member.indexName",
        )?;
        if ix.provisioned_throughput.is_some()
            && properties.billing_mode == BillingMode::PayPerRequest
        {
            return Err(ApiError::validation(format!(
                "One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: {index_name} when BillingMode is PAY_PER_REQUEST"
            )));
        }
        let (h, r) = split_key_schema(&index_key_schema(&ix)?)?;
        def.global_secondary_indexes.push(GlobalSecondaryIndex {
            index_name,
            partition_key: key(&h)?,
            sort_key: r.as_ref().map(&mut key).transpose()?,
            projection: projection(ix.projection.as_ref())?,
        });
    }
    for ix in req.local_secondary_indexes.unwrap_or_default() {
        let index_name = required(
            ix.index_name.clone(),
            "localSecondaryIndexes.member.indexName",
        )?;
        let (h, r) = split_key_schema(&index_key_schema(&ix)?)?;
        if h.attribute_name != def.partition_key.attribute_name {
            return Err(ApiError::validation(format!(
                "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: {index_name}. index hash key: {}, table hash key: {}",
                h.attribute_name, def.partition_key.attribute_name
            )));
        }
        let sort = r.ok_or_else(|| {
            ApiError::validation(format!(
                "One or more parameter values were invalid: Index KeySchema does not have a range key for index: {index_name}"
            ))
        })?;
        def.local_secondary_indexes.push(LocalSecondaryIndex {
            index_name,
            sort_key: key(&sort)?,
            projection: projection(ix.projection.as_ref())?,
        });
    }
    if used.len() != types.len() {
        return Err(ApiError::validation(
            "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
        ));
    }
    if let Some(spec) = req.stream_specification {
        match (spec.stream_enabled, spec.stream_view_type) {
            (true, Some(view)) => def.stream_view_type = Some(stream_view_type(&view)?),
            (true, None) => {
                return Err(ApiError::validation(
                    "One or more parameter values were invalid: Enabled stream must have a StreamViewType",
                ));
            }
            (false, Some(_)) => {
                return Err(ApiError::validation(
                    "One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified",
                ));
            }
            (false, None) => {}
        }
    }
    engine
        .dynamodb()
        .create_table_with_properties(def, properties)?;
    Ok(json!({ "TableDescription": describe(engine, region, &name)? }))
}

/// A `StreamViewType` value.
pub(super) fn stream_view_type(view: &str) -> Result<StreamViewType, ApiError> {
    view.parse::<StreamViewType>().map_err(|_| {
        enum_constraint(
            view,
            "streamSpecification.streamViewType",
            &["NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"],
        )
    })
}

fn key_name_length(name: &str, member: &str) -> Result<(), ApiError> {
    let constraint = if name.is_empty() {
        "Member must have length greater than or equal to 1"
    } else if name.len() > MAX_KEY_NAME_BYTES {
        "Member must have length less than or equal to 255"
    } else {
        return Ok(());
    };
    Err(ApiError::validation(format!(
        "1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: {constraint}"
    )))
}

/// The billing mode, throughput and tags of a CreateTable request.
fn properties(
    billing_mode: Option<&str>,
    throughput: Option<&ProvisionedThroughputShape>,
    tags: Option<Vec<Tag>>,
) -> Result<TableProperties, ApiError> {
    let mode = super::table_update::billing_mode(billing_mode)?;
    let mode = match (mode, throughput) {
        (Some(BillingMode::PayPerRequest), Some(_)) => {
            return Err(ApiError::validation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            ));
        }
        (Some(BillingMode::Provisioned), None) => {
            return Err(ApiError::validation(
                "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
            ));
        }
        (Some(mode), _) => mode,
        (None, Some(_)) => BillingMode::Provisioned,
        (None, None) => BillingMode::PayPerRequest,
    };
    let provisioned_throughput = throughput
        .map(super::table_update::throughput)
        .transpose()?;
    let mut properties = TableProperties {
        billing_mode: mode,
        provisioned_throughput,
        tags: Default::default(),
    };
    super::tags::add_tags(&mut properties.tags, tags.unwrap_or_default())?;
    Ok(properties)
}

fn index_key_schema(ix: &IndexShape) -> Result<Vec<KeySchemaElement>, ApiError> {
    required(ix.key_schema.clone(), "index.keySchema")
}

fn scalar_type(text: &str) -> Result<ScalarAttributeType, ApiError> {
    match text {
        "S" => Ok(ScalarAttributeType::S),
        "N" => Ok(ScalarAttributeType::N),
        "B" => Ok(ScalarAttributeType::B),
        other => Err(enum_constraint(
            other,
            "attributeDefinitions.member.attributeType",
            &["B", "N", "S"],
        )),
    }
}

fn split_key_schema(
    schema: &[KeySchemaElement],
) -> Result<(KeySchemaElement, Option<KeySchemaElement>), ApiError> {
    if let Some(bad) = schema
        .iter()
        .find(|k| k.key_type != "HASH" && k.key_type != "RANGE")
    {
        return Err(enum_constraint(
            &bad.key_type,
            "keySchema.member.keyType",
            &["HASH", "RANGE"],
        ));
    }
    match schema {
        [h] if h.key_type == "HASH" => Ok((h.clone(), None)),
        [h, r] if h.key_type == "HASH" && r.key_type == "RANGE" => {
            if h.attribute_name == r.attribute_name {
                return Err(ApiError::validation(
                    "Both the Hash Key and the Range Key element in the KeySchema have the same name",
                ));
            }
            Ok((h.clone(), Some(r.clone())))
        }
        [] | [_, _, _, ..] => Err(ApiError::validation(format!(
            "1 validation error detected: Value at 'keySchema' failed to satisfy constraint: Member must have length {} ({} given)",
            if schema.is_empty() {
                "greater than or equal to 1"
            } else {
                "less than or equal to 2"
            },
            schema.len()
        ))),
        [first, ..] if first.key_type != "HASH" => Err(ApiError::validation(
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        )),
        _ => Err(ApiError::validation(
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
        )),
    }
}

fn projection(shape: Option<&ProjectionShape>) -> Result<Projection, ApiError> {
    let Some(shape) = shape else {
        return Err(ApiError::missing("index.projection"));
    };
    let Some(kind) = shape.projection_type.as_deref() else {
        return Err(ApiError::validation(
            "One or more parameter values were invalid: Unknown ProjectionType: null",
        ));
    };
    let attributes = shape.non_key_attributes.clone().filter(|a| !a.is_empty());
    match (kind, attributes) {
        ("ALL", None) => Ok(Projection::All),
        ("KEYS_ONLY", None) => Ok(Projection::KeysOnly),
        ("INCLUDE", Some(names)) => {
            for n in &names {
                key_name_length(n, "projection.nonKeyAttributes.member")?;
            }
            Ok(Projection::Include(names))
        }
        ("INCLUDE", None) => Err(ApiError::validation(
            "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
        )),
        (kind @ ("ALL" | "KEYS_ONLY"), Some(_)) => Err(ApiError::validation(format!(
            "One or more parameter values were invalid: ProjectionType is {kind}, but NonKeyAttributes is specified"
        ))),
        (other, _) => Err(enum_constraint(
            other,
            "projection.projectionType",
            &["ALL", "INCLUDE", "KEYS_ONLY"],
        )),
    }
}
