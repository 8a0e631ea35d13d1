//! Stage 3, match: read an event's bytes along the compiled [`Trie`]
//! ([`read`]), then decide each pattern's branches against the values found
//! ([`branch`]).
//!
//! One code path for every CPU and every input. [`Matcher::matches`] takes two
//! shortcuts, each kept because it pays on stream records (their docs say how
//! much): it skims the values no pattern names ([`read::Check::Lazy`]) and
//! it rejects most events by a literal search before reading them
//! ([`prefilter`]). [`crate::reference`] is the executable statement of what
//! all of this must answer, and the crate's property tests and fuzz target
//! hold the matcher to it.
//!
//! # What bounds the reader
//! The reader finds every token of the fields it follows one byte at a
//! time, and a stream record is mostly such fields: on the 10-pattern
//! stream-filter set of `examples/bench.rs` a record costs 1.5 to 1.6 times
//! the bench's `json pass` (`serde_json` checking each record's syntax,
//! matching nothing; 1.23-1.45 against 0.78-0.81 µs of CPU on a 2-core AMD
//! EPYC VM). Most of that is per token, not per byte: skimming a whole record by
//! its quotes and brackets alone costs 0.72 µs there. Measured on that
//! machine and not taken (a scratch program over corpus (a)):
//! - a pass marking quotes, backslashes and brackets 16 bytes at a time
//!   (SSE2, through the `wide` crate), the first stage of a reader that
//!   would then jump from token to token: 0.31-0.33 µs a record before any
//!   walking, against about 0.5 µs that the profile puts in finding token
//!   ends, so it could save about a tenth of the record's cost;
//!   eight bytes at a time in plain integers, 0.61 µs;
//! - `simd-json`'s tape of the record: 1.23-1.29 µs; `sonic-rs` (without
//!   `-C target-cpu`) skipping the record: 1.30-1.37 µs;
//! - scanning a key eight bytes at a time: about 8 % less per record on that
//!   CPU, slower on the Intel Xeon of the lexer's measurements
//!   ([`lex`]); grouping the values by path for [`branch`]: about 2 %.

mod branch;
mod event;
mod lex;
mod prefilter;
mod read;
mod skim;

use serde_json::Value;

use crate::compile::{Condition, Trie, compile};
use crate::error::EventError;
use crate::pattern::Pattern;
use event::Leaves;
use prefilter::Prefilter;

/// One branch of a pattern: its conditions, ANDed.
type Branch = Vec<Condition>;

/// Many patterns compiled once, each tagged with an `Id`; matched against events.
///
/// Several patterns may share an `Id` (a `FilterCriteria` file's filters are
/// ORed): the id matches when any of its patterns does. A `Matcher` is
/// immutable after [`Matcher::new`], and is `Send + Sync` when `Id` is.
///
/// Semantics (as AWS's): fields of one object are ANDed, values in one array
/// are ORed, an array in the event matches when any element matches, and
/// values taken from different elements of one event array never combine into
/// one match. [`crate::reference::matches`] states them as code; the sources
/// are "Content filtering in Amazon EventBridge event patterns", "Control
/// which events Lambda sends to your function" and `aws/event-ruler`.
#[derive(Debug, Clone)]
pub struct Matcher<Id> {
    /// Distinct ids in order of first insertion, each with the branches of
    /// all its patterns (ORed).
    ids: Vec<(Id, Vec<Branch>)>,
    /// How many patterns were compiled in.
    patterns: usize,
    /// Every field path the patterns name.
    trie: Trie,
    prefilter: Prefilter,
}

impl<Id: Clone + PartialEq> Matcher<Id> {
    /// Compile `patterns`. Cannot fail: every [`Pattern`] is already valid.
    pub fn new(patterns: impl IntoIterator<Item = (Id, Pattern)>) -> Matcher<Id> {
        let mut ids: Vec<(Id, Vec<Branch>)> = Vec::new();
        let mut trie = Trie::new();
        let mut count = 0;
        for (id, pattern) in patterns {
            let branches = compile(&pattern, &mut trie);
            count += 1;
            match ids.iter_mut().find(|(known, _)| *known == id) {
                Some((_, all)) => all.extend(branches),
                None => ids.push((id, branches)),
            }
        }
        let prefilter = Prefilter::new(ids.iter().map(|(_, branches)| branches));
        Matcher {
            ids,
            patterns: count,
            trie,
            prefilter,
        }
    }

    /// The ids whose pattern(s) match the event given as JSON bytes: each id
    /// once, in the order the ids were first inserted.
    ///
    /// ```
    /// use ttlstream_filters::{Matcher, Pattern};
    /// let ttl = Pattern::parse(r#"{"userIdentity": {"type": ["Service"]}}"#)?;
    /// let matcher = Matcher::new([("ttl", ttl)]);
    /// let event = br#"{"eventName": "REMOVE", "userIdentity": {"type": "Service"}}"#;
    /// assert_eq!(matcher.matches(event).unwrap(), vec!["ttl"]);
    /// assert!(matcher.matches(b"{not json").is_err());
    /// // Not read at all: no `"Service"` and no escape, so nothing can match.
    /// assert!(matcher.matches(br#"{"userIdentity": {"type": "User"}, oops}"#).is_ok());
    /// assert!(matcher.matches_strict(br#"{"userIdentity": {"type": "User"}, oops}"#).is_err());
    /// // Skimmed: the value of a field no pattern names.
    /// let skimmed = br#"{"a": [1,,], "userIdentity": {"type": "Service"}}"#;
    /// assert_eq!(matcher.matches(skimmed).unwrap(), vec!["ttl"]);
    /// assert!(matcher.matches_strict(skimmed).is_err());
    /// # Ok::<(), ttlstream_filters::PatternError>(())
    /// ```
    ///
    /// [`Matcher::matches_strict`], except that it checks less of the
    /// syntax (`filters/PATTERNS.md`, "Event bytes"):
    /// - a value no pattern names is skimmed by its quotes and brackets: its
    ///   contents are not checked;
    /// - when every pattern needs some literal in the event's bytes (an exact
    ///   string `s` as `"s"`, a prefix `p` as `"p`, a suffix as `p"`), an
    ///   event that starts with `{`, ends with `}`, and holds no `\` and
    ///   none of those literals matches nothing and is not read further.
    ///
    /// For valid JSON the result is always that of [`Matcher::matches_strict`].
    ///
    /// # Errors
    /// As [`Matcher::matches_strict`], for the events it reads.
    pub fn matches(&self, event_json: &[u8]) -> Result<Vec<Id>, EventError> {
        if self.prefilter.rejects(event_json) {
            return Ok(Vec::new());
        }
        let leaves = read::read(event_json, &self.trie, read::Check::Lazy)?;
        Ok(self.select(&leaves))
    }

    /// The ids whose pattern(s) match the event given as JSON bytes, checking
    /// the JSON syntax of every byte: a malformed event is always an error,
    /// even when the fault lies in a field no pattern names.
    ///
    /// In a field no pattern names (and in a key no pattern names), strings
    /// are checked for escapes and control characters but not decoded, so
    /// invalid UTF-8 and lone surrogate escapes are accepted there, and
    /// numbers are checked for grammar but not size (as `serde_json`'s
    /// `IgnoredAny`). Along fields a pattern names, nesting deeper than 127
    /// levels is an error (`serde_json`'s recursion limit); elsewhere nesting
    /// has no limit.
    ///
    /// # Errors
    /// [`EventError::Json`] if the bytes are not JSON (with line and column);
    /// [`EventError::NotAnObject`] if the JSON is not an object.
    pub fn matches_strict(&self, event_json: &[u8]) -> Result<Vec<Id>, EventError> {
        let leaves = read::read(event_json, &self.trie, read::Check::Strict)?;
        Ok(self.select(&leaves))
    }

    /// The ids whose pattern(s) match an already-parsed event, as
    /// [`Matcher::matches`] would for its JSON text. A non-object event has
    /// no fields, so only patterns made entirely of `{"exists": false}` match
    /// it; an event nested too deeply along a named field (see
    /// [`Matcher::matches_strict`]) matches nothing.
    #[must_use]
    pub fn matches_value(&self, event: &Value) -> Vec<Id> {
        let text = match event {
            Value::Object(_) => event.to_string(),
            _ => "{}".to_owned(),
        };
        self.matches_strict(text.as_bytes()).unwrap_or_default()
    }

    /// Number of patterns compiled in.
    #[must_use]
    pub fn len(&self) -> usize {
        self.patterns
    }

    /// Whether no pattern was compiled in (then nothing matches).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.patterns == 0
    }

    /// The ids one of whose branches holds for `leaves`.
    fn select(&self, leaves: &Leaves<'_>) -> Vec<Id> {
        self.ids
            .iter()
            .filter(|(_, branches)| branches.iter().any(|branch| branch::holds(branch, leaves)))
            .map(|(id, _)| id.clone())
            .collect()
    }
}
