//! Expression-aware reads: Query (table or secondary index) and Scan with
//! `KeyConditionExpression`, `FilterExpression`, `ProjectionExpression`,
//! their legacy forms, and pagination ("Querying tables in DynamoDB",
//! "Scanning tables in DynamoDB", "Paginating table query results").
//! A page is planned and read by `read_page.rs`.

use super::DynamoDb;
use crate::dynamodb::expr::legacy::{self, LegacyValues};
use crate::dynamodb::expr::{
    self, ExpressionError, ExpressionKind, KeyCondition, Placeholders, SortCondition,
};
use crate::dynamodb::index::{self, IndexView};
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::read_page::ReadRequest;
use crate::dynamodb::request::{QueryInput, ReadOutput, ScanInput};
use crate::error::ReadError;
use crate::storage::key::KeyAttribute;
use crate::storage::key::{KeyRole, encode_key_part};
use serde_dynamo::{AttributeValue, Item};
use std::cmp::Ordering;

/// The names of the parameters a request gives.
pub(crate) fn given_names<'a>(pairs: &[(bool, &'a str)]) -> Vec<&'a str> {
    pairs.iter().filter(|(p, _)| *p).map(|(_, n)| *n).collect()
}

pub(crate) fn expr_err(table: &str) -> impl Fn(ExpressionError) -> ReadError + '_ {
    move |source| ReadError::Expression {
        table: table.to_string(),
        source,
    }
}

pub(crate) fn invalid(table: &str, message: String) -> ReadError {
    ReadError::Validation {
        table: table.to_string(),
        message,
    }
}

impl DynamoDb<'_> {
    /// Query: the items of one partition of the table or of secondary index
    /// `index_name`, in sort-key order (descending if `scan_index_forward`
    /// is false), narrowed by the key condition, then filtered and projected.
    /// The legacy `KeyConditions`, `QueryFilter` / `ConditionalOperator` and
    /// `AttributesToGet` work as their expression forms.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for an unknown
    /// index, a bad `limit` or `exclusive_start_key`, a filter on a key
    /// attribute of the queried table or index ("Filter Expression can only
    /// contain non-primary key attributes"), an oversized key value;
    /// [`ReadError::Expression`] for an invalid expression (including a key
    /// condition DynamoDB does not support, a value of the wrong type for a
    /// key) or a legacy parameter given with its expression form;
    /// [`ReadError::Storage`].
    pub fn query_with(&self, input: QueryInput) -> Result<ReadOutput, ReadError> {
        let table = input.table_name.as_str();
        let meta = self.read_meta(table)?;
        let given = |present: bool, name: &'static str| present.then_some(name);
        let legacy: Vec<&str> = [
            // KeyConditions may go with the other expressions (DynamoDB
            // refuses it only beside KeyConditionExpression).
            given(
                input.key_conditions.is_some() && input.key_condition_expression.is_some(),
                "KeyConditions",
            ),
            given(input.query_filter.is_some(), "QueryFilter"),
            given(input.attributes_to_get.is_some(), "AttributesToGet"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let expressions: Vec<&str> = [
            given(input.filter_expression.is_some(), "FilterExpression"),
            given(
                input.key_condition_expression.is_some(),
                "KeyConditionExpression",
            ),
            given(
                input.projection_expression.is_some(),
                "ProjectionExpression",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        legacy::check_parameters(
            &legacy,
            &expressions,
            &["FilterExpression", "KeyConditionExpression"],
            !input.expression_attribute_names.is_empty(),
            !input.expression_attribute_values.is_empty(),
        )
        .map_err(expr_err(table))?;
        let mut ph = Placeholders::new(
            &input.expression_attribute_names,
            &input.expression_attribute_values,
        )
        .map_err(expr_err(table))?;
        let mut legacy_values = LegacyValues::default();
        let kc = match (&input.key_condition_expression, &input.key_conditions) {
            (Some(text), _) => expr::compile_condition(
                ExpressionKind::KeyConditionExpression,
                text,
                &mut ph,
            ),
            (None, Some(map)) => legacy::key_conditions(map, &mut legacy_values),
            (None, None) => Err(ExpressionError::parameter(
                "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
            )),
        }
        .map_err(expr_err(table))?;
        let plan_index = resolve_index(table, &meta, input.index_name.as_deref())?;
        let (pk_attr, sk_attr) = key_schema(&meta, plan_index.as_ref());
        let plan = self.plan(
            table,
            &meta,
            plan_index,
            &mut ph,
            legacy_values,
            ReadRequest {
                filter_expression: input.filter_expression.as_deref(),
                projection_expression: input.projection_expression.as_deref(),
                values: &input.expression_attribute_values,
                legacy_filter: input.query_filter.as_ref(),
                conditional_operator: input.conditional_operator,
                attributes_to_get: input.attributes_to_get.as_deref(),
                limit: input.limit,
            },
        )?;
        let kc = KeyCondition::from_condition(&kc, pk_attr, sk_attr, &plan.values)
            .map_err(expr_err(table))?;
        if let Some(filter) = &plan.filter
            && let Some(key) = filter.paths().into_iter().find_map(|p| {
                std::iter::once(pk_attr)
                    .chain(sk_attr)
                    .find(|k| k.attribute_name == p.top())
            })
        {
            return Err(invalid(
                table,
                format!(
                    "Filter Expression can only contain non-primary key attributes: Primary key attribute: {}",
                    key.attribute_name
                ),
            ));
        }
        ph.finish().map_err(expr_err(table))?;
        let mut prefix = plan.key_prefix();
        encode_key_part(
            pk_attr.attribute_type,
            KeyRole::Partition,
            &kc.partition,
            &mut prefix,
        )
        .map_err(|e| invalid(table, e.message(&pk_attr.attribute_name)))?;
        let start = self.start_key(&plan, input.exclusive_start_key.as_ref())?;
        let sort_ok = |item: &Item| match (&kc.sort, sk_attr) {
            (Some(sc), Some(sk)) => item
                .get(&sk.attribute_name)
                .is_some_and(|v| sort_matches(sc, v)),
            _ => true,
        };
        self.run(&plan, &prefix, start, input.scan_index_forward, sort_ok)
    }

    /// Scan: every item of the table or of secondary index `index_name`, in
    /// key order, filtered and projected, paginated like
    /// [`DynamoDb::query_with`](crate::DynamoDb::query_with); with `segment` / `total_segments`, only one
    /// segment's items ("Parallel scan"). The legacy `ScanFilter` /
    /// `ConditionalOperator` and `AttributesToGet` work as their expression
    /// forms.
    ///
    /// # Errors
    ///
    /// As [`DynamoDb::query_with`](crate::DynamoDb::query_with), without key-condition errors;
    /// [`ReadError::Validation`] for `segment` without `total_segments` (or
    /// the reverse), or `segment` not below `total_segments`.
    pub fn scan_with(&self, input: ScanInput) -> Result<ReadOutput, ReadError> {
        let table = input.table_name.as_str();
        let meta = self.read_meta(table)?;
        let segment = match (input.segment, input.total_segments) {
            (None, None) => None,
            (Some(_), None) => {
                return Err(invalid(
                    table,
                    "The TotalSegments parameter is required but was not present in the request when Segment parameter is present".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(invalid(
                    table,
                    "The Segment parameter is required but was not present in the request when parameter TotalSegments is present".into(),
                ));
            }
            (Some(s), Some(t)) if s >= t => {
                return Err(invalid(
                    table,
                    format!(
                        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {s} is not less than TotalSegments: {t}"
                    ),
                ));
            }
            (Some(s), Some(t)) => Some((s, t)),
        };
        let given = |present: bool, name: &'static str| present.then_some(name);
        let legacy: Vec<&str> = [
            given(input.scan_filter.is_some(), "ScanFilter"),
            given(input.attributes_to_get.is_some(), "AttributesToGet"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let expressions: Vec<&str> = [
            given(input.filter_expression.is_some(), "FilterExpression"),
            given(
                input.projection_expression.is_some(),
                "ProjectionExpression",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        legacy::check_parameters(
            &legacy,
            &expressions,
            &["FilterExpression"],
            !input.expression_attribute_names.is_empty(),
            !input.expression_attribute_values.is_empty(),
        )
        .map_err(expr_err(table))?;
        let mut ph = Placeholders::new(
            &input.expression_attribute_names,
            &input.expression_attribute_values,
        )
        .map_err(expr_err(table))?;
        let plan_index = resolve_index(table, &meta, input.index_name.as_deref())?;
        let mut plan = self.plan(
            table,
            &meta,
            plan_index,
            &mut ph,
            LegacyValues::default(),
            ReadRequest {
                filter_expression: input.filter_expression.as_deref(),
                projection_expression: input.projection_expression.as_deref(),
                values: &input.expression_attribute_values,
                legacy_filter: input.scan_filter.as_ref(),
                conditional_operator: input.conditional_operator,
                attributes_to_get: input.attributes_to_get.as_deref(),
                limit: input.limit,
            },
        )?;
        plan.segment = segment;
        ph.finish().map_err(expr_err(table))?;
        let prefix = plan.key_prefix();
        let start = self.start_key(&plan, input.exclusive_start_key.as_ref())?;
        self.run(&plan, &prefix, start, true, |_| true)
    }
}

fn resolve_index<'a>(
    table: &str,
    meta: &'a TableMeta,
    name: Option<&str>,
) -> Result<Option<IndexView<'a>>, ReadError> {
    name.map(|n| {
        index::find(&meta.definition, n).ok_or_else(|| {
            invalid(
                table,
                format!("The table does not have the specified index: {n}"),
            )
        })
    })
    .transpose()
}

fn key_schema<'a>(
    meta: &'a TableMeta,
    ix: Option<&IndexView<'a>>,
) -> (&'a KeyAttribute, Option<&'a KeyAttribute>) {
    match ix {
        Some(ix) => (ix.partition_key, ix.sort_key),
        None => (
            &meta.definition.partition_key,
            meta.definition.sort_key.as_ref(),
        ),
    }
}

fn sort_matches(sc: &SortCondition, v: &AttributeValue) -> bool {
    use crate::dynamodb::expr::compare;
    match sc {
        SortCondition::Compare(op, x) => compare(v, x).is_some_and(|o| match op {
            crate::dynamodb::expr::Comparator::Eq => o == Ordering::Equal,
            crate::dynamodb::expr::Comparator::Lt => o == Ordering::Less,
            crate::dynamodb::expr::Comparator::Le => o != Ordering::Greater,
            crate::dynamodb::expr::Comparator::Gt => o == Ordering::Greater,
            crate::dynamodb::expr::Comparator::Ge => o != Ordering::Less,
            crate::dynamodb::expr::Comparator::Ne => false,
        }),
        SortCondition::Between(lo, hi) => {
            compare(v, lo).is_some_and(Ordering::is_ge)
                && compare(v, hi).is_some_and(Ordering::is_le)
        }
        SortCondition::BeginsWith(p) => match (v, p) {
            (AttributeValue::S(s), AttributeValue::S(p)) => s.starts_with(p.as_str()),
            (AttributeValue::B(s), AttributeValue::B(p)) => s.starts_with(p),
            _ => false,
        },
    }
}
