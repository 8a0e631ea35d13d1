//! Object-name templates: `{table}/{date}/{hour}/{first_sequence}-{last_sequence}.ndjson`.
//!
//! Every placeholder comes from the records themselves, never from the clock of
//! the process writing them, so a replayed batch renders the same names and
//! overwrites what it wrote before:
//!
//! | placeholder | value |
//! |---|---|
//! | `{table}` | the table name |
//! | `{date}`, `{hour}` | `YYYY-MM-DD`, `HH` of the record's `ApproximateCreationDateTime` (UTC) |
//! | `{time}` | that time in ISO 8601 with milliseconds, `2019-10-24T13:00:00.000Z` |
//! | `{first_sequence}`, `{last_sequence}` | `SequenceNumber` of the object's first and last record |
//! | `{sequence}` | the record's `SequenceNumber` (one object per record) |
//! | `{keys.<Attr>}` | the value of key attribute `<Attr>` (`S`, `N` or `B` text) |
//! | `{keys}` | every key attribute's value, in attribute-name order, joined by `_` |
//!
//! Values are percent-encoded outside `A-Z a-z 0-9 . _ -`, so a key holding `/`
//! cannot add folders and `..` cannot climb out of a prefix. In batched mode the
//! records of a batch are grouped by everything but the sequence placeholders:
//! a batch that spans two hours under a `{hour}` template becomes two objects.

use chrono::{SecondsFormat, TimeZone, Utc};
use serde::Deserialize;

use crate::error::TemplateError;
use crate::record::Record;

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Table,
    Date,
    Hour,
    Time,
    FirstSequence,
    LastSequence,
    Sequence,
    Key(String),
    Keys,
}

/// A parsed object-name template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyTemplate {
    text: String,
    segments: Vec<Segment>,
}

/// Marks where a sequence placeholder goes until a group's range is known.
const FIRST_MARK: char = '\u{1}';
const LAST_MARK: char = '\u{2}';

impl KeyTemplate {
    /// Parses `text`.
    ///
    /// # Errors
    /// [`TemplateError::UnknownPlaceholder`], [`TemplateError::Unclosed`].
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let mut segments = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                segments.push(Segment::Literal(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| TemplateError::Unclosed {
                    template: text.to_string(),
                    byte: text.len() - rest.len() + open,
                })?;
            let name = &rest[open + 1..open + close];
            segments.push(match name {
                "table" => Segment::Table,
                "date" => Segment::Date,
                "hour" => Segment::Hour,
                "time" => Segment::Time,
                "first_sequence" => Segment::FirstSequence,
                "last_sequence" => Segment::LastSequence,
                "sequence" => Segment::Sequence,
                "keys" => Segment::Keys,
                _ => match name.strip_prefix("keys.") {
                    Some(attr) if !attr.is_empty() => Segment::Key(attr.to_string()),
                    _ => {
                        return Err(TemplateError::UnknownPlaceholder {
                            template: text.to_string(),
                            name: name.to_string(),
                        });
                    }
                },
            });
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            segments.push(Segment::Literal(rest.to_string()));
        }
        Ok(Self {
            text: text.to_string(),
            segments,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether a rendered name can contain key attribute values (which are
    /// kept out of logs unless `log_keys` is on).
    pub fn uses_keys(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::Key(_) | Segment::Keys))
    }

    /// Whether names differ between batches (a sequence placeholder), as
    /// batched objects need.
    pub fn names_batches(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::FirstSequence | Segment::LastSequence))
    }

    /// Whether names differ between records (a sequence or key placeholder),
    /// as one object per record needs.
    pub fn names_records(&self) -> bool {
        self.names_batches()
            || self
                .segments
                .iter()
                .any(|s| matches!(s, Segment::Sequence | Segment::Key(_) | Segment::Keys))
    }

    /// The name of the object that holds `record` alone.
    ///
    /// # Errors
    /// As [`KeyTemplate::group_of`].
    pub fn render_one(&self, record: &Record) -> Result<String, TemplateError> {
        Ok(self.finish(
            &self.group_of(record)?,
            &record.sequence_number,
            &record.sequence_number,
        ))
    }

    /// The record's group: its name with the sequence placeholders still open.
    /// Records of one batch with equal groups go into one object.
    ///
    /// # Errors
    /// [`TemplateError::MissingKey`] when the template names a key attribute
    /// the record does not have, [`TemplateError::NoKeys`] when the record's
    /// JSON has no `dynamodb.Keys`.
    pub fn group_of(&self, record: &Record) -> Result<String, TemplateError> {
        let time = Utc
            .timestamp_millis_opt(record.approximate_creation_millis)
            .single()
            .unwrap_or_default();
        let keys = if self.uses_keys() {
            Some(record_keys(record)?)
        } else {
            None
        };
        let mut out = String::with_capacity(self.text.len() + 48);
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Table => push_encoded(&mut out, &record.table_name),
                Segment::Date => out.push_str(&time.format("%Y-%m-%d").to_string()),
                Segment::Hour => out.push_str(&time.format("%H").to_string()),
                Segment::Time => out.push_str(&time.to_rfc3339_opts(SecondsFormat::Millis, true)),
                Segment::FirstSequence => out.push(FIRST_MARK),
                Segment::LastSequence => out.push(LAST_MARK),
                Segment::Sequence => push_encoded(&mut out, &record.sequence_number),
                Segment::Key(attr) => {
                    let keys = keys.as_deref().unwrap_or_default();
                    let value = keys
                        .iter()
                        .find(|(name, _)| name == attr)
                        .map(|(_, value)| value)
                        .ok_or_else(|| TemplateError::MissingKey {
                            template: self.text.clone(),
                            sequence_number: record.sequence_number.clone(),
                            attribute: attr.clone(),
                        })?;
                    push_encoded(&mut out, value);
                }
                Segment::Keys => {
                    let keys = keys.as_deref().unwrap_or_default();
                    for (i, (_, value)) in keys.iter().enumerate() {
                        if i > 0 {
                            out.push('_');
                        }
                        push_encoded(&mut out, value);
                    }
                }
            }
        }
        Ok(out)
    }

    /// A group's name with its first and last `SequenceNumber` filled in.
    pub fn finish(&self, group: &str, first: &str, last: &str) -> String {
        group.replace(FIRST_MARK, first).replace(LAST_MARK, last)
    }
}

impl<'de> Deserialize<'de> for KeyTemplate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        KeyTemplate::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Key attribute names and their scalar values as text, sorted by name.
fn record_keys(record: &Record) -> Result<Vec<(String, String)>, TemplateError> {
    #[derive(Deserialize)]
    struct Shape {
        dynamodb: Stream,
    }
    #[derive(Deserialize)]
    struct Stream {
        #[serde(rename = "Keys", default)]
        keys: std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    }
    let shape: Shape = serde_json::from_slice(&record.json).map_err(|e| TemplateError::NoKeys {
        sequence_number: record.sequence_number.clone(),
        message: e.to_string(),
    })?;
    Ok(shape
        .dynamodb
        .keys
        .into_iter()
        .map(|(name, value)| {
            let text = value
                .values()
                .next()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_default();
            (name, text)
        })
        .collect())
}

/// Appends `value`, percent-encoding every byte outside `A-Z a-z 0-9 . _ -`, and
/// the dots of a value that is all dots (`.`, `..`).
fn push_encoded(out: &mut String, value: &str) {
    let all_dots = !value.is_empty() && value.bytes().all(|b| b == b'.');
    for byte in value.bytes() {
        if (byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' || byte == b'.')
            && !all_dots
        {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: &str, millis: i64, keys: &str) -> Record {
        Record::new(
            "SessionData".into(),
            seq.into(),
            millis,
            true,
            format!(r#"{{"eventName":"REMOVE","dynamodb":{{"Keys":{keys}}}}}"#).into_bytes(),
        )
    }

    #[test]
    fn renders_every_placeholder_from_the_record() {
        let template = KeyTemplate::parse(
            "{table}/{date}/{hour}/{keys.UserName}/{keys}/{time}-{sequence}-{first_sequence}-{last_sequence}.ndjson",
        )
        .expect("valid");
        let r = record(
            "007",
            1_571_922_000_123,
            r#"{"UserName":{"S":"a/b"},"SessionId":{"N":"42"}}"#,
        );
        let group = template.group_of(&r).expect("render");
        assert_eq!(
            template.finish(&group, "001", "009"),
            "SessionData/2019-10-24/13/a%2Fb/42_a%2Fb/2019-10-24T13:00:00.123Z-007-001-009.ndjson"
        );
        assert_eq!(
            template.render_one(&r).expect("one"),
            "SessionData/2019-10-24/13/a%2Fb/42_a%2Fb/2019-10-24T13:00:00.123Z-007-007-007.ndjson"
        );
    }

    #[test]
    fn bad_templates_and_missing_keys_are_named() {
        let err = KeyTemplate::parse("{tabel}/x")
            .expect_err("unknown")
            .to_string();
        assert!(err.contains("{tabel}"), "{err}");
        let err = KeyTemplate::parse("a/{date")
            .expect_err("unclosed")
            .to_string();
        assert!(err.contains("never closed"), "{err}");
        let template = KeyTemplate::parse("{keys.Missing}").expect("valid");
        let err = template
            .group_of(&record("1", 0, r#"{"pk":{"S":"x"}}"#))
            .expect_err("missing key")
            .to_string();
        assert!(err.contains("`Missing`"), "{err}");
        assert!(
            !err.contains("\"x\""),
            "the value stays out of the message: {err}"
        );
    }

    #[test]
    fn dots_cannot_climb_out_of_a_prefix() {
        let template = KeyTemplate::parse("p/{keys.k}/x").expect("valid");
        let name = template
            .render_one(&record("1", 0, r#"{"k":{"S":".."}}"#))
            .expect("render");
        assert_eq!(name, "p/%2E%2E/x");
        assert!(template.uses_keys() && template.names_records() && !template.names_batches());
    }
}
