//! Expression-aware writes: PutItem / UpdateItem / DeleteItem with
//! `ConditionExpression`, `UpdateExpression`, `ReturnValues` and
//! `ReturnValuesOnConditionCheckFailure` ("Condition expressions", "Update
//! expressions" in the DynamoDB Developer Guide), and their legacy forms
//! `Expected` / `ConditionalOperator` and `AttributeUpdates` ("Legacy
//! conditional parameters"). The condition is evaluated under the write
//! lock against the stored item, so check and write are atomic.

use super::DynamoDb;
use crate::dynamodb::expr::legacy::{self, LegacyValues};
use crate::dynamodb::expr::{self, ExpressionError, ExpressionKind, Placeholders};
use crate::dynamodb::item::{key_only_bytes, validate_item};
use crate::dynamodb::request::{
    ConditionalOperator, DeleteItemInput, ExpectedAttributeValue, PutItemInput, ReturnValue,
    UpdateItemInput, WriteOutput,
};
use crate::dynamodb::write::validation;
use crate::error::WriteError;
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

fn expr_err(table: &str) -> impl Fn(ExpressionError) -> WriteError + '_ {
    move |source| WriteError::Expression {
        table: table.to_string(),
        source,
    }
}

/// The condition of a write, compiled: from `ConditionExpression` or from
/// the legacy `Expected` / `ConditionalOperator`, with the values to
/// evaluate it against.
struct CompiledCondition {
    condition: Option<expr::Condition>,
    values: HashMap<String, AttributeValue>,
}

/// Compiles a write's condition: `ConditionExpression` through `ph`, else
/// the legacy `Expected` map (whose values join `legacy`).
fn condition(
    text: Option<&str>,
    expected: Option<&HashMap<String, ExpectedAttributeValue>>,
    operator: Option<ConditionalOperator>,
    ph: &mut Placeholders<'_>,
    legacy: &mut LegacyValues,
) -> Result<Option<expr::Condition>, ExpressionError> {
    match text {
        Some(t) => expr::compile_condition(ExpressionKind::ConditionExpression, t, ph).map(Some),
        None => legacy::expected(expected, operator, legacy),
    }
}

/// Fails with `ConditionalCheckFailed` unless `cond` holds for `old`; the
/// failure carries `old` when `return_old` (ReturnValuesOnConditionCheckFailure
/// `ALL_OLD`).
fn check(
    table: &str,
    cond: &CompiledCondition,
    old: Option<&Item>,
    return_old: bool,
) -> Result<(), WriteError> {
    let Some(c) = &cond.condition else {
        return Ok(());
    };
    let ok = expr::evaluate(
        ExpressionKind::ConditionExpression,
        c,
        old.map(|i| &**i),
        &cond.values,
    )
    .map_err(expr_err(table))?;
    if ok {
        Ok(())
    } else {
        Err(WriteError::ConditionalCheckFailed {
            table: table.to_string(),
            item: old.filter(|_| return_old).cloned(),
        })
    }
}

/// `NONE` or `ALL_OLD` only, with DynamoDB's message ("ReturnValues can
/// only be ALL_OLD or NONE").
fn old_only(table: &str, what: &str, rv: ReturnValue) -> Result<(), WriteError> {
    match rv {
        ReturnValue::None | ReturnValue::AllOld => Ok(()),
        _ => Err(validation(
            table,
            format!("{what} can only be ALL_OLD or NONE"),
        )),
    }
}

/// The parameter names a write request gives, for the legacy/expression
/// mixing rules.
fn given<'a>(pairs: &[(bool, &'a str)]) -> Vec<&'a str> {
    pairs.iter().filter(|(p, _)| *p).map(|(_, n)| *n).collect()
}

impl DynamoDb<'_> {
    /// PutItem with an optional `ConditionExpression` (or legacy `Expected`)
    /// and `ReturnValues` (`NONE` or `ALL_OLD`).
    ///
    /// # Errors
    ///
    /// As [`DynamoDb::put_item`](crate::DynamoDb::put_item); [`WriteError::Expression`] for an invalid
    /// expression, unused placeholder, invalid legacy parameter or a legacy
    /// parameter given with its expression form;
    /// [`WriteError::ConditionalCheckFailed`] when the condition is false
    /// (nothing written).
    pub fn put_item_with(&self, input: PutItemInput) -> Result<WriteOutput, WriteError> {
        let PutItemInput {
            table_name,
            mut item,
            condition_expression,
            expression_attribute_names,
            expression_attribute_values,
            return_values,
            expected,
            conditional_operator,
            return_values_on_condition_check_failure,
        } = input;
        old_only(&table_name, "ReturnValues", return_values)?;
        let cond = self.write_condition(WriteCondition {
            table: &table_name,
            condition_expression: condition_expression.as_deref(),
            expected: expected.as_ref(),
            conditional_operator,
            names: &expression_attribute_names,
            values: &expression_attribute_values,
            return_values_on_condition_check_failure,
        })?;
        self.conditional_write(
            &table_name,
            &cond,
            return_values,
            return_values_on_condition_check_failure,
            Target::Put(&mut item),
        )
    }

    /// UpdateItem with an optional `UpdateExpression` (SET with
    /// `if_not_exists`, `list_append`, `+`/`-`; REMOVE; ADD; DELETE) or
    /// legacy `AttributeUpdates`, an optional `ConditionExpression` (or
    /// legacy `Expected`) and any [`ReturnValue`]. Creates the item if
    /// absent (upsert), except when the update only removes (REMOVE,
    /// DELETE): then nothing is written, as in DynamoDB.
    /// `UPDATED_OLD`/`UPDATED_NEW` return the top-level attributes the
    /// update names.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad key,
    /// an update of a key attribute or an invalid resulting item;
    /// [`WriteError::Expression`]; [`WriteError::ConditionalCheckFailed`];
    /// [`WriteError::Storage`].
    pub fn update_item_with(&self, input: UpdateItemInput) -> Result<WriteOutput, WriteError> {
        let table = input.table_name.as_str();
        let legacy_given = given(&[
            (input.attribute_updates.is_some(), "AttributeUpdates"),
            (input.expected.is_some(), "Expected"),
        ]);
        let expressions = given(&[
            (input.update_expression.is_some(), "UpdateExpression"),
            (input.condition_expression.is_some(), "ConditionExpression"),
        ]);
        legacy::check_parameters(
            &legacy_given,
            &expressions,
            &["UpdateExpression", "ConditionExpression"],
            !input.expression_attribute_names.is_empty(),
            !input.expression_attribute_values.is_empty(),
        )
        .map_err(expr_err(table))?;
        old_only(
            table,
            "ReturnValuesOnConditionCheckFailure",
            input.return_values_on_condition_check_failure,
        )?;
        let mut ph = Placeholders::new(
            &input.expression_attribute_names,
            &input.expression_attribute_values,
        )
        .map_err(expr_err(table))?;
        let mut legacy_values = LegacyValues::default();
        let update = match (&input.update_expression, &input.attribute_updates) {
            (Some(t), _) => Some(expr::compile_update(t, &mut ph)),
            (None, Some(map)) => Some(legacy::attribute_updates(map, &mut legacy_values)),
            (None, None) => None,
        }
        .transpose()
        .map_err(expr_err(table))?;
        let condition = condition(
            input.condition_expression.as_deref(),
            input.expected.as_ref(),
            input.conditional_operator,
            &mut ph,
            &mut legacy_values,
        )
        .map_err(expr_err(table))?;
        ph.finish().map_err(expr_err(table))?;
        let cond = CompiledCondition {
            condition,
            values: legacy_values.merged(&input.expression_attribute_values),
        };
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = key_only_bytes(&meta.definition, &input.key).map_err(|m| validation(table, m))?;
        let touched: Vec<String> = update.as_ref().map_or_else(Vec::new, |u| {
            let mut names: Vec<String> = u
                .set
                .iter()
                .map(|(p, _)| p)
                .chain(&u.remove)
                .chain(u.add.iter().map(|(p, _)| p))
                .chain(u.delete.iter().map(|(p, _)| p))
                .map(|p| p.top().to_string())
                .collect();
            names.sort_unstable();
            names.dedup();
            names
        });
        if let Some(k) = meta
            .definition
            .key_attributes()
            .find(|k| touched.contains(&k.attribute_name))
        {
            return Err(validation(
                table,
                format!(
                    "One or more parameter values were invalid: Cannot update attribute {}. This attribute is part of the key",
                    k.attribute_name
                ),
            ));
        }
        let old = self.load_item(&meta, &pk)?;
        check(
            table,
            &cond,
            old.as_ref(),
            input.return_values_on_condition_check_failure == ReturnValue::AllOld,
        )?;
        // An update that only removes creates no item ("UpdateItem": a
        // REMOVE or DELETE of a missing item's attribute changes nothing).
        let only_removes = update.as_ref().is_some_and(|u| {
            u.set.is_empty() && u.add.is_empty() && !(u.remove.is_empty() && u.delete.is_empty())
        });
        if old.is_none() && only_removes {
            return Ok(WriteOutput::default());
        }
        let base = old.clone().unwrap_or_else(|| input.key.clone());
        let mut new: Item = match &update {
            Some(u) => expr::apply_update(u, &base, &cond.values)
                .map_err(expr_err(table))?
                .into(),
            None => base,
        };
        validate_item(&meta.definition, &mut new).map_err(|m| validation(table, m))?;
        if old.as_ref() != Some(&new) {
            self.commit_change(&mut state, &meta, &pk, old.as_ref(), Some(&new))?;
        }
        let pick = |item: Option<&Item>| -> Option<Item> {
            let item = item?;
            let out: HashMap<String, AttributeValue> = touched
                .iter()
                .filter_map(|n| item.get(n).map(|v| (n.clone(), v.clone())))
                .collect();
            (!out.is_empty()).then(|| out.into())
        };
        let item_size_bytes =
            crate::item_size_bytes(&new).max(old.as_ref().map_or(0, crate::item_size_bytes));
        let attributes = match input.return_values {
            ReturnValue::None => None,
            ReturnValue::AllOld => old,
            ReturnValue::AllNew => Some(new),
            ReturnValue::UpdatedOld => pick(old.as_ref()),
            ReturnValue::UpdatedNew => pick(Some(&new)),
        };
        Ok(WriteOutput {
            attributes,
            item_size_bytes,
        })
    }

    /// DeleteItem with an optional `ConditionExpression` (or legacy
    /// `Expected`) and `ReturnValues` (`NONE` or `ALL_OLD`). Deleting a
    /// missing item whose condition holds writes nothing.
    ///
    /// # Errors
    ///
    /// As [`DynamoDb::delete_item`](crate::DynamoDb::delete_item); [`WriteError::Expression`];
    /// [`WriteError::ConditionalCheckFailed`].
    pub fn delete_item_with(&self, input: DeleteItemInput) -> Result<WriteOutput, WriteError> {
        old_only(&input.table_name, "ReturnValues", input.return_values)?;
        let cond = self.write_condition(WriteCondition {
            table: &input.table_name,
            condition_expression: input.condition_expression.as_deref(),
            expected: input.expected.as_ref(),
            conditional_operator: input.conditional_operator,
            names: &input.expression_attribute_names,
            values: &input.expression_attribute_values,
            return_values_on_condition_check_failure: input
                .return_values_on_condition_check_failure,
        })?;
        self.conditional_write(
            &input.table_name,
            &cond,
            input.return_values,
            input.return_values_on_condition_check_failure,
            Target::Delete(&input.key),
        )
    }

    /// The condition of a PutItem or DeleteItem, after the parameter rules.
    fn write_condition(&self, c: WriteCondition<'_>) -> Result<CompiledCondition, WriteError> {
        let table = c.table;
        let legacy_given = given(&[(c.expected.is_some(), "Expected")]);
        let expressions = given(&[(c.condition_expression.is_some(), "ConditionExpression")]);
        legacy::check_parameters(
            &legacy_given,
            &expressions,
            &["ConditionExpression"],
            !c.names.is_empty(),
            !c.values.is_empty(),
        )
        .map_err(expr_err(table))?;
        old_only(
            table,
            "ReturnValuesOnConditionCheckFailure",
            c.return_values_on_condition_check_failure,
        )?;
        let mut ph = Placeholders::new(c.names, c.values).map_err(expr_err(table))?;
        let mut legacy_values = LegacyValues::default();
        let condition = condition(
            c.condition_expression,
            c.expected,
            c.conditional_operator,
            &mut ph,
            &mut legacy_values,
        )
        .map_err(expr_err(table))?;
        ph.finish().map_err(expr_err(table))?;
        Ok(CompiledCondition {
            condition,
            values: legacy_values.merged(c.values),
        })
    }

    /// The one path of PutItem and DeleteItem with a condition: under the
    /// write lock finds the key of `target`, evaluates the condition against
    /// the stored item and, unless it fails, replaces the item (a put) or
    /// removes it (a delete); an unchanged item writes nothing. Returns the
    /// old item for `ALL_OLD`.
    fn conditional_write(
        &self,
        table: &str,
        cond: &CompiledCondition,
        return_values: ReturnValue,
        on_failure: ReturnValue,
        mut target: Target<'_>,
    ) -> Result<WriteOutput, WriteError> {
        let mut state = self.inner.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = match &mut target {
            Target::Put(item) => validate_item(&meta.definition, item),
            Target::Delete(key) => key_only_bytes(&meta.definition, key),
        }
        .map_err(|m| validation(table, m))?;
        let new = match &target {
            Target::Put(item) => Some(&**item),
            Target::Delete(_) => None,
        };
        let old = self.load_item(&meta, &pk)?;
        check(table, cond, old.as_ref(), on_failure == ReturnValue::AllOld)?;
        if old.as_ref() != new {
            self.commit_change(&mut state, &meta, &pk, old.as_ref(), new)?;
        }
        let item_size_bytes = new
            .map_or(0, crate::item_size_bytes)
            .max(old.as_ref().map_or(0, crate::item_size_bytes));
        Ok(WriteOutput {
            attributes: old.filter(|_| return_values == ReturnValue::AllOld),
            item_size_bytes,
        })
    }
}

/// What a conditional PutItem or DeleteItem writes.
enum Target<'a> {
    /// The whole new item (validated, Numbers made canonical, in place).
    Put(&'a mut Item),
    /// The key of the item to delete.
    Delete(&'a Item),
}

/// The condition parts PutItem and DeleteItem share.
struct WriteCondition<'a> {
    table: &'a str,
    condition_expression: Option<&'a str>,
    expected: Option<&'a HashMap<String, ExpectedAttributeValue>>,
    conditional_operator: Option<ConditionalOperator>,
    names: &'a HashMap<String, String>,
    values: &'a HashMap<String, AttributeValue>,
    return_values_on_condition_check_failure: ReturnValue,
}
