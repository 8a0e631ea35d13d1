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

    /// The wildcard's tokens in order: each literal character, `None` for a star.
    fn tokens(&self) -> Vec<Option<char>> {
        let mut tokens = Vec::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            if i > 0 {
                tokens.push(None);
            }
            tokens.extend(piece.chars().map(Some));
        }
        tokens
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

/// The complexity of the wildcards at one field, as `aws/event-ruler`'s
/// `MachineComplexityEvaluator` defines it: the most prefixes of them that
/// one input value can match at once (each distinct wildcard counted once;
/// `*a*a*a*` has complexity 7, as `aaa` matches all seven of its prefixes
/// `*`, `*a`, ..., `*a*a*a*`). Counting stops once it passes `cap`.
///
/// A prefix is a number of the wildcard's tokens (a character or a `*`), so
/// the prefixes an input matches are the states an automaton for the
/// wildcard is in after reading it. The search runs that automaton for all
/// the wildcards at once over every input, breadth-first over the sets of
/// states (one input per set is enough), each a bit per state: a character
/// moves a state past a token equal to it, a `*` keeps its state, and a
/// state just before a `*` is also just after it. It looks at no more than
/// [`SEARCH_LIMIT`] sets; past that, the most found so far is the answer.
pub(crate) fn complexity(wildcards: &[&Wildcard], cap: usize) -> usize {
    let mut distinct: Vec<&Wildcard> = Vec::new();
    for w in wildcards {
        if !distinct.iter().any(|d| d.text == w.text) {
            distinct.push(w);
        }
    }
    // Each wildcard's tokens: `None` for a star. State `k` of a wildcard: its
    // first `k` tokens match the input (state 0 is not a prefix, not counted).
    let tokens: Vec<Vec<Option<char>>> = distinct.iter().map(|w| w.tokens()).collect();
    let states: usize = tokens.iter().map(|t| t.len() + 1).sum();
    let words = states.div_ceil(64);
    let bit = |i: usize| (i / 64, 1u64 << (i % 64));
    // Per state: entered by a star; followed by a star; a first state.
    let (mut star, mut before_star, mut first) =
        (vec![0u64; words], vec![0u64; words], vec![0u64; words]);
    // Per character: the states entered by reading it.
    let mut alphabet: Vec<(char, Vec<u64>)> = Vec::new();
    let mut offset = 0;
    for tokens in &tokens {
        let (w, b) = bit(offset);
        first[w] |= b;
        for (k, token) in tokens.iter().enumerate() {
            let (w, b) = bit(offset + k + 1);
            match token {
                None => {
                    star[w] |= b;
                    let (w, b) = bit(offset + k);
                    before_star[w] |= b;
                }
                Some(c) => {
                    let at = match alphabet.iter().position(|(known, _)| known == c) {
                        Some(at) => at,
                        None => {
                            alphabet.push((*c, vec![0u64; words]));
                            alphabet.len() - 1
                        }
                    };
                    alphabet[at].1[w] |= b;
                }
            }
        }
        offset += tokens.len() + 1;
    }
    // A character in no wildcard: it enters no state.
    alphabet.push(('\0', vec![0u64; words]));
    let close = |set: &mut Vec<u64>| {
        // No two stars are adjacent, so one step reaches every state past a star.
        let past = shifted(
            &set.iter()
                .zip(&before_star)
                .map(|(s, b)| s & b)
                .collect::<Vec<_>>(),
        );
        set.iter_mut().zip(past).for_each(|(s, p)| *s |= p);
    };
    let weight = |set: &[u64]| -> usize {
        set.iter()
            .zip(&first)
            .map(|(s, f)| (s & !f).count_ones() as usize)
            .sum()
    };
    let mut start = first.clone();
    close(&mut start);
    let mut most = weight(&start);
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(set) = queue.pop_front() {
        for (_, entered) in &alphabet {
            let moved = shifted(&set);
            let mut next: Vec<u64> = (0..words)
                .map(|w| (moved[w] & entered[w]) | (set[w] & star[w]))
                .collect();
            close(&mut next);
            if next.iter().all(|&w| w == 0) || seen.contains(&next) {
                continue;
            }
            most = most.max(weight(&next));
            if most > cap || seen.len() >= SEARCH_LIMIT {
                return most;
            }
            seen.insert(next.clone());
            queue.push_back(next);
        }
    }
    most
}

/// The most sets of states [`complexity`] looks at.
const SEARCH_LIMIT: usize = 10_000;

/// `bits` moved up by one place (state `k` to `k + 1`).
fn shifted(bits: &[u64]) -> Vec<u64> {
    let mut carry = 0;
    bits.iter()
        .map(|&w| {
            let out = w << 1 | carry;
            carry = w >> 63;
            out
        })
        .collect()
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

    /// Complexities from `aws/event-ruler`'s `MachineComplexityEvaluatorTest`
    /// and `ByteMachineTest`.
    #[test]
    fn complexity_is_event_ruler_s() {
        let of = |texts: &[&str]| {
            let wildcards: Vec<Wildcard> = texts.iter().map(|t| w(t)).collect();
            complexity(&wildcards.iter().collect::<Vec<_>>(), 1000)
        };
        assert_eq!(of(&["*"]), 1);
        assert_eq!(of(&["*a*a*a*"]), 7);
        assert_eq!(of(&["a*aa"]), 3);
        assert_eq!(of(&["xyz*"]), 2);
        assert_eq!(of(&["1*2345"; 10]), 2);
        assert_eq!(of(&["*123"; 10]), 2);
        // The cap ends the count early, past it.
        let long = format!("*{}", "a*".repeat(200));
        let capped = complexity(&[&w(&long)], 100);
        assert!(capped > 100 && capped < 200, "{capped}");
    }

    #[test]
    fn malformed_wildcards_are_rejected() {
        assert!(Wildcard::parse("a**b").is_err());
        assert!(Wildcard::parse(r"a\b").is_err());
        assert!(Wildcard::parse("a\\").is_err());
    }
}
