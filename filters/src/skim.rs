//! Skimming: skip a value by its structure alone, for [`crate::Matcher::matches`].
//!
//! A skimmed string runs to its first unescaped `"` (a `\` hides the byte
//! after it); a skimmed array or object runs to the bracket that brings the
//! count of open brackets back to zero, strings inside skimmed too. Nothing
//! else is checked: not the bytes inside strings, not commas, colons, keys or
//! scalars inside containers, not which kind of bracket closes which. A
//! scalar at the top of a skimmed value (a number, `true`, ...) is checked as
//! in strict mode. Unterminated strings and containers are errors.

use crate::error::EventError;
use crate::lex::{Lexer, splat, word_at};

/// Flags, per byte of `word`, `"` and the brackets `[ ] { }` (and, harmlessly,
/// `Y _ y DEL`: they share the brackets' masked bits and are stepped over).
#[inline]
fn structural(word: u64) -> u64 {
    let high = splat(0x80);
    let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & high;
    zero(word ^ splat(b'"')) | zero((word & splat(0xD9)) ^ splat(0x59))
}

/// Flags `"` and `\` in `word`.
#[inline]
fn quote_or_backslash(word: u64) -> u64 {
    let high = splat(0x80);
    let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & high;
    zero(word ^ splat(b'"')) | zero(word ^ splat(b'\\'))
}

impl Lexer<'_> {
    /// Skip one value (after whitespace) by structure; returns its JSON type
    /// for messages, like [`Lexer::skip_value`].
    pub(crate) fn skim_value(&mut self) -> Result<&'static str, EventError> {
        self.skip_ws();
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                self.skim_string()?;
                Ok("a string")
            }
            Some(b'{') => self.skim_container().map(|()| "an object"),
            Some(b'[') => self.skim_container().map(|()| "an array"),
            Some(b'-' | b'0'..=b'9') => self.number().map(|_| "a number"),
            Some(b't') => self.literal(b"true").map(|()| "a boolean"),
            Some(b'f') => self.literal(b"false").map(|()| "a boolean"),
            Some(b'n') => self.literal(b"null").map(|()| "null"),
            _ => Err(self.error("a value", "expected value")),
        }
    }

    /// A string's body, the opening quote consumed: to just past the closing quote.
    fn skim_string(&mut self) -> Result<(), EventError> {
        loop {
            while let Some(word) = word_at(self.bytes, self.pos) {
                let hits = quote_or_backslash(word);
                if hits != 0 {
                    self.pos += (hits.trailing_zeros() / 8) as usize;
                    break;
                }
                self.pos += 8;
            }
            match self.peek() {
                None => return Err(self.error("a string", "")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
            }
        }
    }

    /// An array or object (its opening bracket next): to just past the
    /// bracket that closes it.
    fn skim_container(&mut self) -> Result<(), EventError> {
        let what = if self.peek() == Some(b'{') {
            "an object"
        } else {
            "a list"
        };
        self.pos += 1;
        let mut depth: usize = 1;
        loop {
            while let Some(word) = word_at(self.bytes, self.pos) {
                let hits = structural(word);
                if hits != 0 {
                    self.pos += (hits.trailing_zeros() / 8) as usize;
                    break;
                }
                self.pos += 8;
            }
            match self.peek() {
                None => return Err(self.error(what, "")),
                Some(b'"') => {
                    self.pos += 1;
                    self.skim_string()?;
                }
                Some(b'[' | b'{') => {
                    self.pos += 1;
                    depth += 1;
                }
                Some(b']' | b'}') => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skim(text: &str) -> Result<(&'static str, usize), EventError> {
        let mut lexer = Lexer::new(text.as_bytes());
        let kind = lexer.skim_value()?;
        Ok((kind, lexer.pos))
    }

    #[test]
    fn skims_to_the_end_of_the_value() {
        for (text, kind, end) in [
            (
                r#"{"a": [1, "]}\"", {"b": "Y_y"}], "c": {}} ,"#,
                "an object",
                41,
            ),
            (r#"[[[[]]], {"a": 0.0}]x"#, "an array", 20),
            ("-0.5e3,", "a number", 6),
            (r#""12345678901234567890\\\"" "#, "a string", 26),
            ("true]", "a boolean", 4),
        ] {
            assert_eq!(skim(text).ok(), Some((kind, end)), "{text}");
        }
        let deep = format!("{}1{}", "[{\"a\":".repeat(200), "}]".repeat(200));
        assert_eq!(skim(&deep).ok(), Some(("an array", deep.len())));
    }

    #[test]
    fn unterminated_values_are_errors() {
        for text in [
            "",
            "{",
            "[1, [2]",
            "\"abc",
            "\"abc\\\"",
            "{\"a\": \"}",
            "tru",
            ",",
            "}",
        ] {
            assert!(skim(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn word_flags_agree_with_bytewise_checks() {
        let text: Vec<u8> = (0..=255u8).collect();
        for chunk in text.chunks(8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            let first = |f: fn(u8) -> bool| chunk.iter().position(|&b| f(b));
            let low = |m: u64| (m != 0).then(|| (m.trailing_zeros() / 8) as usize);
            assert_eq!(
                low(structural(word)),
                first(|b| b"\"[]{}Y_y\x7f".contains(&b)),
                "{chunk:?}"
            );
            assert_eq!(
                low(quote_or_backslash(word)),
                first(|b| b == b'"' || b == b'\\')
            );
        }
    }
}
