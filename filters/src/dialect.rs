//! Which AWS service's pattern language a pattern is checked against.

use std::fmt;

/// The AWS service whose pattern language a pattern must stay within.
///
/// Both services run the same matcher, but Lambda event filtering supports
/// fewer operators than EventBridge. [`Dialect::Lambda`] accepts what
/// EventBridge's "Comparison operators" table marks "Pipe support: Yes"
/// (EventBridge Pipes filter with Lambda's event-filtering engine), so a
/// filter file accepted here is accepted by `CreateEventSourceMapping` too.
///
/// | operator | Lambda | EventBridge | source of the Lambda column |
/// |---|---|---|---|
/// | exact values, `null`, `""` | yes | yes | \[EB\] Equals, Null, Empty, Numeric (equals): Yes |
/// | `prefix`, `suffix`, `equals-ignore-case` | yes | yes | \[EB\] Begins with, Ends with, Equals (ignore case): Yes |
/// | `prefix`/`suffix` with `equals-ignore-case` | yes | yes | \[EB\] Begins with / Ends with (ignore case): Yes |
/// | `anything-but` (value or list) | yes | yes | \[EB\] Anything-but, Not: Yes |
/// | `anything-but` with `prefix`/`suffix`/`equals-ignore-case`/`wildcard` | no | yes | \[EB\] Anything-but (begins with, ends with, ignore case, using a wildcard): No |
/// | `numeric`, `exists`, `$or` | yes | yes | \[EB\] Numeric (range), Exists, Does not exist, Or (multiple fields): Yes |
/// | `wildcard` | no | yes | \[EB\] Wildcard: No |
/// | `cidr` | no | yes | not in \[EB\]'s table nor in \[L\]'s "Filter rule syntax" |
///
/// Sources: \[EB\] "Comparison operators for use in event patterns in Amazon
/// EventBridge" (EventBridge User Guide), its "Pipe support" column; \[L\]
/// "Control which events Lambda sends to your function" (Lambda Developer
/// Guide, section "Filter rule syntax").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// AWS Lambda event source mapping `FilterCriteria` (the default).
    #[default]
    Lambda,
    /// Amazon EventBridge event-bus rule event patterns: the full language.
    EventBridge,
}

impl Dialect {
    /// The longest pattern text, in characters, the service accepts by default.
    ///
    /// Lambda: `Filter.Pattern` has "Maximum length of 4096" (Lambda API
    /// Reference, "Filter"). EventBridge: the "Event pattern size" quota is 2048
    /// characters by default, adjustable to 4096 by a quota increase
    /// ("Amazon EventBridge quotas"); use [`crate::Limits`] to raise it.
    #[must_use]
    pub const fn max_pattern_chars(self) -> usize {
        match self {
            Self::Lambda => 4096,
            Self::EventBridge => 2048,
        }
    }

    /// Whether this dialect supports `operator` (a name as in
    /// [`crate::PatternError::UnsupportedOperator`], e.g. `anything-but/prefix`).
    pub(crate) fn supports(self, operator: &str) -> bool {
        match self {
            Self::EventBridge => true,
            Self::Lambda => matches!(
                operator,
                "prefix"
                    | "suffix"
                    | "equals-ignore-case"
                    | "prefix/equals-ignore-case"
                    | "suffix/equals-ignore-case"
                    | "anything-but"
                    | "numeric"
                    | "exists"
                    | "$or"
            ),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Lambda => "lambda",
            Self::EventBridge => "eventbridge",
        })
    }
}
