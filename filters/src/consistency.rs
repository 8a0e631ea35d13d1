//! Can one value per condition be chosen so that no two come from different
//! elements of one event array?
//!
//! Each candidate value is given by its array trail (see [`crate::event`]).
//! Plain backtracking over candidates is exponential on crafted events, so the
//! solver works level by level instead: a condition with a value outside any
//! (remaining) array is satisfied by it; the others are grouped by the
//! outermost array they lie in; groups are independent; within a group, some
//! element of the array must satisfy every condition, which is the same
//! question one level deeper. Each candidate is looked at once per level.

use std::collections::BTreeMap;

use crate::event::compatible;

/// A candidate's remaining array trail.
pub(crate) type Candidate<'a> = &'a [(u32, u32)];

/// Whether one candidate per condition can be chosen, pairwise compatible.
pub(crate) fn satisfiable(conditions: &[Vec<Candidate<'_>>]) -> bool {
    let mut groups: BTreeMap<u32, Vec<&Vec<Candidate<'_>>>> = BTreeMap::new();
    for candidates in conditions {
        if candidates.is_empty() {
            return false;
        }
        if candidates.iter().any(|trail| trail.is_empty()) {
            // Outside every remaining array: compatible with any choice.
            continue;
        }
        let Some(&[(top, _), ..]) = candidates.first().copied() else {
            continue;
        };
        if candidates
            .iter()
            .any(|trail| trail.first().map(|t| t.0) != Some(top))
        {
            // Only when an object repeats a key (bytes input): values of one
            // path under different arrays. Rare; fall back to search.
            return backtrack(conditions, &mut Vec::new());
        }
        groups.entry(top).or_default().push(candidates);
    }
    groups.values().all(|group| some_element_satisfies(group))
}

/// Within one array: does some element hold a candidate for every condition
/// (consistently, one level deeper)?
fn some_element_satisfies(group: &[&Vec<Candidate<'_>>]) -> bool {
    let mut by_element: BTreeMap<u32, Vec<Vec<Candidate<'_>>>> = BTreeMap::new();
    for (k, candidates) in group.iter().enumerate() {
        for trail in candidates.iter() {
            if let Some(((_, index), rest)) = trail.split_first() {
                let slots = by_element
                    .entry(*index)
                    .or_insert_with(|| vec![Vec::new(); group.len()]);
                slots[k].push(rest);
            }
        }
    }
    by_element
        .values()
        .any(|slots| slots.iter().all(|s| !s.is_empty()) && satisfiable(slots))
}

/// Exhaustive search; used only for repeated keys.
fn backtrack<'a>(conditions: &[Vec<Candidate<'a>>], chosen: &mut Vec<Candidate<'a>>) -> bool {
    let Some((first, rest)) = conditions.split_first() else {
        return true;
    };
    for trail in first {
        if chosen.iter().all(|c| compatible(c, trail)) {
            chosen.push(trail);
            if backtrack(rest, chosen) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_arrays_and_conflicts() {
        let a0: &[(u32, u32)] = &[(1, 0)];
        let a1: &[(u32, u32)] = &[(1, 1)];
        let b0: &[(u32, u32)] = &[(2, 0)];
        let free: &[(u32, u32)] = &[];
        assert!(satisfiable(&[vec![a0], vec![b0]]));
        assert!(!satisfiable(&[vec![a0], vec![a1]]));
        assert!(satisfiable(&[vec![a0, a1], vec![a1]]));
        assert!(satisfiable(&[vec![a0], vec![free]]));
        assert!(!satisfiable(&[vec![a0], vec![]]));
        assert!(satisfiable(&[]));
    }

    #[test]
    fn crafted_conflicts_stay_fast() {
        // 6 conditions over 200-element arrays: 5 independent, the 6th conflicts
        // with the first everywhere. Backtracking would try 200^5 combinations.
        let n = 200u32;
        let trails: Vec<Vec<Vec<(u32, u32)>>> = (0..6u32)
            .map(|k| {
                (0..n)
                    .map(|i| match k {
                        0 => vec![(1, 2 * i)],
                        5 => vec![(1, 2 * i + 1)],
                        _ => vec![(k + 1, i)],
                    })
                    .collect()
            })
            .collect();
        let conditions: Vec<Vec<Candidate<'_>>> = trails
            .iter()
            .map(|c| c.iter().map(Vec::as_slice).collect())
            .collect();
        assert!(!satisfiable(&conditions));
    }
}
