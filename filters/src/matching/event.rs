//! What reading an event yields: the scalar values at the paths some
//! pattern names ([`Leaves`]), each with the array elements it lies in.

use std::ops::Range;

use crate::compile::{NodeId, Scalar};

/// `(array, element index)` for one array enclosing a value: arrays are
/// numbered in the order the reader meets them.
pub(crate) type Step = (u32, u32);

/// One scalar value found at a path some condition tests.
#[derive(Debug)]
pub(crate) struct Leaf<'a> {
    /// The path's trie node.
    pub(crate) node: NodeId,
    pub(crate) value: Scalar<'a>,
    /// Where its trail lies in [`Leaves::trails`].
    trail: Range<usize>,
}

/// The values of one event at the paths conditions test, in event order.
///
/// Every value carries its trail: the arrays enclosing it, outermost first,
/// and the element of each it lies in. Two values can be taken together in
/// one match only where they lie in the same element of every array they
/// both lie in ([`super::branch`]).
#[derive(Debug, Default)]
pub(crate) struct Leaves<'a> {
    leaves: Vec<Leaf<'a>>,
    /// Every leaf's trail, back to back.
    trails: Vec<Step>,
}

impl<'a> Leaves<'a> {
    /// Room for the values of a typical event without growing.
    pub(crate) fn new() -> Self {
        Self {
            leaves: Vec::with_capacity(16),
            trails: Vec::new(),
        }
    }

    /// Keep `value`, found at `node` inside the array elements of `trail`.
    pub(crate) fn push(&mut self, node: NodeId, value: Scalar<'a>, trail: &[Step]) {
        let start = self.trails.len();
        self.trails.extend_from_slice(trail);
        self.leaves.push(Leaf {
            node,
            value,
            trail: start..self.trails.len(),
        });
    }

    /// The values at `node`, in event order.
    pub(crate) fn at(&self, node: NodeId) -> impl Iterator<Item = &Leaf<'a>> + Clone {
        self.leaves.iter().filter(move |leaf| leaf.node == node)
    }

    /// The array elements `leaf` (one of these leaves) lies in.
    pub(crate) fn trail(&self, leaf: &Leaf<'_>) -> &[Step] {
        self.trails.get(leaf.trail.clone()).unwrap_or_default()
    }
}
