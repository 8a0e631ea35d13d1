//! Skimming: skipping a value by its quotes and brackets alone, for
//! [`crate::Matcher::matches`] ([`super::read::Check::Lazy`], which says what
//! it pays on stream records).

use super::lex::Lexer;
use crate::error::EventError;

impl Lexer<'_> {
    /// Skip one value (after whitespace) by its structure alone; returns its
    /// JSON type for messages, as [`Lexer::skip_value`] does.
    ///
    /// A string runs to its first `"` not hidden by a `\\`; an array or
    /// object runs to the bracket that brings the count of open brackets
    /// back to zero, strings inside it skimmed too. Nothing else is checked:
    /// not the bytes inside strings, nor the commas, colons, keys and scalars
    /// inside containers, nor which kind of bracket closes which. A number,
    /// `true`, `false` or `null` as the whole value is checked. An
    /// unterminated string or container is an error.
    pub(crate) fn skim_value(&mut self) -> Result<&'static str, EventError> {
        self.skip_ws();
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                self.skim_string().map(|()| "a string")
            }
            Some(b'{') => self.skim_container().map(|()| "an object"),
            Some(b'[') => self.skim_container().map(|()| "an array"),
            _ => self.skip_value(),
        }
    }

    /// A string's body, the opening quote consumed: to just past the
    /// closing quote.
    fn skim_string(&mut self) -> Result<(), EventError> {
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            self.pos += rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
                .unwrap_or(rest.len());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                // A backslash hides the byte after it.
                Some(_) => self.pos += 2,
                None => {
                    self.pos = self.bytes.len();
                    return Err(self.error("a string", ""));
                }
            }
        }
    }

    /// An array or object (its opening bracket next): to just past the
    /// bracket that closes it.
    fn skim_container(&mut self) -> Result<(), EventError> {
        let mut open = 0usize;
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            self.pos += rest
                .iter()
                .position(|&b| matches!(b, b'"' | b'[' | b']' | b'{' | b'}'))
                .unwrap_or(rest.len());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    self.skim_string()?;
                }
                Some(b'[' | b'{') => {
                    open += 1;
                    self.pos += 1;
                }
                Some(_) => {
                    open -= 1;
                    self.pos += 1;
                    if open == 0 {
                        return Ok(());
                    }
                }
                None => return Err(self.error("a value", "")),
            }
        }
    }
}
