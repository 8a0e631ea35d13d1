//! GetItem with a projection ("Projection expressions"), or its legacy
//! form `AttributesToGet`.

use super::DynamoDb;
use crate::dynamodb::expr::legacy;
use crate::dynamodb::expr::{self, Placeholders};
use crate::dynamodb::query::{expr_err, given_names};
use crate::dynamodb::request::{GetItemInput, GetItemOutput};
use crate::error::ReadError;
use crate::storage::attribute::item_size_bytes;
use std::collections::HashMap;

impl DynamoDb<'_> {
    /// GetItem with a `ProjectionExpression` (or legacy `AttributesToGet`):
    /// the item with `key`, if any, with only the projected attributes.
    /// Expired items not yet swept are returned, as DynamoDB returns them.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for a key that
    /// does not match the schema; [`ReadError::Expression`] for an invalid
    /// projection, unused placeholder, or `AttributesToGet` given with
    /// `ProjectionExpression`; [`ReadError::Storage`].
    pub fn get_item_with(&self, input: GetItemInput) -> Result<GetItemOutput, ReadError> {
        let table = input.table_name.as_str();
        let legacy = given_names(&[(input.attributes_to_get.is_some(), "AttributesToGet")]);
        let expressions = given_names(&[(
            input.projection_expression.is_some(),
            "ProjectionExpression",
        )]);
        legacy::check_parameters(
            &legacy,
            &expressions,
            &[],
            !input.expression_attribute_names.is_empty(),
            false,
        )
        .map_err(expr_err(table))?;
        let no_values = HashMap::new();
        let mut ph = Placeholders::new(&input.expression_attribute_names, &no_values)
            .map_err(expr_err(table))?;
        let projection = match (&input.projection_expression, &input.attributes_to_get) {
            (Some(text), _) => Some(expr::compile_projection(text, &mut ph)),
            (None, Some(names)) => Some(legacy::attributes_to_get(names)),
            (None, None) => None,
        }
        .transpose()
        .map_err(expr_err(table))?;
        ph.finish().map_err(expr_err(table))?;
        let Some(item) = self.get_item(table, &input.key)? else {
            return Ok(GetItemOutput::default());
        };
        let item_size_bytes = item_size_bytes(&item);
        let item = match &projection {
            Some(paths) => expr::project(&item, paths).into(),
            None => item,
        };
        Ok(GetItemOutput {
            item: Some(item),
            item_size_bytes,
        })
    }
}
