//! Filter files: a bare pattern object, or Lambda's `FilterCriteria` shape.
//!
//! `{"Filters": [{"Pattern": "<pattern as JSON text>"}, ...]}` is the shape of
//! `FilterCriteria` in `CreateEventSourceMapping` and in a SAM template; its
//! filters are ORed. Source: "Control which events Lambda sends to your
//! function" (section "Understanding event filtering basics") and the Lambda
//! API Reference pages "FilterCriteria" and "Filter".

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::error::{PatternError, json_type, strip_position};
use crate::limits::Limits;
use crate::path;
use crate::pattern::Pattern;

/// Parse a filter file with [`Dialect::Lambda`] and its default [`Limits`]:
/// either one bare pattern object, or a `FilterCriteria` object whose filters
/// are ORed. Returns the patterns in file order (one for a bare pattern).
///
/// An object is read as `FilterCriteria` when its `Filters` value is an array
/// whose every element is an object with a `Pattern` key; anything else is a
/// bare pattern (which may itself have a field named `Filters`).
///
/// ```
/// let file = r#"{"Filters": [{"Pattern": "{\"eventName\": [\"REMOVE\"]}"}]}"#;
/// let patterns = ttlstream_filters::parse_filter_file(file)?;
/// assert_eq!(patterns.len(), 1);
///
/// let err = ttlstream_filters::parse_filter_file(
///     r#"{"Filters": [{"Pattern": "{\"userIdentity\": {\"type\": \"Service\"}}"}]}"#,
/// ).unwrap_err();
/// assert!(err.to_string().starts_with("Filters[0].Pattern: $.userIdentity.type: "));
/// # Ok::<(), ttlstream_filters::PatternError>(())
/// ```
///
/// # Errors
/// [`PatternError::Json`] if the file (path `$`) or a `Pattern` string (path
/// `Filters[i].Pattern`, line and column within that string) is not JSON;
/// [`PatternError::Criteria`] for a malformed `FilterCriteria` (an extra key,
/// an empty `Filters`, a filter that is not `{"Pattern": "..."}`, a `Pattern`
/// that is not a string); [`PatternError::TooManyFilters`];
/// [`PatternError::TooLong`]; and any error of [`Pattern::from_value`], its
/// path prefixed with `Filters[i].Pattern: `.
pub fn parse_filter_file(text: &str) -> Result<Vec<Pattern>, PatternError> {
    parse_filter_file_with(text, Dialect::default())
}

/// [`parse_filter_file`] for `dialect`, with its default [`Limits`].
///
/// # Errors
/// As [`parse_filter_file`].
pub fn parse_filter_file_with(text: &str, dialect: Dialect) -> Result<Vec<Pattern>, PatternError> {
    parse_filter_file_with_limits(text, dialect, Limits::for_dialect(dialect))
}

/// [`parse_filter_file`] for `dialect` with explicit `limits`.
///
/// # Errors
/// As [`parse_filter_file`].
pub fn parse_filter_file_with_limits(
    text: &str,
    dialect: Dialect,
    limits: Limits,
) -> Result<Vec<Pattern>, PatternError> {
    let value: Value = serde_json::from_str(text).map_err(|err| PatternError::Json {
        path: "$".to_owned(),
        line: err.line(),
        column: err.column(),
        message: strip_position(&err),
    })?;
    match &value {
        Value::Object(map) if is_criteria(map) => criteria(map, dialect, limits),
        _ => Ok(vec![Pattern::from_value_with_limits(
            &value, dialect, limits,
        )?]),
    }
}

fn is_criteria(map: &Map<String, Value>) -> bool {
    match map.get("Filters") {
        Some(Value::Array(filters)) => filters
            .iter()
            .all(|f| f.as_object().is_some_and(|f| f.contains_key("Pattern"))),
        _ => false,
    }
}

fn criteria(
    map: &Map<String, Value>,
    dialect: Dialect,
    limits: Limits,
) -> Result<Vec<Pattern>, PatternError> {
    if let Some(extra) = map.keys().find(|k| *k != "Filters") {
        return Err(PatternError::Criteria {
            path: path::child("", extra).trim_start_matches('.').to_owned(),
            reason: "unknown key; a FilterCriteria object has only \"Filters\"".to_owned(),
        });
    }
    let filters = match map.get("Filters") {
        Some(Value::Array(filters)) => filters,
        _ => {
            return Err(PatternError::Criteria {
                path: "Filters".to_owned(),
                reason: "must be an array of {\"Pattern\": \"...\"} objects".to_owned(),
            });
        }
    };
    if filters.is_empty() {
        return Err(PatternError::Criteria {
            path: "Filters".to_owned(),
            reason: "is empty; give at least one {\"Pattern\": \"...\"}".to_owned(),
        });
    }
    if filters.len() > limits.max_filters {
        return Err(PatternError::TooManyFilters {
            path: "Filters".to_owned(),
            count: filters.len(),
            max: limits.max_filters,
        });
    }
    filters
        .iter()
        .enumerate()
        .map(|(i, filter)| one_filter(filter, i, dialect, limits))
        .collect()
}

fn one_filter(
    filter: &Value,
    i: usize,
    dialect: Dialect,
    limits: Limits,
) -> Result<Pattern, PatternError> {
    let at = format!("Filters[{i}]");
    let Value::Object(filter) = filter else {
        return Err(PatternError::Criteria {
            path: at,
            reason: format!(
                "must be {{\"Pattern\": \"...\"}}, found {}",
                json_type(filter)
            ),
        });
    };
    if let Some(extra) = filter.keys().find(|k| *k != "Pattern") {
        return Err(PatternError::Criteria {
            path: path::child(&at, extra),
            reason: "unknown key; a filter has only \"Pattern\"".to_owned(),
        });
    }
    let at = format!("{at}.Pattern");
    let text = match filter.get("Pattern") {
        Some(Value::String(text)) => text,
        other => {
            return Err(PatternError::Criteria {
                path: at,
                reason: format!(
                    "must be a string holding the pattern as JSON text, found {}",
                    other.map_or("nothing", json_type)
                ),
            });
        }
    };
    let chars = text.chars().count();
    if chars > limits.max_pattern_chars {
        return Err(PatternError::TooLong {
            path: at,
            chars,
            max: limits.max_pattern_chars,
            dialect,
        });
    }
    let value: Value = serde_json::from_str(text).map_err(|err| PatternError::Json {
        path: at.clone(),
        line: err.line(),
        column: err.column(),
        message: strip_position(&err),
    })?;
    Pattern::from_value_with_limits(&value, dialect, limits).map_err(|err| err.within(&at))
}
