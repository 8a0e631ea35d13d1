//! Stage 2, compile: [`Pattern`]s -> one [`Trie`] of the field names they
//! name, and each pattern's branches of [`Condition`]s.
//!
//! A pattern is expanded through its `$or`s into branches; a branch is a list
//! of conditions, one per field path it names, all of which must hold, and
//! the pattern matches when one branch does. A field path is a list of names
//! from the event's top level down; every path of every pattern is a node of
//! one shared [`Trie`], so reading an event visits only the fields some
//! pattern names ([`crate::matching`]).
//!
//! A field name with a dot is a path of several names: AWS's matcher joins
//! the names of a path with `.` and compares the joined strings, so the
//! pattern fields `{"a.b": ...}` and `{"a": {"b": ...}}` name the same
//! field, and so do the event keys `"a.b"` and `{"a": {"b": ...}}`
//! (`aws/event-ruler` README, "Caveat: Compiled rules and JSON keys with
//! dots"). The trie holds the names split at the dots, and the event reader
//! splits keys the same way.
//!
//! A branch's conditions are sorted by their joined path, as AWS's matcher
//! orders a rule's fields (`GenericMachine.addPatternRule` sorts the keys):
//! the order matters for `{"exists": false}` inside arrays
//! ([`crate::matching::branch`]).

mod test;

pub(crate) use test::{Scalar, Test};

use crate::pattern::{FieldPattern, ObjectPattern, Pattern, ValuePattern};

/// Index of a [`Trie`] node: one field path.
pub(crate) type NodeId = usize;

/// The field paths some pattern names, as a tree of names from the event's
/// top level.
#[derive(Debug, Clone)]
pub(crate) struct Trie {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, Default)]
struct Node {
    /// The next names along some path, each with its node (a list: most
    /// nodes have a few children, found by comparing lengths first).
    children: Vec<(Box<[u8]>, NodeId)>,
    /// Whether some condition looks at the values at exactly this path.
    tested: bool,
}

impl Trie {
    /// The node of the event's top-level object.
    pub(crate) const ROOT: NodeId = 0;

    pub(crate) fn new() -> Self {
        Self {
            nodes: vec![Node::default()],
        }
    }

    /// The node of `path` (names, each split at its dots), added if new,
    /// marked as tested.
    fn intern(&mut self, path: &[String]) -> NodeId {
        let mut at = Self::ROOT;
        for name in path.iter().flat_map(|name| name.split('.')) {
            at = match self.child(at, name.as_bytes()) {
                Some(next) => next,
                None => {
                    self.nodes.push(Node::default());
                    let next = self.nodes.len() - 1;
                    self.nodes[at].children.push((name.as_bytes().into(), next));
                    next
                }
            };
        }
        self.nodes[at].tested = true;
        at
    }

    /// The node an event key leads to from `node`: the key split at its dots,
    /// each part a child name. `None` when no pattern names that field.
    ///
    /// One look at each child: a child name (never holding a dot) that is
    /// the key, or the key's part before its first dot. The byte after the
    /// name's length in the key (none, or a dot) rules out most children
    /// before their bytes are compared.
    ///
    /// Measured on the 10-pattern stream-filter set of `examples/bench.rs`
    /// and not taken: hashing the key (its length, first, middle and last
    /// bytes) to a bucket of children made a record slower (3.22 against
    /// 2.90 µs of CPU), and a 256-bit set of the children's first bytes,
    /// tested first, gained under 1 % (alternating runs, load 3-6).
    pub(crate) fn follow(&self, node: NodeId, key: &[u8]) -> Option<NodeId> {
        for (name, next) in &self.nodes.get(node)?.children {
            match key.get(name.len()) {
                None if key.len() == name.len() && starts_with(key, name) => return Some(*next),
                Some(b'.') if starts_with(key, name) => {
                    return self.follow(*next, key.get(name.len() + 1..)?);
                }
                _ => {}
            }
        }
        None
    }

    /// The child of `node` named `name` (no dot in it).
    fn child(&self, node: NodeId, name: &[u8]) -> Option<NodeId> {
        let children = &self.nodes.get(node)?.children;
        children
            .iter()
            .find(|(child, _)| **child == *name)
            .map(|&(_, next)| next)
    }

    /// Whether some pattern names a field below `node`.
    pub(crate) fn has_children(&self, node: NodeId) -> bool {
        self.nodes.get(node).is_some_and(|n| !n.children.is_empty())
    }

    /// Whether some condition looks at the values at `node`.
    pub(crate) fn is_tested(&self, node: NodeId) -> bool {
        self.nodes.get(node).is_some_and(|n| n.tested)
    }
}

/// Whether `text` begins with `head`, compared byte by byte inline.
///
/// Event keys ([`Trie::follow`]) and string values ([`Test::matches`]) are
/// short and mostly differ from what they are compared with in their first
/// byte, or have another length. `<[u8]>::starts_with` and `==` call
/// `memcmp` for every comparison of equal or longer length, and on the
/// 10-pattern stream-filter set of `examples/bench.rs` those calls were
/// about 6 % of the instructions and 18 % of the CPU samples.
pub(crate) fn starts_with(text: &[u8], head: &[u8]) -> bool {
    text.len() >= head.len() && head.iter().zip(text).all(|(a, b)| a == b)
}

/// What the values at one field path must satisfy, in one branch.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The path's node in the [`Trie`].
    pub(crate) node: NodeId,
    /// A value at the path that satisfies any of these satisfies the condition.
    pub(crate) tests: Vec<Test>,
    /// `{"exists": false}` was among the match values: no value at the path
    /// also satisfies the condition.
    pub(crate) absent_ok: bool,
}

/// A pattern's alternative branches (ORed), each a list of conditions (ANDed),
/// sorted by path.
pub(crate) type Branches = Vec<Vec<Condition>>;

/// Compile `pattern`, adding the paths it names to `trie`.
pub(crate) fn compile(pattern: &Pattern, trie: &mut Trie) -> Branches {
    let mut branches = expand(&pattern.root, &mut Vec::new());
    for branch in &mut branches {
        branch.sort_by(|a, b| utf16_order(&a.0, &b.0));
    }
    branches
        .into_iter()
        .map(|branch| {
            branch
                .into_iter()
                .map(|(path, values)| condition(trie.intern(&path), values))
                .collect()
        })
        .collect()
}

/// A branch before its paths are interned: each condition's path (names)
/// and match values.
type RawBranch<'p> = Vec<(Vec<String>, &'p [ValuePattern])>;

/// Every branch of `object`, reached at `path`.
fn expand<'p>(object: &'p ObjectPattern, path: &mut Vec<String>) -> Vec<RawBranch<'p>> {
    let mut branches: Vec<RawBranch<'p>> = vec![Vec::new()];
    for (name, field) in &object.fields {
        path.push(name.clone());
        match field {
            FieldPattern::Values(values) => {
                for branch in &mut branches {
                    branch.push((path.clone(), values.as_slice()));
                }
            }
            FieldPattern::Object(inner) => branches = cross(&branches, &expand(inner, path)),
        }
        path.pop();
    }
    if let Some(alternatives) = &object.any_of {
        let any: Vec<RawBranch<'p>> = alternatives
            .iter()
            .flat_map(|alternative| expand(alternative, path))
            .collect();
        branches = cross(&branches, &any);
    }
    branches
}

/// Every concatenation of one branch of `a` with one of `b`.
fn cross<'p>(a: &[RawBranch<'p>], b: &[RawBranch<'p>]) -> Vec<RawBranch<'p>> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| x.iter().chain(y).cloned().collect()))
        .collect()
}

fn condition(node: NodeId, values: &[ValuePattern]) -> Condition {
    Condition {
        node,
        tests: values.iter().filter_map(Test::new).collect(),
        absent_ok: values.contains(&ValuePattern::Exists(false)),
    }
}

/// Paths in the order AWS's matcher sorts field names: the names joined
/// with `.`, compared as Java compares strings (by UTF-16 code unit).
fn utf16_order(a: &[String], b: &[String]) -> std::cmp::Ordering {
    let joined = |path: &[String]| path.join(".");
    joined(a).encode_utf16().cmp(joined(b).encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &[&str]) -> Vec<String> {
        path.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn dotted_names_and_nested_names_are_one_path() {
        let mut trie = Trie::new();
        let dotted = trie.intern(&names(&["a.b"]));
        let nested = trie.intern(&names(&["a", "b"]));
        assert_eq!(dotted, nested);
        assert_eq!(trie.follow(Trie::ROOT, b"a.b"), Some(nested));
        let a = trie.follow(Trie::ROOT, b"a").unwrap_or(usize::MAX);
        assert_eq!(trie.follow(a, b"b"), Some(nested));
        assert_eq!(trie.follow(Trie::ROOT, b"a.c"), None);
        assert!(!trie.is_tested(a));
        assert!(trie.is_tested(nested));
    }

    #[test]
    fn a_key_leads_to_the_child_named_as_its_part_before_a_dot() {
        let mut trie = Trie::new();
        let a = trie.intern(&names(&["a"]));
        let c = trie.intern(&names(&["ab", "c"]));
        let ab = trie.follow(Trie::ROOT, b"ab");
        assert_eq!(trie.follow(Trie::ROOT, b"a"), Some(a));
        assert_eq!(trie.follow(Trie::ROOT, b"ab.c"), Some(c));
        assert_eq!(ab.and_then(|ab| trie.follow(ab, b"c")), Some(c));
        for key in [
            &b"abc"[..],
            b"b",
            b"",
            b"a.",
            b"ab.",
            b"ab.cd",
            b"ab.c.d",
            b"A",
            b"ab c",
        ] {
            assert_eq!(trie.follow(Trie::ROOT, key), None, "{key:?}");
        }
    }

    #[test]
    fn paths_sort_as_java_strings() {
        // U+FF61 is above the surrogates that encode U+1F600 in UTF-16, below them in UTF-8.
        let order = utf16_order(&names(&["\u{ff61}"]), &names(&["\u{1f600}"]));
        assert_eq!(order, std::cmp::Ordering::Greater);
        assert_eq!(
            utf16_order(&names(&["a", "b"]), &names(&["a-b"])),
            std::cmp::Ordering::Greater
        );
    }
}
