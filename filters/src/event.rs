//! Stage 3: event -> the scalar values at the paths some pattern names.
//!
//! Only fields named in the [`PathTrie`] are visited. Arrays are transparent:
//! each element is visited at the array's own path, and every value records
//! which element of which array it came from (its [`Trail`]), so that values
//! from different elements of one array never combine into one match.

use std::borrow::Cow;

use serde_json::Value;

use crate::compile::PathTrie;

/// A scalar event value, as the tests see it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    /// A number: its comparison key (`None` outside `-5e9..=5e9`), and the
    /// number itself, needed only for exact matches outside that range.
    Number(Option<i64>, Num<'a>),
    /// Borrowed from the event where it needs no unescaping.
    String(Cow<'a, str>),
}

impl Scalar<'_> {
    pub(crate) fn from_number(n: &serde_json::Number) -> Self {
        Self::Number(crate::number::json_key(n), Num::Parsed(n.clone()))
    }
}

/// An event number as parsed, or as its text (grammar checked) to parse on demand.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Num<'a> {
    Parsed(serde_json::Number),
    Text(&'a [u8]),
}

impl Num<'_> {
    /// The number as `serde_json` reads it (`None` only for text beyond `f64`,
    /// which the scanner has already rejected).
    pub(crate) fn number(&self) -> Option<serde_json::Number> {
        match self {
            Self::Parsed(n) => Some(n.clone()),
            Self::Text(text) => std::str::from_utf8(text)
                .ok()
                .and_then(crate::number::parse_json),
        }
    }
}

/// `(array id, element index)` for each array enclosing a value, outermost first.
pub(crate) type Trail = Vec<(u32, u32)>;

/// One scalar found at a named path.
#[derive(Debug, Clone)]
pub(crate) struct Leaf<'a> {
    pub(crate) value: Scalar<'a>,
    /// The tests at its path that it satisfies
    /// ([`crate::compile::TrieNode::matching_tests`]).
    pub(crate) tests: u64,
    /// Where its trail lies in [`Leaves::trails`] (one arena per event, so
    /// recording a value inside arrays allocates nothing of its own).
    pub(crate) trail: std::ops::Range<usize>,
    /// The next leaf at the same path ([`NONE`] for the last).
    next: u32,
}

/// No leaf.
const NONE: u32 = u32::MAX;

/// In [`Leaves::ends`], a path with no leaf but some value: `(NONE, SEEN)`.
const SEEN: u32 = 0;

/// Whether two values can belong to one match: wherever they lie in the same
/// array, they lie in the same element of it.
pub(crate) fn compatible(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x.0 != y.0 {
            // Different arrays from here down: arrays nest, so no deeper one is shared.
            return true;
        }
        if x.1 != y.1 {
            return false;
        }
    }
    true
}

/// Deepest nesting of arrays and objects followed; deeper values are ignored.
const MAX_DEPTH: usize = 512;

/// Scalars at each interned path of `trie`, by path id.
///
/// All leaves lie in one list, each path's chained through [`Leaf::next`], so
/// that an event allocates nothing once the buffers have grown
/// ([`Buffers`] keeps them between events).
pub(crate) struct Leaves<'a> {
    leaves: Vec<Leaf<'a>>,
    /// Per path: its first and last leaf (`(NONE, NONE)` when no value was
    /// found there, `(NONE, SEEN)` when values were but none is kept), and
    /// the tests its leaves satisfy, ORed (a condition known by test bits
    /// is met when these meet its mask).
    ends: Vec<(u32, u32, u64)>,
    /// Every leaf's array trail, back to back.
    trails: Trail,
    next_array: u32,
    /// The byte walk's own buffers, kept for the next event.
    pub(crate) spare: Spare,
}

/// The byte walk's own buffers: its array trail, its open objects, the
/// look-ahead's quoted names, and what the gated pass over an array of
/// numbers finds (made once: zeroing its 409 bytes per event cost a
/// `memset` call).
pub(crate) type Spare = (
    Trail,
    Vec<usize>,
    Vec<(usize, u32)>,
    Option<Box<crate::classify::Gated>>,
);

/// Buffers of one event's [`Leaves`], kept for the next event's.
#[derive(Default)]
pub(crate) struct Buffers {
    leaves: Vec<Leaf<'static>>,
    ends: Vec<(u32, u32, u64)>,
    trails: Trail,
    spare: Spare,
}

/// `vec` emptied and retyped for another lifetime, its buffer kept. (It
/// was std's in-place `into_iter().filter_map(|_| None).collect()`, whose
/// code the compiler folded away or left as some 50 instructions and a
/// call per use, depending on how the crate happened to be split into
/// codegen units: about 5 % of the mixed set's CPU either way.)
#[inline]
fn recycle<'b>(mut vec: Vec<Leaf<'_>>) -> Vec<Leaf<'b>> {
    vec.clear();
    let mut vec = std::mem::ManuallyDrop::new(vec);
    let (buffer, capacity) = (vec.as_mut_ptr(), vec.capacity());
    // SAFETY: `buffer` and `capacity` are those of a `Vec` that is not
    // dropped (`ManuallyDrop`), so the allocation passes to the new one
    // whole; it holds no element (length 0, after `clear`), and
    // `Leaf<'a>` and `Leaf<'b>` differ only in a lifetime: the same
    // layout, so the allocation's layout is the new `Vec`'s.
    #[allow(unsafe_code)]
    unsafe {
        Vec::from_raw_parts(buffer.cast::<Leaf<'b>>(), 0, capacity)
    }
}

impl<'a> Leaves<'a> {
    pub(crate) fn new(paths: usize) -> Self {
        Self::reuse(paths, &mut Buffers::default())
    }

    /// Empty leaves for `paths` paths in `buffers`' storage (taken field by
    /// field: moving the whole of `Buffers` costs a `memcpy` call).
    #[inline(always)]
    pub(crate) fn reuse(paths: usize, buffers: &mut Buffers) -> Self {
        let leaves = std::mem::take(&mut buffers.leaves);
        let mut ends = std::mem::take(&mut buffers.ends);
        let mut trails = std::mem::take(&mut buffers.trails);
        // The byte walk empties its own buffers (`spare`) when it takes them.
        let spare = std::mem::take(&mut buffers.spare);
        ends.clear();
        ends.resize(paths, (NONE, NONE, 0));
        trails.clear();
        Self {
            leaves: recycle(leaves),
            ends,
            trails,
            next_array: 0,
            spare,
        }
    }

    /// Give the storage back to `buffers`, for [`Leaves::reuse`]: the
    /// leaves keep `buffers`' empty ones (taken there), so that the caller
    /// need not drop them (see [`crate::Matcher`]'s `scan_in`). In place:
    /// moving the leaves into a call costs a `memcpy` call.
    #[inline(always)]
    pub(crate) fn restore(&mut self, buffers: &mut Buffers) {
        buffers.leaves = recycle(std::mem::take(&mut self.leaves));
        std::mem::swap(&mut buffers.ends, &mut self.ends);
        std::mem::swap(&mut buffers.trails, &mut self.trails);
        std::mem::swap(&mut buffers.spare, &mut self.spare);
    }

    /// The leaves at `path`, in event order.
    pub(crate) fn at(&self, path: usize) -> impl Iterator<Item = &Leaf<'a>> + Clone {
        let mut next = self.ends.get(path).map_or(NONE, |e| e.0);
        std::iter::from_fn(move || {
            let leaf = self.leaves.get(next as usize)?;
            next = leaf.next;
            Some(leaf)
        })
    }

    /// Every value, in event order.
    #[cfg(test)]
    pub(crate) fn into_values(self) -> Vec<Scalar<'a>> {
        self.leaves.into_iter().map(|l| l.value).collect()
    }

    /// The tests that some value kept at `path` satisfies (bits as in
    /// [`Leaf::tests`], ORed over its leaves).
    #[inline]
    pub(crate) fn tests_at(&self, path: usize) -> u64 {
        self.ends.get(path).map_or(0, |e| e.2)
    }

    /// Whether some value was found at `path` (kept or not).
    pub(crate) fn any_at(&self, path: usize) -> bool {
        self.ends
            .get(path)
            .is_some_and(|e| (e.0, e.1) != (NONE, NONE))
    }

    /// Note that a value no test at `path` accepts was found there: it
    /// counts for `{"exists": false}`, and is not kept.
    pub(crate) fn mark(&mut self, path: usize) {
        if let Some(ends) = self.ends.get_mut(path)
            && ends.0 == NONE
        {
            ends.1 = SEEN;
        }
    }

    /// The array trail of `leaf` (one of this event's leaves).
    pub(crate) fn trail(&self, leaf: &Leaf<'_>) -> &[(u32, u32)] {
        self.trails.get(leaf.trail.clone()).unwrap_or_default()
    }

    /// A fresh id for the next array met.
    pub(crate) fn array_id(&mut self) -> u32 {
        self.next_array = self.next_array.wrapping_add(1);
        self.next_array
    }

    /// Keep `value`, found at `path` inside the arrays of `trail`, when it
    /// satisfies some test there (`tests`, as
    /// [`crate::compile::TrieNode::matching_tests`] gives them, is not
    /// zero); else [`Leaves::mark`] the path.
    #[inline]
    pub(crate) fn keep(&mut self, path: usize, value: Scalar<'a>, trail: &Trail, tests: u64) {
        if tests == 0 {
            self.mark(path);
        } else {
            self.push(path, value, trail, tests);
        }
    }

    /// Inlined into [`Leaves::keep`] (so into the byte walk's `record`):
    /// as a call it saved and restored six registers and copied the
    /// 40-byte value to the stack for about 25 of its 71 instructions.
    #[inline(always)]
    fn push(&mut self, path: usize, value: Scalar<'a>, trail: &Trail, tests: u64) {
        let Ok(index) = u32::try_from(self.leaves.len()) else {
            return;
        };
        let Some(ends) = self.ends.get_mut(path) else {
            return;
        };
        let start = self.trails.len();
        self.trails.extend_from_slice(trail);
        self.leaves.push(Leaf {
            value,
            tests,
            trail: start..self.trails.len(),
            next: NONE,
        });
        if ends.0 == NONE {
            ends.0 = index;
        } else if let Some(last) = self.leaves.get_mut(ends.1 as usize) {
            last.next = index;
        }
        ends.1 = index;
        ends.2 |= tests;
    }
}

/// Collect the scalars of a parsed event at the paths in `trie`.
///
/// A non-object event has no fields, so it yields no values.
pub(crate) fn collect_value<'a>(event: &'a Value, trie: &PathTrie) -> Leaves<'a> {
    let mut leaves = Leaves::new(trie.path_count());
    if let Value::Object(_) = event {
        visit(event, PathTrie::ROOT, trie, &mut Vec::new(), &mut leaves, 0);
    }
    leaves
}

fn visit<'a>(
    value: &'a Value,
    node: usize,
    trie: &PathTrie,
    trail: &mut Trail,
    leaves: &mut Leaves<'a>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let here = trie.node(node);
    match value {
        Value::Object(map) => {
            for (name, child) in map {
                if let Some(next) = here.children.get(name.as_bytes()) {
                    visit(child, next, trie, trail, leaves, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let id = leaves.array_id();
            for (i, item) in items.iter().enumerate() {
                trail.push((id, u32::try_from(i).unwrap_or(u32::MAX)));
                visit(item, node, trie, trail, leaves, depth + 1);
                trail.pop();
            }
        }
        scalar => {
            if let Some(path) = here.path {
                let value = match scalar {
                    Value::Bool(b) => Scalar::Bool(*b),
                    Value::Number(n) => Scalar::from_number(n),
                    Value::String(s) => Scalar::String(Cow::Borrowed(s)),
                    _ => Scalar::Null,
                };
                let tests = here.matching_tests(&value);
                leaves.keep(path, value, trail, tests);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An owned string leaf, for `recycle`'s test.
    fn owned(text: &str) -> Leaf<'static> {
        Leaf {
            value: Scalar::String(std::borrow::Cow::Owned(text.to_owned())),
            tests: 1,
            trail: 0..0,
            next: NONE,
        }
    }

    #[test]
    fn recycled_leaves_are_empty_and_keep_their_buffer() {
        let mut leaves = vec![owned("a"), owned("bc")];
        leaves.reserve(10);
        let (buffer, capacity) = (leaves.as_ptr().cast::<u8>(), leaves.capacity());
        let event = String::from("x");
        let mut again: Vec<Leaf<'_>> = recycle(leaves);
        assert!(again.is_empty());
        assert_eq!(
            (again.as_ptr().cast::<u8>(), again.capacity()),
            (buffer, capacity)
        );
        again.push(Leaf {
            value: Scalar::String(std::borrow::Cow::Borrowed(&event)),
            ..owned("")
        });
        assert_eq!(recycle(again).capacity(), capacity);
        assert!(recycle(Vec::new()).is_empty());
    }

    #[test]
    fn trails_conflict_only_within_one_array() {
        assert!(compatible(&[(1, 0)], &[(1, 0), (2, 5)]));
        assert!(!compatible(&[(1, 0)], &[(1, 1)]));
        assert!(compatible(&[(1, 0), (2, 0)], &[(1, 0), (3, 1)]));
        assert!(compatible(&[], &[(1, 1)]));
        assert!(!compatible(&[(1, 0), (2, 0)], &[(1, 0), (2, 1)]));
    }
}
