//! Reading an event: a walk over its JSON bytes that follows the [`Trie`],
//! collecting the scalar values at the paths some condition tests.
//!
//! The walk never builds a `serde_json::Value`. Along named fields keys and
//! strings are decoded and numbers parsed, by `serde_json`'s rules, so every
//! value compares as it would after `serde_json::from_slice`. A value no
//! pattern names is skipped without decoding or keeping anything: in
//! [`Check::Strict`] by [`Lexer::skip_value`], which checks its syntax, and in
//! [`Check::Lazy`] by [`Lexer::skim_value`], which follows only its quotes
//! and brackets. Arrays are transparent: each element
//! is read at the array's own path, and every value keeps its trail (which
//! element of which array it lies in). A key repeated within one object
//! contributes every occurrence, as a streaming parser sees them.
//!
//! Containers nested more than [`MAX_NAMED_DEPTH`] deep along named fields
//! are an error, as `serde_json`'s recursion limit makes them; elsewhere the
//! skip has no depth limit.

use std::borrow::Cow;

use super::event::{Leaves, Step};
use super::lex::Lexer;
use crate::compile::{NodeId, Scalar, Trie};
use crate::error::{EventError, strip_position};

/// Nesting along named fields at which reading stops with an error
/// (`serde_json`'s recursion limit).
const MAX_NAMED_DEPTH: usize = 128;

/// How the values no pattern names are skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Checking their syntax ([`crate::Matcher::matches_strict`]).
    Strict,
    /// By their quotes and brackets alone ([`crate::Matcher::matches`]).
    ///
    /// Kept because it pays on stream records: with the 10-pattern
    /// stream-filter set of `examples/bench.rs` on its corpus (a), a record
    /// costs about 30 % less CPU than with [`Check::Strict`] (4.2-4.4 against
    /// 5.9 µs per record, medians of 5 passes, on the shared 2-core
    /// development VM under load 8); checking the syntax of every byte costs
    /// about what a `serde_json` `IgnoredAny` parse of the whole record does.
    Lazy,
}

/// Read `bytes` (one JSON object) into `leaves`: the values at the paths of
/// `trie` that some condition tests.
///
/// # Errors
/// [`EventError::Json`] for malformed JSON, with its line and column;
/// [`EventError::NotAnObject`] for valid JSON that is not an object.
pub(crate) fn read<'a>(
    bytes: &'a [u8],
    trie: &Trie,
    check: Check,
) -> Result<Leaves<'a>, EventError> {
    let mut reader = Reader {
        trie,
        check,
        lex: Lexer::new(bytes),
        leaves: Leaves::new(),
        trail: Vec::new(),
        arrays: 0,
    };
    reader.event()?;
    Ok(reader.leaves)
}

struct Reader<'t, 'a> {
    trie: &'t Trie,
    check: Check,
    lex: Lexer<'a>,
    leaves: Leaves<'a>,
    /// The array elements the walk is in, outermost first.
    trail: Vec<Step>,
    /// Arrays met so far (each gets the next number).
    arrays: u32,
}

impl<'a> Reader<'_, 'a> {
    /// The whole event: one JSON object, nothing after it.
    fn event(&mut self) -> Result<(), EventError> {
        self.lex.skip_ws();
        let found = match self.lex.peek() {
            Some(b'{') => {
                self.object(Trie::ROOT, 1)?;
                None
            }
            _ => Some(self.skip()?),
        };
        self.lex.skip_ws();
        if self.lex.peek().is_some() {
            return Err(self.lex.error_at(self.lex.pos, "trailing characters"));
        }
        match found {
            Some(found) => Err(EventError::NotAnObject { found }),
            None => Ok(()),
        }
    }

    /// Skip a value no pattern names; returns its JSON type for messages.
    fn skip(&mut self) -> Result<&'static str, EventError> {
        match self.check {
            Check::Strict => self.lex.skip_value(),
            Check::Lazy => self.lex.skim_value(),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), EventError> {
        if depth >= MAX_NAMED_DEPTH {
            return Err(self.lex.error_at(self.lex.pos, "recursion limit exceeded"));
        }
        Ok(())
    }

    /// An object (its `{` next) at trie `node`, itself nested `depth` deep.
    fn object(&mut self, node: NodeId, depth: usize) -> Result<(), EventError> {
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
            let next = if escaped {
                let key = decode(&self.lex, start, end)?;
                self.trie.follow(node, key.as_bytes())
            } else {
                self.trie.follow(node, &self.lex.bytes[start..end])
            };
            self.lex.expect(b':', "an object", "expected `:`")?;
            match next {
                Some(next) => self.value(next, depth)?,
                None => {
                    self.skip()?;
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

    /// An array (its `[` next) at trie `node`: each element at the same node.
    fn array(&mut self, node: NodeId, depth: usize) -> Result<(), EventError> {
        self.enter(depth)?;
        self.lex.pos += 1;
        self.arrays = self.arrays.wrapping_add(1);
        let array = self.arrays;
        self.lex.skip_ws();
        if self.lex.peek() == Some(b']') {
            self.lex.pos += 1;
            return Ok(());
        }
        let mut index: u32 = 0;
        loop {
            self.trail.push((array, index));
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

    /// The value at trie `node`; containers in it nest at `depth + 1`.
    fn value(&mut self, node: NodeId, depth: usize) -> Result<(), EventError> {
        self.lex.skip_ws();
        let tested = self.trie.is_tested(node);
        let value = match self.lex.peek() {
            Some(b'{') if self.trie.has_children(node) => return self.object(node, depth + 1),
            // An object is not a value (`exists` looks at leaves only).
            Some(b'{') => return self.skip().map(drop),
            Some(b'[') => return self.array(node, depth + 1),
            Some(b'"') => {
                self.lex.pos += 1;
                let (start, end, escaped) = self.lex.string()?;
                if !tested {
                    return Ok(());
                }
                if escaped {
                    Scalar::String(Cow::Owned(decode(&self.lex, start, end)?))
                } else {
                    Scalar::String(Cow::Borrowed(utf8(&self.lex, start, end)?))
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let (start, end) = self.lex.number()?;
                if !tested {
                    return Ok(());
                }
                // The lexer checked the grammar: the text is ASCII.
                let text = std::str::from_utf8(&self.lex.bytes[start..end]).unwrap_or_default();
                match crate::number::parse_json(text) {
                    Some(number) => Scalar::number(number),
                    None => return Err(self.lex.error_at(start, "number out of range")),
                }
            }
            Some(b't') => {
                self.lex.literal(b"true")?;
                Scalar::Bool(true)
            }
            Some(b'f') => {
                self.lex.literal(b"false")?;
                Scalar::Bool(false)
            }
            Some(b'n') => {
                self.lex.literal(b"null")?;
                Scalar::Null
            }
            _ => return Err(self.lex.error("a value", "expected value")),
        };
        if tested {
            self.leaves.push(node, value, &self.trail);
        }
        Ok(())
    }
}

/// A string body without escapes, checked as UTF-8.
fn utf8<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<&'a str, EventError> {
    std::str::from_utf8(&lex.bytes[start..end])
        .map_err(|e| lex.error_at(start + e.valid_up_to(), "invalid unicode code point"))
}

/// A string body with escapes, decoded by `serde_json` (surrogate pairs
/// included, lone surrogates rejected).
fn decode(lex: &Lexer<'_>, start: usize, end: usize) -> Result<String, EventError> {
    // The quotes around the body are at start - 1 and end.
    serde_json::from_slice::<String>(&lex.bytes[start - 1..=end])
        .map_err(|e| lex.error_at(start, &strip_position(&e)))
}
