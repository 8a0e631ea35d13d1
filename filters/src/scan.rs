//! Stage 3 from raw bytes: scan event JSON without building a `serde_json::Value`.
//!
//! A `serde` seed walks the [`PathTrie`] alongside the JSON: a field no pattern
//! names is skipped with `IgnoredAny` (still syntax-checked, never stored); a
//! scalar at a named path is recorded with its array [`Trail`]. The result is
//! the same [`Leaves`] that [`crate::event::collect_value`] builds from a
//! `Value`, except that a key repeated within one object contributes every
//! occurrence (as a streaming parser sees them) rather than only the last.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::compile::PathTrie;
use crate::error::EventError;
use crate::event::{Leaves, Scalar, Trail};

/// Scan `bytes` (one JSON object) for the values at the paths in `trie`.
pub(crate) fn collect_bytes(bytes: &[u8], trie: &PathTrie) -> Result<Leaves, EventError> {
    let mut leaves = Leaves::new(trie.path_count());
    let mut trail = Trail::new();
    let mut top = None;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Walk {
        trie,
        node: PathTrie::ROOT,
        leaves: &mut leaves,
        trail: &mut trail,
        top: Some(&mut top),
    }
    .deserialize(&mut de)
    .and_then(|()| de.end())
    .map_err(|err| EventError::from_json(&err))?;
    match top {
        Some(found) => Err(EventError::NotAnObject { found }),
        None => Ok(leaves),
    }
}

/// One position in the walk: a trie node and where the value sits.
struct Walk<'a, 'b> {
    trie: &'a PathTrie,
    node: usize,
    leaves: &'b mut Leaves,
    trail: &'b mut Trail,
    /// At the top level only: set to the JSON type if it is not an object.
    top: Option<&'b mut Option<&'static str>>,
}

impl Walk<'_, '_> {
    fn child(&mut self, node: usize) -> Walk<'_, '_> {
        Walk {
            trie: self.trie,
            node,
            leaves: self.leaves,
            trail: self.trail,
            top: None,
        }
    }

    fn scalar(self, kind: &'static str, value: impl FnOnce() -> Scalar) {
        if let Some(top) = self.top {
            *top = Some(kind);
        } else if let Some(path) = self.trie.node(self.node).path {
            self.leaves.push(path, value(), self.trail);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(name)) = map.next_key()? {
            match self.trie.node(self.node).children.get(name.as_ref()) {
                Some(&next) => map.next_value_seed(self.child(next))?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        if let Some(top) = self.top.take() {
            *top = Some("an array");
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let id = self.leaves.array_id();
        let mut index: u32 = 0;
        loop {
            self.trail.push((id, index));
            let node = self.node;
            let more = seq.next_element_seed(self.child(node))?;
            self.trail.pop();
            if more.is_none() {
                return Ok(());
            }
            index = index.saturating_add(1);
        }
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar("null", || Scalar::Null);
        Ok(())
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.scalar("a boolean", || Scalar::Bool(v));
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.scalar("a number", || Scalar::from_number(&v.into()));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.scalar("a number", || Scalar::from_number(&v.into()));
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.scalar("a number", || {
            serde_json::Number::from_f64(v).map_or(Scalar::Null, |n| Scalar::from_number(&n))
        });
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.scalar("a string", || Scalar::String(v.to_owned()));
        Ok(())
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::compile::compile;
    use crate::pattern::Pattern;

    fn values(pattern: &str, event: &[u8]) -> Result<Vec<Scalar>, EventError> {
        let mut trie = PathTrie::new();
        compile(&Pattern::parse(pattern).unwrap(), &mut trie);
        let leaves = collect_bytes(event, &trie)?;
        Ok(leaves.at.into_iter().flatten().map(|l| l.value).collect())
    }

    #[test]
    fn only_named_fields_are_collected() {
        let got = values(
            r#"{"a": {"b": ["x"]}}"#,
            br#"{"z": [1, {"b": 2}], "a": {"b": "v", "c": 3}}"#,
        );
        assert_eq!(got.unwrap(), vec![Scalar::String("v".to_owned())]);
    }

    #[test]
    fn escaped_keys_are_decoded_and_repeated_keys_all_seen() {
        let got = values(
            r#"{"a\"b": ["x"]}"#,
            br#"{"a\"b": "one", "a\u0022b": "two"}"#,
        );
        assert_eq!(
            got.unwrap(),
            vec![
                Scalar::String("one".to_owned()),
                Scalar::String("two".to_owned())
            ]
        );
    }

    #[test]
    fn syntax_errors_in_skipped_fields_are_still_errors() {
        let err = values(r#"{"a": ["x"]}"#, br#"{"z": [1, }, "a": "x"}"#).unwrap_err();
        assert!(matches!(err, EventError::Json { line: 1, .. }), "{err:?}");
    }
}
