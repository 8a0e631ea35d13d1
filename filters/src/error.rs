//! Errors: [`PatternError`] for patterns and filter files, [`EventError`] for events.
//!
//! Every [`PatternError`] carries the JSON path of the offending node, written
//! `$.userIdentity.type[0]` inside one pattern and prefixed with
//! `Filters[0].Pattern: ` when the pattern came from a Lambda `FilterCriteria`
//! file, so a message reads
//! `Filters[0].Pattern: $.userIdentity.type: "type" must be an object or an array, found a string`.

use crate::dialect::Dialect;

/// Why a pattern, or a filter file holding patterns, was rejected.
///
/// Every variant names the JSON path of the offending node (see
/// [`PatternError::path`]) and says what is wrong there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The text is not valid JSON.
    #[error("{path}: not valid JSON at line {line} column {column}: {message}")]
    Json {
        /// Where the text came from (`$` for a bare pattern, `Filters[0].Pattern` in a file).
        path: String,
        /// 1-based line of the syntax error, as reported by `serde_json`.
        line: usize,
        /// 1-based column of the syntax error, as reported by `serde_json`.
        column: usize,
        /// `serde_json`'s description of the error.
        message: String,
    },
    /// A pattern, a nested field or an operand that must be a JSON object is not one.
    #[error("{path}: {what} must be a JSON object, found {found}")]
    NotAnObject {
        /// Path of the node.
        path: String,
        /// What the node is (`the pattern`, `each element of $or`, ...).
        what: &'static str,
        /// The JSON type found instead (`an array`, `a string`, ...).
        found: &'static str,
    },
    /// An object in a pattern has no fields (AWS: "Empty objects are not allowed").
    #[error("{path}: empty objects are not allowed")]
    EmptyObject {
        /// Path of the empty object.
        path: String,
    },
    /// A field's value is neither a nested object nor an array of match values.
    #[error("{path}: {field:?} must be an object or an array, found {found}")]
    NotObjectOrArray {
        /// Path of the field.
        path: String,
        /// The field name.
        field: String,
        /// The JSON type found instead.
        found: &'static str,
    },
    /// A field's array of match values is empty (AWS: "Empty arrays are not allowed").
    #[error("{path}: empty arrays are not allowed; give at least one value to match")]
    EmptyArray {
        /// Path of the empty array.
        path: String,
    },
    /// An element of a match-value array is itself an array.
    #[error(
        "{path}: a match value must be a string, number, true, false, null or an operator object, found an array"
    )]
    NestedArray {
        /// Path of the element.
        path: String,
    },
    /// An operator object does not have exactly one key.
    #[error("{path}: an operator object must have exactly one key, found {count}")]
    OperatorArity {
        /// Path of the operator object.
        path: String,
        /// How many keys it had.
        count: usize,
    },
    /// The operator is not part of the pattern language.
    #[error("{path}: unknown operator {operator:?}")]
    UnknownOperator {
        /// Path of the operator object.
        path: String,
        /// The key that was not recognised.
        operator: String,
    },
    /// The operator exists, but the chosen [`Dialect`] does not support it.
    #[error("{path}: operator {operator:?} is not supported by the {dialect} dialect")]
    UnsupportedOperator {
        /// Path of the operator.
        path: String,
        /// The operator, e.g. `wildcard` or `anything-but/prefix`.
        operator: String,
        /// The dialect that lacks it.
        dialect: Dialect,
    },
    /// An operator's operand has the wrong shape or type.
    #[error("{path}: {operator:?} expects {expected}, found {found}")]
    BadOperand {
        /// Path of the operand.
        path: String,
        /// The operator.
        operator: String,
        /// What the operator accepts.
        expected: &'static str,
        /// What was found (a JSON type, or a short description).
        found: String,
    },
    /// A `numeric` expression is malformed.
    #[error("{path}: bad numeric expression: {reason}")]
    Numeric {
        /// Path of the `numeric` array.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A number is outside the range AWS can compare numerically.
    #[error("{path}: {value} is outside the numeric range -5e9..=5e9 that AWS compares")]
    NumberOutOfRange {
        /// Path of the number.
        path: String,
        /// The number.
        value: f64,
    },
    /// A numeric range's lower bound is not below its upper bound.
    #[error("{path}: numeric range lower bound {low} is not below upper bound {high}")]
    EmptyRange {
        /// Path of the `numeric` array.
        path: String,
        /// The lower bound.
        low: f64,
        /// The upper bound.
        high: f64,
    },
    /// A `cidr` operand is not an IPv4 or IPv6 CIDR block.
    #[error("{path}: {value:?} is not a CIDR block: {reason}")]
    Cidr {
        /// Path of the operand.
        path: String,
        /// The operand.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A `wildcard` operand is malformed.
    #[error("{path}: {value:?} is not a valid wildcard: {reason}")]
    Wildcard {
        /// Path of the operand.
        path: String,
        /// The operand.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A `$or` is malformed.
    #[error("{path}: bad $or: {reason}")]
    Or {
        /// Path of the `$or` key.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A field inside a `$or` alternative is named like an operator, which
    /// AWS's rule compiler reserves there (`aws/event-ruler`,
    /// `Constants.RESERVED_FIELD_NAMES_IN_OR_RELATIONSHIP`).
    #[error("{path}: {field:?} is a reserved word and cannot name a field inside $or")]
    ReservedFieldName {
        /// Path of the field.
        path: String,
        /// The field name.
        field: String,
    },
    /// The wildcards at one field make the rule too complex to match
    /// efficiently ("Comparison operators for use in event patterns in Amazon
    /// EventBridge", "Wildcards and event pattern complexity").
    #[error(
        "{path}: rule is too complex: its wildcards at this field have complexity {complexity}, above the limit of {max} (use fewer wildcard characters, or fewer repeated characters after one)"
    )]
    WildcardComplexity {
        /// Path of the field (its first occurrence in the pattern).
        path: String,
        /// The complexity found (counting stops a little past the limit).
        complexity: usize,
        /// The limit ([`crate::Limits::max_wildcard_complexity`]).
        max: usize,
    },
    /// Expanding `$or` alternatives would give more branches than allowed.
    #[error("{path}: $or expands to more than {max} alternative branches")]
    TooManyBranches {
        /// Path of the `$or` that went over.
        path: String,
        /// The limit.
        max: usize,
    },
    /// The pattern nests objects more deeply than allowed.
    #[error("{path}: pattern nests deeper than {max} levels")]
    TooDeep {
        /// Path where the limit was passed.
        path: String,
        /// The limit.
        max: usize,
    },
    /// The pattern text is longer than the dialect allows.
    #[error("{path}: pattern is {chars} characters long; the {dialect} limit is {max}")]
    TooLong {
        /// Where the pattern came from.
        path: String,
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
        /// The dialect whose limit it is.
        dialect: Dialect,
    },
    /// A `FilterCriteria` file does not have the `{"Filters":[{"Pattern":"..."}]}` shape.
    #[error("{path}: {reason}")]
    Criteria {
        /// Path of the offending node (`Filters`, `Filters[2]`, ...).
        path: String,
        /// What is wrong there.
        reason: String,
    },
    /// A `FilterCriteria` file has more filters than allowed.
    #[error("{path}: {count} filters given; at most {max} are allowed")]
    TooManyFilters {
        /// Always `Filters`.
        path: String,
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
}

impl PatternError {
    /// The JSON path of the offending node, e.g. `Filters[0].Pattern: $.userIdentity.type`.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            Self::Json { path, .. }
            | Self::NotAnObject { path, .. }
            | Self::EmptyObject { path }
            | Self::NotObjectOrArray { path, .. }
            | Self::EmptyArray { path }
            | Self::NestedArray { path }
            | Self::OperatorArity { path, .. }
            | Self::UnknownOperator { path, .. }
            | Self::UnsupportedOperator { path, .. }
            | Self::BadOperand { path, .. }
            | Self::Numeric { path, .. }
            | Self::NumberOutOfRange { path, .. }
            | Self::EmptyRange { path, .. }
            | Self::Cidr { path, .. }
            | Self::Wildcard { path, .. }
            | Self::Or { path, .. }
            | Self::ReservedFieldName { path, .. }
            | Self::WildcardComplexity { path, .. }
            | Self::TooManyBranches { path, .. }
            | Self::TooDeep { path, .. }
            | Self::TooLong { path, .. }
            | Self::Criteria { path, .. }
            | Self::TooManyFilters { path, .. } => path,
        }
    }

    /// Prefix the path with where the pattern came from (`Filters[0].Pattern`).
    pub(crate) fn within(mut self, prefix: &str) -> Self {
        let path = match &mut self {
            Self::Json { path, .. }
            | Self::NotAnObject { path, .. }
            | Self::EmptyObject { path }
            | Self::NotObjectOrArray { path, .. }
            | Self::EmptyArray { path }
            | Self::NestedArray { path }
            | Self::OperatorArity { path, .. }
            | Self::UnknownOperator { path, .. }
            | Self::UnsupportedOperator { path, .. }
            | Self::BadOperand { path, .. }
            | Self::Numeric { path, .. }
            | Self::NumberOutOfRange { path, .. }
            | Self::EmptyRange { path, .. }
            | Self::Cidr { path, .. }
            | Self::Wildcard { path, .. }
            | Self::Or { path, .. }
            | Self::ReservedFieldName { path, .. }
            | Self::WildcardComplexity { path, .. }
            | Self::TooManyBranches { path, .. }
            | Self::TooDeep { path, .. }
            | Self::TooLong { path, .. }
            | Self::Criteria { path, .. }
            | Self::TooManyFilters { path, .. } => path,
        };
        *path = if path.is_empty() {
            prefix.to_owned()
        } else {
            format!("{prefix}: {path}")
        };
        self
    }
}

/// Why an event could not be matched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// The event bytes are not valid JSON (or not UTF-8).
    #[error("event is not valid JSON at line {line} column {column}: {message}")]
    Json {
        /// 1-based line, as reported by `serde_json`.
        line: usize,
        /// 1-based column, as reported by `serde_json`.
        column: usize,
        /// `serde_json`'s description of the error.
        message: String,
    },
    /// The event is valid JSON but not an object.
    #[error("event must be a JSON object, found {found}")]
    NotAnObject {
        /// The JSON type found instead.
        found: &'static str,
    },
}

/// `serde_json`'s message without its trailing ` at line L column C`.
pub(crate) fn strip_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_owned()
}

/// The JSON type of a value, for messages: `a string`, `an array`, ...
pub(crate) fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
