//! Stage 3 from raw bytes: scan event JSON without building a `serde_json::Value`.
//!
//! A recursive walk follows the [`PathTrie`] alongside the JSON: a field no
//! pattern names is skipped by [`Lexer::skip_value`] (syntax-checked, never
//! decoded or stored); a scalar at a named path is decoded (numbers by
//! `serde_json`, so both stages agree on every value) and recorded with its
//! array [`Trail`]. The result is the same [`Leaves`] that
//! [`crate::event::collect_value`] builds from a `Value`, except that a key
//! repeated within one object contributes every occurrence (as a streaming
//! parser sees them) rather than only the last.

use std::borrow::Cow;

use crate::compile::PathTrie;
use crate::error::{EventError, strip_position};
use crate::event::{Leaves, Scalar, Trail};
use crate::lex::Lexer;

/// Containers nested along named fields at which the walk stops with an error
/// (`serde_json`'s recursion limit, so both stages fail alike).
const MAX_NAMED_DEPTH: usize = 128;

/// Scan `bytes` (one JSON object) for the values at the paths in `trie`.
pub(crate) fn collect_bytes<'a>(
    bytes: &'a [u8],
    trie: &PathTrie,
) -> Result<Leaves<'a>, EventError> {
    let mut walk = Walk {
        trie,
        lex: Lexer::new(bytes),
        leaves: Leaves::new(trie.path_count()),
        trail: Trail::new(),
    };
    walk.lex.skip_ws();
    let found = if walk.lex.peek() == Some(b'{') {
        walk.object(PathTrie::ROOT, 1)?;
        None
    } else {
        Some(walk.lex.skip_value()?)
    };
    walk.lex.skip_ws();
    if walk.lex.peek().is_some() {
        return Err(walk.lex.error_at(walk.lex.pos, "trailing characters"));
    }
    match found {
        Some(found) => Err(EventError::NotAnObject { found }),
        None => Ok(walk.leaves),
    }
}

/// The walk's state: where it is in the bytes, what it found so far.
struct Walk<'t, 'a> {
    trie: &'t PathTrie,
    lex: Lexer<'a>,
    leaves: Leaves<'a>,
    trail: Trail,
}

impl<'a> Walk<'_, 'a> {
    /// Record `value` if trie `node` is a path some pattern matches values at.
    fn record(&mut self, node: usize, value: Scalar<'a>) {
        if let Some(path) = self.trie.node(node).path {
            self.leaves.push(path, value, &self.trail);
        }
    }

    fn wanted(&self, node: usize) -> bool {
        self.trie.node(node).path.is_some()
    }

    /// The value at trie `node`; containers in it nest at `depth + 1`.
    fn value(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.lex.skip_ws();
        match self.lex.peek() {
            Some(b'{') if !self.trie.node(node).children.is_empty() => self.object(node, depth + 1),
            Some(b'{') => self.lex.skip_value().map(drop),
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
                let (start, end) = self.lex.number()?;
                if self.wanted(node) {
                    let number = number(&self.lex, start, end)?;
                    self.record(node, Scalar::from_number(&number));
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
        loop {
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
                Some(next) => self.value(next, depth)?,
                None => {
                    self.lex.skip_value()?;
                }
            }
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => self.lex.pos += 1,
                Some(b'}') => {
                    self.lex.pos += 1;
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
        let mut index: u32 = 0;
        loop {
            self.trail.push((id, index));
            self.value(node, depth)?;
            self.trail.pop();
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => {
                    self.lex.pos += 1;
                    index = index.saturating_add(1);
                }
                Some(b']') => {
                    self.lex.pos += 1;
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

/// A number's text (grammar already checked) as `serde_json` reads it: an
/// integer as `u64`/`i64` when it fits, anything else as a correctly rounded
/// `f64` (as with `serde_json`'s `float_roundtrip`).
fn number(lex: &Lexer<'_>, start: usize, end: usize) -> Result<serde_json::Number, EventError> {
    let bytes = &lex.bytes[start..end];
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    if !bytes.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        if let Ok(n) = text.parse::<u64>() {
            return Ok(n.into());
        }
        if let Ok(n) = text.parse::<i64>() {
            return Ok(n.into());
        }
    }
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .ok_or_else(|| lex.error_at(start, "number out of range"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::compile::compile;
    use crate::pattern::Pattern;

    fn values<'a>(pattern: &str, event: &'a [u8]) -> Result<Vec<Scalar<'a>>, EventError> {
        let mut trie = PathTrie::new();
        compile(&Pattern::parse(pattern).unwrap(), &mut trie);
        let leaves = collect_bytes(event, &trie)?;
        Ok(leaves.at.into_iter().flatten().map(|l| l.value).collect())
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
