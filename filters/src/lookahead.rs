//! Whether the rest of an event can still hold a value some pattern names,
//! for [`crate::scan`]'s early stop.
//!
//! A field name can be reached only through its key, and a key that decodes to
//! `name` is written either as `"name"` or with an escape. So when the bytes
//! after the walk's position hold neither a `\` nor `"name"` for any name the
//! walk could still meet there, nothing after it can add a value: the walk
//! stops reading. Searches use `memchr`'s SIMD `memmem`, and each name's next
//! occurrence is remembered until the walk passes it, so each byte is searched
//! about once per name.

use memchr::memmem::Finder;

/// The quoted field names of a [`crate::compile::PathTrie`], each with a searcher.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    finders: Vec<Finder<'static>>,
    ids: std::collections::HashMap<String, u32>,
}

impl Names {
    /// The id of `name`, interned on first sight.
    pub(crate) fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.finders.len()).unwrap_or(u32::MAX);
        let quoted = format!("\"{name}\"");
        self.finders
            .push(Finder::new(quoted.as_bytes()).into_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    pub(crate) fn len(&self) -> usize {
        self.finders.len()
    }
}

/// A remembered search: the first hit at or after `from` (`None`: no hit
/// from `from` to the end).
#[derive(Clone, Copy)]
struct Hit {
    from: usize,
    at: Option<usize>,
}

impl Hit {
    const UNKNOWN: Hit = Hit {
        from: usize::MAX,
        at: None,
    };

    /// The remembered answer for a search from `pos`, if it still holds.
    fn answer(self, pos: usize) -> Option<Option<usize>> {
        match self.at {
            _ if self.from > pos => None,
            Some(at) if at < pos => None,
            at => Some(at),
        }
    }
}

/// Per-event search state.
pub(crate) struct Lookahead {
    names: Vec<Hit>,
    backslash: Hit,
}

impl Lookahead {
    pub(crate) fn new(names: &Names) -> Self {
        Self {
            names: vec![Hit::UNKNOWN; names.len()],
            backslash: Hit::UNKNOWN,
        }
    }

    /// Whether `"name"` (by id) occurs in `bytes` at or after `pos`.
    pub(crate) fn name_ahead(&mut self, names: &Names, id: u32, bytes: &[u8], pos: usize) -> bool {
        let slot = id as usize;
        let (Some(hit), Some(finder)) = (self.names.get_mut(slot), names.finders.get(slot)) else {
            return true;
        };
        if let Some(at) = hit.answer(pos) {
            return at.is_some();
        }
        let at = bytes
            .get(pos..)
            .and_then(|rest| finder.find(rest))
            .map(|i| pos + i);
        *hit = Hit { from: pos, at };
        at.is_some()
    }

    /// Whether a `\` occurs in `bytes` at or after `pos`.
    pub(crate) fn backslash_ahead(&mut self, bytes: &[u8], pos: usize) -> bool {
        if let Some(at) = self.backslash.answer(pos) {
            return at.is_some();
        }
        let at = bytes
            .get(pos..)
            .and_then(|rest| memchr::memchr(b'\\', rest))
            .map(|i| pos + i);
        self.backslash = Hit { from: pos, at };
        at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_names_and_backslashes_ahead_only() {
        let mut names = Names::default();
        let a = names.intern("a");
        assert_eq!(names.intern("a"), a);
        let b = names.intern("b");
        let bytes = br#"{"a": 1, "b": "x\"", "a": 2}"#;
        let mut ahead = Lookahead::new(&names);
        assert!(ahead.name_ahead(&names, a, bytes, 0));
        assert!(ahead.name_ahead(&names, a, bytes, 2));
        assert!(ahead.name_ahead(&names, a, bytes, 20));
        assert!(!ahead.name_ahead(&names, a, bytes, 22));
        assert!(ahead.name_ahead(&names, a, bytes, 5));
        assert!(ahead.name_ahead(&names, b, bytes, 0));
        assert!(!ahead.name_ahead(&names, b, bytes, 10));
        assert!(ahead.backslash_ahead(bytes, 0));
        assert!(ahead.backslash_ahead(bytes, 16));
        assert!(!ahead.backslash_ahead(bytes, 17));
    }
}
