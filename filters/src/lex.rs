//! A validating JSON byte lexer for [`crate::scan`]: whitespace, strings,
//! numbers and literals, and an iterative skip over whole values.
//!
//! Skipping checks syntax as `serde_json`'s `IgnoredAny` does (structure,
//! number grammar, escapes, control characters) without decoding anything;
//! like `IgnoredAny`, it does not check UTF-8 or surrogate pairs inside
//! skipped strings. Its nesting depth is unbounded: a bit stack, no recursion.

use crate::bitstack::BitStack;
use crate::error::EventError;

/// Eight copies of a byte.
pub(crate) const fn splat(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

/// Index of the first byte of `word` (little-endian) that is `"`, `\` or a
/// control character, if any. Borrows in the zero-byte tests run only upward,
/// from a true hit, so the lowest flagged byte is exact.
#[inline]
fn first_string_special(word: u64) -> Option<usize> {
    let high = splat(0x80);
    let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & high;
    let below_space = word.wrapping_sub(splat(0x20)) & !word & high;
    let mask = zero(word ^ splat(b'"')) | zero(word ^ splat(b'\\')) | below_space;
    (mask != 0).then(|| (mask.trailing_zeros() / 8) as usize)
}

/// How many leading bytes of `word` (little-endian) are ASCII digits (0..=8).
#[inline]
pub(crate) fn digit_run(word: u64) -> usize {
    let x = word ^ splat(b'0');
    // Digits are now 0..=9; adding 0x76 sets the high bit of anything above 9
    // (carries run only upward, from the first non-digit).
    let non_digit = (x.wrapping_add(splat(0x76)) | x) & splat(0x80);
    (non_digit.trailing_zeros() / 8) as usize
}

/// The eight bytes at `at`, if there are eight.
#[inline]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk = bytes.get(at..at.checked_add(8)?)?;
    let mut word = [0u8; 8];
    word.copy_from_slice(chunk);
    Some(u64::from_le_bytes(word))
}

/// The `"`, `\` and control characters among the 16 bytes at `at`, as
/// bits (SSE2, which every x86-64 CPU has: one compare per kind where the
/// word arithmetic of [`first_string_special`] takes about twelve
/// instructions per 8 bytes); `None` when fewer than 16 bytes remain.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn string_specials_16(bytes: &[u8], at: usize) -> Option<u32> {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
        _mm_set1_epi8,
    };
    let chunk = bytes.get(at..at.checked_add(16)?)?;
    let (low, high) = chunk.split_first_chunk::<8>()?;
    let high = high.first_chunk::<8>()?;
    let v = _mm_set_epi64x(i64::from_le_bytes(*high), i64::from_le_bytes(*low));
    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"'.cast_signed()));
    let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\'.cast_signed()));
    // At most 0x1f (unsigned): the minimum with 0x1f is the byte itself.
    let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    let any = _mm_or_si128(_mm_or_si128(quote, backslash), control);
    Some(_mm_movemask_epi8(any).cast_unsigned())
}

/// Moves `at` to the first `"`, `\` or control character at or after it,
/// 16 or 8 bytes at a time while that many remain: `true` when found, else
/// `at` is within 8 bytes of the end (the rest not looked at).
#[inline]
fn to_string_special(bytes: &[u8], at: &mut usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2, the feature `string_specials_16` is compiled for, is
    // part of x86-64 itself (every x86-64 CPU has it; the compiler's
    // default target features include it).
    #[allow(unsafe_code)]
    while let Some(specials) = unsafe { string_specials_16(bytes, *at) } {
        if specials != 0 {
            *at += specials.trailing_zeros() as usize;
            return true;
        }
        *at += 16;
    }
    while let Some(word) = word_at(bytes, *at) {
        if let Some(special) = first_string_special(word) {
            *at += special;
            return true;
        }
        *at += 8;
    }
    false
}

/// The closing quote of the value of the plain member `"key":"value"`
/// whose first quote is at `at`, when the member lies within the 32 bytes
/// after that quote: one mask of those bytes' `"`, `\` and control
/// characters gives both strings' ends (the first three such bytes must be
/// the key's closing quote, the value's opening quote two bytes later, and
/// its closing quote), so finding the value's end does not wait for the
/// key's. `None` when it cannot tell; then [`plain_string_end`] decides, as
/// it would have here.
#[inline]
fn plain_member_32(bytes: &[u8], at: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2, the feature `string_specials_16` is compiled for,
        // is part of x86-64 itself.
        #[allow(unsafe_code)]
        let (low, high) = unsafe {
            (
                string_specials_16(bytes, at + 1)?,
                string_specials_16(bytes, at + 17)?,
            )
        };
        let specials = low | high << 16;
        let key = specials.trailing_zeros() as usize;
        // The value's opening quote within the 32 bytes too.
        if key + 2 >= 32 {
            return None;
        }
        let key_end = at + 1 + key;
        if bytes.get(key_end..key_end + 3) != Some(&b"\":\""[..]) {
            return None;
        }
        // The second special is the value's opening quote (a `:` is not
        // one); the third, if any, ends the value.
        let rest = specials & (specials - 1);
        let rest = rest & (rest - 1);
        let value_end = at + 1 + rest.trailing_zeros() as usize;
        (rest != 0 && bytes.get(value_end) == Some(&b'"')).then_some(value_end)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, at);
        None
    }
}

/// The closing quote of the string whose body starts at `from`, if the
/// body holds no `\` and no control character (and the quote is there).
#[inline]
fn plain_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    if to_string_special(bytes, &mut at) {
        return (bytes[at] == b'"').then_some(at);
    }
    let rest = bytes.get(at..)?;
    let special = rest
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    (rest[special] == b'"').then_some(at + special)
}

/// A position in event bytes.
pub(crate) struct Lexer<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    pub(crate) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An error at byte `at`, with `serde_json`-style line and column.
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

    /// Consume `byte` (after whitespace) or fail with `message`.
    #[inline]
    pub(crate) fn expect(&mut self, byte: u8, what: &str, message: &str) -> Result<(), EventError> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(what, message))
        }
    }

    /// A string's body with no `\` and no control character, the opening
    /// quote already consumed: moves past its closing quote and returns the
    /// body's byte range, as [`Lexer::string`] would (without the call);
    /// `None` (nothing moved) for any other body, which [`Lexer::string`]
    /// then reads.
    #[inline]
    pub(crate) fn plain_string(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        let end = plain_string_end(self.bytes, start)?;
        self.pos = end + 1;
        Some((start, end))
    }

    /// A string's body, the opening quote already consumed: returns the
    /// body's byte range and whether it holds an escape.
    pub(crate) fn string(&mut self) -> Result<(usize, usize, bool), EventError> {
        let start = self.pos;
        let mut escaped = false;
        loop {
            to_string_special(self.bytes, &mut self.pos);
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
                Some(0..0x20) => {
                    return Err(self.error_at(
                        self.pos,
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ));
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Moves past the object members `"key":"value",` that start at the
    /// position, written without blanks, each string free of `"`, `\` and
    /// control characters, as long as they end by `end`; stops before the
    /// first member that is not one of those (or ends past `end`). A last
    /// such member, `"key":"value"}` with its `}` before `end`, is passed
    /// too: then the position is the `}`'s, and `true` is returned. For
    /// [`crate::scan`]'s lazy walk, when it knows that no key before `end`
    /// is a name it looks for: it would read these members one by one (a key
    /// lookup and a skim each) without finding a fault or keeping a value.
    #[inline(always)]
    pub(crate) fn skip_plain_members(&mut self, end: usize) -> bool {
        let bytes = self.bytes;
        while self.pos < end {
            if bytes.get(self.pos) != Some(&b'"') {
                return false;
            }
            let value_end = match plain_member_32(bytes, self.pos) {
                Some(value_end) => value_end,
                None => {
                    let Some(key_end) = plain_string_end(bytes, self.pos + 1) else {
                        return false;
                    };
                    if bytes.get(key_end + 1..key_end + 3) != Some(&b":\""[..]) {
                        return false;
                    }
                    let Some(value_end) = plain_string_end(bytes, key_end + 3) else {
                        return false;
                    };
                    value_end
                }
            };
            if value_end + 2 > end {
                return false;
            }
            match bytes.get(value_end + 1) {
                Some(b',') => self.pos = value_end + 2,
                Some(b'}') => {
                    self.pos = value_end + 1;
                    return true;
                }
                _ => return false,
            }
        }
        false
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

    #[inline]
    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(word) = word_at(self.bytes, self.pos) {
            let run = digit_run(word);
            self.pos += run;
            if run < 8 {
                return self.pos - start;
            }
        }
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A number (its grammar checked, not its value): its byte range.
    #[inline(always)]
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

    /// `"key"` then `:`, for an object being skipped.
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
        // Open containers, innermost last: `true` for an object.
        let mut open = BitStack::default();
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
                let Some(object) = open.top() else {
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
    fn word_tricks_agree_with_bytewise_checks() {
        for text in [
            "abcdefgh",
            "abcd\"fgh",
            "abcd\\fgh",
            "\u{1}bcdefgh",
            "é€abc",
            "12345678",
            "1234567a",
            "123/4567",
            "1\"\\\u{1}xyzw",
            "12:45678",
            "9\u{7f}\u{ff}",
        ] {
            let Some(word) = word_at(text.as_bytes(), 0) else {
                continue;
            };
            let bytes = &text.as_bytes()[..8];
            let special = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            assert_eq!(first_string_special(word), special, "{text}");
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            assert_eq!(digit_run(word), digits, "{text}");
        }
    }
    /// Where `skip_plain_members` should stop, read literally: members
    /// `"key":"value",` with no `"`, `\` or control character inside the
    /// strings, each ending by `end`; and whether a last such member
    /// `"key":"value"}` ending by `end` was passed (then it stops at the `}`).
    fn plain_members_end(bytes: &[u8], mut at: usize, end: usize) -> (usize, bool) {
        let plain = |b: &u8| *b != b'"' && *b != b'\\' && *b >= 0x20;
        loop {
            let string_end = |from: usize| {
                let body = bytes.get(from..)?;
                let len = body.iter().take_while(|b| plain(b)).count();
                (body.get(len) == Some(&b'"')).then_some(from + len)
            };
            let member = (bytes.get(at) == Some(&b'"'))
                .then(|| string_end(at + 1))
                .flatten()
                .filter(|&k| bytes.get(k + 1..k + 3) == Some(&b":\""[..]))
                .and_then(|k| string_end(k + 3))
                .filter(|&v| v + 2 <= end);
            match member {
                Some(v) if at < end && bytes.get(v + 1) == Some(&b',') => at = v + 2,
                Some(v) if at < end && bytes.get(v + 1) == Some(&b'}') => return (v + 1, true),
                _ => return (at, false),
            }
        }
    }

    proptest::proptest! {
        /// Plain members are passed up to `end` and no further, stopping
        /// at the first member with a blank, an escape, a control
        /// character, a non-string value or a missing `,`, across the
        /// eight-byte words the strings are read in.
        #[test]
        fn plain_members_are_passed_as_read_literally(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "\"abcdefghij\":\"v\",", "\"k\":\"\",", "\"\":\"0123456789abcdefg\",",
                "\"k\":\"abcdefghijklmnopqrstuvwxyz\",", "abcdefghijklmnopqrst",
                "\"", ":", ",", "a", "abcdefgh", " ", "\\", "\n", "\u{1}", "{", "1", "é",
                "}", "\"k\":\"v\"}",
            ]), 0..24),
            start in 0usize..8,
            end in 0usize..300,
        ) {
            let text = pieces.concat();
            let bytes = text.as_bytes();
            let start = start.min(bytes.len());
            let mut lexer = Lexer::new(bytes);
            lexer.pos = start;
            let closed = lexer.skip_plain_members(end);
            proptest::prop_assert_eq!(
                (lexer.pos, closed),
                plain_members_end(bytes, start, end),
                "{}",
                text
            );
        }

        /// The wide steps stop at the first `"`, `\\` or control character
        /// at or after the start, or (none found) within 8 bytes of the end
        /// with none before; and a string's body ends where it does read
        /// byte by byte.
        #[test]
        fn string_specials_are_found_as_read_byte_by_byte(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "abcdefghijklmnop", "\"", "\\", "\u{1}", "\u{1f}", " ", "\u{7f}", "é", "\u{ff}",
            ]), 0..24),
            start in 0usize..40,
        ) {
            let text = pieces.concat();
            let bytes = text.as_bytes();
            let start = start.min(bytes.len());
            let special = |b: &u8| *b == b'"' || *b == b'\\' || *b < 0x20;
            let first = bytes[start..].iter().position(special).map(|at| start + at);
            let mut at = start;
            if to_string_special(bytes, &mut at) {
                proptest::prop_assert_eq!(Some(at), first, "{}", text);
            } else {
                proptest::prop_assert!(at >= start && at + 8 > bytes.len(), "{} {}", text, at);
                proptest::prop_assert!(first.is_none_or(|first| first >= at), "{}", text);
            }
            let end = first.filter(|&at| bytes[at] == b'"');
            proptest::prop_assert_eq!(plain_string_end(bytes, start), end, "{}", text);
        }

        /// `plain_string` reads a body exactly when `string` reads it
        /// without an escape, to the same end; otherwise it moves nothing.
        #[test]
        fn plain_strings_are_read_as_string_reads_them(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "abcdefghijklmnop", "\"", "\\", "\\\"", "\\u0041", "\\x", "\u{1}", " ",
                "é",
            ]), 0..24),
            start in 0usize..40,
        ) {
            let text = pieces.concat();
            let bytes = text.as_bytes();
            let start = start.min(bytes.len());
            let (mut plain, mut full) = (Lexer::new(bytes), Lexer::new(bytes));
            (plain.pos, full.pos) = (start, start);
            let read = full.string().ok();
            match plain.plain_string() {
                Some((from, to)) => {
                    proptest::prop_assert_eq!(read, Some((from, to, false)), "{}", text);
                    proptest::prop_assert_eq!(plain.pos, full.pos, "{}", text);
                }
                None => {
                    proptest::prop_assert!(read.is_none_or(|(_, _, escaped)| escaped), "{}", text);
                    proptest::prop_assert_eq!(plain.pos, start, "{}", text);
                }
            }
        }
    }
}
