//! Request and response members of the DynamoDB API Reference, in its
//! PascalCase. Required members are `Option`s so that a missing one is a
//! `ValidationException` naming it, as AWS answers, not a serde error.
//! Attribute values are `serde_dynamo`'s DynamoDB JSON; each member is the
//! API Reference's member of the same name.
//!
//! Every request shape lists exactly the members this server implements
//! and refuses any other (`deny_unknown_fields`; `protocol::parse` turns
//! the refusal into a `ValidationException` naming the member), so a
//! parameter is never silently dropped.

pub(super) mod items;
pub(super) mod legacy;

use serde::{Deserialize, Serialize};

/// `KeySchemaElement`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct KeySchemaElement {
    pub attribute_name: String,
    /// `HASH` or `RANGE`.
    pub key_type: String,
}

/// `AttributeDefinition`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct AttributeDefinition {
    pub attribute_name: String,
    /// `S`, `N` or `B`.
    pub attribute_type: String,
}

/// `Projection`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ProjectionShape {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

/// `ProvisionedThroughput` in a request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ProvisionedThroughputShape {
    pub read_capacity_units: Option<i64>,
    pub write_capacity_units: Option<i64>,
}

/// `GlobalSecondaryIndex` / `LocalSecondaryIndex` in a CreateTable request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct IndexShape {
    pub index_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub projection: Option<ProjectionShape>,
    /// GSIs of a `PROVISIONED` table.
    pub provisioned_throughput: Option<ProvisionedThroughputShape>,
}

/// `StreamSpecification`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct StreamSpecification {
    pub stream_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_view_type: Option<String>,
}

/// `Tag`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct Tag {
    pub key: Option<String>,
    pub value: Option<String>,
}

/// `CreateTable` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct CreateTableRequest {
    pub table_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub attribute_definitions: Option<Vec<AttributeDefinition>>,
    pub global_secondary_indexes: Option<Vec<IndexShape>>,
    pub local_secondary_indexes: Option<Vec<IndexShape>>,
    pub stream_specification: Option<StreamSpecification>,
    /// `PROVISIONED` or `PAY_PER_REQUEST`.
    pub billing_mode: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputShape>,
    pub tags: Option<Vec<Tag>>,
}

/// `TableName` alone (DescribeTable, DescribeTimeToLive, DeleteTable).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct TableNameRequest {
    pub table_name: Option<String>,
}

/// `ListTables` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ListTablesRequest {
    pub exclusive_start_table_name: Option<String>,
    /// 1 to 100; default 100.
    pub limit: Option<i64>,
}

/// `TimeToLiveSpecification`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct TimeToLiveSpecificationShape {
    pub attribute_name: Option<String>,
    pub enabled: Option<bool>,
}

/// `UpdateTimeToLive` request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct UpdateTimeToLiveRequest {
    pub table_name: Option<String>,
    pub time_to_live_specification: Option<TimeToLiveSpecificationShape>,
}

/// `ProvisionedThroughputDescription`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedThroughputDescription {
    pub read_capacity_units: u64,
    pub write_capacity_units: u64,
    pub number_of_decreases_today: u64,
}

/// `BillingModeSummary`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BillingModeSummary {
    pub billing_mode: &'static str,
    /// Epoch seconds; `PAY_PER_REQUEST` tables only (their creation time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_update_to_pay_per_request_date_time: Option<f64>,
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
    /// GSIs only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<ProvisionedThroughputDescription>,
}

/// `TableDescription`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableDescription {
    pub table_name: String,
    pub table_arn: String,
    /// A UUID-shaped id, fixed for the table's life.
    pub table_id: String,
    /// Always `ACTIVE`: tables are usable at once.
    pub table_status: &'static str,
    /// Epoch seconds (with milliseconds).
    pub creation_date_time: f64,
    pub key_schema: Vec<KeySchemaElement>,
    pub attribute_definitions: Vec<AttributeDefinition>,
    pub item_count: u64,
    pub table_size_bytes: u64,
    pub billing_mode_summary: BillingModeSummary,
    pub provisioned_throughput: ProvisionedThroughputDescription,
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
