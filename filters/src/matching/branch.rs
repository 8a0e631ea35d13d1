//! Whether one branch of a pattern holds for an event's values.
//!
//! A branch holds when each of its conditions holds, with one proviso for
//! arrays: values taken from different elements of one event array never
//! combine into one match ("array-consistent" matching, `aws/event-ruler`
//! README, "JSON Array Matching"). So the question is whether a value can
//! be chosen for each condition such that every two chosen values lie in
//! the same element of every array they both lie in.
//!
//! `{"exists": false}` follows AWS's matcher exactly. It walks a rule's
//! conditions in the order of their paths (the branch is sorted so at
//! compile time) and keeps the array elements the values chosen so far lie
//! in; a condition holds by absence when no value at its path lies in those
//! elements or outside every array (`ACFinder.tryMustNotExistMatch`,
//! `NameState.getNameTransitions` in `aws/event-ruler`). Absence is thus
//! judged against the conditions whose paths sort before it, not after: with
//! `{"items": {"a": ["x"], "b": [{"exists": false}]}}`, the event
//! `{"items": [{"a": "x"}, {"b": 1}]}` matches (the `b` lies in another
//! element than the chosen `a`), and with the names swapped it does not.
//!
//! The walk in that order is a search over choices; this module runs it
//! breadth-first, keeping for each reachable set of choices only the array
//! elements that a later condition can still meet (a set of `(array,
//! element)` pairs, [`Chosen`]). Arrays nest, so those sets stay few (at most
//! one per value at the paths that share the arrays), and the work is
//! polynomial where a depth-first search over choices is exponential.
//!
//! When no value involved lies in an array, every choice is compatible with
//! every other, and each condition is decided on its own without building
//! any set ([`holds`]' first pass).
//!
//! That first pass stops at a branch's first failing condition, so most
//! tests are never run. Judging instead each distinct condition once per
//! event (conditions many patterns share, such as an `eventName` test, once
//! for all) and then each branch from those judgements made a record of the
//! 10-pattern stream-filter set of `examples/bench.rs` slower (3.15-3.26
//! against 2.93-2.98 µs of CPU, alternating runs, load 4-7): the tests, one
//! `match` on two enums each, are what costs, not finding the values.

use std::collections::BTreeSet;

use super::event::{Leaf, Leaves, Step};
use crate::compile::Condition;

/// The array elements the chosen values lie in: `(array, element)`, sorted
/// by array, one element per array.
type Chosen = Vec<Step>;

/// Whether `branch` (its conditions sorted by path) holds for `leaves`.
pub(crate) fn holds(branch: &[Condition], leaves: &Leaves<'_>) -> bool {
    // First pass: each condition alone. A condition without a satisfying
    // value and without a chance of absence fails the branch; whether any
    // value that can matter lies in an array decides if the search is needed.
    let mut arrays_matter = false;
    for condition in branch {
        let (mut satisfied, mut absence_possible) = (false, condition.absent_ok);
        for leaf in leaves.at(condition.node) {
            let in_array = !leaves.trail(leaf).is_empty();
            if satisfies(condition, leaf) {
                satisfied = true;
                arrays_matter |= in_array;
            }
            if condition.absent_ok {
                // A value outside every array is compatible with any choice.
                absence_possible &= in_array;
                arrays_matter |= in_array;
            }
        }
        if !satisfied && !absence_possible {
            return false;
        }
    }
    !arrays_matter || search(branch, leaves)
}

/// Whether `leaf` satisfies one of `condition`'s tests.
fn satisfies(condition: &Condition, leaf: &Leaf<'_>) -> bool {
    condition.tests.iter().any(|test| test.matches(&leaf.value))
}

/// One condition's ways to hold: the trails of the values that satisfy it,
/// and, when it may hold by absence, the trails of every value at its path.
struct Ways<'l> {
    satisfying: Vec<&'l [Step]>,
    absent: Option<Vec<&'l [Step]>>,
}

/// The walk over the conditions in order, breadth-first over [`Chosen`] sets.
fn search(branch: &[Condition], leaves: &Leaves<'_>) -> bool {
    let ways: Vec<Ways<'_>> = branch
        .iter()
        .map(|condition| Ways {
            satisfying: (leaves.at(condition.node))
                .filter(|leaf| satisfies(condition, leaf))
                .map(|leaf| leaves.trail(leaf))
                .collect(),
            absent: condition.absent_ok.then(|| {
                leaves
                    .at(condition.node)
                    .map(|leaf| leaves.trail(leaf))
                    .collect()
            }),
        })
        .collect();
    // For each condition, the arrays the conditions after it can meet: all
    // a chosen set needs to remember.
    let mut later: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); ways.len()];
    for i in (1..ways.len()).rev() {
        let mut arrays = later[i].clone();
        let trails = ways[i]
            .satisfying
            .iter()
            .chain(ways[i].absent.iter().flatten());
        arrays.extend(trails.flat_map(|trail| trail.iter().map(|step| step.0)));
        later[i - 1] = arrays;
    }
    let mut sets: BTreeSet<Chosen> = BTreeSet::from([Chosen::new()]);
    for (ways, keep) in ways.iter().zip(&later) {
        let mut next = BTreeSet::new();
        for chosen in &sets {
            for trail in &ways.satisfying {
                if compatible_with(chosen, trail) {
                    next.insert(union(chosen, trail, keep));
                }
            }
            if let Some(present) = &ways.absent
                && present.iter().all(|trail| !compatible_with(chosen, trail))
            {
                next.insert(union(chosen, &[], keep));
            }
        }
        if next.is_empty() {
            return false;
        }
        sets = next;
    }
    true
}

/// Whether a value with `trail` lies in the chosen element of every chosen
/// array it lies in.
fn compatible_with(chosen: &[Step], trail: &[Step]) -> bool {
    trail.iter().all(|&(array, element)| {
        chosen
            .iter()
            .find(|step| step.0 == array)
            .is_none_or(|step| step.1 == element)
    })
}

/// `chosen` and `trail` together (compatible), keeping only the arrays in `keep`.
fn union(chosen: &[Step], trail: &[Step], keep: &BTreeSet<u32>) -> Chosen {
    let mut set: Chosen = chosen
        .iter()
        .chain(trail)
        .filter(|step| keep.contains(&step.0))
        .copied()
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Scalar, Test};

    /// One condition at `node` satisfied by the string "x" (and by absence).
    fn condition(node: usize, absent_ok: bool) -> Condition {
        Condition {
            node,
            tests: vec![Test::String("x".to_owned())],
            absent_ok,
        }
    }

    fn x() -> Scalar<'static> {
        Scalar::String("x".into())
    }

    /// Two trails can be chosen together, by the definition: in every array
    /// both lie in, they lie in the same element.
    fn compatible(a: &[Step], b: &[Step]) -> bool {
        a.iter()
            .all(|(array, i)| b.iter().all(|(other, j)| array != other || i == j))
    }

    #[test]
    fn chosen_sets_agree_with_pairwise_compatibility() {
        // Pairwise compatible trails make one consistent set of choices.
        let a: &[Step] = &[(1, 0), (2, 1)];
        let b: &[Step] = &[(1, 0), (3, 4)];
        let keep: BTreeSet<u32> = [1, 2, 3].into();
        let chosen = union(&union(&[], a, &keep), b, &keep);
        for trail in [
            &[(1, 0), (2, 1), (9, 9)][..],
            &[(1, 1)],
            &[(1, 0), (2, 0)],
            &[],
        ] {
            assert_eq!(
                compatible_with(&chosen, trail),
                compatible(a, trail) && compatible(b, trail),
                "{trail:?}"
            );
        }
    }

    #[test]
    fn crafted_conflicts_stay_fast() {
        // Six conditions over 200-element arrays: four independent, the
        // sixth conflicting with the first everywhere. Trying every
        // combination would take 200^5 steps.
        let mut leaves = Leaves::default();
        for i in 0..200u32 {
            leaves.push(0, x(), &[(1, 2 * i)]);
            for k in 1..5 {
                leaves.push(k as usize, x(), &[(k + 1, i)]);
            }
            leaves.push(5, x(), &[(1, 2 * i + 1)]);
        }
        let branch: Vec<Condition> = (0..6).map(|node| condition(node, false)).collect();
        assert!(!holds(&branch, &leaves));
        // An absence at the end that every choice meets: also quick.
        let mut leaves = Leaves::default();
        for i in 0..200u32 {
            for k in 0..4u32 {
                leaves.push(k as usize, x(), &[(1, 0), (k + 2, i)]);
            }
        }
        leaves.push(4, Scalar::Null, &[(1, 0)]);
        let mut branch: Vec<Condition> = (0..4).map(|node| condition(node, false)).collect();
        branch.push(Condition {
            node: 4,
            tests: Vec::new(),
            absent_ok: true,
        });
        assert!(!holds(&branch, &leaves));
    }
}
