//! Size limits applied while parsing patterns and filter files.

use crate::dialect::Dialect;

/// Size limits checked while parsing; exceeding one is a [`crate::PatternError`].
///
/// Start from [`Limits::for_dialect`] (the service's defaults) and raise a
/// field where your AWS account has a raised quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Longest pattern, in characters (Unicode scalar values). A `Pattern`
    /// string in a `FilterCriteria` file is measured as written; a bare pattern
    /// is measured as compact JSON (no insignificant whitespace). Lambda 4096,
    /// EventBridge 2048 by default (see [`Dialect::max_pattern_chars`]).
    pub max_pattern_chars: usize,
    /// Most filters in one `FilterCriteria` file. Lambda: 5 by default, up to
    /// 10 with a quota increase ("Control which events Lambda sends to your
    /// function").
    pub max_filters: usize,
    /// Most alternative branches one pattern may expand to through `$or`
    /// (a ttlstream limit, not an AWS one: it bounds compile time and memory).
    pub max_branches: usize,
    /// Deepest nesting of objects in a pattern (a ttlstream limit).
    pub max_depth: usize,
    /// Highest complexity of the `wildcard`s at one field: the most
    /// wildcard-pattern prefixes one input value can match at once, as
    /// `aws/event-ruler`'s `MachineComplexityEvaluator` counts it. 100, the
    /// limit event-ruler's own tests evaluate with; EventBridge rejects a rule
    /// past its limit ("Wildcards and event pattern complexity") but does not
    /// publish the number.
    pub max_wildcard_complexity: usize,
}

impl Limits {
    /// The service's default limits for `dialect`.
    #[must_use]
    pub const fn for_dialect(dialect: Dialect) -> Self {
        Self {
            max_pattern_chars: dialect.max_pattern_chars(),
            max_filters: 5,
            max_branches: 1024,
            max_depth: 64,
            max_wildcard_complexity: 100,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::for_dialect(Dialect::default())
    }
}
