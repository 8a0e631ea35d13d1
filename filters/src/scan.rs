//! Stage 3 from raw bytes: scan event JSON without building a `serde_json::Value`.
//!
//! A recursive walk follows the [`PathTrie`] alongside the JSON: a field no
//! pattern names is skipped (never decoded or stored); a scalar at a named
//! path is decoded (numbers to their comparison key, and by `serde_json`'s
//! rules when needed, so both stages agree on every value) and recorded with
//! its array [`Trail`]. The result is the same [`Leaves`] that
//! [`crate::event::collect_value`] builds from a `Value`, except that a key
//! repeated within one object contributes every occurrence (as a streaming
//! parser sees them) rather than only the last.
//!
//! Both keep a value only when some test at its path accepts it, with the
//! tests it satisfies ([`crate::compile::TrieNode::matching_tests`]); of any other value only its
//! presence is noted (for `{"exists": false}`). A number in its common form
//! is read and keyed in one pass ([`crate::number::lex_decimal`]), and one
//! whose rough key lies far from every `numeric` range at its path is not
//! keyed exactly at all.
//!
//! Two modes ([`Check`]): `Strict` checks the syntax of every byte (skipped
//! values by [`Lexer::skip_value`]); `Lazy` skims skipped values by structure
//! ([`Lexer::skim_value`]) and stops reading once [`crate::lookahead`] shows
//! that no later byte can add a value at a named path.

use std::borrow::Cow;

use crate::classify::{Classifier, Gated, KEPT_BLOCKS, Kept};
use crate::compile::{PathTrie, TrieNode};
use crate::error::{EventError, strip_position};
use crate::event::{Leaves, Num, Scalar, Trail};
use crate::gate::{Gate, Judged};
use crate::lex::Lexer;
use crate::lookahead::Lookahead;

/// Containers nested along named fields at which the walk stops with an error
/// (`serde_json`'s recursion limit, so both stages fail alike).
const MAX_NAMED_DEPTH: usize = 128;

/// How much of an event's syntax is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Every byte.
    Strict,
    /// What the walk reads; see [`crate::Matcher::matches`].
    Lazy,
}

/// Scan `bytes` (one JSON object) for the values at the paths in `trie`.
pub(crate) fn collect_bytes<'a>(
    bytes: &'a [u8],
    trie: &PathTrie,
    check: Check,
    leaves: &mut Leaves<'a>,
) -> Result<(), EventError> {
    let (mut trail, mut open, hits, gated) = std::mem::take(&mut leaves.spare);
    trail.clear();
    open.clear();
    let mut walk = Walk {
        trie,
        lex: Lexer::new(bytes),
        leaves,
        trail,
        check,
        open,
        wanted_arrays: 0,
        ahead: Lookahead::new(hits),
        sure: (0, usize::MAX),
        stopped: false,
        // Until the look-ahead first says it may (see `Walk::ask_ahead`).
        may_stop: check == Check::Lazy,
        classifier: Classifier::new(),
        gated,
    };
    let read = walk.event();
    walk.finish();
    read
}

/// The walk's state: where it is in the bytes, what it found so far.
struct Walk<'t, 'l, 'a> {
    trie: &'t PathTrie,
    lex: Lexer<'a>,
    leaves: &'l mut Leaves<'a>,
    trail: Trail,
    check: Check,
    /// Trie nodes of the objects the walk is inside, outermost first.
    open: Vec<usize>,
    /// Arrays the walk is inside whose node is a named path: their later
    /// elements are values there without any key before them.
    wanted_arrays: usize,
    ahead: Lookahead,
    /// `(until, depth)`: the look-ahead said no stop before `until` when
    /// `depth` objects were open, and none of them has closed since (more
    /// open objects look for more names: the answer holds). No answer kept
    /// when `depth` is `usize::MAX`.
    sure: (usize, usize),
    /// Set when the walk stopped early: nothing after it can add a value.
    stopped: bool,
    /// Whether the walk may stop early: lazy mode, and not yet found that
    /// the bytes do not end with `}`.
    may_stop: bool,
    /// Bit masks of byte classes, for [`Walk::numbers`] (where the CPU has SIMD).
    classifier: Option<Classifier>,
    /// [`Walk::gated`]'s buffer, kept from event to event.
    gated: Option<Box<Gated>>,
}

impl<'a> Walk<'_, '_, 'a> {
    /// Hand the walk's buffers to the leaves, for the next event (after an
    /// error too). Taken in place: moving the walk costs a `memcpy` call.
    fn finish(&mut self) {
        self.leaves.spare = (
            std::mem::take(&mut self.trail),
            std::mem::take(&mut self.open),
            self.ahead.take_buffer(),
            self.gated.take(),
        );
    }

    /// The event (one JSON object), from the start of its bytes.
    #[inline(always)]
    fn event(&mut self) -> Result<(), EventError> {
        self.lex.skip_ws();
        let found = match self.lex.peek() {
            Some(b'{') => {
                self.object(PathTrie::ROOT, 1)?;
                None
            }
            _ => Some(self.skip()?),
        };
        if self.stopped {
            return Ok(());
        }
        self.lex.skip_ws();
        if self.lex.peek().is_some() {
            return Err(self.lex.error_at(self.lex.pos, "trailing characters"));
        }
        match found {
            Some(found) => Err(EventError::NotAnObject { found }),
            None => Ok(()),
        }
    }

    /// Record `value` if trie `node` is a path some pattern matches values at.
    fn record(&mut self, node: usize, value: Scalar<'a>) {
        let here = self.trie.node(node);
        if let Some(path) = here.path {
            let tests = here.matching_tests(&value);
            self.leaves.keep(path, value, &self.trail, tests);
        }
    }

    fn wanted(&self, node: usize) -> bool {
        self.trie.node(node).path.is_some()
    }

    /// Skip a value no pattern names.
    fn skip(&mut self) -> Result<&'static str, EventError> {
        match self.check {
            Check::Strict => self.lex.skip_value(),
            Check::Lazy => self.lex.skim_value(),
        }
    }

    /// Whether the walk may stop before the object member at its position:
    /// lazy mode, the bytes end with `}`, no enclosing named array, and ahead
    /// no `\` and no quoted name that a child of an open object has. The
    /// look-ahead is asked again only once the walk has passed the last
    /// such name it found (or an object open then has closed).
    #[inline]
    fn can_stop(&mut self) -> bool {
        if !self.may_stop || self.wanted_arrays > 0 {
            return false;
        }
        let (until, depth) = self.sure;
        if self.lex.pos <= until && self.open.len() >= depth {
            return false;
        }
        self.ask_ahead()
    }

    /// [`Walk::can_stop`]'s question to the look-ahead; keeps how far its
    /// answer holds.
    fn ask_ahead(&mut self) -> bool {
        let (trie, open) = (self.trie, &self.open);
        // Names below 64 by one bit test; the others (many patterns) by
        // each open object's list.
        let bits = open
            .iter()
            .fold(0, |bits, &n| bits | trie.node(n).name_bits);
        let meets = |name: u32| match 1u64.checked_shl(name) {
            Some(bit) => bits & bit != 0,
            None => open.iter().any(|&n| trie.node(n).name_ids.contains(&name)),
        };
        match (self.ahead).ahead(&trie.names, self.lex.bytes, self.lex.pos, meets) {
            Some(until) => {
                self.sure = (until, self.open.len());
                false
            }
            // An event that does not end with `}` is malformed: read it all,
            // so that the walk finds the fault and reports where it is.
            // Looked at only now, when the walk would stop: its last byte is
            // most often in a cache line nothing has read yet (a polygon's
            // end), and an earlier read waited for memory in every event.
            None => {
                self.may_stop = self.lex.bytes.trim_ascii_end().last() == Some(&b'}');
                self.may_stop
            }
        }
    }

    /// The value at trie `node`; containers in it nest at `depth + 1`.
    fn value(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.lex.skip_ws();
        match self.lex.peek() {
            Some(b'{') if !self.trie.node(node).children.is_empty() => self.object(node, depth + 1),
            Some(b'{') => self.skip().map(drop),
            Some(b'[') => {
                let here = self.trie.node(node);
                if self.check == Check::Lazy
                    && let Some(classifier) = self.classifier
                    && here.children.is_empty()
                    && here.has_number_ranges()
                {
                    if let Some(gate) = here.gate()
                        && self.gated(node, depth + 1, classifier, gate)?
                    {
                        return Ok(());
                    }
                    if self.numbers(node, depth + 1, classifier)? {
                        return Ok(());
                    }
                }
                self.array(node, depth + 1)
            }
            Some(b'"') => {
                self.lex.pos += 1;
                // Most strings: no escape, so no decoding (and no calls).
                if let Some((start, end)) = self.lex.plain_string() {
                    if self.wanted(node) {
                        let text = utf8(&self.lex, start, end)?;
                        self.record(node, Scalar::String(Cow::Borrowed(text)));
                    }
                    return Ok(());
                }
                let (start, end, escaped) = self.lex.string()?;
                if self.wanted(node) {
                    let text = decode(&self.lex, start, end, escaped)?;
                    self.record(node, Scalar::String(text));
                }
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number_at(node, true),
            Some(b't') => {
                self.lex.literal(b"true")?;
                self.record(node, Scalar::Bool(true));
                Ok(())
            }
            Some(b'f') => {
                self.lex.literal(b"false")?;
                self.record(node, Scalar::Bool(false));
                Ok(())
            }
            Some(b'n') => {
                self.lex.literal(b"null")?;
                self.record(node, Scalar::Null);
                Ok(())
            }
            _ => Err(self.lex.error("a value", "expected value")),
        }
    }

    /// A number (its first byte next) at trie `node`; `rough`: first judge
    /// it by its leading digits (else it was judged already).
    #[inline]
    fn number_at(&mut self, node: usize, rough: bool) -> Result<(), EventError> {
        let here = self.trie.node(node);
        if let Some(path) = here.path {
            let rest = self.lex.bytes.get(self.lex.pos..).unwrap_or_default();
            // Most numbers at a `numeric` path are far from every
            // range: their leading digits tell.
            if rough
                && here.has_number_ranges()
                && let Some((len, low, high)) = crate::number::lex_rough(rest)
                && here.rejects_numbers_between(low, high)
            {
                self.lex.pos += len;
                self.leaves.mark(path);
                return Ok(());
            }
            if let Some((len, decimal)) = crate::number::lex_decimal(rest) {
                if here.rejects_number(decimal.rough_key()) {
                    self.lex.pos += len;
                    self.leaves.mark(path);
                    return Ok(());
                }
                if let Some(key) = decimal.key() {
                    self.lex.pos += len;
                    self.record(node, Scalar::Number(key, Num::Text(&rest[..len])));
                    return Ok(());
                }
            }
        }
        let (start, end) = self.lex.number()?;
        if self.wanted(node) {
            let number = number(&self.lex, start, end)?;
            self.record(node, number);
        }
        Ok(())
    }

    /// An array (the `[` next, nesting at `depth`) at trie `node`, a path
    /// with no children whose tests take numbers by key ranges and that has
    /// a [`Gate`]: `Ok(false)` (nothing read) unless
    /// [`Classifier::gated_numbers`] finds it well-formed.
    ///
    /// Then only the numbers through the gate can lie in a range: each is
    /// judged by its first fraction digits ([`Gate::judge`]) and, unless
    /// that shows it far from every range or satisfying only tests a number
    /// kept before satisfies, read as [`Walk::numbers`] reads them; the
    /// others add only the path's presence. No branch has two conditions at
    /// this path, so which element of the array a value lies in cannot
    /// matter (values at other paths lie outside the array): kept values
    /// carry the trail of the array itself, and a second value with the
    /// same tests' bits changes no pattern's outcome (each condition here
    /// is a mask of those bits). Errors are never found here: a malformed
    /// array is left to [`Walk::numbers`] and [`Walk::array`].
    fn gated(
        &mut self,
        node: usize,
        depth: usize,
        classifier: Classifier,
        gate: &Gate,
    ) -> Result<bool, EventError> {
        let mut gated = self.gated.take().unwrap_or_default();
        let room = MAX_NAMED_DEPTH.saturating_sub(depth);
        let read = if classifier.gated_numbers(self.lex.bytes, self.lex.pos, room, gate, &mut gated)
        {
            self.judge_gated(node, gate, &gated).map(|()| true)
        } else {
            Ok(false)
        };
        self.gated = Some(gated);
        read
    }

    /// [`Walk::gated`] once the pass found the array well-formed (`gated`):
    /// the numbers through the gate judged, and read when that matters.
    #[inline(always)]
    fn judge_gated(&mut self, node: usize, gate: &Gate, gated: &Gated) -> Result<(), EventError> {
        let bytes = self.lex.bytes;
        let start = self.lex.pos;
        let here = self.trie.node(node);
        // The tests some number kept so far satisfies: a number known to
        // satisfy no other adds nothing (all carry the array's trail).
        let mut kept = 0u64;
        let one = gate.one_word();
        // The first eight bytes of the last number judged by them alone
        // (none yet: no number's bytes are `0xFF`).
        let mut judged_word = u64::MAX;
        for &number in &gated.starts[..gated.count] {
            let number = number as usize;
            // `0`, which no test accepts, for fewer than eight bytes.
            let word = crate::lex::word_at(bytes, number).unwrap_or(0);
            // Judged alike (far, or satisfying only tests a number kept
            // since satisfies): the numbers of a polygon often share their
            // first fraction digits.
            if word == judged_word {
                continue;
            }
            // Most numbers: judged by their one word, with fewer
            // instructions than the judgement's own test (the same answer).
            let judged = match one.and_then(|one| one.judge(word)) {
                Some(judged) => {
                    judged_word = word;
                    judged
                }
                None => gate.judge(bytes, number),
            };
            match judged {
                Judged::Far => continue,
                Judged::Tests(tests) if tests & !kept == 0 => continue,
                Judged::Tests(tests) => kept |= tests,
                Judged::Unknown => {}
            }
            let (block, bit) = ((number - start) / 64, (number - start) % 64);
            let after = gated.delimiters[block] & (u64::MAX << bit << 1);
            let at = start + 64 * block + 64;
            let end = if after == 0 {
                at + gated.delimiters[block + 1].trailing_zeros() as usize
            } else {
                at - 64 + after.trailing_zeros() as usize
            };
            self.lex.pos = number;
            self.number_at(node, false)?;
            if self.lex.pos != end {
                return Err(self.lex.error_at(self.lex.pos, "expected `,` or `]`"));
            }
        }
        if gated.any
            && let Some(path) = here.path
        {
            self.leaves.mark(path);
        }
        self.lex.pos = gated.end + 1;
        Ok(())
    }

    /// An array (the `[` next, nesting at `depth`) at trie `node`, a path
    /// with no children whose tests take numbers by key ranges, read with
    /// the [`Classifier`]'s bit masks: `Ok(false)` (nothing read) unless the
    /// whole array is compact brackets, commas and numbers (`[[-122.5,37.7]]`;
    /// anything else, blanks included, is left to [`Walk::array`]).
    ///
    /// Where each number starts and ends comes from the masks, so reading one
    /// number does not wait for the one before. Everything else is as in
    /// [`Walk::array`]: the same array ids and trails, numbers read by
    /// [`Walk::number_at`], and the same errors for malformed JSON.
    fn numbers(
        &mut self,
        node: usize,
        depth: usize,
        classifier: Classifier,
    ) -> Result<bool, EventError> {
        let bytes = self.lex.bytes;
        let start = self.lex.pos;
        // First pass: whether the array holds only brackets, commas and
        // number bytes up to its end.
        let mut kept = [Kept::default(); KEPT_BLOCKS];
        if !classifier.compact_array(
            bytes,
            start,
            MAX_NAMED_DEPTH.saturating_sub(depth),
            &mut kept,
        ) {
            return Ok(false);
        }
        // Second pass: each delimiter in order, and the number between two.
        self.enter(depth)?;
        let id = self.leaves.array_id();
        self.trail.push((id, 0));
        let (mut prev, mut prev_byte, mut level) = (start, b'[', 1usize);
        let mut at = start;
        let mut before = Kept::default();
        let mut index = 0;
        let here = self.trie.node(node);
        loop {
            let block = match kept.get(index) {
                Some(&kept) => kept,
                None => Kept::of(&classifier.block(bytes, at)),
            };
            index += 1;
            // The `.`s of the block before and this one, for numbers that
            // start in the one before.
            let dots = u128::from(before.dot) | u128::from(block.dot) << 64;
            let mut delimiters = block.delimiters;
            if at == start {
                delimiters &= !1;
            }
            while delimiters != 0 {
                let d = at + delimiters.trailing_zeros() as usize;
                let byte = bytes[d];
                if d > prev + 1 {
                    // A number between `prev` and `d`.
                    if prev_byte == b']' {
                        return Err(self.lex.error_at(prev + 1, "expected `,` or `]`"));
                    }
                    if byte == b'[' {
                        return Err(self.lex.error_at(d, "expected `,` or `]`"));
                    }
                    let far = far_number(bytes, prev + 1, d, at, dots, here);
                    if far {
                        if let Some(path) = here.path {
                            self.leaves.mark(path);
                        }
                    } else {
                        self.lex.pos = prev + 1;
                        self.number_at(node, false)?;
                        if self.lex.pos != d {
                            return Err(self.lex.error_at(self.lex.pos, "expected `,` or `]`"));
                        }
                    }
                } else {
                    match (prev_byte, byte) {
                        (b'[' | b',', b'[') | (b'[', b']') | (b']', b',' | b']') => {}
                        (b']', _) => return Err(self.lex.error_at(d, "expected `,` or `]`")),
                        _ => return Err(self.lex.error_at(d, "expected value")),
                    }
                }
                match byte {
                    b'[' => {
                        level += 1;
                        self.lex.pos = d;
                        self.enter(depth + level - 1)?;
                        let id = self.leaves.array_id();
                        self.trail.push((id, 0));
                    }
                    b',' => {
                        if let Some(last) = self.trail.last_mut() {
                            last.1 = last.1.saturating_add(1);
                        }
                    }
                    _ => {
                        self.trail.pop();
                        level -= 1;
                        if level == 0 {
                            self.lex.pos = d + 1;
                            return Ok(true);
                        }
                    }
                }
                (prev, prev_byte) = (d, byte);
                delimiters &= delimiters - 1;
            }
            before = block;
            at += 64;
        }
    }

    fn enter(&self, depth: usize) -> Result<(), EventError> {
        if depth >= MAX_NAMED_DEPTH {
            return Err(self.lex.error_at(self.lex.pos, "recursion limit exceeded"));
        }
        Ok(())
    }

    /// An object at trie `node` (the `{` next), itself at nesting `depth`.
    fn object(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.enter(depth)?;
        self.lex.pos += 1;
        self.lex.skip_ws();
        if self.lex.peek() == Some(b'}') {
            self.lex.pos += 1;
            return Ok(());
        }
        self.open.push(node);
        loop {
            if self.can_stop() {
                self.stopped = true;
                return Ok(());
            }
            // No key before the next quoted name is one the walk looks for:
            // plain `"key":"value",` members up to it are passed in one go,
            // and the object's end with them when it comes first.
            let mut name = None;
            if self.check == Check::Lazy
                && let Some((at, id)) = self.ahead.name_at(self.lex.pos)
            {
                // Not called when the name is the next member's (the
                // walk's own keys): it would pass nothing.
                if at > self.lex.pos && self.lex.skip_plain_members(at) {
                    self.lex.pos += 1;
                    self.close();
                    return Ok(());
                }
                name = Some((at, id));
            }
            self.lex.skip_ws();
            if self.lex.peek() != Some(b'"') {
                return Err(self.lex.error("an object", "key must be a string"));
            }
            let here = self.trie.node(node);
            let next = match name {
                // The look-ahead found this key as a quoted name: its bytes
                // are the name's and a closing quote (no escape, nothing
                // for `Lexer::string` to reject), so it is not read again.
                Some((at, id))
                    if at == self.lex.pos
                        && let Some(len) = self.trie.names.len(id) =>
                {
                    self.lex.pos += len + 2;
                    (here.name_children.iter())
                        .find(|&&(child, _)| child == id)
                        .map(|&(_, next)| next)
                }
                _ => {
                    self.lex.pos += 1;
                    let (start, end, escaped) = self.lex.string()?;
                    // Keys are compared as bytes: a key no pattern names is
                    // not checked for UTF-8 (as a skipped string is not).
                    if escaped {
                        here.children
                            .get(decode(&self.lex, start, end, true)?.as_bytes())
                    } else {
                        here.children.get(&self.lex.bytes[start..end])
                    }
                }
            };
            self.lex.expect(b':', "an object", "expected `:`")?;
            match next {
                Some(next) => {
                    self.value(next, depth)?;
                    if self.stopped {
                        return Ok(());
                    }
                }
                None => {
                    self.skip()?;
                }
            }
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => self.lex.pos += 1,
                Some(b'}') => {
                    self.lex.pos += 1;
                    self.close();
                    return Ok(());
                }
                _ => return Err(self.lex.error("an object", "expected `,` or `}`")),
            }
        }
    }

    /// The innermost open object ends: a look-ahead answer kept while it
    /// was open no longer holds.
    #[inline]
    fn close(&mut self) {
        self.open.pop();
        if self.open.len() < self.sure.1 {
            self.sure.1 = usize::MAX;
        }
    }

    /// An array at trie `node` (the `[` next): each element at the same node.
    fn array(&mut self, node: usize, depth: usize) -> Result<(), EventError> {
        self.enter(depth)?;
        self.lex.pos += 1;
        let id = self.leaves.array_id();
        self.lex.skip_ws();
        if self.lex.peek() == Some(b']') {
            self.lex.pos += 1;
            return Ok(());
        }
        let wanted = usize::from(self.wanted(node));
        self.wanted_arrays += wanted;
        let mut index: u32 = 0;
        loop {
            self.trail.push((id, index));
            self.value(node, depth)?;
            if self.stopped {
                return Ok(());
            }
            self.trail.pop();
            self.lex.skip_ws();
            match self.lex.peek() {
                Some(b',') => {
                    self.lex.pos += 1;
                    index = index.saturating_add(1);
                }
                Some(b']') => {
                    self.lex.pos += 1;
                    self.wanted_arrays -= wanted;
                    return Ok(());
                }
                _ => return Err(self.lex.error("a list", "expected `,` or `]`")),
            }
        }
    }
}

/// A well-formed plain number (`-?digits(.digits)?`) of at most 32 bytes.
struct Plain {
    negative: bool,
    /// How many bytes its integer part takes, sign included.
    integer_len: usize,
    /// Where its fraction digits start, if it has any.
    fraction: Option<usize>,
}

/// Whether the number in `bytes[start..end]` (as for [`plain_number`]) is
/// a [`Plain`] number outside every numeric range at `here`: known from its
/// integer part as written ([`TrieNode::integer_part`]), else from that and
/// eight fraction digits, as a fixed-point interval
/// ([`TrieNode::rejects_fixed`]). `false` when unknown.
#[inline]
fn far_number(
    bytes: &[u8],
    start: usize,
    end: usize,
    at: usize,
    dots: u128,
    here: &TrieNode,
) -> bool {
    use crate::compile::IntegerPart;
    use crate::number::FIXED_ONE;
    let Some(Plain {
        negative,
        integer_len,
        fraction,
    }) = plain_number(bytes, start, end, at, dots)
    else {
        return false;
    };
    let integer = match here.integer_part(bytes, start, integer_len) {
        IntegerPart::Far => return true,
        IntegerPart::Near(magnitude) => magnitude,
        IntegerPart::Unknown => return false,
    };
    // At most 8 digits: below 1e16 units.
    #[allow(clippy::cast_possible_wrap)]
    let signed = |low: u64, high: u64| {
        let (low, high) = (low as i64, high as i64);
        if negative { (-high, -low) } else { (low, high) }
    };
    let whole = integer * FIXED_ONE.unsigned_abs();
    let (low, high) = match fraction {
        None => (0, 0),
        Some(at) => match crate::number::fixed_fraction(bytes, at, end - at) {
            Some(fraction) => fraction,
            None => return false,
        },
    };
    let (low, high) = signed(whole + low, whole + high);
    here.rejects_fixed(low, high)
}

/// The number in `bytes[start..end]` (between two delimiters of an array
/// that [`crate::classify::Classifier::compact_array`] accepted: digits, a
/// `-` only first, a `.` never last), when it is a [`Plain`] number; `dots`
/// flag the `.`s of the 128 bytes from `at - 64`.
/// `None` otherwise (then [`Walk::number_at`] reads it, or reports what is
/// wrong).
#[inline]
fn plain_number(bytes: &[u8], start: usize, end: usize, at: usize, dots: u128) -> Option<Plain> {
    let len = end - start;
    let offset = (start + 64).checked_sub(at)?;
    if len > 32 || offset + len > 128 {
        return None;
    }
    let dot = (dots >> offset) as u64 & ((1u64 << len) - 1);
    // At most one `.`.
    if dot & dot.wrapping_sub(1) != 0 {
        return None;
    }
    let sign = usize::from(bytes.get(start) == Some(&b'-'));
    let integer_end = if dot == 0 {
        len
    } else {
        dot.trailing_zeros() as usize
    };
    // Digits before the `.` (not `-.5`, `.5` or `-`).
    let digits = integer_end.checked_sub(sign).filter(|&n| n > 0)?;
    // No leading zero (`01`): each integer part has one spelling per sign.
    if digits > 1 && bytes.get(start + sign) == Some(&b'0') {
        return None;
    }
    Some(Plain {
        negative: sign == 1,
        integer_len: integer_end,
        fraction: (dot != 0).then_some(start + integer_end + 1),
    })
}

/// A string body without escapes, checked as UTF-8: a short ASCII body
/// inline, without a call ([`short_ascii`]), any other by [`checked_utf8`].
#[inline(always)]
fn utf8<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<&'a str, EventError> {
    match short_ascii(&lex.bytes[start..end]) {
        Some(text) => Ok(text),
        None => checked_utf8(lex, start, end),
    }
}

/// [`utf8`] for a body [`short_ascii`] does not take: `from_utf8`, its
/// error placed at the first invalid byte.
#[inline(never)]
fn checked_utf8<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<&'a str, EventError> {
    std::str::from_utf8(&lex.bytes[start..end])
        .map_err(|e| lex.error_at(start + e.valid_up_to(), "invalid unicode code point"))
}

/// `body` as text when it has at most 16 bytes, all ASCII (so UTF-8):
/// known from its first and last words ORed, where `from_utf8` is an
/// out-of-line call of about 70 instructions for a short string. `None`
/// for a longer body or one with another byte (then `from_utf8` decides).
#[inline(always)]
fn short_ascii(body: &[u8]) -> Option<&str> {
    let bits = match body.len() {
        8..=16 => {
            u64::from_le_bytes(*body.first_chunk::<8>()?)
                | u64::from_le_bytes(*body.last_chunk::<8>()?)
        }
        4..=7 => u64::from(
            u32::from_le_bytes(*body.first_chunk::<4>()?)
                | u32::from_le_bytes(*body.last_chunk::<4>()?),
        ),
        0..=3 => body.iter().fold(0, |bits, &b| bits | u64::from(b)),
        _ => return None,
    };
    if bits & crate::lex::splat(0x80) != 0 {
        return None;
    }
    // SAFETY: every byte of `body` is below 0x80 (each lies in the first or
    // the last word, or was ORed in one by one): ASCII, which is UTF-8.
    #[allow(unsafe_code)]
    Some(unsafe { std::str::from_utf8_unchecked(body) })
}

/// A string body decoded (escapes by `serde_json`, surrogate pairs included);
/// borrowed when it has no escapes.
fn decode<'a>(
    lex: &Lexer<'a>,
    start: usize,
    end: usize,
    escaped: bool,
) -> Result<Cow<'a, str>, EventError> {
    if !escaped {
        return utf8(lex, start, end).map(Cow::Borrowed);
    }
    // The quotes around the body are at start - 1 and end.
    serde_json::from_slice::<String>(&lex.bytes[start - 1..=end])
        .map(Cow::Owned)
        .map_err(|e| lex.error_at(start, &strip_position(&e)))
}

/// A number at a named path (its grammar checked): its key, by
/// [`crate::number::fast_key`] when that is certain, else by a full parse
/// (which rejects numbers beyond `f64`, as `serde_json` does).
fn number<'a>(lex: &Lexer<'a>, start: usize, end: usize) -> Result<Scalar<'a>, EventError> {
    let bytes = &lex.bytes[start..end];
    let key = match crate::number::fast_key(bytes) {
        Some(key) => key,
        // The lexer checked the grammar: the text is ASCII.
        None => crate::number::parse_json(std::str::from_utf8(bytes).unwrap_or_default())
            .ok_or_else(|| lex.error_at(start, "number out of range"))
            .map(|n| crate::number::json_key(&n))?,
    };
    Ok(Scalar::Number(key, Num::Text(bytes)))
}

#[cfg(test)]
mod tests;
