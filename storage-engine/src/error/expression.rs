//! Expression errors, worded like DynamoDB's `ValidationException` messages.
//! They live with the shared errors because [`WriteError`](crate::WriteError)
//! and [`ReadError`](crate::ReadError), which every model returns, carry them;
//! the DynamoDB model (`dynamodb::expr`) re-exports them.

use std::fmt;

/// Which request parameter an expression came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExpressionKind {
    /// `ConditionExpression` of PutItem, UpdateItem or DeleteItem.
    ConditionExpression,
    /// `UpdateExpression` of UpdateItem.
    UpdateExpression,
    /// `KeyConditionExpression` of Query.
    KeyConditionExpression,
    /// `FilterExpression` of Query or Scan.
    FilterExpression,
    /// `ProjectionExpression` of Query or Scan.
    ProjectionExpression,
}

impl fmt::Display for ExpressionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ConditionExpression => "ConditionExpression",
            Self::UpdateExpression => "UpdateExpression",
            Self::KeyConditionExpression => "KeyConditionExpression",
            Self::FilterExpression => "FilterExpression",
            Self::ProjectionExpression => "ProjectionExpression",
        })
    }
}

/// An invalid expression or expression parameter (DynamoDB
/// `ValidationException`). Nothing was read or written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExpressionError {
    /// The text does not parse.
    #[error(
        "Invalid {kind}: Syntax error; token: \"{token}\", near: \"{near}\" (byte offset {position})"
    )]
    Syntax {
        /// The expression parameter.
        kind: ExpressionKind,
        /// Byte offset of the offending token in the expression text.
        position: usize,
        /// The offending token, or `<EOF>`.
        token: String,
        /// The text around it.
        near: String,
    },
    /// A `#name` placeholder is missing from `ExpressionAttributeNames`.
    #[error(
        "Invalid {kind}: An expression attribute name used in the document path is not defined; attribute name: {name}"
    )]
    UndefinedName {
        /// The expression parameter.
        kind: ExpressionKind,
        /// The placeholder, with its `#`.
        name: String,
    },
    /// A `:value` placeholder is missing from `ExpressionAttributeValues`.
    #[error(
        "Invalid {kind}: An expression attribute value used in expression is not defined; attribute value: {name}"
    )]
    UndefinedValue {
        /// The expression parameter.
        kind: ExpressionKind,
        /// The placeholder, with its `:`.
        name: String,
    },
    /// `ExpressionAttributeNames` or `ExpressionAttributeValues` holds
    /// entries no expression of the request uses.
    #[error("Value provided in {parameter} unused in expressions: keys: {{{keys}}}")]
    Unused {
        /// `ExpressionAttributeNames` or `ExpressionAttributeValues`.
        parameter: &'static str,
        /// The unused placeholders, comma-separated, sorted.
        keys: String,
    },
    /// The expression parses but is invalid (wrong operand type, overlapping
    /// paths, unsupported key condition, ...).
    #[error("Invalid {kind}: {message}")]
    Invalid {
        /// The expression parameter.
        kind: ExpressionKind,
        /// What is wrong.
        message: String,
    },
    /// A parameter around the expressions is invalid: a placeholder map
    /// (`ExpressionAttributeValues contains invalid value: ...`), a legacy
    /// conditional parameter, or a legacy parameter given with its
    /// expression form. The message is DynamoDB's, whole.
    #[error("{message}")]
    Parameter {
        /// What is wrong.
        message: String,
    },
}

impl ExpressionError {
    /// A syntax error at byte `offset` of `text`.
    pub(crate) fn syntax(kind: ExpressionKind, text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        let rest = text.get(offset..).unwrap_or("");
        let skipped = rest.len() - rest.trim_start().len();
        let position = offset + skipped;
        let rest = rest.trim_start();
        let token: String = match rest.chars().next() {
            None => "<EOF>".to_string(),
            Some(c) if c.is_alphanumeric() || matches!(c, '_' | '#' | ':') => rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '#' | ':'))
                .collect(),
            Some(c) => c.to_string(),
        };
        let start = floor_char(text, position.saturating_sub(12));
        let end = floor_char(text, (position + 12).min(text.len()));
        Self::Syntax {
            kind,
            position,
            token,
            near: text.get(start..end).unwrap_or("").to_string(),
        }
    }

    /// A [`ExpressionError::Parameter`] error.
    pub(crate) fn parameter(message: impl Into<String>) -> Self {
        Self::Parameter {
            message: message.into(),
        }
    }

    /// A semantic error.
    pub(crate) fn invalid(kind: ExpressionKind, message: impl Into<String>) -> Self {
        Self::Invalid {
            kind,
            message: message.into(),
        }
    }
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
