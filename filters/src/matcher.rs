//! Stage 4: many compiled patterns, matched against one event at a time.

use serde_json::Value;

use crate::compile::{Condition, PathId, PathTrie, compile};
use crate::consistency::{Candidate, satisfiable};
use crate::error::EventError;
use std::cell::RefCell;
use std::mem::ManuallyDrop;

use crate::event::{Buffers, Leaf, Leaves, collect_value};
use crate::pattern::Pattern;
use crate::prefilter::Prefilter;
use crate::quotes::prefetch;
use crate::scan::{Check, collect_bytes};

/// Many patterns compiled once, each tagged with an `Id`; matched against events.
///
/// Several patterns may share an `Id` (a `FilterCriteria` file's filters are
/// ORed): the id matches when any of its patterns does. A `Matcher` is
/// immutable after [`Matcher::new`], and is `Send + Sync` when `Id` is.
///
/// Semantics (as AWS's): fields of one object are ANDed, values in one array
/// are ORed, an array in the event matches when any element matches, and
/// values taken from different elements of one event array never combine into
/// one match. Source: "Content filtering in Amazon EventBridge event patterns"
/// and "Control which events Lambda sends to your function".
#[derive(Debug, Clone)]
pub struct Matcher<Id> {
    /// Distinct ids in order of first insertion.
    ids: Vec<Id>,
    /// `(index into ids, branches)` per pattern, in insertion order.
    rules: Vec<(usize, Vec<Vec<Condition>>)>,
    /// The rules that are one condition on one path, known by test bits
    /// (most), with at most 64 ids: per path, the ids (as bits) that each
    /// test bit there meets.
    simple: Vec<(PathId, Box<[u64; 64]>)>,
    /// Indexes into `rules` of the others, each with a condition its one
    /// branch needs, known by test bits (`path`, `mask`), when it has one.
    complex: Vec<(usize, Option<(PathId, u64)>)>,
    trie: PathTrie,
    /// Literals some pattern needs, for [`Matcher::matches`]' quick rejection.
    prefilter: Prefilter,
}

impl<Id: Clone + PartialEq> Matcher<Id> {
    /// Compile `patterns`. Cannot fail: every [`Pattern`] is already valid.
    pub fn new(patterns: impl IntoIterator<Item = (Id, Pattern)>) -> Matcher<Id> {
        let mut ids: Vec<Id> = Vec::new();
        let mut rules = Vec::new();
        let mut trie = PathTrie::new();
        for (id, pattern) in patterns {
            let index = match ids.iter().position(|known| *known == id) {
                Some(index) => index,
                None => {
                    ids.push(id);
                    ids.len() - 1
                }
            };
            rules.push((index, compile(&pattern, &mut trie)));
        }
        for (_, branches) in &rules {
            for condition in branches.iter().flatten() {
                trie.add_tests(condition);
            }
            for branch in branches {
                trie.note_branch(branch);
            }
        }
        trie.finish();
        for (_, branches) in &mut rules {
            for condition in branches.iter_mut().flatten() {
                trie.mask_tests(condition);
            }
        }
        let prefilter = Prefilter::new(rules.iter().map(|(_, branches)| branches.as_slice()));
        let (mut simple, mut complex) = (Vec::<(PathId, Box<[u64; 64]>)>::new(), Vec::new());
        // Past 64 ids, `select` runs every rule in turn and needs neither.
        let bits = if ids.len() <= 64 { rules.len() } else { 0 };
        for (rule, (index, branches)) in rules.iter().enumerate().take(bits) {
            let id = 1u64.checked_shl(u32::try_from(*index).unwrap_or(u32::MAX));
            match (branches.as_slice(), id) {
                ([branch], Some(id)) => match branch.as_slice() {
                    [condition] if !condition.absent_ok && condition.mask.is_some() => {
                        let at = match simple.iter().position(|(p, _)| *p == condition.path) {
                            Some(at) => at,
                            None => {
                                simple.push((condition.path, Box::new([0; 64])));
                                simple.len() - 1
                            }
                        };
                        let mut mask = condition.mask.unwrap_or(0);
                        while mask != 0 {
                            simple[at].1[mask.trailing_zeros() as usize] |= id;
                            mask &= mask - 1;
                        }
                    }
                    conditions => {
                        let needed = conditions.iter().find(|c| !c.absent_ok && c.mask.is_some());
                        complex.push((rule, needed.map(|c| (c.path, c.mask.unwrap_or(0)))));
                    }
                },
                _ => complex.push((rule, None)),
            }
        }
        Matcher {
            ids,
            rules,
            simple,
            complex,
            trie,
            prefilter,
        }
    }

    /// The ids whose pattern(s) match the event given as JSON bytes: each id
    /// once, in the order the ids were first inserted.
    ///
    /// ```
    /// use ttlstream_filters::{Matcher, Pattern};
    /// let ttl = Pattern::parse(r#"{"userIdentity": {"type": ["Service"]}}"#)?;
    /// let matcher = Matcher::new([("ttl", ttl)]);
    /// let event = br#"{"eventName": "REMOVE", "userIdentity": {"type": "Service"}}"#;
    /// assert_eq!(matcher.matches(event).unwrap(), vec!["ttl"]);
    /// assert!(matcher.matches(b"{not json").is_err());
    /// // Checked only as far as the matcher reads: nothing after `"type"` can match.
    /// assert!(matcher.matches(br#"{"userIdentity": {"type": "Service"}, oops}"#).is_ok());
    /// assert!(matcher.matches_strict(br#"{"userIdentity": {"type": "Service"}, oops}"#).is_err());
    /// # Ok::<(), ttlstream_filters::PatternError>(())
    /// ```
    ///
    /// Fast, and checks JSON syntax only as far as it reads (like quamina):
    /// - The bytes are scanned without building a `serde_json::Value`. Along
    ///   fields some pattern names, keys and values are checked as strictly as
    ///   by [`Matcher::matches_strict`].
    /// - A value no pattern names is skimmed: a string to its closing quote,
    ///   an array or object to its matching bracket by counting brackets
    ///   (strings inside skimmed too). Its contents are not checked (commas,
    ///   colons, keys, numbers, literals, escapes, control characters, which
    ///   kind of bracket closes which); a number, `true`, `false` or `null`
    ///   as the whole value is checked.
    /// - Reading stops before an object member once the rest of the bytes
    ///   holds no `\` and no quoted name (`"STREET"`) of a field the walk could
    ///   still meet there, and the walk is not inside an array at a named
    ///   path: nothing after that point can add a value, so it is not read,
    ///   and faults there (trailing text, a missing `}`) are not reported.
    /// - Before any of that, an event that starts with `{`, ends with `}`,
    ///   and holds no `\` and none of the literals every pattern needs one of
    ///   (an exact string `s` as `"s"`, a prefix `p` as `"p`, a suffix as
    ///   `p"`) matches nothing and is not read further. This applies only
    ///   when every pattern needs such a literal (`filters/PATTERNS.md`,
    ///   "Event bytes").
    ///
    /// For valid JSON the result is always that of [`Matcher::matches_strict`].
    ///
    /// # Errors
    /// [`EventError::Json`] if the bytes read are not JSON (with line and
    /// column); [`EventError::NotAnObject`] if the JSON is not an object.
    pub fn matches(&self, event_json: &[u8]) -> Result<Vec<Id>, EventError> {
        if self.prefilter.rejects(event_json) {
            return Ok(Vec::new());
        }
        self.scan(event_json, Check::Lazy)
    }

    /// [`Matcher::matches`] for each of `events` in turn, in order, with
    /// the same results; while one event is matched, the CPU is asked for
    /// the next one's bytes (up to 2 KiB), so a stream of events held in
    /// memory (an NDJSON file, a Lambda batch, a corpus) does not wait for
    /// memory at each event's start. Lazy: an event is matched when its
    /// result is asked for.
    ///
    /// ```
    /// use ttlstream_filters::{Matcher, Pattern};
    ///
    /// let ttl = Pattern::parse(r#"{"userIdentity":{"type":["Service"]}}"#)?;
    /// let matcher = Matcher::new([("ttl", ttl)]);
    /// let events: [&[u8]; 3] = [br#"{"userIdentity":{"type":"Service"}}"#, b"{}", b"[1]"];
    /// let results: Vec<_> = matcher.matches_each(events).collect();
    /// assert_eq!(results[0].as_ref().unwrap(), &vec!["ttl"]);
    /// assert!(results[1].as_ref().unwrap().is_empty());
    /// assert!(results[2].is_err());
    /// # Ok::<(), ttlstream_filters::PatternError>(())
    /// ```
    ///
    /// # Errors
    /// Each item is [`Matcher::matches`]' result for its event: an
    /// [`EventError`] for that event alone; the events after it are still
    /// matched.
    pub fn matches_each<'e>(
        &self,
        events: impl IntoIterator<Item = &'e [u8]>,
    ) -> impl Iterator<Item = Result<Vec<Id>, EventError>> {
        let mut events = events.into_iter().peekable();
        std::iter::from_fn(move || {
            let event = events.next()?;
            if let Some(next) = events.peek() {
                prefetch(next);
            }
            Some(self.matches(event))
        })
    }

    /// [`Matcher::matches`], checking the JSON syntax of every byte: a
    /// malformed event is always an error, even when the fault lies in a
    /// field no pattern names or after the last one. Slower (every byte is
    /// read); use it for input from people, such as files.
    ///
    /// In a field no pattern names (and in a key no pattern names), strings
    /// are checked for escapes and control characters but not decoded, so
    /// invalid UTF-8 and lone surrogate escapes are accepted, and numbers are
    /// checked for grammar but not size (as `serde_json`'s `IgnoredAny`).
    ///
    /// # Errors
    /// [`EventError::Json`] if the bytes are not JSON (with line and column);
    /// [`EventError::NotAnObject`] if the JSON is not an object.
    pub fn matches_strict(&self, event_json: &[u8]) -> Result<Vec<Id>, EventError> {
        self.scan(event_json, Check::Strict)
    }

    /// The ids whose pattern(s) match an already-parsed event, as
    /// [`Matcher::matches`]. A non-object event has no fields, so only patterns
    /// made entirely of `{"exists": false}` match it.
    #[must_use]
    pub fn matches_value(&self, event: &Value) -> Vec<Id> {
        let leaves = collect_value(event, &self.trie);
        self.select(&leaves)
    }

    /// Number of patterns compiled in.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether no pattern was compiled in (then nothing matches).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Scan with this thread's buffers from the last event (then keep them again).
    fn scan(&self, event_json: &[u8], check: Check) -> Result<Vec<Id>, EventError> {
        thread_local! {
            static BUFFERS: RefCell<Buffers> = RefCell::default();
        }
        BUFFERS.with(|cell| match cell.try_borrow_mut() {
            // Borrowed in place (moving the buffers in and out costs two
            // `memcpy` calls).
            Ok(mut buffers) => self.scan_in(event_json, check, &mut buffers),
            Err(_) => self.scan_fresh(event_json, check),
        })
    }

    /// [`Matcher::scan`] when this thread's buffers are in use: fresh ones
    /// (out of line, so that the common path drops no `Buffers`).
    #[cold]
    #[inline(never)]
    fn scan_fresh(&self, event_json: &[u8], check: Check) -> Result<Vec<Id>, EventError> {
        self.scan_in(event_json, check, &mut Buffers::default())
    }

    /// [`Matcher::scan`] with `buffers`' storage, handed back to them after.
    #[inline(always)]
    fn scan_in(
        &self,
        event_json: &[u8],
        check: Check,
        buffers: &mut Buffers,
    ) -> Result<Vec<Id>, EventError> {
        // Not dropped: `restore` leaves it only the empty buffers that
        // `reuse` left in `buffers` (a drop call per event otherwise).
        let mut leaves = ManuallyDrop::new(Leaves::reuse(self.trie.path_count(), buffers));
        let found = collect_bytes(event_json, &self.trie, check, &mut leaves);
        let ids = found.map(|()| self.select(&leaves));
        leaves.restore(buffers);
        ids
    }

    fn select(&self, leaves: &Leaves<'_>) -> Vec<Id> {
        if self.ids.len() <= 64 {
            // The common case: a bit per id, no allocation unless something matches.
            let mut hit: u64 = 0;
            // A simple rule is met when some leaf at its path satisfies one
            // of its tests: by the tests of the path's leaves ORed, each
            // test bit giving the ids it meets.
            for (path, ids) in &self.simple {
                let mut tests = leaves.tests_at(*path);
                while tests != 0 {
                    hit |= ids[tests.trailing_zeros() as usize];
                    tests &= tests - 1;
                }
            }
            for &(rule, needed) in &self.complex {
                // A condition its branch needs is not met: the rule is not.
                if needed.is_some_and(|(path, mask)| leaves.tests_at(path) & mask == 0) {
                    continue;
                }
                let Some((index, branches)) = self.rules.get(rule) else {
                    continue;
                };
                if hit & (1 << index) == 0
                    && branches.iter().any(|branch| branch_matches(branch, leaves))
                {
                    hit |= 1 << index;
                }
            }
            // One allocation of the right size, the set bits in order.
            let mut ids = Vec::with_capacity(hit.count_ones() as usize);
            while hit != 0 {
                ids.extend(self.ids.get(hit.trailing_zeros() as usize).cloned());
                hit &= hit - 1;
            }
            return ids;
        }
        let mut hit = vec![false; self.ids.len()];
        for (index, branches) in &self.rules {
            if !hit[*index] && branches.iter().any(|branch| branch_matches(branch, leaves)) {
                hit[*index] = true;
            }
        }
        self.ids
            .iter()
            .zip(hit)
            .filter(|(_, hit)| *hit)
            .map(|(id, _)| id.clone())
            .collect()
    }
}

/// Whether one branch (ANDed conditions) holds for the event's values.
fn branch_matches(branch: &[Condition], leaves: &Leaves<'_>) -> bool {
    // First without allocating: every condition must have a matching value.
    // Values inside arrays constrain each other only when two or more
    // conditions have such values; otherwise any choice of values is consistent.
    let mut conditions_in_arrays = 0;
    for condition in branch {
        if !leaves.any_at(condition.path) {
            if condition.absent_ok {
                continue;
            }
            return false;
        }
        if condition
            .mask
            .is_some_and(|mask| leaves.tests_at(condition.path) & mask == 0)
        {
            return false;
        }
        let mut at = leaves.at(condition.path);
        if !at.clone().any(|leaf| satisfies(condition, leaf)) {
            return false;
        }
        if at.any(|leaf| !leaf.trail.is_empty()) {
            conditions_in_arrays += 1;
        }
    }
    conditions_in_arrays <= 1 || consistent(branch, leaves)
}

/// Whether one matching value per condition can be chosen from compatible
/// array elements (every condition is already known to have a match).
fn consistent(branch: &[Condition], leaves: &Leaves<'_>) -> bool {
    let mut candidates: Vec<Vec<Candidate<'_>>> = Vec::with_capacity(branch.len());
    for condition in branch {
        if !leaves.any_at(condition.path) {
            continue;
        }
        let matching: Vec<Candidate<'_>> = leaves
            .at(condition.path)
            .filter(|leaf| satisfies(condition, leaf))
            .map(|leaf| leaves.trail(leaf))
            .collect();
        candidates.push(matching);
    }
    satisfiable(&candidates)
}

/// Whether `leaf`, a value at `condition`'s path, satisfies it: by the bits
/// of the tests it satisfies, where the path has them.
#[inline]
fn satisfies(condition: &Condition, leaf: &Leaf<'_>) -> bool {
    match condition.mask {
        Some(mask) => leaf.tests & mask != 0,
        None => condition.tests.iter().any(|t| t.matches(&leaf.value)),
    }
}
