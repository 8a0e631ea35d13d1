//! A validating JSON lexer over an event's bytes: whitespace, strings,
//! numbers, literals, and an iterative skip over whole values.
//!
//! Errors carry `serde_json`'s wording and its line and column, so that a
//! malformed event reads the same whichever way it was parsed. Skipping
//! checks syntax as `serde_json`'s `IgnoredAny` does (structure, number
//! grammar, escapes, control characters) without decoding anything; like
//! `IgnoredAny`, it does not check UTF-8 or surrogate pairs inside skipped
//! strings, nor the size of skipped numbers. Its nesting depth is unbounded:
//! it keeps a stack, not a recursion. Skimming, the lighter skip of
//! [`crate::Matcher::matches`], is in [`super::skim`].
//!
//! Cost on stream records: most of what the reader does per record is this
//! lexer's string scan (every key of an object some pattern names) and the
//! skim. Scanning strings by the [`ENDS_PLAIN`] table, inlining
//! [`Lexer::string`], and comparing keys and string values without calls
//! to `memcmp` ([`crate::compile::starts_with`]) together took the
//! 10-pattern stream-filter set of `examples/bench.rs` from 4.57-4.71 to
//! 3.50-3.56 µs of CPU per record (-24 %; 21,200 to 17,500 instructions per
//! record under callgrind), and its ratio to quamina from 1.11-1.16x to
//! 1.66-1.75x (alternating runs on the shared 2-core development VM, load
//! 11).
//!
//! Two other scans were measured on that set and not taken, both slower
//! than the table: eight bytes at a time (each `u64` tested for `"`, `\\`
//! and control characters by integer arithmetic, for strings and skims),
//! 3.04-3.06 against 2.87-2.90 µs of CPU per record, and `memchr::memchr2`
//! for skimmed strings, 3.44-3.50 against 2.91-2.92 µs (alternating runs,
//! load 2-4). A stream record's keys and strings are mostly shorter than a
//! word, so the cost per token, not per byte, decides.

use crate::error::EventError;

/// The bytes that end a string's run of plain bytes: `"`, `\\` and the
/// control characters: one look-up per byte instead of three comparisons
/// (as `serde_json`'s `ESCAPE` table).
static ENDS_PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = byte < 0x20 || byte == b'"' as usize || byte == b'\\' as usize;
        byte += 1;
    }
    table
};

/// A position in an event's bytes.
pub(crate) struct Lexer<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An error at byte `at`, with `serde_json`'s line and column.
    pub(crate) fn error_at(&self, at: usize, message: &str) -> EventError {
        let at = at.min(self.bytes.len());
        let before = &self.bytes[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = if at == self.bytes.len() {
            at - line_start
        } else {
            at - line_start + 1
        };
        EventError::Json {
            line,
            column,
            message: message.to_owned(),
        }
    }

    /// An error at the current position: end of input while parsing `what`,
    /// or `message` about the byte found.
    pub(crate) fn error(&self, what: &str, message: &str) -> EventError {
        if self.pos >= self.bytes.len() {
            self.error_at(self.pos, &format!("EOF while parsing {what}"))
        } else {
            self.error_at(self.pos, message)
        }
    }

    /// Consume `byte` (after whitespace), or fail with `message`.
    pub(crate) fn expect(&mut self, byte: u8, what: &str, message: &str) -> Result<(), EventError> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(what, message))
        }
    }

    /// A string's body, the opening quote already consumed: moves past the
    /// closing quote and returns the body's byte range and whether it holds
    /// an escape.
    ///
    /// Inlined into its callers (the reader's objects and values): as a call
    /// it saved six registers and returned its result through memory, for
    /// every key the reader looks at.
    #[inline(always)]
    pub(crate) fn string(&mut self) -> Result<(usize, usize, bool), EventError> {
        let start = self.pos;
        let mut escaped = false;
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            // Past the plain bytes: all but `"`, `\` and control characters.
            self.pos += rest
                .iter()
                .position(|&b| ENDS_PLAIN[usize::from(b)])
                .unwrap_or(rest.len());
            match self.peek() {
                None => return Err(self.error("a string", "")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((start, self.pos - 1, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    self.pos += 1;
                    self.escape()?;
                }
                Some(_) => {
                    return Err(self.error_at(
                        self.pos,
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ));
                }
            }
        }
    }

    fn escape(&mut self) -> Result<(), EventError> {
        match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 1,
            Some(b'u') => {
                self.pos += 1;
                for _ in 0..4 {
                    match self.peek() {
                        Some(b) if b.is_ascii_hexdigit() => self.pos += 1,
                        _ => return Err(self.error("a string", "invalid escape")),
                    }
                }
            }
            _ => return Err(self.error("a string", "invalid escape")),
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A number (its grammar checked, not its value): its byte range.
    pub(crate) fn number(&mut self) -> Result<(usize, usize), EventError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("a number", "invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("a number", "invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("a number", "invalid number"));
            }
        }
        Ok((start, self.pos))
    }

    /// `true`, `false` or `null`, spelled exactly.
    pub(crate) fn literal(&mut self, word: &[u8]) -> Result<(), EventError> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            Err(self.error_at(self.pos, "expected ident"))
        }
    }

    /// `"key"` then `:`, in an object being skipped.
    fn key(&mut self) -> Result<(), EventError> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(self.error("an object", "key must be a string"));
        }
        self.pos += 1;
        self.string()?;
        self.expect(b':', "an object", "expected `:`")
    }

    /// Skip one value (after whitespace), checking its syntax; returns its
    /// JSON type for messages (`an object`, `a string`, ...).
    pub(crate) fn skip_value(&mut self) -> Result<&'static str, EventError> {
        self.skip_ws();
        let kind = match self.peek() {
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            _ => "a number",
        };
        // The containers open, innermost last: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        open.push(true);
                        self.key()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        open.push(false);
                        continue;
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    self.string()?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                _ => return Err(self.error("a value", "expected value")),
            }
            // A value ended: close what it ends, or move to the next element.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(kind);
                };
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        self.pos += 1;
                        open.pop();
                    }
                    Some(b']') if !object => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ if object => return Err(self.error("an object", "expected `,` or `}`")),
                    _ => return Err(self.error("a list", "expected `,` or `]`")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn skip(text: &str) -> Result<&'static str, EventError> {
        let mut lexer = Lexer::new(text.as_bytes());
        let kind = lexer.skip_value()?;
        lexer.skip_ws();
        match lexer.peek() {
            None => Ok(kind),
            Some(_) => Err(lexer.error_at(lexer.pos, "trailing characters")),
        }
    }

    #[test]
    fn valid_values_are_skipped() {
        for (text, kind) in [
            (
                r#"{"a": [1, -2.5e+3, "x\"\u00e9y", true, null, {}, []], "b": {"c": false}}"#,
                "an object",
            ),
            ("[[[[]]], {\"a\": 0.0}]", "an array"),
            ("-0", "a number"),
            ("\"12345678901234567890\\n\"", "a string"),
        ] {
            assert_eq!(skip(text).ok(), Some(kind), "{text}");
        }
        let deep = format!("{}1{}", "[{\"a\":".repeat(200), "}]".repeat(200));
        assert_eq!(skip(&deep).ok(), Some("an array"));
    }

    #[test]
    fn malformed_values_are_errors() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{1:2}",
            "01",
            "1.",
            "1e",
            "-",
            "+1",
            "tru",
            "nul",
            "\"abc",
            "\"a\\x\"",
            "\"\\u12G4\"",
            "\"a\u{1}b\"",
            "[1 2]",
            "{\"a\":1]",
            "[1}",
        ] {
            assert!(skip(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn errors_have_serde_json_positions() {
        for text in ["{\n  \"a\": 1,\n  oops\n}", "[1,\n2 3]"] {
            let ours = skip(text).unwrap_err();
            let theirs = serde_json::from_str::<serde::de::IgnoredAny>(text).unwrap_err();
            let EventError::Json { line, column, .. } = ours else {
                panic!("{ours:?}");
            };
            assert_eq!((line, column), (theirs.line(), theirs.column()), "{text:?}");
        }
    }
}
