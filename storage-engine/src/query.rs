//! Expression-aware reads: Query (table or secondary index) and Scan with
//! `KeyConditionExpression`, `FilterExpression`, `ProjectionExpression` and
//! pagination ("Querying tables in DynamoDB", "Scanning tables in
//! DynamoDB", "Paginating table query results").
//!
//! `Limit` counts items read before the filter; a page also ends once the
//! items read reach 1 MB. `LastEvaluatedKey` holds the table key (plus the
//! index key for an index) of the last item read.

use crate::engine::Engine;
use crate::error::ReadError;
use crate::expr::{
    self, ExpressionError, ExpressionKind, KeyCondition, Placeholders, SortCondition,
};
use crate::index::{self, IndexView};
use crate::item::{item_size_bytes, key_item, primary_key_bytes};
use crate::key::encode_key_value;
use crate::request::{QueryInput, ReadOutput, ScanInput};
use crate::storage::{TableMeta, decode_item, item_key};
use crate::table::KeyAttribute;
use serde_dynamo::{AttributeValue, Item};
use std::cmp::Ordering;
use std::collections::HashMap;

/// DynamoDB's page size cap: 1 MB of items read.
const MAX_PAGE_BYTES: u64 = 1024 * 1024;

struct Plan<'a> {
    table: &'a str,
    meta: &'a TableMeta,
    index: Option<IndexView<'a>>,
    filter: Option<expr::Condition>,
    projection: Option<Vec<expr::Path>>,
    values: &'a HashMap<String, AttributeValue>,
    limit: Option<usize>,
}

impl Plan<'_> {
    /// The key prefix of everything the plan reads: the table's items, or
    /// one index's entries.
    fn key_prefix(&self) -> Vec<u8> {
        match &self.index {
            Some(ix) => index::index_prefix(self.meta.id, ix.name),
            None => self.meta.id.to_be_bytes().to_vec(),
        }
    }
}

fn expr_err(table: &str) -> impl Fn(ExpressionError) -> ReadError + '_ {
    move |source| ReadError::Expression {
        table: table.to_string(),
        source,
    }
}

fn invalid(table: &str, message: String) -> ReadError {
    ReadError::Validation {
        table: table.to_string(),
        message,
    }
}

impl Engine {
    /// Query: the items of one partition of the table or of secondary index
    /// `index_name`, in sort-key order (descending if `scan_index_forward`
    /// is false), narrowed by the key condition, then filtered and projected.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for an unknown
    /// index, a bad `limit` or `exclusive_start_key`;
    /// [`ReadError::Expression`] for an invalid expression (including a key
    /// condition DynamoDB does not support); [`ReadError::Storage`].
    pub fn query_with(&self, input: QueryInput) -> Result<ReadOutput, ReadError> {
        let table = input.table_name.as_str();
        let meta = self.read_meta(table)?;
        let values = &input.expression_attribute_values;
        let mut ph = Placeholders::new(&input.expression_attribute_names, values);
        let kc = expr::compile_condition(
            ExpressionKind::KeyConditionExpression,
            &input.key_condition_expression,
            &mut ph,
        )
        .map_err(expr_err(table))?;
        let plan_index = resolve_index(table, &meta, input.index_name.as_deref())?;
        let (pk_attr, sk_attr) = key_schema(&meta, plan_index.as_ref());
        let kc = KeyCondition::from_condition(
            &kc,
            &pk_attr.attribute_name,
            sk_attr.map(|k| k.attribute_name.as_str()),
            values,
        )
        .map_err(expr_err(table))?;
        let plan = self.plan(
            table,
            &meta,
            plan_index,
            &mut ph,
            input.filter_expression.as_deref(),
            input.projection_expression.as_deref(),
            values,
            input.limit,
        )?;
        ph.finish().map_err(expr_err(table))?;
        let mut prefix = plan.key_prefix();
        encode_key_value(pk_attr.attribute_type, &kc.partition, &mut prefix).map_err(|m| {
            expr_err(table)(ExpressionError::invalid(
                ExpressionKind::KeyConditionExpression,
                format!("partition key `{}` {m}", pk_attr.attribute_name),
            ))
        })?;
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
    /// key order, filtered and projected, paginated like [`Engine::query_with`].
    ///
    /// # Errors
    ///
    /// As [`Engine::query_with`], without key-condition errors.
    pub fn scan_with(&self, input: ScanInput) -> Result<ReadOutput, ReadError> {
        let table = input.table_name.as_str();
        let meta = self.read_meta(table)?;
        let values = &input.expression_attribute_values;
        let mut ph = Placeholders::new(&input.expression_attribute_names, values);
        let plan_index = resolve_index(table, &meta, input.index_name.as_deref())?;
        let plan = self.plan(
            table,
            &meta,
            plan_index,
            &mut ph,
            input.filter_expression.as_deref(),
            input.projection_expression.as_deref(),
            values,
            input.limit,
        )?;
        ph.finish().map_err(expr_err(table))?;
        let prefix = plan.key_prefix();
        let start = self.start_key(&plan, input.exclusive_start_key.as_ref())?;
        self.run(&plan, &prefix, start, true, |_| true)
    }

    #[allow(clippy::too_many_arguments)]
    fn plan<'a>(
        &self,
        table: &'a str,
        meta: &'a TableMeta,
        index: Option<IndexView<'a>>,
        ph: &mut Placeholders<'_>,
        filter: Option<&str>,
        projection: Option<&str>,
        values: &'a HashMap<String, AttributeValue>,
        limit: Option<usize>,
    ) -> Result<Plan<'a>, ReadError> {
        if limit == Some(0) {
            return Err(invalid(table, "Limit must be at least 1".into()));
        }
        let filter = filter
            .map(|t| expr::compile_condition(ExpressionKind::FilterExpression, t, ph))
            .transpose()
            .map_err(expr_err(table))?;
        let projection = projection
            .map(|t| expr::compile_projection(t, ph))
            .transpose()
            .map_err(expr_err(table))?;
        Ok(Plan {
            table,
            meta,
            index,
            filter,
            projection,
            values,
            limit,
        })
    }

    fn start_key(&self, plan: &Plan<'_>, esk: Option<&Item>) -> Result<Option<Vec<u8>>, ReadError> {
        let Some(esk) = esk else { return Ok(None) };
        let bad = || {
            invalid(
                plan.table,
                "The provided starting key is invalid: it does not hold the key attributes".into(),
            )
        };
        Ok(Some(match &plan.index {
            Some(ix) => index::start_key(plan.meta, ix, esk).ok_or_else(bad)?,
            None => item_key(
                plan.meta.id,
                &primary_key_bytes(&plan.meta.definition, esk).map_err(|_| bad())?,
            ),
        }))
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        prefix: &[u8],
        start: Option<Vec<u8>>,
        forward: bool,
        sort_ok: impl Fn(&Item) -> bool,
    ) -> Result<ReadOutput, ReadError> {
        let store = &self.inner.store;
        let ks = if plan.index.is_some() {
            &store.indexes
        } else {
            &store.items
        };
        let iter = ks.prefix(prefix);
        let iter: Box<dyn Iterator<Item = _>> = if forward {
            Box::new(iter)
        } else {
            Box::new(iter.rev())
        };
        let mut out = ReadOutput::default();
        let mut bytes = 0u64;
        for guard in iter {
            let (key, value) = guard.into_inner()?;
            if let Some(s) = &start {
                let past = if forward {
                    key.as_ref() > s.as_slice()
                } else {
                    key.as_ref() < s.as_slice()
                };
                if !past {
                    continue;
                }
            }
            let item = decode_item(&value)?;
            if !sort_ok(&item) {
                continue;
            }
            out.scanned_count += 1;
            bytes += item_size_bytes(&item);
            let full =
                plan.limit.is_some_and(|l| out.scanned_count >= l) || bytes >= MAX_PAGE_BYTES;
            let lek = full.then(|| self.evaluated_key(plan, &item));
            let keep = match &plan.filter {
                Some(f) => expr::evaluate(
                    ExpressionKind::FilterExpression,
                    f,
                    Some(&item),
                    plan.values,
                )
                .map_err(expr_err(plan.table))?,
                None => true,
            };
            if keep {
                out.items.push(match &plan.projection {
                    Some(p) => expr::project(&item, p).into(),
                    None => item,
                });
            }
            if lek.is_some() {
                out.last_evaluated_key = lek;
                break;
            }
        }
        Ok(out)
    }

    fn evaluated_key(&self, plan: &Plan<'_>, item: &Item) -> Item {
        let mut key = key_item(&plan.meta.definition, item);
        if let Some(ix) = &plan.index {
            for k in ix.key_attributes() {
                if let Some(v) = item.get(&k.attribute_name) {
                    key.insert(k.attribute_name.clone(), v.clone());
                }
            }
        }
        key
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
    use crate::expr::compare;
    match sc {
        SortCondition::Compare(op, x) => compare(v, x).is_some_and(|o| match op {
            crate::expr::Comparator::Eq => o == Ordering::Equal,
            crate::expr::Comparator::Lt => o == Ordering::Less,
            crate::expr::Comparator::Le => o != Ordering::Greater,
            crate::expr::Comparator::Gt => o == Ordering::Greater,
            crate::expr::Comparator::Ge => o != Ordering::Less,
            crate::expr::Comparator::Ne => false,
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
