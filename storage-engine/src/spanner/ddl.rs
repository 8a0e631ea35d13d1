//! Row deletion policy DDL: the GoogleSQL and PostgreSQL forms
//! ("Spanner: Create and manage time to live (TTL) policies").
//!
//! * GoogleSQL: `ROW DELETION POLICY (OLDER_THAN(col, INTERVAL n DAY))`
//! * PostgreSQL: `TTL INTERVAL '3 DAYS' ON col`, where the interval text is a
//!   sum of signed terms (`'4 DAYS 2 MINUTES - 2 MINUTES'`) in weeks, days,
//!   hours, minutes or seconds that must total whole, non-negative days.
//!
//! Keywords are case-insensitive; a trailing `;` is allowed. A hand-written
//! scanner and recursive-descent parser: the grammar is two fixed phrases,
//! too small to justify a parser dependency. Every input, however malformed,
//! gives `Ok` or a [`DdlError`]; nothing panics.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Largest `n` accepted in `INTERVAL n DAY` (about 27,000 years).
pub const MAX_POLICY_DAYS: u32 = 10_000_000;

/// A row deletion policy: rows whose `column` (a TIMESTAMP) is older than
/// `older_than_days` days are deleted (`OLDER_THAN(column, INTERVAL n DAY)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowDeletionPolicy {
    /// The TIMESTAMP column compared with the clock.
    pub column: String,
    /// Whole days; a row is due when `column < now - older_than_days`.
    pub older_than_days: u32,
}

impl RowDeletionPolicy {
    /// A policy on `column` with `older_than_days` days.
    pub fn older_than(column: impl Into<String>, older_than_days: u32) -> Self {
        Self {
            column: column.into(),
            older_than_days,
        }
    }

    /// The policy's interval in milliseconds.
    pub fn interval_millis(&self) -> i64 {
        i64::from(self.older_than_days) * 86_400_000
    }

    /// Parses either DDL form (see the module docs).
    ///
    /// # Errors
    ///
    /// [`DdlError`] naming the byte position and what was expected, or why
    /// the interval is not accepted.
    pub fn parse(ddl: &str) -> Result<Self, DdlError> {
        Parser::new(ddl)?.policy()
    }
}

impl fmt::Display for RowDeletionPolicy {
    /// The GoogleSQL form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ROW DELETION POLICY (OLDER_THAN({}, INTERVAL {} DAY))",
            self.column, self.older_than_days
        )
    }
}

impl FromStr for RowDeletionPolicy {
    type Err = DdlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Why row deletion policy DDL was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DdlError {
    /// The text does not follow the grammar.
    #[error("row deletion policy DDL, at byte {position}: expected {expected}, found {found}")]
    Syntax {
        /// Byte offset in the DDL text.
        position: usize,
        /// What the grammar wanted there.
        expected: String,
        /// What was there.
        found: String,
    },
    /// The PostgreSQL interval text is malformed or uses an unknown unit.
    #[error("TTL INTERVAL '{interval}': {message}")]
    Interval {
        /// The interval text.
        interval: String,
        /// What is wrong.
        message: String,
    },
    /// The interval is negative.
    #[error("TTL INTERVAL '{interval}' is negative; a row deletion policy needs zero or more days")]
    Negative {
        /// The interval text.
        interval: String,
    },
    /// The interval is not a whole number of days.
    #[error(
        "TTL INTERVAL '{interval}' is {seconds} seconds, not a whole number of days; only whole days are supported"
    )]
    NotWholeDays {
        /// The interval text.
        interval: String,
        /// Its total in seconds.
        seconds: i128,
    },
    /// More than [`MAX_POLICY_DAYS`] days.
    #[error("interval of {days} days is larger than the maximum {MAX_POLICY_DAYS}")]
    TooLarge {
        /// The days given.
        days: i128,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Int(String),
    Str(String),
    Punct(char),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) | Tok::Quoted(w) => write!(f, "`{w}`"),
            Tok::Int(n) => write!(f, "`{n}`"),
            Tok::Str(s) => write!(f, "'{s}'"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, DdlError> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((pos, c)) = chars.next() {
        let tok = match c {
            c if c.is_whitespace() => continue,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut w = String::from(c);
                while let Some(&(_, n)) = chars.peek() {
                    if !(n.is_ascii_alphanumeric() || n == '_') {
                        break;
                    }
                    w.push(n);
                    chars.next();
                }
                Tok::Word(w)
            }
            c if c.is_ascii_digit() => {
                let mut w = String::from(c);
                while let Some(&(_, n)) = chars.peek() {
                    if !n.is_ascii_digit() {
                        break;
                    }
                    w.push(n);
                    chars.next();
                }
                Tok::Int(w)
            }
            '`' | '"' | '\'' => {
                let mut w = String::new();
                let mut closed = false;
                for (_, n) in chars.by_ref() {
                    if n == c {
                        closed = true;
                        break;
                    }
                    w.push(n);
                }
                if !closed {
                    return Err(syntax(pos, &format!("a closing {c}"), "end of input"));
                }
                if c == '\'' {
                    Tok::Str(w)
                } else {
                    Tok::Quoted(w)
                }
            }
            '(' | ')' | ',' | ';' => Tok::Punct(c),
            other => {
                return Err(syntax(
                    pos,
                    "a word, number, string or ( ) ,",
                    &format!("`{other}`"),
                ));
            }
        };
        out.push((pos, tok));
    }
    out.push((text.len(), Tok::End));
    Ok(out)
}

fn syntax(position: usize, expected: &str, found: &str) -> DdlError {
    DdlError::Syntax {
        position,
        expected: expected.to_string(),
        found: found.to_string(),
    }
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    at: usize,
}

impl Parser {
    fn new(text: &str) -> Result<Self, DdlError> {
        Ok(Self {
            toks: tokenize(text)?,
            at: 0,
        })
    }

    fn peek(&self) -> (usize, &Tok) {
        let (p, t) = &self.toks[self.at.min(self.toks.len() - 1)];
        (*p, t)
    }

    fn next(&mut self) -> (usize, Tok) {
        let (p, t) = self.peek();
        let out = (p, t.clone());
        self.at = (self.at + 1).min(self.toks.len() - 1);
        out
    }

    fn keyword(&mut self, kw: &str) -> Result<(), DdlError> {
        match self.next() {
            (_, Tok::Word(w)) if w.eq_ignore_ascii_case(kw) => Ok(()),
            (p, t) => Err(syntax(p, &format!("`{kw}`"), &t.to_string())),
        }
    }

    fn punct(&mut self, c: char) -> Result<(), DdlError> {
        match self.next() {
            (_, Tok::Punct(x)) if x == c => Ok(()),
            (p, t) => Err(syntax(p, &format!("`{c}`"), &t.to_string())),
        }
    }

    fn ident(&mut self) -> Result<String, DdlError> {
        match self.next() {
            (_, Tok::Word(w) | Tok::Quoted(w)) if !w.is_empty() => Ok(w),
            (p, t) => Err(syntax(p, "a column name", &t.to_string())),
        }
    }

    fn policy(&mut self) -> Result<RowDeletionPolicy, DdlError> {
        let policy = match self.peek() {
            (_, Tok::Word(w)) if w.eq_ignore_ascii_case("TTL") => self.postgresql()?,
            _ => self.googlesql()?,
        };
        if let (_, Tok::Punct(';')) = self.peek() {
            self.next();
        }
        match self.next() {
            (_, Tok::End) => Ok(policy),
            (p, t) => Err(syntax(p, "end of input", &t.to_string())),
        }
    }

    fn googlesql(&mut self) -> Result<RowDeletionPolicy, DdlError> {
        self.keyword("ROW")?;
        self.keyword("DELETION")?;
        self.keyword("POLICY")?;
        self.punct('(')?;
        self.keyword("OLDER_THAN")?;
        self.punct('(')?;
        let column = self.ident()?;
        self.punct(',')?;
        self.keyword("INTERVAL")?;
        let days = match self.next() {
            (_, Tok::Int(n)) => n.parse::<i128>().unwrap_or(i128::MAX),
            (p, t) => {
                return Err(syntax(
                    p,
                    "a non-negative whole number of days",
                    &t.to_string(),
                ));
            }
        };
        self.keyword("DAY")?;
        self.punct(')')?;
        self.punct(')')?;
        Ok(RowDeletionPolicy::older_than(column, checked_days(days)?))
    }

    fn postgresql(&mut self) -> Result<RowDeletionPolicy, DdlError> {
        self.keyword("TTL")?;
        self.keyword("INTERVAL")?;
        let text = match self.next() {
            (_, Tok::Str(s)) => s,
            (p, t) => {
                return Err(syntax(
                    p,
                    "a quoted interval such as '3 DAYS'",
                    &t.to_string(),
                ));
            }
        };
        self.keyword("ON")?;
        let column = self.ident()?;
        let days = interval_days(&text)?;
        Ok(RowDeletionPolicy::older_than(column, days))
    }
}

fn checked_days(days: i128) -> Result<u32, DdlError> {
    u32::try_from(days)
        .ok()
        .filter(|d| *d <= MAX_POLICY_DAYS)
        .ok_or(DdlError::TooLarge { days })
}

/// Total of a PostgreSQL interval text, in whole days.
fn interval_days(text: &str) -> Result<u32, DdlError> {
    let bad = |message: String| DdlError::Interval {
        interval: text.to_string(),
        message,
    };
    // Split into numbers, words and signs: "4 DAYS 2 MINUTES - 2 MINUTES".
    let mut parts: Vec<String> = Vec::new();
    for c in text.chars() {
        match c {
            '+' | '-' => parts.push(c.to_string()),
            c if c.is_whitespace() => parts.push(String::new()),
            c => match parts.last_mut() {
                Some(p)
                    if !p.is_empty()
                        && p != "+"
                        && p != "-"
                        && (p.chars().all(|x| x.is_ascii_digit()) == c.is_ascii_digit()) =>
                {
                    p.push(c)
                }
                _ => parts.push(c.to_string()),
            },
        }
    }
    parts.retain(|p| !p.is_empty());
    let mut total: i128 = 0;
    let mut i = 0;
    if parts.is_empty() {
        return Err(bad("empty interval".to_string()));
    }
    while i < parts.len() {
        let mut sign = 1i128;
        while let Some(s) = parts.get(i).filter(|p| *p == "+" || *p == "-") {
            if s == "-" {
                sign = -sign;
            }
            i += 1;
        }
        let number = parts
            .get(i)
            .filter(|p| p.chars().all(|c| c.is_ascii_digit()))
            .ok_or_else(|| bad(format!("expected a number at term {}", i + 1)))?;
        let n: i128 = number
            .parse::<i64>()
            .map_err(|_| bad(format!("number {number} is too large")))?
            .into();
        let unit = parts
            .get(i + 1)
            .ok_or_else(|| bad(format!("number {number} has no unit")))?;
        let secs: i128 = match unit.to_ascii_lowercase().as_str() {
            "week" | "weeks" => 604_800,
            "day" | "days" => 86_400,
            "hour" | "hours" => 3_600,
            "minute" | "minutes" | "min" | "mins" => 60,
            "second" | "seconds" | "sec" | "secs" => 1,
            other => {
                return Err(bad(format!(
                    "unknown or unsupported unit `{other}` (use weeks, days, hours, minutes or seconds)"
                )));
            }
        };
        total += sign * n * secs;
        i += 2;
    }
    if total < 0 {
        return Err(DdlError::Negative {
            interval: text.to_string(),
        });
    }
    if total % 86_400 != 0 {
        return Err(DdlError::NotWholeDays {
            interval: text.to_string(),
            seconds: total,
        });
    }
    checked_days(total / 86_400)
}
