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
//!   documents; EventBridge accepts the full language. An operator the dialect
//!   lacks is an error naming the operator and the dialect.
//! - [`Pattern::required_strings`]: the exact strings a pattern requires at
//!   one field, so a caller can tell a non-match before building the event.
//! - [`Matcher`]: many patterns, each tagged with an id, compiled once and
//!   matched against JSON events; it returns the ids that match.
//! - Errors name the JSON path of what is wrong:
//!   `Filters[0].Pattern: $.userIdentity.type: ...` ([`PatternError`]), or the
//!   line and column of malformed event JSON ([`EventError`]).
//!
//! Operators: exact strings, numbers (numerically: `300` matches `300.0`),
//! booleans and `null`; `prefix`, `suffix`, `equals-ignore-case` (and
//! prefix/suffix with `equals-ignore-case`); `anything-but` (values, lists,
//! `prefix`, `suffix`, `equals-ignore-case`, `wildcard`); `numeric`; `exists`;
//! `wildcard`; `cidr`; `$or`. `filters/PATTERNS.md` has an example of each.
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
//!   pattern; event values nested deeper than 512 levels are ignored.
//! - [`Matcher::matches`] scans event bytes without building a
//!   `serde_json::Value`, and checks their syntax only as far as it reads:
//!   fields no pattern names are skimmed by their brackets and quotes, and it
//!   stops reading once no later byte can add a value at a named field.
//!   [`Matcher::matches_strict`] checks the syntax of every byte; fields no
//!   pattern names are still skipped without decoding (iteratively, at any
//!   depth), so strings there are not checked for UTF-8, nor numbers for size.
//!   Along fields a pattern names, nesting deeper than 128 levels is an error
//!   (`serde_json`'s recursion limit).
//!
//! No input panics: bad patterns and events are errors.

mod anchored;
mod bitstack;
mod children;
mod cidr;
mod classify;
mod compile;
mod consistency;
mod criteria;
mod dialect;
mod error;
mod event;
mod gate;
mod lex;
mod limits;
mod lookahead;
mod matcher;
mod number;
mod operator;
mod parse;
mod path;
mod pattern;
mod prefilter;
mod quotes;
mod required;
mod scan;
mod skim;
mod strings;
mod wildcard;

pub use criteria::{parse_filter_file, parse_filter_file_with, parse_filter_file_with_limits};
pub use dialect::Dialect;
pub use error::{EventError, PatternError};
pub use limits::Limits;
pub use matcher::Matcher;
pub use pattern::Pattern;
