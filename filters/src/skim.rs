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
    /// bracket that closes it. Whole 64-byte blocks without a `\` are
    /// classified at once ([`Block`]); the rest goes token by token.
    fn skim_container(&mut self) -> Result<(), EventError> {
        let what = if self.peek() == Some(b'{') {
            "an object"
        } else {
            "a list"
        };
        self.pos += 1;
        let mut depth: usize = 1;
        loop {
            // All ones while the block starts inside a string.
            let mut in_string: u64 = 0;
            while let Some(block) = Block::at(self.bytes, self.pos) {
                if block.backslash != 0 {
                    break;
                }
                // From each opening quote up to its closing quote.
                let inside = prefix_xor(block.quote) ^ in_string;
                let (open, close) = (block.open & !inside, block.close & !inside);
                if let Some(at) = closing_bit(open, close, &mut depth) {
                    self.pos += at as usize + 1;
                    return Ok(());
                }
                in_string = 0u64.wrapping_sub(inside >> 63);
                self.pos += 64;
            }
            if in_string != 0 {
                self.skim_string()?;
            }
            // Token by token past the block with a `\` (or to the end).
            let stop = self.pos + 64;
            while self.pos < stop {
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
}

/// Bit `i` set for each byte `i` of 64 that is `"`, `\`, an opening
/// bracket (`[` `{`) or a closing one (`]` `}`).
struct Block {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

impl Block {
    /// The 64 bytes at `at`, if there are 64: by four AVX-512 compares where
    /// the CPU has AVX-512BW (detected at run time), else by word arithmetic
    /// ([`Block::words`], about 300 instructions a block).
    #[inline]
    fn at(bytes: &[u8], at: usize) -> Option<Block> {
        let chunk: &[u8; 64] = bytes.get(at..at.checked_add(64)?)?.try_into().ok()?;
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: AVX-512BW was detected on this CPU just above, the
            // feature `Block::avx512` is compiled for.
            #[allow(unsafe_code)]
            return Some(unsafe { Block::avx512(chunk) });
        }
        Some(Block::words(chunk))
    }

    /// [`Block::at`] with AVX-512BW compares into bit masks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    fn avx512(chunk: &[u8; 64]) -> Block {
        use std::arch::x86_64::{
            _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8,
        };
        // SAFETY: `chunk` is 64 readable bytes; the load is unaligned.
        #[allow(unsafe_code)]
        let bytes = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        let set = |b: u8| _mm512_set1_epi8(b.cast_signed());
        // `[` `{` differ only in bit 5, as do `]` `}`.
        let folded = _mm512_and_si512(bytes, set(0xDF));
        Block {
            quote: _mm512_cmpeq_epi8_mask(bytes, set(b'"')),
            backslash: _mm512_cmpeq_epi8_mask(bytes, set(b'\\')),
            open: _mm512_cmpeq_epi8_mask(folded, set(b'[')),
            close: _mm512_cmpeq_epi8_mask(folded, set(b']')),
        }
    }

    /// [`Block::at`] by word arithmetic, eight bytes at a time.
    fn words(chunk: &[u8; 64]) -> Block {
        let mut block = Block {
            quote: 0,
            backslash: 0,
            open: 0,
            close: 0,
        };
        for (i, word) in chunk.chunks_exact(8).enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            let w = u64::from_le_bytes(w);
            // `[` `{` differ only in bit 5, as do `]` `}`.
            let folded = w & splat(0xDF);
            let shift = 8 * i;
            block.quote |= gather(equal(w, b'"')) << shift;
            block.backslash |= gather(equal(w, b'\\')) << shift;
            block.open |= gather(equal(folded, b'[')) << shift;
            block.close |= gather(equal(folded, b']')) << shift;
        }
        block
    }
}

/// Bit 7 of each byte of `word` that equals `byte`, exactly (no borrows
/// between bytes).
#[inline]
fn equal(word: u64, byte: u8) -> u64 {
    let x = word ^ splat(byte);
    !(((x & splat(0x7F)) + splat(0x7F)) | x) & splat(0x80)
}

/// Bits 7, 15, ..., 63 of `flags` as bits 0..8 (each lands alone in the top
/// byte of the product; no two partial products share a bit).
#[inline]
fn gather(flags: u64) -> u64 {
    (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bit `i` of the result: the parity of bits `0..=i` of `x`.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// Steps `depth` (open containers) over one 64-byte block's opening and
/// closing brackets (`open`, `close`: one bit per byte, outside strings):
/// the bit of the bracket that brings it to zero, or `None` with `depth`
/// counted past the whole block.
#[inline]
pub(crate) fn closing_bit(open: u64, close: u64, depth: &mut usize) -> Option<u32> {
    if (close.count_ones() as usize) < *depth {
        // Cannot close the container: count and move on.
        *depth = *depth + open.count_ones() as usize - close.count_ones() as usize;
        return None;
    }
    let mut marks = open | close;
    while marks != 0 {
        let at = marks.trailing_zeros();
        if open >> at & 1 == 1 {
            *depth += 1;
        } else {
            *depth -= 1;
            if *depth == 0 {
                return Some(at);
            }
        }
        marks &= marks - 1;
    }
    None
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
        assert_eq!(prefix_xor(0b1001_0010), (!0 << 7) | 0b1110);
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

    /// Where a plain byte-by-byte skim of the container at 0 ends.
    fn naive_end(text: &[u8]) -> Option<usize> {
        let (mut depth, mut at, mut in_string) = (0usize, 0, false);
        while let Some(&b) = text.get(at) {
            at += 1;
            match (in_string, b) {
                (true, b'\\') => at += 1,
                (_, b'"') => in_string = !in_string,
                (false, b'[' | b'{') => depth += 1,
                (false, b']' | b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn block_skims_agree_with_a_plain_byte_walk() {
        // Pieces that put strings, escapes and brackets across block edges.
        let pieces: [&[u8]; 12] = [
            b"[",
            b"]",
            b"{",
            b"}",
            br#""a]b""#,
            br#""\"""#,
            br#""x\\"y"#,
            br#""{[long string with brackets]}..................""#,
            b"123456789,",
            b"|Y_y\x7f",
            br#""q\u0022]""#,
            b" \n\t",
        ];
        let mut state: u64 = 7;
        for _ in 0..4000 {
            let mut text = b"[".to_vec();
            for _ in 0..(state % 40) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                text.extend_from_slice(pieces[(state >> 33) as usize % pieces.len()]);
            }
            text.extend_from_slice(b"]]]]]]]]]]}}}}}}}}]]]]");
            let mut lexer = Lexer::new(&text);
            let got = lexer.skim_container().ok().map(|()| lexer.pos);
            assert_eq!(got, naive_end(&text), "{}", String::from_utf8_lossy(&text));
        }
    }

    /// Every byte value in every position of a block: the AVX-512 and the
    /// word-arithmetic classifications agree, and say what the bytes are.
    #[test]
    fn block_classifications_agree() {
        let blocks = (0..=255u8).map(|b| {
            let mut chunk = [0u8; 64];
            for (i, byte) in chunk.iter_mut().enumerate() {
                *byte = b.wrapping_add(u8::try_from(i * 37 % 256).unwrap_or(0));
            }
            chunk
        });
        for chunk in
            blocks.chain([*br#"{"a": [1, "]}\"", {"b": "Y_y"}], "c": {}} ,"{"[]}\\"\"abxyz\\Y{]"#])
        {
            let bits = |f: fn(u8) -> bool| {
                (chunk.iter().enumerate()).fold(0u64, |m, (i, &b)| m | u64::from(f(b)) << i)
            };
            let want = [
                bits(|b| b == b'"'),
                bits(|b| b == b'\\'),
                bits(|b| b == b'[' || b == b'{'),
                bits(|b| b == b']' || b == b'}'),
            ];
            let words = Block::words(&chunk);
            assert_eq!(
                [words.quote, words.backslash, words.open, words.close],
                want
            );
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx512bw") {
                // SAFETY: detected just above.
                #[allow(unsafe_code)]
                let wide = unsafe { Block::avx512(&chunk) };
                assert_eq!([wide.quote, wide.backslash, wide.open, wide.close], want);
            }
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
            for byte in [b'"', b'\\', b'[', b']', 0, 0x80, 0xFF] {
                let flags: Vec<bool> = chunk.iter().map(|&b| b == byte).collect();
                let got = gather(equal(word, byte));
                let bits: Vec<bool> = (0..chunk.len()).map(|i| got >> i & 1 == 1).collect();
                assert_eq!(bits, flags, "{chunk:?} {byte}");
            }
        }
    }
}
