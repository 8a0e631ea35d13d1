//! What a pattern requires of one field, and which top-level fields it
//! tests, for callers that can decide a match with less than the whole event
//! (the processor skips writing the JSON of a stream record whose `eventName`
//! no pattern accepts, and matches records without their `dynamodb` member
//! when no pattern names it).

use std::collections::BTreeSet;

use crate::pattern::{FieldPattern, Literal, ObjectPattern, Pattern, ValuePattern};

impl Pattern {
    /// The strings the field at `path` (field names from the top level down)
    /// must hold for an event to match: `Some(set)` when the pattern requires
    /// that field through an array of exact strings only (in its fields or in
    /// every alternative of a `$or` at the same level), so an event with no
    /// value at `path` equal to one of `set` (an array's elements count one
    /// by one, as in matching) does not match. `None` when the pattern accepts
    /// other values there or no value: another operator in the array, a
    /// number, `null`, a `$or` branch without the field, or no such field.
    ///
    /// Exact strings compare as AWS compares them, case-sensitively and
    /// whole ("Content filtering in Amazon EventBridge event patterns",
    /// "Exact matching").
    #[must_use]
    pub fn required_strings(&self, path: &[&str]) -> Option<BTreeSet<String>> {
        required(&self.root, path).map(|set| set.into_iter().map(str::to_owned).collect())
    }

    /// The top-level field names the pattern tests, in its fields and in its
    /// `$or` alternatives, each up to its first `.` (a field named `a.b` is
    /// the field `b` of `a`, as in AWS's matcher). An event's top-level
    /// members whose name, up to its first `.`, is none of these cannot
    /// change whether it matches, so a caller may match a copy of the event
    /// without them.
    #[must_use]
    pub fn top_level_fields(&self) -> BTreeSet<&str> {
        let mut names = BTreeSet::new();
        top_level(&self.root, &mut names);
        names
    }
}

fn top_level<'p>(object: &'p ObjectPattern, names: &mut BTreeSet<&'p str>) {
    names.extend(
        (object.fields.keys())
            .map(|name| name.split_once('.').map_or(name.as_str(), |(top, _)| top)),
    );
    for alternative in object.any_of.iter().flatten() {
        top_level(alternative, names);
    }
}

fn required<'p>(object: &'p ObjectPattern, path: &[&str]) -> Option<BTreeSet<&'p str>> {
    let (head, rest) = path.split_first()?;
    let from_fields = match (object.fields.get(*head), rest.is_empty()) {
        (Some(FieldPattern::Values(values)), true) => exact_strings(values),
        (Some(FieldPattern::Object(inner)), false) => required(inner, rest),
        _ => None,
    };
    // Fields and `$or` are ANDed: either one's requirement holds on its own.
    if from_fields.is_some() {
        return from_fields;
    }
    let alternatives = object.any_of.as_ref()?;
    let mut union = BTreeSet::new();
    for alternative in alternatives {
        union.extend(required(alternative, path)?);
    }
    Some(union)
}

fn exact_strings(values: &[ValuePattern]) -> Option<BTreeSet<&str>> {
    if values.is_empty() {
        return None;
    }
    values
        .iter()
        .map(|value| match value {
            ValuePattern::Exact(Literal::String(s)) => Some(s.as_str()),
            _ => None,
        })
        .collect()
}
