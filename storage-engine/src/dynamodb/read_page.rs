//! One page of a Query or Scan: the plan (filter, projection, the values
//! to evaluate with, `Limit`, a parallel scan's segment), the start after
//! `ExclusiveStartKey`, and the read itself.
//!
//! `Limit` counts items read before the filter; a page also ends once the
//! items read reach 1 MB. `LastEvaluatedKey` holds the table key (plus the
//! index key for an index) of the last item read.

use super::DynamoDb;
use crate::dynamodb::expr::legacy::{self, LegacyValues};
use crate::dynamodb::expr::{self, ExpressionKind, Placeholders};
use crate::dynamodb::index::{self, IndexView};
use crate::dynamodb::item::decode_item;
use crate::dynamodb::item::{key_item, primary_key_bytes};
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::query::{expr_err, invalid};
use crate::dynamodb::request::{Condition as LegacyCondition, ConditionalOperator, ReadOutput};
use crate::error::ReadError;
use crate::storage::attribute::item_size_bytes;
use crate::storage::item_key;
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

/// DynamoDB's page size cap: 1 MB of items read.
const MAX_PAGE_BYTES: u64 = 1024 * 1024;

pub(crate) struct Plan<'a> {
    pub(crate) table: &'a str,
    pub(crate) meta: &'a TableMeta,
    pub(crate) index: Option<IndexView<'a>>,
    pub(crate) filter: Option<expr::Condition>,
    pub(crate) projection: Option<Vec<expr::Path>>,
    /// `ExpressionAttributeValues` and the legacy parameters' values.
    pub(crate) values: HashMap<String, AttributeValue>,
    pub(crate) limit: Option<usize>,
    /// A parallel scan's `(Segment, TotalSegments)`.
    pub(crate) segment: Option<(u32, u32)>,
}

impl Plan<'_> {
    /// The key prefix of everything the plan reads: the table's items, or
    /// one index's entries.
    pub(crate) fn key_prefix(&self) -> Vec<u8> {
        match &self.index {
            Some(ix) => index::index_prefix(self.meta.id, ix.name),
            None => self.meta.id.to_be_bytes().to_vec(),
        }
    }

    /// Whether `item` belongs to the plan's scan segment (always, when the
    /// scan is not parallel): FNV-1a of the item's encoded primary key,
    /// modulo `TotalSegments`, so every item is in exactly one segment.
    fn in_segment(&self, item: &Item) -> bool {
        let Some((segment, total)) = self.segment else {
            return true;
        };
        let Ok(key) = primary_key_bytes(&self.meta.definition, item) else {
            return false;
        };
        let hash = key.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        });
        hash % u64::from(total) == u64::from(segment)
    }
}

/// The request parts a Query and a Scan share, for [`DynamoDb::plan`](crate::DynamoDb::plan).
pub(crate) struct ReadRequest<'a> {
    pub(crate) filter_expression: Option<&'a str>,
    pub(crate) projection_expression: Option<&'a str>,
    pub(crate) values: &'a HashMap<String, AttributeValue>,
    pub(crate) legacy_filter: Option<&'a HashMap<String, LegacyCondition>>,
    pub(crate) conditional_operator: Option<ConditionalOperator>,
    pub(crate) attributes_to_get: Option<&'a [String]>,
    pub(crate) limit: Option<usize>,
}

impl DynamoDb<'_> {
    pub(crate) fn plan<'a>(
        &self,
        table: &'a str,
        meta: &'a TableMeta,
        index: Option<IndexView<'a>>,
        ph: &mut Placeholders<'_>,
        mut legacy_values: LegacyValues,
        request: ReadRequest<'_>,
    ) -> Result<Plan<'a>, ReadError> {
        if request.limit == Some(0) {
            return Err(invalid(table, "Limit must be at least 1".into()));
        }
        let mut filter = request
            .filter_expression
            .map(|t| expr::compile_condition(ExpressionKind::FilterExpression, t, ph))
            .transpose()
            .map_err(expr_err(table))?;
        if filter.is_none() {
            filter = legacy::filter(
                request.legacy_filter,
                request.conditional_operator,
                &mut legacy_values,
            )
            .map_err(expr_err(table))?;
        }
        let mut projection = request
            .projection_expression
            .map(|t| expr::compile_projection(t, ph))
            .transpose()
            .map_err(expr_err(table))?;
        if let Some(names) = request.attributes_to_get {
            projection = Some(legacy::attributes_to_get(names).map_err(expr_err(table))?);
        }
        Ok(Plan {
            table,
            meta,
            index,
            filter,
            projection,
            values: legacy_values.merged(request.values),
            limit: request.limit,
            segment: None,
        })
    }

    pub(crate) fn start_key(
        &self,
        plan: &Plan<'_>,
        esk: Option<&Item>,
    ) -> Result<Option<Vec<u8>>, ReadError> {
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

    pub(crate) fn run(
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
            if !sort_ok(&item) || !plan.in_segment(&item) {
                continue;
            }
            out.scanned_count += 1;
            let size = item_size_bytes(&item);
            bytes += size;
            out.scanned_bytes += size;
            let full =
                plan.limit.is_some_and(|l| out.scanned_count >= l) || bytes >= MAX_PAGE_BYTES;
            let lek = full.then(|| self.evaluated_key(plan, &item));
            let keep = match &plan.filter {
                Some(f) => expr::evaluate(
                    ExpressionKind::FilterExpression,
                    f,
                    Some(&item),
                    &plan.values,
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
