//! Request and response shapes of the expression-aware operations, named as
//! in the DynamoDB API reference (`PutItem`, `UpdateItem`, `DeleteItem`,
//! `Query`, `Scan`). Placeholder maps are `ExpressionAttributeNames` (`#n` ->
//! attribute name) and `ExpressionAttributeValues` (`:v` -> value); every
//! entry must be used by an expression of the request.

use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

/// Which item attributes a write returns (DynamoDB `ReturnValues`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReturnValue {
    /// `NONE` (default): nothing.
    #[default]
    None,
    /// `ALL_OLD`: the item as it was before the write.
    AllOld,
    /// `UPDATED_OLD` (UpdateItem only): the old values of the top-level
    /// attributes the update expression names.
    UpdatedOld,
    /// `ALL_NEW` (UpdateItem only): the item after the update.
    AllNew,
    /// `UPDATED_NEW` (UpdateItem only): the new values of the top-level
    /// attributes the update expression names.
    UpdatedNew,
}

/// `PutItem` with a condition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PutItemInput {
    /// Table name.
    pub table_name: String,
    /// The whole item, key attributes included.
    pub item: Item,
    /// Must hold for the current item (absent item = no attributes).
    pub condition_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// `:value` placeholders.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// `NONE` or `ALL_OLD`.
    pub return_values: ReturnValue,
}

/// `UpdateItem` with update and condition expressions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateItemInput {
    /// Table name.
    pub table_name: String,
    /// Exactly the key attributes.
    pub key: Item,
    /// `SET` / `REMOVE` / `ADD` / `DELETE` clauses; `None` creates the item
    /// with only its key if absent.
    pub update_expression: Option<String>,
    /// Must hold for the current item (absent item = no attributes).
    pub condition_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// `:value` placeholders.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// Any [`ReturnValue`].
    pub return_values: ReturnValue,
}

/// `DeleteItem` with a condition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteItemInput {
    /// Table name.
    pub table_name: String,
    /// Exactly the key attributes.
    pub key: Item,
    /// Must hold for the current item (absent item = no attributes).
    pub condition_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// `:value` placeholders.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// `NONE` or `ALL_OLD`.
    pub return_values: ReturnValue,
}

/// The result of a write: the attributes [`ReturnValue`] selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteOutput {
    /// `None` for `ReturnValue::None` or when there is nothing to return.
    pub attributes: Option<Item>,
}

/// `Query` ("Querying tables in DynamoDB").
#[derive(Clone, Debug, PartialEq)]
pub struct QueryInput {
    /// Table name.
    pub table_name: String,
    /// Query this secondary index instead of the table.
    pub index_name: Option<String>,
    /// `pk = :v` and optionally one sort-key condition.
    pub key_condition_expression: String,
    /// Applied after reading; items failing it are not returned but count
    /// toward `limit` and `scanned_count`.
    pub filter_expression: Option<String>,
    /// Attributes to return (default: all).
    pub projection_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// `:value` placeholders.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// `true` (default): ascending sort-key order; `false`: descending.
    pub scan_index_forward: bool,
    /// Most items to read (before the filter), at least 1.
    pub limit: Option<usize>,
    /// Continue after this key (a previous `last_evaluated_key`).
    pub exclusive_start_key: Option<Item>,
}

impl QueryInput {
    /// A query of `table_name` with `key_condition_expression`, defaults elsewhere.
    pub fn new(table_name: impl Into<String>, key_condition_expression: impl Into<String>) -> Self {
        Self {
            table_name: table_name.into(),
            index_name: None,
            key_condition_expression: key_condition_expression.into(),
            filter_expression: None,
            projection_expression: None,
            expression_attribute_names: HashMap::new(),
            expression_attribute_values: HashMap::new(),
            scan_index_forward: true,
            limit: None,
            exclusive_start_key: None,
        }
    }
}

/// `Scan` ("Scanning tables in DynamoDB").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanInput {
    /// Table name.
    pub table_name: String,
    /// Scan this secondary index instead of the table.
    pub index_name: Option<String>,
    /// Applied after reading.
    pub filter_expression: Option<String>,
    /// Attributes to return (default: all).
    pub projection_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// `:value` placeholders.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// Most items to read (before the filter), at least 1.
    pub limit: Option<usize>,
    /// Continue after this key (a previous `last_evaluated_key`).
    pub exclusive_start_key: Option<Item>,
}

/// One page of a Query or Scan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadOutput {
    /// Items that passed the filter, projected.
    pub items: Vec<Item>,
    /// Items read before the filter (DynamoDB `ScannedCount`).
    pub scanned_count: usize,
    /// Set when the page stopped at `limit` or 1 MB: pass it as
    /// `exclusive_start_key` to continue. May be set on a last, full page.
    pub last_evaluated_key: Option<Item>,
}
