//! The event-pattern language of AWS Lambda event filtering (`FilterCriteria`)
//! and Amazon EventBridge: parse, validate, compile, match.
//!
//! One filter file behaves the same in AWS and here. A pattern is a JSON object
//! whose shape follows the event's: fields are ANDed, the values in a field's
//! array are ORed, an array in the event matches when any element does.
//!
//! ```
//! use ttlstream_filters::{Matcher, parse_filter_file};
//!
//! // TTL deletions: REMOVE records made by the DynamoDB service itself.
//! let file = r#"{"Filters": [{"Pattern":
//!     "{\"eventName\":[\"REMOVE\"],\"userIdentity\":{\"type\":[\"Service\"],\"principalId\":[\"dynamodb.amazonaws.com\"]}}"}]}"#;
//! let patterns = parse_filter_file(file)?;
//! let matcher = Matcher::new(patterns.into_iter().map(|p| ("ttl-archive", p)));
//!
//! let ttl_delete = br#"{"eventName": "REMOVE", "dynamodb": {"Keys": {"pk": {"S": "a"}}},
//!     "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"}}"#;
//! let user_delete = br#"{"eventName": "REMOVE", "dynamodb": {"Keys": {"pk": {"S": "a"}}}}"#;
//! assert_eq!(matcher.matches(ttl_delete)?, vec!["ttl-archive"]);
//! assert!(matcher.matches(user_delete)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What it is
//! - [`Pattern`]: one validated pattern. [`Pattern::parse`] takes JSON text;
//!   [`parse_filter_file`] takes a bare pattern or a Lambda
//!   `{"Filters":[{"Pattern":"..."}]}` file.
//! - [`Dialect`]: Lambda (the default) accepts only the operators Lambda
//!   supports; EventBridge accepts the full language. An operator the
//!   dialect lacks is an error naming the operator and the dialect.
//! - [`Matcher`]: many patterns, each tagged with an id, compiled once and
//!   matched against JSON events; it returns the ids that match.
//! - [`reference`](mod@reference): the semantics as a short, slow, obviously correct
//!   program. It is the executable statement of what the matcher answers,
//!   and the crate's property tests and fuzz target hold the matcher to it.
//! - [`Pattern::required_strings`] and [`Pattern::top_level_fields`]: what a
//!   pattern needs of an event, so a caller can tell a non-match before
//!   building the event, or build less of it.
//! - Errors name the JSON path of what is wrong:
//!   `Filters[0].Pattern: $.userIdentity.type: ...` ([`PatternError`]), or the
//!   line and column of malformed event JSON ([`EventError`]).
//!
//! Operators: exact strings, numbers (numerically: `300` matches `300.0`),
//! booleans and `null`; `prefix`, `suffix`, `equals-ignore-case` (and
//! prefix/suffix with `equals-ignore-case`); `anything-but` (values, lists,
//! `prefix`, `suffix`, `equals-ignore-case`, `wildcard`); `numeric`; `exists`;
//! `wildcard`; `cidr`; `$or`. `filters/PATTERNS.md` is the user's
//! specification, with an example of each.
//!
//! # How it works
//! Three stages, a module each: [`parse`](crate::Pattern::parse) (pattern
//! JSON, operators, dialects, limits, errors: `src/parse/`) → compile (the
//! trie of field names and each pattern's branches of conditions:
//! `src/compile/`) → match (read the event's bytes along the trie, keeping
//! only the values some pattern tests, then decide each branch:
//! `src/matching/`). One portable code path, no `unsafe`; the two
//! shortcuts of [`Matcher::matches`] (skimming the values no pattern names,
//! and a literal search that rejects most events before they are read) each
//! say in their module how much they pay on stream records.
//!
//! # What it is not
//! No I/O, no async runtime, no AWS SDK: it never reads a file or calls AWS.
//! It does not decode DynamoDB attribute values: a pattern on a stream record
//! names the DynamoDB-JSON shape (`{"dynamodb":{"NewImage":{"n":{"N":["5"]}}}}`),
//! exactly as in Lambda, where `N` values are strings and so never match
//! `numeric`. It does not decode an SQS/Kinesis `body`/`data` payload.
//!
//! # Limits
//! - Pattern length: Lambda 4096 characters, EventBridge 2048 by default
//!   ([`Limits`]); at most 5 filters per `FilterCriteria` file by default.
//! - Numbers compare numerically only within `-5e9..=5e9`, to six decimal
//!   places (as AWS); a numeric operand outside that range is an error.
//! - ttlstream's own bounds: 1024 `$or` branches and 64 nesting levels per
//!   pattern.
//! - Events: [`Matcher::matches_strict`] checks the syntax of every byte;
//!   along fields a pattern names, nesting deeper than 127 levels is an
//!   error (`serde_json`'s recursion limit), elsewhere nesting has no limit.
//!   [`Matcher::matches`] checks fields no pattern names only by their
//!   quotes and brackets, and does not read an event its literal search
//!   rejects (`filters/PATTERNS.md`, "Event bytes").
//! - Wildcards: the `wildcard`s at one field may have complexity 100 at most
//!   ([`Limits::max_wildcard_complexity`]).
//!
//! No input panics: bad patterns and events are errors.

#![forbid(unsafe_code)]

mod cidr;
mod compile;
mod dialect;
mod error;
mod limits;
mod matching;
mod number;
mod parse;
mod path;
mod pattern;
pub mod reference;
mod required;
mod wildcard;

pub use dialect::Dialect;
pub use error::{EventError, PatternError};
pub use limits::Limits;
pub use matching::Matcher;
pub use parse::filter_file::{
    parse_filter_file, parse_filter_file_with, parse_filter_file_with_limits,
};
pub use pattern::Pattern;
