//! TagResource, UntagResource and ListTagsOfResource (DynamoDB API
//! Reference pages of the same names) on table ARNs. Tags are kept with
//! the table ([`ttlstream_engine::TableProperties::tags`]); limits from "Tagging
//! restrictions in DynamoDB": at most 50 tags per table, keys of 1 to 128
//! characters, values of up to 256.

use super::error::{ApiError, ErrorKind};
use super::shapes::Tag;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use ttlstream_engine::{Engine, TableError};

/// Most tags on one table.
pub const MAX_TAGS_PER_TABLE: usize = 50;

/// `TagResource` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct TagResourceRequest {
    resource_arn: Option<String>,
    tags: Option<Vec<Tag>>,
}

/// `UntagResource` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct UntagResourceRequest {
    resource_arn: Option<String>,
    tag_keys: Option<Vec<String>>,
}

/// `ListTagsOfResource` request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub(super) struct ListTagsOfResourceRequest {
    resource_arn: Option<String>,
    /// Accepted: every tag fits one page, so no token is ever handed out.
    next_token: Option<String>,
}

/// Adds `tags` to `to`, checking each and the count.
///
/// # Errors
///
/// A `ValidationException` for a missing or over-long key or value, or
/// more than [`MAX_TAGS_PER_TABLE`] tags in all.
pub(super) fn add_tags(to: &mut BTreeMap<String, String>, tags: Vec<Tag>) -> Result<(), ApiError> {
    for tag in tags {
        let key = tag
            .key
            .ok_or_else(|| ApiError::missing("tags.member.key"))?;
        let value = tag
            .value
            .ok_or_else(|| ApiError::missing("tags.member.value"))?;
        let (k, v) = (key.chars().count(), value.chars().count());
        if !(1..=128).contains(&k) {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{key}' at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128"
            )));
        }
        if v > 256 {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{value}' at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256"
            )));
        }
        to.insert(key, value);
    }
    if to.len() > MAX_TAGS_PER_TABLE {
        return Err(ApiError::validation(format!(
            "One or more parameter values were invalid: The number of tags exceeds the limit of {MAX_TAGS_PER_TABLE} tags per resource"
        )));
    }
    Ok(())
}

/// The table a `ResourceArn` names.
fn table_of(arn: Option<String>) -> Result<(String, String), ApiError> {
    let arn = arn.ok_or_else(|| ApiError::missing("resourceArn"))?;
    let name = super::arn::table_name(&arn)
        .ok_or_else(|| {
            ApiError::validation(format!(
                "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
            ))
        })?
        .to_string();
    Ok((arn, name))
}

/// A missing table, as the tag operations word it.
fn not_found(arn: &str) -> impl Fn(TableError) -> ApiError + '_ {
    move |e| match e {
        TableError::NotFound { .. } => ApiError::new(
            ErrorKind::ResourceNotFound,
            format!("Requested resource not found: ResourcArn: {arn} not found"),
        ),
        other => ApiError::from(other),
    }
}

/// `TagResource`: adds (or replaces) tags.
pub(super) fn tag_resource(engine: &Engine, req: TagResourceRequest) -> Result<Value, ApiError> {
    let (arn, table) = table_of(req.resource_arn)?;
    let tags = req.tags.ok_or_else(|| ApiError::missing("tags"))?;
    let mut error = None;
    engine
        .dynamodb()
        .update_table_properties(&table, |p| {
            add_tags(&mut p.tags, tags).map_err(|e| {
                let m = e.message.clone();
                error = Some(e);
                m
            })
        })
        .map_err(|e| error.take().unwrap_or_else(|| not_found(&arn)(e)))?;
    Ok(json!({}))
}

/// `UntagResource`: removes tags by key (absent keys are no error).
pub(super) fn untag_resource(
    engine: &Engine,
    req: UntagResourceRequest,
) -> Result<Value, ApiError> {
    let (arn, table) = table_of(req.resource_arn)?;
    let keys = req.tag_keys.ok_or_else(|| ApiError::missing("tagKeys"))?;
    engine
        .dynamodb()
        .update_table_properties(&table, |p| {
            for k in &keys {
                p.tags.remove(k);
            }
            Ok(())
        })
        .map_err(not_found(&arn))?;
    Ok(json!({}))
}

/// `ListTagsOfResource`: every tag, by key.
pub(super) fn list_tags_of_resource(
    engine: &Engine,
    req: ListTagsOfResourceRequest,
) -> Result<Value, ApiError> {
    let _ = req.next_token;
    let (arn, table) = table_of(req.resource_arn)?;
    let properties = engine
        .dynamodb()
        .table_properties(&table)
        .map_err(not_found(&arn))?;
    let tags: Vec<Value> = properties
        .tags
        .iter()
        .map(|(k, v)| json!({ "Key": k, "Value": v }))
        .collect();
    Ok(json!({ "Tags": tags }))
}
