//! Request and response shapes of the expression-aware operations, named as
//! in the DynamoDB API reference (`PutItem`, `UpdateItem`, `DeleteItem`,
//! `Query`, `Scan`). Placeholder maps are `ExpressionAttributeNames` (`#n` ->
//! attribute name) and `ExpressionAttributeValues` (`:v` -> value); every
//! entry must be used by an expression of the request.
//!
//! The legacy (pre-expression) parameters are here too, as DynamoDB still
//! takes them ("Legacy conditional parameters" in the DynamoDB Developer
//! Guide): `Expected` / `ConditionalOperator`, `AttributeUpdates`,
//! `AttributesToGet`, `KeyConditions`, `QueryFilter`, `ScanFilter`. Each is
//! mapped onto the expression engine (`expr/legacy.rs`); a request giving a
//! legacy parameter and its expression form is refused, as DynamoDB
//! refuses it.

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

/// `ComparisonOperator` of a legacy condition ("Legacy conditional
/// parameters": Expected, KeyConditions, QueryFilter, ScanFilter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComparisonOperator {
    /// `EQ`: equal (attribute absent: false).
    Eq,
    /// `NE`: not equal (attribute absent: true).
    Ne,
    /// `LE`: less than or equal.
    Le,
    /// `LT`: less than.
    Lt,
    /// `GE`: greater than or equal.
    Ge,
    /// `GT`: greater than.
    Gt,
    /// `NOT_NULL`: the attribute exists.
    NotNull,
    /// `NULL`: the attribute does not exist.
    Null,
    /// `CONTAINS`: a substring, or a member of a set or list.
    Contains,
    /// `NOT_CONTAINS`: the attribute exists and does not contain the value.
    NotContains,
    /// `BEGINS_WITH`: a String or Binary prefix.
    BeginsWith,
    /// `IN`: equal to one of the values.
    In,
    /// `BETWEEN`: between two values, inclusive.
    Between,
}

impl ComparisonOperator {
    /// The DynamoDB spelling (`EQ`, `NOT_NULL`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Eq => "EQ",
            Self::Ne => "NE",
            Self::Le => "LE",
            Self::Lt => "LT",
            Self::Ge => "GE",
            Self::Gt => "GT",
            Self::NotNull => "NOT_NULL",
            Self::Null => "NULL",
            Self::Contains => "CONTAINS",
            Self::NotContains => "NOT_CONTAINS",
            Self::BeginsWith => "BEGINS_WITH",
            Self::In => "IN",
            Self::Between => "BETWEEN",
        }
    }

    /// Parses the DynamoDB spelling; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "EQ" => Self::Eq,
            "NE" => Self::Ne,
            "LE" => Self::Le,
            "LT" => Self::Lt,
            "GE" => Self::Ge,
            "GT" => Self::Gt,
            "NOT_NULL" => Self::NotNull,
            "NULL" => Self::Null,
            "CONTAINS" => Self::Contains,
            "NOT_CONTAINS" => Self::NotContains,
            "BEGINS_WITH" => Self::BeginsWith,
            "IN" => Self::In,
            "BETWEEN" => Self::Between,
            _ => return None,
        })
    }
}

/// `ConditionalOperator`: how the conditions of a legacy map combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConditionalOperator {
    /// `AND` (the default): every condition holds.
    #[default]
    And,
    /// `OR`: at least one holds.
    Or,
}

/// `ExpectedAttributeValue`: one entry of `Expected`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpectedAttributeValue {
    /// `Value`: with `Exists` true (or absent), the attribute must equal it.
    pub value: Option<AttributeValue>,
    /// `Exists`: `false` requires the attribute to be absent.
    pub exists: Option<bool>,
    /// `ComparisonOperator` (not with `Exists`).
    pub comparison_operator: Option<ComparisonOperator>,
    /// `AttributeValueList`: the operator's operands.
    pub attribute_value_list: Option<Vec<AttributeValue>>,
}

/// `Condition`: one entry of `KeyConditions`, `QueryFilter` or `ScanFilter`.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// `ComparisonOperator`.
    pub comparison_operator: ComparisonOperator,
    /// `AttributeValueList`: its operands (none for `NULL` / `NOT_NULL`).
    pub attribute_value_list: Vec<AttributeValue>,
}

/// `AttributeAction` of an `AttributeValueUpdate`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AttributeAction {
    /// `PUT` (the default): set the attribute to the value.
    #[default]
    Put,
    /// `DELETE`: remove the attribute, or (with a set value) those elements.
    Delete,
    /// `ADD`: add to a Number, or add elements to a set.
    Add,
}

/// `AttributeValueUpdate`: one entry of `AttributeUpdates`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeValueUpdate {
    /// `Value` (required for `PUT` and `ADD`).
    pub value: Option<AttributeValue>,
    /// `Action`.
    pub action: AttributeAction,
}

/// `GetItem` with a projection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetItemInput {
    /// Table name.
    pub table_name: String,
    /// Exactly the key attributes.
    pub key: Item,
    /// Attributes to return (default: all).
    pub projection_expression: Option<String>,
    /// `#name` placeholders.
    pub expression_attribute_names: HashMap<String, String>,
    /// Legacy `AttributesToGet` (not with `projection_expression`).
    pub attributes_to_get: Option<Vec<String>>,
}

/// The result of a GetItem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetItemOutput {
    /// The item (projected), if it exists.
    pub item: Option<Item>,
    /// The size of the whole stored item, in bytes (what DynamoDB bills
    /// the read by; 0 when absent).
    pub item_size_bytes: u64,
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
    /// Legacy `Expected` (not with `condition_expression`).
    pub expected: Option<HashMap<String, ExpectedAttributeValue>>,
    /// Legacy `ConditionalOperator` of `expected`.
    pub conditional_operator: Option<ConditionalOperator>,
    /// `ReturnValuesOnConditionCheckFailure`: `NONE` or `ALL_OLD` (the
    /// item goes in [`WriteError::ConditionalCheckFailed`](crate::WriteError::ConditionalCheckFailed)).
    pub return_values_on_condition_check_failure: ReturnValue,
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
    /// Legacy `AttributeUpdates` (not with `update_expression`).
    pub attribute_updates: Option<HashMap<String, AttributeValueUpdate>>,
    /// Legacy `Expected` (not with `condition_expression`).
    pub expected: Option<HashMap<String, ExpectedAttributeValue>>,
    /// Legacy `ConditionalOperator` of `expected`.
    pub conditional_operator: Option<ConditionalOperator>,
    /// `ReturnValuesOnConditionCheckFailure`: `NONE` or `ALL_OLD`.
    pub return_values_on_condition_check_failure: ReturnValue,
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
    /// Legacy `Expected` (not with `condition_expression`).
    pub expected: Option<HashMap<String, ExpectedAttributeValue>>,
    /// Legacy `ConditionalOperator` of `expected`.
    pub conditional_operator: Option<ConditionalOperator>,
    /// `ReturnValuesOnConditionCheckFailure`: `NONE` or `ALL_OLD`.
    pub return_values_on_condition_check_failure: ReturnValue,
}

/// The result of a write: the attributes [`ReturnValue`] selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteOutput {
    /// `None` for `ReturnValue::None` or when there is nothing to return.
    pub attributes: Option<Item>,
    /// The larger of the item's size before and after the write, in bytes
    /// (what DynamoDB bills a write by; 0 when nothing was there or written).
    pub item_size_bytes: u64,
}

/// `Query` ("Querying tables in DynamoDB").
#[derive(Clone, Debug, PartialEq)]
pub struct QueryInput {
    /// Table name.
    pub table_name: String,
    /// Query this secondary index instead of the table.
    pub index_name: Option<String>,
    /// `pk = :v` and optionally one sort-key condition; `None` with
    /// `key_conditions`.
    pub key_condition_expression: Option<String>,
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
    /// Legacy `KeyConditions` (instead of `key_condition_expression`).
    pub key_conditions: Option<HashMap<String, Condition>>,
    /// Legacy `QueryFilter` (not with `filter_expression`).
    pub query_filter: Option<HashMap<String, Condition>>,
    /// Legacy `ConditionalOperator` of `query_filter`.
    pub conditional_operator: Option<ConditionalOperator>,
    /// Legacy `AttributesToGet` (not with `projection_expression`).
    pub attributes_to_get: Option<Vec<String>>,
}

impl QueryInput {
    /// A query of `table_name` with `key_condition_expression`, defaults elsewhere.
    pub fn new(table_name: impl Into<String>, key_condition_expression: impl Into<String>) -> Self {
        Self {
            table_name: table_name.into(),
            index_name: None,
            key_condition_expression: Some(key_condition_expression.into()),
            filter_expression: None,
            projection_expression: None,
            expression_attribute_names: HashMap::new(),
            expression_attribute_values: HashMap::new(),
            scan_index_forward: true,
            limit: None,
            exclusive_start_key: None,
            key_conditions: None,
            query_filter: None,
            conditional_operator: None,
            attributes_to_get: None,
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
    /// Legacy `ScanFilter` (not with `filter_expression`).
    pub scan_filter: Option<HashMap<String, Condition>>,
    /// Legacy `ConditionalOperator` of `scan_filter`.
    pub conditional_operator: Option<ConditionalOperator>,
    /// Legacy `AttributesToGet` (not with `projection_expression`).
    pub attributes_to_get: Option<Vec<String>>,
    /// `Segment` of a parallel scan (0-based, below `total_segments`):
    /// this scan reads only the items of that segment ("Parallel scan" in
    /// "Scanning tables in DynamoDB").
    pub segment: Option<u32>,
    /// `TotalSegments` of a parallel scan (1 to 1,000,000).
    pub total_segments: Option<u32>,
}

/// One page of a Query or Scan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadOutput {
    /// Items that passed the filter, projected.
    pub items: Vec<Item>,
    /// Items read before the filter (DynamoDB `ScannedCount`).
    pub scanned_count: usize,
    /// The size of the items read before the filter, in bytes (what
    /// DynamoDB bills a Query or Scan by).
    pub scanned_bytes: u64,
    /// Set when the page stopped at `limit` or 1 MB: pass it as
    /// `exclusive_start_key` to continue. May be set on a last, full page.
    pub last_evaluated_key: Option<Item>,
}
