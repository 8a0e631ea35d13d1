//! Stage 2: [`Pattern`] AST -> flat branches of per-field conditions.
//!
//! A pattern is expanded (through `$or`) into branches; a branch is a list of
//! conditions, one per field path, all of which must hold. Field paths are
//! interned in a [`PathTrie`] shared by every pattern of a [`crate::Matcher`],
//! so an event walk visits only the fields some pattern names.

use crate::children::Children;
use crate::cidr::Cidr;
use crate::event::Scalar;
use crate::gate::Gate;
use crate::lookahead::Names;
use crate::number;
use crate::pattern::{
    AnythingBut, FieldPattern, Literal, NumericRange, ObjectPattern, Pattern, ValuePattern,
};
use crate::strings::StringTests;
use crate::wildcard::Wildcard;

/// Index of an interned field path.
pub(crate) type PathId = usize;

/// The field names named by any pattern, as a trie from the event's root.
#[derive(Debug, Clone, Default)]
pub(crate) struct PathTrie {
    nodes: Vec<TrieNode>,
    /// The node of each interned path.
    path_nodes: Vec<usize>,
    /// Every field name in the trie, for [`crate::lookahead`].
    pub(crate) names: Names,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct TrieNode {
    pub(crate) children: Children,
    /// Set when a pattern matches values at exactly this path.
    pub(crate) path: Option<PathId>,
    /// The [`Names`] ids of the children's names.
    pub(crate) name_ids: Vec<u32>,
    /// `name_ids` below 64 as bits, for [`crate::scan`]'s look-ahead.
    pub(crate) name_bits: u64,
    /// Each child's name id and node (a key the look-ahead found as a
    /// quoted name is looked up by its id).
    pub(crate) name_children: Vec<(u32, usize)>,
    /// Every test of every condition at this path: a value matching none of
    /// them cannot satisfy any condition, so only its presence is recorded.
    pub(crate) tests: Vec<Test>,
    /// The keys a number must have to satisfy some test, as inclusive
    /// ranges, when every test a number can satisfy is a `numeric` or an
    /// in-range exact number; `None` otherwise.
    number_ranges: Option<Vec<(i64, i64)>>,
    /// With `number_ranges`, each test's range of keys by test index
    /// (empty, `(1, 0)`, for a test no number satisfies), for
    /// [`TrieNode::matching_tests`].
    test_ranges: Vec<(i64, i64)>,
    /// `number_ranges` as floats, each widened by [`number::ROUGH_KEY_MARGIN`].
    rough_ranges: Vec<(f64, f64)>,
    /// `number_ranges` as fixed-point values ([`number::fixed_range`]),
    /// sorted and merged; see [`TrieNode::rejects_fixed`].
    fixed_ranges: Vec<(i64, i64)>,
    /// The integer parts as written that a number in some range of
    /// `fixed_ranges` can have; see [`TrieNode::integer_part`].
    integer_texts: Option<Vec<IntegerText>>,
    /// Set when some branch has two conditions at this path: then which
    /// element of an array each value comes from matters here.
    combined: bool,
    /// `integer_texts` as a [`Gate`], unless `combined`; see
    /// [`TrieNode::gate`].
    gate: Option<Gate>,
    /// The string tests answered together, for [`TrieNode::matching_tests`].
    strings: Option<Box<StringTests>>,
}

/// An integer part as written (`-122`, `0`, `-0`: sign and digits, at most
/// 8 bytes, as a little-endian word padded with zeros) and its magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IntegerText {
    text: u64,
    magnitude: u64,
}

/// The most [`IntegerText`]s a path keeps (more: numbers are converted).
const INTEGER_TEXTS: usize = 4;

/// What the integer part of a plain number says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntegerPart {
    /// Outside every numeric range at the path.
    Far,
    /// Possibly in one: the integer part's magnitude (at most 8 digits).
    Near(u64),
    /// Not known here.
    Unknown,
}

impl TrieNode {
    /// Whether `value`, found at this node's path, satisfies some test there.
    #[inline]
    pub(crate) fn accepts(&self, value: &Scalar<'_>) -> bool {
        if let (Scalar::Number(key, _), Some(ranges)) = (value, &self.number_ranges) {
            return key.is_some_and(|k| ranges.iter().any(|&(low, high)| low <= k && k <= high));
        }
        self.tests.iter().any(|test| test.matches(value))
    }

    /// The tests here that `value` satisfies, as bits (bit `i` for
    /// `tests[i]`), each test run once per value; with more than
    /// [`MASKED_TESTS`] tests, all bits when some test is satisfied. Zero
    /// when none is.
    #[inline]
    pub(crate) fn matching_tests(&self, value: &Scalar<'_>) -> u64 {
        if self.tests.len() > MASKED_TESTS {
            return if self.accepts(value) { u64::MAX } else { 0 };
        }
        if let (Scalar::Number(key, _), Some(_)) = (value, &self.number_ranges) {
            // Every test a number can satisfy is known by its keys.
            let Some(k) = *key else {
                return 0;
            };
            return (self.test_ranges.iter().enumerate()).fold(0, |bits, (i, &(low, high))| {
                bits | u64::from(low <= k && k <= high) << i
            });
        }
        if let (Scalar::String(text), Some(strings)) = (value, &self.strings)
            && let Some(bits) = strings.matching(text, |i| {
                (self.tests.get(i)).is_some_and(|test| test.matches_inline(value))
            })
        {
            return bits;
        }
        self.tests.iter().enumerate().fold(0, |bits, (i, test)| {
            bits | u64::from(test.matches_inline(value)) << i
        })
    }
}

/// The most tests at one path that [`TrieNode::matching_tests`] gives a bit each.
const MASKED_TESTS: usize = 64;

impl TrieNode {
    /// The integer parts as written of every number some test here may
    /// accept, when there are at most [`INTEGER_TEXTS`] and no branch has
    /// two conditions at this path: then an array of numbers here adds
    /// only its numbers through the gate as values (without which element
    /// each came from) and its presence.
    #[inline]
    pub(crate) fn gate(&self) -> Option<&Gate> {
        self.gate.as_ref()
    }

    /// Whether the numbers the tests here accept are known as key ranges.
    #[inline]
    pub(crate) fn has_number_ranges(&self) -> bool {
        self.number_ranges.is_some()
    }

    /// Whether no test here accepts a number whose key lies about (within
    /// [`number::ROUGH_KEY_MARGIN`]) between `low` and `high`.
    #[inline]
    pub(crate) fn rejects_numbers_between(&self, low: f64, high: f64) -> bool {
        self.number_ranges.is_some() && self.rough_ranges.iter().all(|&(l, h)| high < l || low > h)
    }

    /// Whether no test here accepts a number whose key is about `rough_key`
    /// ([`number::ROUGH_KEY_MARGIN`]): then it need not be keyed exactly.
    #[inline]
    pub(crate) fn rejects_number(&self, rough_key: f64) -> bool {
        self.rejects_numbers_between(rough_key, rough_key)
    }
}

impl TrieNode {
    /// Whether no test here accepts a number whose value lies between `low`
    /// and `high` (fixed-point, [`number::FIXED_ONE`]); `false` unless the
    /// tests take numbers by key ranges.
    #[inline]
    pub(crate) fn rejects_fixed(&self, low: i64, high: i64) -> bool {
        // Every range, without branches on the outcome: where a number
        // falls among the ranges is random, a branch on it mispredicted.
        let meets = self
            .fixed_ranges
            .iter()
            .fold(false, |meets, &(l, h)| meets | (l <= high) & (low <= h));
        !meets && self.number_ranges.is_some()
    }
}

impl TrieNode {
    /// What the integer part `bytes[start..start + len]` (sign and digits,
    /// no leading zero) of a plain number says: compared as written with
    /// the few integer parts a number in range can have, when the path has
    /// them (no digit conversion); else converted and compared as a
    /// fixed-point interval.
    #[inline]
    pub(crate) fn integer_part(&self, bytes: &[u8], start: usize, len: usize) -> IntegerPart {
        let Some(word) = crate::lex::word_at(bytes, start) else {
            return IntegerPart::Unknown;
        };
        if let Some(texts) = &self.integer_texts {
            // Every integer part in range is spelled in at most 8 bytes.
            if len > 8 {
                return IntegerPart::Far;
            }
            let text = word & (u64::MAX >> (64 - 8 * len));
            return texts
                .iter()
                .find(|t| t.text == text)
                .map_or(IntegerPart::Far, |t| IntegerPart::Near(t.magnitude));
        }
        let negative = bytes.get(start) == Some(&b'-');
        let digits = len - usize::from(negative);
        if self.number_ranges.is_none() || digits > 8 {
            return IntegerPart::Unknown;
        }
        let magnitude = number::integer(word >> (8 * u32::from(negative)), digits);
        // At most 8 digits: below 1e16 units.
        #[allow(clippy::cast_possible_wrap)]
        let (low, high) = (
            (magnitude * number::FIXED_ONE.unsigned_abs()) as i64,
            ((magnitude + 1) * number::FIXED_ONE.unsigned_abs()) as i64,
        );
        let (low, high) = if negative { (-high, -low) } else { (low, high) };
        if self.rejects_fixed(low, high) {
            IntegerPart::Far
        } else {
            IntegerPart::Near(magnitude)
        }
    }
}

/// The integer parts as written ([`IntegerText`]) of every number that can
/// lie in the fixed-point `ranges`: `None` when more than [`INTEGER_TEXTS`]
/// or a range is open.
fn integer_texts(ranges: &[(i64, i64)]) -> Option<Vec<IntegerText>> {
    let one = number::FIXED_ONE;
    let mut texts: Vec<IntegerText> = Vec::new();
    for &(low, high) in ranges {
        let from = low.checked_div(one)?.checked_sub(2)?;
        let to = high.checked_div(one)?.checked_add(2)?;
        if to - from > 16 {
            return None;
        }
        for t in from..=to {
            // `t` written without a sign spans `t..=t + 1`; with one, `-t - 1..=-t`.
            let spans = [
                (t >= 0).then(|| (false, t, t * one, (t + 1).saturating_mul(one))),
                (t <= 0).then(|| (true, -t, (t - 1).saturating_mul(one), t * one)),
            ];
            for (negative, magnitude, l, h) in spans.into_iter().flatten() {
                if h < low || l > high {
                    continue;
                }
                let written = format!("{}{magnitude}", if negative { "-" } else { "" });
                let mut word = [0u8; 8];
                word.get_mut(..written.len())?
                    .copy_from_slice(written.as_bytes());
                let text = IntegerText {
                    text: u64::from_le_bytes(word),
                    magnitude: magnitude.unsigned_abs(),
                };
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
        }
    }
    (texts.len() <= INTEGER_TEXTS).then_some(texts)
}

/// The fixed-point ranges ([`number::fixed_range`]) of key `ranges`, sorted
/// and merged.
fn fixed_ranges(ranges: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut fixed: Vec<(i64, i64)> = ranges
        .iter()
        .map(|&(low, high)| number::fixed_range(low, high))
        .collect();
    fixed.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(fixed.len());
    for (low, high) in fixed {
        match merged.last_mut() {
            Some(last) if low <= last.1.saturating_add(1) => last.1 = last.1.max(high),
            _ => merged.push((low, high)),
        }
    }
    merged
}

/// [`TrieNode::number_ranges`] for `tests`.
fn number_ranges(tests: &[Test]) -> Option<Vec<(i64, i64)>> {
    let mut ranges = Vec::new();
    for test in tests {
        ranges.extend(key_range(test)?);
    }
    Some(ranges)
}

/// The keys a number must have to satisfy `test`, as an inclusive range:
/// `Some(None)` when no number does, `None` when it is not known by keys.
fn key_range(test: &Test) -> Option<Option<(i64, i64)>> {
    match test {
        Test::Numeric(low, high) => {
            let low = match low {
                None => i64::MIN,
                Some((key, true)) => *key,
                Some((key, false)) => key.checked_add(1)?,
            };
            let high = match high {
                None => i64::MAX,
                Some((key, true)) => *key,
                Some((key, false)) => key.checked_sub(1)?,
            };
            Some(Some((low, high)))
        }
        Test::Number(_, Some(key)) => Some(Some((*key, *key))),
        // Never satisfied by a number.
        Test::Null
        | Test::Bool(_)
        | Test::String(_)
        | Test::Prefix(_)
        | Test::Suffix(_)
        | Test::EqualsIgnoreCase(_)
        | Test::PrefixIgnoreCase(_)
        | Test::SuffixIgnoreCase(_)
        | Test::Wildcard(_)
        | Test::Cidr(_) => Some(None),
        Test::Number(_, None) | Test::Any | Test::Not(_) | Test::AnyOf(_) => None,
    }
}

impl PathTrie {
    pub(crate) fn new() -> Self {
        Self {
            nodes: vec![TrieNode::default()],
            path_nodes: Vec::new(),
            names: Names::default(),
        }
    }

    fn intern(&mut self, names: &[String]) -> PathId {
        let mut at = 0;
        for name in names {
            at = match self.nodes[at].children.get(name.as_bytes()) {
                Some(next) => next,
                None => {
                    self.nodes.push(TrieNode::default());
                    let next = self.nodes.len() - 1;
                    self.nodes[at].children.insert(name, next);
                    let id = self.names.intern(name);
                    self.nodes[at].name_ids.push(id);
                    self.nodes[at].name_children.push((id, next));
                    if id < 64 {
                        self.nodes[at].name_bits |= 1 << id;
                    }
                    next
                }
            };
        }
        let path_nodes = &mut self.path_nodes;
        *self.nodes[at].path.get_or_insert_with(|| {
            path_nodes.push(at);
            path_nodes.len() - 1
        })
    }

    /// Add `condition`'s tests to those of its path's node.
    pub(crate) fn add_tests(&mut self, condition: &Condition) {
        let Some(&node) = self.path_nodes.get(condition.path) else {
            return;
        };
        let tests = &mut self.nodes[node].tests;
        for test in &condition.tests {
            if !tests.contains(test) {
                tests.push(test.clone());
            }
        }
    }

    /// Note the paths `branch` has more than one condition at (before
    /// [`PathTrie::finish`]).
    pub(crate) fn note_branch(&mut self, branch: &[Condition]) {
        for (i, condition) in branch.iter().enumerate() {
            if branch[..i].iter().any(|c| c.path == condition.path)
                && let Some(&node) = self.path_nodes.get(condition.path)
            {
                self.nodes[node].combined = true;
            }
        }
    }

    /// Build the name searcher; call after the last pattern is compiled in.
    pub(crate) fn finish(&mut self) {
        for node in &mut self.nodes {
            node.strings = StringTests::new(&node.tests).map(Box::new);
            node.number_ranges = number_ranges(&node.tests);
            node.test_ranges = node
                .number_ranges
                .as_ref()
                .map(|_| {
                    (node.tests.iter())
                        .map(|test| key_range(test).flatten().unwrap_or((1, 0)))
                        .collect()
                })
                .unwrap_or_default();
            const MARGIN: f64 = number::ROUGH_KEY_MARGIN;
            #[allow(clippy::cast_precision_loss)]
            let rough = node
                .number_ranges
                .iter()
                .flatten()
                .map(|&(low, high)| (low as f64 - MARGIN, high as f64 + MARGIN));
            node.rough_ranges = rough.collect();
            node.fixed_ranges = node
                .number_ranges
                .as_deref()
                .map_or_else(Vec::new, fixed_ranges);
            node.integer_texts = node
                .number_ranges
                .as_ref()
                .and_then(|_| integer_texts(&node.fixed_ranges));
            node.gate = node
                .integer_texts
                .as_ref()
                .filter(|_| !node.combined)
                .map(|texts| {
                    Gate::new(
                        texts.iter().map(|t| (t.text, t.magnitude)),
                        &node.fixed_ranges,
                        (node.tests.len() <= MASKED_TESTS).then_some(&node.test_ranges),
                    )
                });
        }
        self.names.finish();
    }

    /// Set `condition.mask` from its tests' places among its path's tests
    /// (after [`PathTrie::add_tests`] for every condition).
    pub(crate) fn mask_tests(&self, condition: &mut Condition) {
        let tests = self
            .path_nodes
            .get(condition.path)
            .map(|&node| &self.nodes[node].tests);
        condition.mask = tests
            .filter(|tests| tests.len() <= MASKED_TESTS)
            .map(|tests| {
                condition.tests.iter().fold(0, |bits, test| {
                    bits | tests.iter().position(|t| t == test).map_or(0, |i| 1 << i)
                })
            });
    }

    /// The node for the event's root object.
    pub(crate) const ROOT: usize = 0;

    pub(crate) fn node(&self, index: usize) -> &TrieNode {
        &self.nodes[index]
    }

    /// How many distinct paths were interned.
    pub(crate) fn path_count(&self) -> usize {
        self.path_nodes.len()
    }
}

/// Whether `text` lower-cased equals / starts with / ends with `lower` (already
/// lower-cased), without allocating when `text` is ASCII.
fn lower_eq(
    text: &str,
    lower: &str,
    how: fn(&str, &str) -> bool,
    ascii: fn(&[u8], &[u8]) -> bool,
) -> bool {
    if text.is_ascii() {
        ascii(text.as_bytes(), lower.as_bytes())
    } else {
        how(&text.to_lowercase(), lower)
    }
}

fn ascii_eq(text: &[u8], lower: &[u8]) -> bool {
    text.len() == lower.len()
        && text
            .iter()
            .zip(lower)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
}

fn ascii_prefix(text: &[u8], lower: &[u8]) -> bool {
    text.len() >= lower.len() && ascii_eq(&text[..lower.len()], lower)
}

fn ascii_suffix(text: &[u8], lower: &[u8]) -> bool {
    text.len() >= lower.len() && ascii_eq(&text[text.len() - lower.len()..], lower)
}

/// What one field path must satisfy in one branch.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    pub(crate) path: PathId,
    /// A value at the path matching any of these satisfies the condition.
    pub(crate) tests: Vec<Test>,
    /// `{"exists": false}` was among the values: no value at the path also satisfies it.
    pub(crate) absent_ok: bool,
    /// `tests` as bits of [`TrieNode::matching_tests`] at the path, when
    /// the path has at most [`MASKED_TESTS`] tests ([`PathTrie::mask_tests`]).
    pub(crate) mask: Option<u64>,
}

/// One compiled match value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Test {
    Null,
    Bool(bool),
    /// An exact number: equal keys, or (out of numeric range) equal JSON numbers.
    Number(serde_json::Number, Option<i64>),
    String(String),
    Prefix(String),
    Suffix(String),
    /// Lower-cased operands.
    EqualsIgnoreCase(String),
    PrefixIgnoreCase(String),
    SuffixIgnoreCase(String),
    Wildcard(Wildcard),
    /// Bounds as keys: `(key, inclusive)`.
    Numeric(Option<(i64, bool)>, Option<(i64, bool)>),
    Cidr(Cidr),
    /// `{"exists": true}`: any value.
    Any,
    /// `anything-but`: any value the inner test rejects.
    Not(Box<Test>),
    /// Any of these (the inner of an `anything-but` list).
    AnyOf(Vec<Test>),
}

impl Test {
    /// [`Test::matches`], with the common string tests inlined: most
    /// values are rejected by their length alone.
    #[inline]
    fn matches_inline(&self, value: &Scalar<'_>) -> bool {
        match (self, value) {
            (Self::String(a), Scalar::String(b)) => a.len() == b.len() && a == b.as_ref(),
            (Self::EqualsIgnoreCase(p), Scalar::String(s)) if s.is_ascii() => {
                ascii_eq(s.as_bytes(), p.as_bytes())
            }
            (Self::Not(inner), Scalar::String(s)) => match inner.as_ref() {
                Self::AnyOf(tests) => !tests.iter().any(|t| match t {
                    Self::String(a) => a.len() == s.len() && a == s.as_ref(),
                    other => other.matches(value),
                }),
                other => !other.matches(value),
            },
            _ => self.matches(value),
        }
    }

    /// Whether `value` satisfies this test.
    pub(crate) fn matches(&self, value: &Scalar<'_>) -> bool {
        match (self, value) {
            (Self::Any, _) => true,
            (Self::Not(inner), v) => !inner.matches(v),
            (Self::AnyOf(tests), v) => tests.iter().any(|t| t.matches(v)),
            (Self::Null, Scalar::Null) => true,
            (Self::Bool(a), Scalar::Bool(b)) => a == b,
            // Within range equal numbers have equal keys; outside it, only
            // equal JSON numbers are equal.
            (Self::Number(n, key), Scalar::Number(event_key, m)) => match key {
                Some(_) => key == event_key,
                None => m.number().is_some_and(|m| m == *n),
            },
            (Self::Numeric(low, high), Scalar::Number(Some(key), _)) => {
                low.is_none_or(|(l, inclusive)| if inclusive { *key >= l } else { *key > l })
                    && high
                        .is_none_or(|(h, inclusive)| if inclusive { *key <= h } else { *key < h })
            }
            (Self::String(a), Scalar::String(b)) => a == b.as_ref(),
            (Self::Prefix(p), Scalar::String(s)) => s.starts_with(p.as_str()),
            (Self::Suffix(p), Scalar::String(s)) => s.ends_with(p.as_str()),
            (Self::EqualsIgnoreCase(p), Scalar::String(s)) => {
                lower_eq(s, p, |a, b| a == b, ascii_eq)
            }
            (Self::PrefixIgnoreCase(p), Scalar::String(s)) => {
                lower_eq(s, p, |a, b| a.starts_with(b), ascii_prefix)
            }
            (Self::SuffixIgnoreCase(p), Scalar::String(s)) => {
                lower_eq(s, p, |a, b| a.ends_with(b), ascii_suffix)
            }
            (Self::Wildcard(w), Scalar::String(s)) => w.matches(s),
            (Self::Cidr(c), Scalar::String(s)) => c.contains(s),
            _ => false,
        }
    }
}

/// A pattern compiled against a shared [`PathTrie`]: its alternative branches.
pub(crate) fn compile(pattern: &Pattern, trie: &mut PathTrie) -> Vec<Vec<Condition>> {
    let mut names = Vec::new();
    expand(&pattern.root, &mut names, trie)
}

/// All branches of `object`, each a list of conditions (ANDed).
fn expand(
    object: &ObjectPattern,
    names: &mut Vec<String>,
    trie: &mut PathTrie,
) -> Vec<Vec<Condition>> {
    let mut branches = vec![Vec::new()];
    for (name, field) in &object.fields {
        names.push(name.clone());
        match field {
            FieldPattern::Values(values) => {
                let condition = condition(trie.intern(names), values);
                for branch in &mut branches {
                    branch.push(condition.clone());
                }
            }
            FieldPattern::Object(inner) => {
                let inner = expand(inner, names, trie);
                branches = cross(&branches, &inner);
            }
        }
        names.pop();
    }
    if let Some(alternatives) = &object.any_of {
        let mut any: Vec<Vec<Condition>> = Vec::new();
        for alternative in alternatives {
            any.extend(expand(alternative, names, trie));
        }
        branches = cross(&branches, &any);
    }
    branches
}

/// Every concatenation of one branch of `a` with one of `b`.
fn cross(a: &[Vec<Condition>], b: &[Vec<Condition>]) -> Vec<Vec<Condition>> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| x.iter().chain(y).cloned().collect()))
        .collect()
}

fn condition(path: PathId, values: &[ValuePattern]) -> Condition {
    let mut tests = Vec::new();
    let mut absent_ok = false;
    for value in values {
        match value {
            ValuePattern::Exists(false) => absent_ok = true,
            other => tests.push(test(other)),
        }
    }
    Condition {
        path,
        tests,
        absent_ok,
        mask: None,
    }
}

fn key_bound(bound: Option<(f64, bool)>) -> Option<(i64, bool)> {
    // Parsing checked the range, so `key` is `Some`; `-1`/`i64::MAX` keep a
    // wrong-but-safe bound rather than panic.
    bound.map(|(n, inclusive)| (number::key(n).unwrap_or(-1), inclusive))
}

fn test(value: &ValuePattern) -> Test {
    match value {
        ValuePattern::Exact(Literal::Null) => Test::Null,
        ValuePattern::Exact(Literal::Bool(b)) => Test::Bool(*b),
        ValuePattern::Exact(Literal::Number(n)) => Test::Number(n.clone(), number::json_key(n)),
        ValuePattern::Exact(Literal::String(s)) => Test::String(s.clone()),
        ValuePattern::Prefix(s) => Test::Prefix(s.clone()),
        ValuePattern::Suffix(s) => Test::Suffix(s.clone()),
        ValuePattern::EqualsIgnoreCase(s) => Test::EqualsIgnoreCase(s.to_lowercase()),
        ValuePattern::PrefixIgnoreCase(s) => Test::PrefixIgnoreCase(s.to_lowercase()),
        ValuePattern::SuffixIgnoreCase(s) => Test::SuffixIgnoreCase(s.to_lowercase()),
        ValuePattern::Wildcard(s) => wildcard(s),
        ValuePattern::Cidr(s) => Cidr::parse(s).map_or(Test::AnyOf(Vec::new()), Test::Cidr),
        ValuePattern::Exists(_) => Test::Any,
        ValuePattern::Numeric(NumericRange::Equals(n)) => {
            let bound = key_bound(Some((*n, true)));
            Test::Numeric(bound, bound)
        }
        ValuePattern::Numeric(NumericRange::Range { low, high }) => {
            Test::Numeric(key_bound(*low), key_bound(*high))
        }
        ValuePattern::AnythingBut(but) => Test::Not(Box::new(match but {
            AnythingBut::Strings(list) => {
                Test::AnyOf(list.iter().cloned().map(Test::String).collect())
            }
            AnythingBut::Numbers(list) => Test::AnyOf(
                list.iter()
                    .map(|n| {
                        let bound = key_bound(Some((*n, true)));
                        Test::Numeric(bound, bound)
                    })
                    .collect(),
            ),
            AnythingBut::IgnoreCase(list) => Test::AnyOf(
                list.iter()
                    .map(|s| Test::EqualsIgnoreCase(s.to_lowercase()))
                    .collect(),
            ),
            AnythingBut::Prefix(s) => Test::Prefix(s.clone()),
            AnythingBut::Suffix(s) => Test::Suffix(s.clone()),
            AnythingBut::Wildcard(s) => wildcard(s),
        })),
    }
}

fn wildcard(text: &str) -> Test {
    // Parsing validated the text; an empty `AnyOf` (never matches) is unreachable.
    Wildcard::parse(text).map_or(Test::AnyOf(Vec::new()), Test::Wildcard)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Num;

    proptest::proptest! {
        /// A number's test bits from the tests' key ranges
        /// ([`TrieNode::matching_tests`]) are those of running each test:
        /// bounds either inclusive or not, open, exact numbers, and string
        /// tests beside them; keys at and next to every bound, and none.
        #[test]
        fn number_test_bits_are_each_tests_answer(
            bounds in proptest::collection::vec(
                (proptest::option::of((-50i64..50, proptest::bool::ANY)), proptest::option::of((-50i64..50, proptest::bool::ANY)), 0u8..4),
                1..8,
            ),
            keys in proptest::collection::vec(proptest::option::of(-60i64..60), 1..20),
        ) {
            let mut trie = PathTrie::new();
            let path = trie.intern(&["c".to_owned()]);
            let tests: Vec<Test> = bounds
                .iter()
                .map(|&(low, high, kind)| match kind {
                    0 => Test::Number(serde_json::Number::from(0), low.map(|(k, _)| k)),
                    1 => Test::String("x".to_owned()),
                    _ => Test::Numeric(low, high),
                })
                .collect();
            trie.add_tests(&Condition { path, tests, absent_ok: false, mask: None });
            trie.finish();
            let node = trie.node(trie.path_nodes[path]);
            for key in keys {
                let value = Scalar::Number(key, Num::Text(b"0"));
                let want = node
                    .tests
                    .iter()
                    .enumerate()
                    .fold(0u64, |bits, (i, t)| bits | u64::from(t.matches(&value)) << i);
                proptest::prop_assert_eq!(node.matching_tests(&value), want, "{:?}", key);
            }
        }
    }
}
