//! The item operations' requests (PutItem, GetItem, UpdateItem, DeleteItem,
//! Query, Scan), member for member as in the DynamoDB API Reference.
//! `ConsistentRead` is taken and needs nothing: every read here is
//! strongly consistent.

use super::legacy::{AttributeValueUpdateShape, ConditionShape, ExpectedShape};
use serde::Deserialize;
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

/// The members every write request shares.
pub(crate) type Names = Option<HashMap<String, String>>;
/// `ExpressionAttributeValues`.
pub(crate) type Values = Option<HashMap<String, AttributeValue>>;

/// `PutItem` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct PutItemRequest {
    pub table_name: Option<String>,
    pub item: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub expected: Option<HashMap<String, ExpectedShape>>,
    pub conditional_operator: Option<String>,
}

/// `GetItem` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct GetItemRequest {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub attributes_to_get: Option<Vec<String>>,
    pub consistent_read: Option<bool>,
    pub return_consumed_capacity: Option<String>,
}

/// `UpdateItem` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct UpdateItemRequest {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub update_expression: Option<String>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub attribute_updates: Option<HashMap<String, AttributeValueUpdateShape>>,
    pub expected: Option<HashMap<String, ExpectedShape>>,
    pub conditional_operator: Option<String>,
}

/// `DeleteItem` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct DeleteItemRequest {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub expected: Option<HashMap<String, ExpectedShape>>,
    pub conditional_operator: Option<String>,
}

/// `Query` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct QueryRequest {
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub key_condition_expression: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub scan_index_forward: Option<bool>,
    pub limit: Option<i64>,
    pub exclusive_start_key: Option<Item>,
    /// `ALL_ATTRIBUTES`, `ALL_PROJECTED_ATTRIBUTES`, `SPECIFIC_ATTRIBUTES` or `COUNT`.
    pub select: Option<String>,
    pub consistent_read: Option<bool>,
    pub return_consumed_capacity: Option<String>,
    pub key_conditions: Option<HashMap<String, ConditionShape>>,
    pub query_filter: Option<HashMap<String, ConditionShape>>,
    pub conditional_operator: Option<String>,
    pub attributes_to_get: Option<Vec<String>>,
}

/// `Scan` request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct ScanRequest {
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub limit: Option<i64>,
    pub exclusive_start_key: Option<Item>,
    pub select: Option<String>,
    pub segment: Option<i64>,
    pub total_segments: Option<i64>,
    pub consistent_read: Option<bool>,
    pub return_consumed_capacity: Option<String>,
    pub scan_filter: Option<HashMap<String, ConditionShape>>,
    pub conditional_operator: Option<String>,
    pub attributes_to_get: Option<Vec<String>>,
}
