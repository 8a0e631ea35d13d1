//! Stage 3 from raw bytes: scan event JSON without building a `serde_json::Value`.
//!
//! A recursive walk follows the [`PathTrie`] alongside the JSON: a field no
//! pattern names is skipped (never decoded or stored); a scalar at a named
//! path is decoded (numbers to their comparison key, and by `serde_json`'s
//! rules when needed, so both stages agree on every value) and recorded with
//! its array [`Trail`]. The result is the same [`Leaves`] that
//! [`crate::event::collect_value`] builds from a `Value`, except that a key
//! repeated within one object contributes every occurrence (as a streaming
//! parser sees them) rather than only the last.
//!
//! Both keep a value only when some test at its path accepts it
//! ([`crate::compile::TrieNode::accepts`]); of any other value only its
//! presence is noted (for `{"exists": false}`). A number in its common form
//! is read and keyed in one pass ([`crate::number::lex_decimal`]), and one
//! whose rough key lies far from every `numeric` range at its path is not
//! keyed exactly at all.
//!
//! Two modes ([`Check`]): `Strict` checks the syntax of every byte (skipped
//! values by [`Lexer::skip_value`]); `Lazy` skims skipped values by structure
//! ([`Lexer::skim_value`]) and stops reading once [`crate::lookahead`] shows
//! that no later byte can add a value at a named path.

use std::borrow::Cow;

use crate::compile::PathTrie;
use crate::error::{EventError, strip_position};
use crate::event::{Leaves, Num, Scalar, Trail};
use crate::lex::Lexer;
use crate::lookahead::Lookahead;

/// Containers nested along named fields at which the walk stops with an error
/// (`serde_json`'s recursion limit, so both stages fail alike).
const MAX_NAMED_DEPTH: usize = 128;

/// How much of an event's syntax is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Every byte.
    Strict,
    /// What the walk reads; see [`crate::Matcher::matches`].
    Lazy,
}

/// Scan `bytes` (one JSON object) for the values at the paths in `trie`.
pub(crate) fn collect_bytes<'a>(
    bytes: &'a [u8],
    trie: &PathTrie,
    check: Check,
    mut leaves: Leaves<'a>,
) -> Result<Leaves<'a>, EventError> {
    let (trail, open) = std::mem::take(&mut leaves.spare);
    let mut walk = Walk {
        trie,
        lex: Lexer::new(bytes),
        leaves,
        trail,
        check,
        open,
        wanted_arrays: 0,
        ahead: Lookahead::default(),
        stopped: false,
        // An event that does not end with `}` is malformed: read it all, so
        // that the walk finds the fault and reports where it is.
        may_stop: check == Check::Lazy && bytes.trim_ascii_end().last() == Some(&b'}'),
    };
    walk.lex.skip_ws();
    let found = match walk.lex.peek() {
        Some(b'{') => {
            walk.object(PathTrie::ROOT, 1)?;
            None
        }
        _ => Some(walk.skip()?),
    };
    if walk.stopped {
        return Ok(walk.finish());
    }
    walk.lex.skip_ws();
    if walk.lex.peek().is_some() {
        return Err(walk.lex.error_at(walk.lex.pos, "trailing characters"));
    }
    match found {
        Some(found) => Err(EventError::NotAnObject { found }),
        None => Ok(walk.finish()),
    }
}

/// The walk's state: where it is in the bytes, what it found so far.
struct Walk<'t, 'a> {
    trie: &'t PathTrie,
    lex: Lexer<'a>,
    leaves: Leaves<'a>,
    trail: Trail,
    check: Check,
    /// Trie nodes of the objects the walk is inside, outermost first.
    open: Vec<usize>,
    /// Arrays the walk is inside whose node is a named path: their later
    /// elements are values there without any key before them.
    wanted_arrays: usize,
    ahead: Lookahead,
    /// Set when the walk stopped early: nothing after it can add a value.
    stopped: bool,
    /// Whether the walk may stop early (lazy mode, and the bytes end with `}`).
    may_stop: bool,
}

impl<'a> Walk<'_, 'a> {
    /// The leaves found, holding the walk's buffers for the next event.
    fn finish(mut self) -> Leaves<'a> {
        self.leaves.spare = (self.trail, self.open);
        self.leaves
    }

    /// Record `value` if trie `node` is a path some pattern matches values at.
    fn record(&mut self, node: usize, value: Scalar<'a>) {
        let here = self.trie.node(node);
        if let Some(path) = here.path {
            if here.accepts(&value) {
                self.leaves.push(path, value, &self.trail);
            } else {
                self.leaves.mark(path);
            }
        }
    }

    fn wanted(&self, node: usize) -> bool {
        self.trie.node(node).path.is_some()
    }

    /// Skip a value no pattern names.
    fn skip(&mut self) -> Result<&'static str, EventError> {
        match self.check {
            Check::Strict => self.lex.skip_value(),
            Check::Lazy => self.lex.skim_value(),
        }
    }

    /// Whether the walk may stop before the object member at its position:
    /// lazy mode, the bytes end with `}`, no enclosing named array, and ahead
    /// no `\` and no quoted name that a child of an open object has.
    fn can_stop(&mut self) -> bool {
        if !self.may_stop || self.wanted_arrays > 0 {
            return false;
        }
        let (trie, open) = (self.trie, &self.open);
        let meets = |name: u32| open.iter().any(|&n| trie.node(n).name_ids.contains(&name));
        !self
            .ahead
            .ahead(&trie.names, self.lex.bytes, self.lex.pos, meets)
    }

    /// The value at trie `node`; containers in it nest at `depth + 1`.
    fn value(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.lex.skip_ws();
        match self.lex.peek() {
            Some(b'{') if !self.trie.node(node).children.is_empty() => self.object(node, depth + 1),
            Some(b'{') => self.skip().map(drop),
            Some(b'[') => self.array(node, depth + 1),
            Some(b'"') => {
                self.lex.pos += 1;
                let (start, end, escaped) = self.lex.string()?;
                if self.wanted(node) {
                    let text = decode(&self.lex, start, end, escaped)?;
                    self.record(node, Scalar::String(text));
                }
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => {
                let here = self.trie.node(node);
                if let Some(path) = here.path {
                    let rest = self.lex.bytes.get(self.lex.pos..).unwrap_or_default();
                    // Most numbers at a `numeric` path are far from every
                    // range: their leading digits tell.
                    if here.has_number_ranges()
                        && let Some((len, low, high)) = crate::number::lex_rough(rest)
                        && here.rejects_numbers_between(low, high)
                    {
                        self.lex.pos += len;
                        self.leaves.mark(path);
                        return Ok(());
                    }
                    if let Some((len, decimal)) = crate::number::lex_decimal(rest) {
                        if here.rejects_number(decimal.rough_key()) {
                            self.lex.pos += len;
                            self.leaves.mark(path);
                            return Ok(());
                        }
                        if let Some(key) = decimal.key() {
                            self.lex.pos += len;
                            self.record(node, Scalar::Number(key, Num::Text(&rest[..len])));
                            return Ok(());
                        }
                    }
                }
                let (start, end) = self.lex.number()?;
                if self.wanted(node) {
                    let number = number(&self.lex, start, end)?;
                    self.record(node, number);
                }
                Ok(())
            }
            Some(b't') => {
                self.lex.literal(b"true")?;
                self.record(node, Scalar::Bool(true));
                Ok(())
            }
            Some(b'f') => {
                self.lex.literal(b"false")?;
                self.record(node, Scalar::Bool(false));
                Ok(())
            }
            Some(b'n') => {
                self.lex.literal(b"null")?;
                self.record(node, Scalar::Null);
                Ok(())
            }
            _ => Err(self.lex.error("a value", "expected value")),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), EventError> {
        if depth >= MAX_NAMED_DEPTH {
            return Err(self.lex.error_at(self.lex.pos, "recursion limit exceeded"));
        }
        Ok(())
    }

    /// An object at trie `node` (the `{` next), itself at nesting `depth`.
    fn object(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.enter(depth)?;
        self.lex.pos += 1;
        self.lex.skip_ws();
        if self.lex.peek() == Some(b'}') {
            self.lex.pos += 1;
            return Ok(());
        }
        self.open.push(node);
        loop {
            if self.can_stop() {
                self.stopped = true;
                return Ok(());
            }
            self.lex.skip_ws();
            if self.lex.peek() != Some(b'"') {
                return Err(self.lex.error("an object", "key must be a string"));
            }
            self.lex.pos += 1;
            let (start, end, escaped) = self.lex.string()?;
            // Keys are compared as bytes: a key no pattern names is not
            // checked for UTF-8 (as a skipped string is not).
            let children = &self.trie.node(node).children;
            let next = if escaped {
                children.get(decode(&self.lex, start, end, true)?.as_bytes())
            } else {
                children.get(&self.lex.bytes[start..end])
            };
            self.lex.expect(b':', "an object", "expected `:`")?;
            match next {
                Some(next) => {
                    self.value(next, depth)?;
                    if self.stopped {
                        return Ok(());
                    }
                }
                None => {
                    self.skip()?;
                }
            }
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => self.lex.pos += 1,
                Some(b'}') => {
                    self.lex.pos += 1;
                    self.open.pop();
                    return Ok(());
                }
                _ => return Err(self.lex.error("an object", "expected `,` or `}`")),
            }
        }
    }

    /// An array at trie `node` (the `[` next): each element at the same node.
    fn array(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.enter(depth)?;
        self.lex.pos += 1;
        let id = self.leaves.array_id();
        self.lex.skip_ws();
        if self.lex.peek() == Some(b']') {
            self.lex.pos += 1;
            return Ok(());
        }
        let wanted = usize::from(self.wanted(node));
        self.wanted_arrays += wanted;
        let mut index: u32 = 0;
        loop {
            self.trail.push((id, index));
            self.value(node, depth)?;
            if self.stopped {
                return Ok(());
            }
            self.trail.pop();
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => {
                    self.lex.pos += 1;
                    index = index.saturating_add(1);
                }
                Some(b']') => {
                    self.lex.pos += 1;
                    self.wanted_arrays -= wanted;
                    return Ok(());
                }
                _ => return Err(self.lex.error("a list", "expected `,` or `]`")),
            }
        }
    }
}

/// A string body without escapes, checked as UTF-8.
fn utf8<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<&'a str, EventError> {
    std::str::from_utf8(&lex.bytes[start..end])
        .map_err(|e| lex.error_at(start + e.valid_up_to(), "invalid unicode code point"))
}

/// A string body decoded (escapes by `serde_json`, surrogate pairs included);
/// borrowed when it has no escapes.
fn decode<'a>(
    lex: &Lexer<'a>,
    start: usize,
    end: usize,
    escaped: bool,
) -> Result<Cow<'a, str>, EventError> {
    if !escaped {
        return utf8(lex, start, end).map(Cow::Borrowed);
    }
    // The quotes around the body are at start - 1 and end.
    serde_json::from_slice::<String>(&lex.bytes[start - 1..=end])
        .map(Cow::Owned)
        .map_err(|e| lex.error_at(start, &strip_position(&e)))
}

/// A number at a named path (its grammar checked): its key, by
/// [`crate::number::fast_key`] when that is certain, else by a full parse
/// (which rejects numbers beyond `f64`, as `serde_json` does).
fn number<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<Scalar<'a>, EventError> {
    let bytes = &lex.bytes[start..end];
    let key = match crate::number::fast_key(bytes) {
        Some(key) => key,
        // The lexer checked the grammar: the text is ASCII.
        None => crate::number::parse_json(std::str::from_utf8(bytes).unwrap_or_default())
            .ok_or_else(|| lex.error_at(start, "number out of range"))
            .map(|n| crate::number::json_key(&n))?,
    };
    Ok(Scalar::Number(key, Num::Text(bytes)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::compile::{Condition, Test, compile};
    use crate::pattern::Pattern;

    fn values<'a>(pattern: &str, event: &'a [u8]) -> Result<Vec<Scalar<'a>>, EventError> {
        let mut trie = PathTrie::new();
        // Keep every value at a named path, whatever the pattern's tests.
        for condition in compile(&Pattern::parse(pattern).unwrap(), &mut trie).concat() {
            trie.add_tests(&Condition {
                tests: vec![Test::Any],
                ..condition
            });
        }
        trie.finish();
        let leaves = Leaves::new(trie.path_count());
        let leaves = collect_bytes(event, &trie, Check::Strict, leaves)?;
        Ok(leaves.into_values())
    }

    #[test]
    fn only_named_fields_are_collected() {
        let got = values(
            r#"{"a": {"b": ["x"]}}"#,
            br#"{"z": [1, {"b": 2}], "a": {"b": "v", "c": 3}}"#,
        );
        assert_eq!(got.unwrap(), vec![Scalar::String("v".into())]);
    }

    #[test]
    fn escaped_keys_are_decoded_and_repeated_keys_all_seen() {
        let got = values(
            r#"{"a\"b": ["x"]}"#,
            br#"{"a\"b": "one", "a\u0022b": "two"}"#,
        );
        assert_eq!(
            got.unwrap(),
            vec![Scalar::String("one".into()), Scalar::String("two".into())]
        );
    }

    #[test]
    fn syntax_errors_in_skipped_fields_are_still_errors() {
        let err = values(r#"{"a": ["x"]}"#, br#"{"z": [1, }, "a": "x"}"#).unwrap_err();
        assert!(matches!(err, EventError::Json { line: 1, .. }), "{err:?}");
    }
}
