//! The field names under one [`crate::compile::PathTrie`] node.
//!
//! Most nodes have a handful of children, and most event keys match none of
//! them: a short list compared by length first rejects a key in a few
//! instructions. Past [`LINEAR_MAX`] names a hash map takes over.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Most children kept as a list before switching to a hash map.
const LINEAR_MAX: usize = 8;

/// Child field names of a trie node, each with the child's node index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Children {
    list: Vec<(Box<[u8]>, usize)>,
    map: HashMap<Box<[u8]>, usize, BuildHasherDefault<FieldHasher>>,
}

impl Children {
    /// The child named `name` (the key's bytes, unescaped).
    #[inline]
    pub(crate) fn get(&self, name: &[u8]) -> Option<usize> {
        if self.map.is_empty() {
            self.list
                .iter()
                .find(|(known, _)| known.len() == name.len() && **known == *name)
                .map(|(_, next)| *next)
        } else {
            self.map.get(name).copied()
        }
    }

    pub(crate) fn insert(&mut self, name: &str, next: usize) {
        let name: Box<[u8]> = name.as_bytes().into();
        if self.map.is_empty() && self.list.len() < LINEAR_MAX {
            self.list.push((name, next));
            return;
        }
        self.map.extend(self.list.drain(..));
        self.map.insert(name, next);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty() && self.map.is_empty()
    }
}

/// A fast, non-cryptographic hasher for field names (FxHash's mixing): the
/// names come from the operator's patterns, and an event's keys are only
/// looked up, never inserted, so flooding is not a concern.
#[derive(Default)]
pub(crate) struct FieldHasher(u64);

impl Hasher for FieldHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0 ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_names_before_and_after_the_switch_to_a_map() {
        let mut children = Children::default();
        assert!(children.is_empty());
        for i in 0..20 {
            children.insert(&format!("field{i}"), i);
            for j in 0..=i {
                assert_eq!(children.get(format!("field{j}").as_bytes()), Some(j));
            }
            assert_eq!(children.get(b"field"), None);
        }
    }
}
