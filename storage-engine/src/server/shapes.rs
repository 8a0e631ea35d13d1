//! Request and response members of the DynamoDB API Reference, in its
//! PascalCase. Required members are `Option`s so that a missing one is a
//! `ValidationException` naming it, as AWS answers, not a serde error.
//! Attribute values are `serde_dynamo`'s DynamoDB JSON; each member is the
//! API Reference's member of the same name.

use serde::{Deserialize, Serialize};
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

/// `KeySchemaElement`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeySchemaElement {
    pub attribute_name: String,
    /// `HASH` or `RANGE`.
    pub key_type: String,
}

/// `AttributeDefinition`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    pub attribute_name: String,
    /// `S`, `N` or `B`.
    pub attribute_type: String,
}

/// `Projection`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionShape {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

/// `GlobalSecondaryIndex` / `LocalSecondaryIndex` in a CreateTable request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexShape {
    pub index_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub projection: Option<ProjectionShape>,
}

/// `StreamSpecification`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecification {
    pub stream_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_view_type: Option<String>,
}

/// `CreateTable` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateTableRequest {
    pub table_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub attribute_definitions: Option<Vec<AttributeDefinition>>,
    pub global_secondary_indexes: Option<Vec<IndexShape>>,
    pub local_secondary_indexes: Option<Vec<IndexShape>>,
    pub stream_specification: Option<StreamSpecification>,
    /// `PROVISIONED` or `PAY_PER_REQUEST`; accepted, not enforced.
    pub billing_mode: Option<String>,
}

/// `TableName` alone (DescribeTable, DescribeTimeToLive).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableNameRequest {
    pub table_name: Option<String>,
}

/// `ListTables` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTablesRequest {
    pub exclusive_start_table_name: Option<String>,
    /// 1 to 100; default 100.
    pub limit: Option<i64>,
}

/// The members shared by PutItem, GetItem, UpdateItem, DeleteItem, Query
/// and Scan requests.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ItemRequest {
    pub table_name: Option<String>,
    /// PutItem.
    pub item: Option<Item>,
    /// GetItem, UpdateItem, DeleteItem.
    pub key: Option<Item>,
    pub update_expression: Option<String>,
    pub condition_expression: Option<String>,
    pub key_condition_expression: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values: Option<String>,
    pub index_name: Option<String>,
    pub scan_index_forward: Option<bool>,
    pub limit: Option<i64>,
    pub exclusive_start_key: Option<Item>,
    /// `ALL_ATTRIBUTES`, `ALL_PROJECTED_ATTRIBUTES`, `SPECIFIC_ATTRIBUTES` or `COUNT`.
    pub select: Option<String>,
    /// Scan segments: not supported.
    pub segment: Option<i64>,
    pub total_segments: Option<i64>,
    // `ConsistentRead` is accepted and ignored: every read here is strongly
    // consistent.
}

/// `TimeToLiveSpecification`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TimeToLiveSpecificationShape {
    pub attribute_name: Option<String>,
    pub enabled: Option<bool>,
}

/// `UpdateTimeToLive` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTimeToLiveRequest {
    pub table_name: Option<String>,
    pub time_to_live_specification: Option<TimeToLiveSpecificationShape>,
}

/// `GlobalSecondaryIndexDescription` / `LocalSecondaryIndexDescription`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexDescription {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub projection: ProjectionShape,
    pub index_arn: String,
    /// GSIs only: `ACTIVE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_status: Option<&'static str>,
}

/// `TableDescription`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableDescription {
    pub table_name: String,
    pub table_arn: String,
    /// Always `ACTIVE`: tables are usable at once.
    pub table_status: &'static str,
    pub key_schema: Vec<KeySchemaElement>,
    pub attribute_definitions: Vec<AttributeDefinition>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<IndexDescription>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<IndexDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<StreamSpecification>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_label: Option<String>,
}
