//! Expression-aware writes: PutItem / UpdateItem / DeleteItem with
//! `ConditionExpression`, `UpdateExpression` and `ReturnValues`
//! ("Condition expressions", "Update expressions" in the DynamoDB Developer
//! Guide). The condition is evaluated under the write lock against the
//! stored item, so check and write are atomic.

use crate::engine::Engine;
use crate::error::WriteError;
use crate::expr::{self, ExpressionError, ExpressionKind, Placeholders};
use crate::item::{key_only_bytes, validate_item};
use crate::request::{DeleteItemInput, PutItemInput, ReturnValue, UpdateItemInput, WriteOutput};
use crate::table::TableDefinition;
use crate::write::validation;
use serde_dynamo::{AttributeValue, Item};
use std::collections::HashMap;

fn expr_err(table: &str) -> impl Fn(ExpressionError) -> WriteError + '_ {
    move |source| WriteError::Expression {
        table: table.to_string(),
        source,
    }
}

/// Compiles an optional ConditionExpression.
fn condition(
    text: Option<&str>,
    ph: &mut Placeholders<'_>,
) -> Result<Option<expr::Condition>, ExpressionError> {
    text.map(|t| expr::compile_condition(ExpressionKind::ConditionExpression, t, ph))
        .transpose()
}

/// Fails with `ConditionalCheckFailed` unless `cond` holds for `old`.
fn check(
    table: &str,
    cond: Option<&expr::Condition>,
    old: Option<&Item>,
    values: &HashMap<String, AttributeValue>,
) -> Result<(), WriteError> {
    let Some(c) = cond else { return Ok(()) };
    let ok = expr::evaluate(
        ExpressionKind::ConditionExpression,
        c,
        old.map(|i| &**i),
        values,
    )
    .map_err(expr_err(table))?;
    if ok {
        Ok(())
    } else {
        Err(WriteError::ConditionalCheckFailed {
            table: table.to_string(),
        })
    }
}

/// Compiles the ConditionExpression of a write that has no other expression,
/// and checks that every placeholder was used (PutItem, DeleteItem).
fn condition_only(
    table: &str,
    text: Option<&str>,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) -> Result<Option<expr::Condition>, WriteError> {
    let mut ph = Placeholders::new(names, values);
    let cond = condition(text, &mut ph).map_err(expr_err(table))?;
    ph.finish().map_err(expr_err(table))?;
    Ok(cond)
}

fn old_only(table: &str, rv: ReturnValue) -> Result<(), WriteError> {
    match rv {
        ReturnValue::None | ReturnValue::AllOld => Ok(()),
        other => Err(validation(
            table,
            format!("ReturnValues {other:?} is not valid here; use NONE or ALL_OLD"),
        )),
    }
}

impl Engine {
    /// PutItem with an optional `ConditionExpression` and `ReturnValues`
    /// (`NONE` or `ALL_OLD`).
    ///
    /// # Errors
    ///
    /// As [`Engine::put_item`]; [`WriteError::Expression`] for an invalid
    /// expression or unused placeholder; [`WriteError::ConditionalCheckFailed`]
    /// when the condition is false (nothing written).
    pub fn put_item_with(&self, input: PutItemInput) -> Result<WriteOutput, WriteError> {
        let item = &input.item;
        self.conditional_write(
            Conditional {
                table: &input.table_name,
                return_values: input.return_values,
                condition_expression: input.condition_expression.as_deref(),
                names: &input.expression_attribute_names,
                values: &input.expression_attribute_values,
            },
            |def| validate_item(def, item),
            Some(item),
        )
    }

    /// UpdateItem with an optional `UpdateExpression` (SET with
    /// `if_not_exists`, `list_append`, `+`/`-`; REMOVE; ADD; DELETE), an
    /// optional `ConditionExpression` and any [`ReturnValue`]. Creates the
    /// item if absent (upsert). `UPDATED_OLD`/`UPDATED_NEW` return the
    /// top-level attributes the update expression names.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad key,
    /// an update of a key attribute or an invalid resulting item;
    /// [`WriteError::Expression`]; [`WriteError::ConditionalCheckFailed`];
    /// [`WriteError::Storage`].
    pub fn update_item_with(&self, input: UpdateItemInput) -> Result<WriteOutput, WriteError> {
        let table = input.table_name.as_str();
        let values = &input.expression_attribute_values;
        let mut ph = Placeholders::new(&input.expression_attribute_names, values);
        let update = input
            .update_expression
            .as_deref()
            .map(|t| expr::compile_update(t, &mut ph))
            .transpose()
            .map_err(expr_err(table))?;
        let cond =
            condition(input.condition_expression.as_deref(), &mut ph).map_err(expr_err(table))?;
        ph.finish().map_err(expr_err(table))?;
        let mut state = self.lock_writes();
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
                    "Cannot update attribute {}. This attribute is part of the key",
                    k.attribute_name
                ),
            ));
        }
        let old = self.load_item(&meta, &pk)?;
        check(table, cond.as_ref(), old.as_ref(), values)?;
        let base = old.clone().unwrap_or_else(|| input.key.clone());
        let new: Item = match &update {
            Some(u) => expr::apply_update(u, &base, values)
                .map_err(expr_err(table))?
                .into(),
            None => base,
        };
        validate_item(&meta.definition, &new).map_err(|m| validation(table, m))?;
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
        let attributes = match input.return_values {
            ReturnValue::None => None,
            ReturnValue::AllOld => old,
            ReturnValue::AllNew => Some(new),
            ReturnValue::UpdatedOld => pick(old.as_ref()),
            ReturnValue::UpdatedNew => pick(Some(&new)),
        };
        Ok(WriteOutput { attributes })
    }

    /// DeleteItem with an optional `ConditionExpression` and `ReturnValues`
    /// (`NONE` or `ALL_OLD`). Deleting a missing item whose condition holds
    /// writes nothing.
    ///
    /// # Errors
    ///
    /// As [`Engine::delete_item`]; [`WriteError::Expression`];
    /// [`WriteError::ConditionalCheckFailed`].
    pub fn delete_item_with(&self, input: DeleteItemInput) -> Result<WriteOutput, WriteError> {
        let key = &input.key;
        self.conditional_write(
            Conditional {
                table: &input.table_name,
                return_values: input.return_values,
                condition_expression: input.condition_expression.as_deref(),
                names: &input.expression_attribute_names,
                values: &input.expression_attribute_values,
            },
            |def| key_only_bytes(def, key),
            None,
        )
    }

    /// The one path of PutItem and DeleteItem with a condition: checks the
    /// request, then under the write lock finds the key with `key_of`,
    /// evaluates the condition against the stored item and, unless it
    /// fails, replaces the item with `new` (`None` deletes); an unchanged
    /// item writes nothing. Returns the old item for `ALL_OLD`.
    fn conditional_write(
        &self,
        c: Conditional<'_>,
        key_of: impl FnOnce(&TableDefinition) -> Result<Vec<u8>, String>,
        new: Option<&Item>,
    ) -> Result<WriteOutput, WriteError> {
        let table = c.table;
        old_only(table, c.return_values)?;
        let cond = condition_only(table, c.condition_expression, c.names, c.values)?;
        let mut state = self.lock_writes();
        let meta = self.write_meta(table)?;
        let pk = key_of(&meta.definition).map_err(|m| validation(table, m))?;
        let old = self.load_item(&meta, &pk)?;
        check(table, cond.as_ref(), old.as_ref(), c.values)?;
        if old.as_ref() != new {
            self.commit_change(&mut state, &meta, &pk, old.as_ref(), new)?;
        }
        Ok(WriteOutput {
            attributes: old.filter(|_| c.return_values == ReturnValue::AllOld),
        })
    }
}

/// The request parts PutItem and DeleteItem share.
struct Conditional<'a> {
    table: &'a str,
    return_values: ReturnValue,
    condition_expression: Option<&'a str>,
    names: &'a HashMap<String, String>,
    values: &'a HashMap<String, AttributeValue>,
}
