//! The `wildcard` operator: `*` matches any run of characters (EventBridge only).
//!
//! Rules from "Content filtering in Amazon EventBridge event patterns",
//! section "Wildcard matching": `*` matches zero or more characters; `\*` is a
//! literal star and `\\` a literal backslash; any other escape, a trailing
//! `\`, or two consecutive unescaped `*` is an error.

/// A validated wildcard: literal pieces separated by stars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wildcard {
    /// The operand as written.
    text: String,
    /// `pieces[0]` must start the value, the last piece must end it, and the
    /// others must appear in order between them. `pieces.len() == stars + 1`.
    pieces: Vec<String>,
}

impl Wildcard {
    /// Parse and validate `text`; the error is a reason for
    /// [`crate::PatternError::Wildcard`].
    pub(crate) fn parse(text: &str) -> Result<Self, &'static str> {
        let mut pieces = vec![String::new()];
        let mut chars = text.chars();
        let mut last_was_star = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    match chars.next() {
                        Some(escaped @ ('*' | '\\')) => push(&mut pieces, escaped),
                        Some(_) => return Err("only \\* and \\\\ may be escaped"),
                        None => return Err("it ends with a lone backslash"),
                    }
                    last_was_star = false;
                }
                '*' => {
                    if last_was_star {
                        return Err("consecutive wildcard characters (**) are not allowed");
                    }
                    pieces.push(String::new());
                    last_was_star = true;
                }
                other => {
                    push(&mut pieces, other);
                    last_was_star = false;
                }
            }
        }
        Ok(Self {
            text: text.to_owned(),
            pieces,
        })
    }

    /// The operand as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether `value` matches the whole wildcard.
    pub(crate) fn matches(&self, value: &str) -> bool {
        let Some((first, rest)) = self.pieces.split_first() else {
            return false;
        };
        let Some(mut remaining) = value.strip_prefix(first.as_str()) else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return remaining.is_empty();
        };
        // Greedy leftmost placement of each middle piece is optimal for `*`-only globs.
        for piece in middle {
            match remaining.find(piece.as_str()) {
                Some(at) => remaining = &remaining[at + piece.len()..],
                None => return false,
            }
        }
        remaining.ends_with(last.as_str())
    }
}

fn push(pieces: &mut [String], c: char) {
    if let Some(piece) = pieces.last_mut() {
        piece.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str) -> Wildcard {
        Wildcard::parse(text).unwrap_or_else(|reason| panic!("{text}: {reason}"))
    }

    #[test]
    fn stars_match_any_run() {
        assert!(w("*/lib/*").matches("usr/lib/x"));
        assert!(w("*/lib/*").matches("/lib/"));
        assert!(!w("*/lib/*").matches("usr/lib"));
        assert!(w("a*b*c").matches("abc"));
        assert!(w("a*b*c").matches("a-b-b-c"));
        assert!(!w("a*b*c").matches("a-c-b"));
        assert!(w("*").matches(""));
        assert!(w("").matches(""));
        assert!(!w("").matches("x"));
        assert!(!w("ab*ba").matches("aba"));
        assert!(w("ab*ba").matches("abba"));
    }

    #[test]
    fn escapes_are_literal() {
        assert!(w(r"a\*b").matches("a*b"));
        assert!(!w(r"a\*b").matches("axb"));
        assert!(w(r"a\\*").matches(r"a\anything"));
    }

    #[test]
    fn malformed_wildcards_are_rejected() {
        assert!(Wildcard::parse("a**b").is_err());
        assert!(Wildcard::parse(r"a\b").is_err());
        assert!(Wildcard::parse("a\\").is_err());
    }
}
