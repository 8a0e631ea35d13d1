//! Reading NDJSON stream records line by line, keeping the line and byte offset.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::OnMalformed;
use crate::error::SourceError;
use crate::metrics::names;
use crate::record::Record;
use crate::sources::ReadLimits;
use crate::sources::event_record::parse_record;

/// A position in a replay file: lines and bytes consumed from its start.
/// Written in the checkpoint as `<line>:<byte>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offset {
    /// Lines consumed (the next line is `line + 1`, 1-based).
    pub line: u64,
    /// Bytes consumed.
    pub byte: u64,
}

impl Offset {
    /// The checkpoint token, `<line>:<byte>`.
    pub fn token(&self) -> String {
        format!("{}:{}", self.line, self.byte)
    }

    /// Parses a checkpoint token; `None` when it is not `<line>:<byte>`.
    pub fn parse(token: &str) -> Option<Offset> {
        let (line, byte) = token.split_once(':')?;
        Some(Offset {
            line: line.parse().ok()?,
            byte: byte.parse().ok()?,
        })
    }
}

enum Input {
    File(BufReader<File>),
    Stdin(BufReader<std::io::Stdin>),
}

/// Where a read stops.
#[derive(Clone, Copy, Debug)]
pub(super) enum Until {
    /// After the line that brings the batch to `max_records` records or
    /// `max_bytes` bytes of NDJSON, or at the end.
    Limits(ReadLimits),
    /// At this byte offset exactly (the replay of an in-flight batch).
    Byte(u64),
}

/// Reads records line by line from a file or stdin.
pub(super) struct LineReader {
    path: PathBuf,
    input: Input,
    offset: Offset,
    /// A line read but left for the next read (its records would have
    /// passed a limit); `offset` is still at its start.
    pending: Option<Vec<u8>>,
    table: Option<String>,
    on_malformed: OnMalformed,
    /// The end of the input was reached.
    pub(super) eof: bool,
}

impl LineReader {
    /// Opens `path` (`-`: stdin).
    pub(super) fn open(
        path: &Path,
        table: Option<String>,
        on_malformed: OnMalformed,
    ) -> Result<Self, SourceError> {
        let input = if path.as_os_str() == "-" {
            Input::Stdin(BufReader::new(std::io::stdin()))
        } else {
            let file = File::open(path).map_err(|source| SourceError::Read {
                path: path.to_path_buf(),
                action: "open",
                source,
            })?;
            Input::File(BufReader::with_capacity(1 << 16, file))
        };
        Ok(Self {
            path: path.to_path_buf(),
            input,
            offset: Offset::default(),
            pending: None,
            table,
            on_malformed,
            eof: false,
        })
    }

    /// The current position.
    pub(super) fn offset(&self) -> Offset {
        self.offset
    }

    /// Moves to `to` (a file only; stdin cannot move and stays where it is).
    pub(super) fn seek(&mut self, to: Offset) -> Result<(), SourceError> {
        if to == self.offset {
            return Ok(());
        }
        let Input::File(file) = &mut self.input else {
            return Ok(());
        };
        let length = match file.get_ref().metadata() {
            Ok(metadata) => metadata.len(),
            Err(source) => return Err(self.io("stat", source)),
        };
        if to.byte > length {
            return Err(SourceError::Position {
                partition: self.path.display().to_string(),
                position: to.token(),
                message: format!(
                    "past the end of the file ({length} bytes): not the file the checkpoint was written for?"
                ),
            });
        }
        if let Err(source) = file.seek(SeekFrom::Start(to.byte)) {
            return Err(self.io("seek", source));
        }
        self.pending = None;
        self.offset = to;
        self.eof = false;
        Ok(())
    }

    fn io(&self, action: &'static str, source: std::io::Error) -> SourceError {
        SourceError::Read {
            path: self.path.clone(),
            action,
            source,
        }
    }

    /// Reads whole lines until `until`; returns the records they hold. Under
    /// [`Until::Limits`], a line whose records would pass a limit is left for
    /// the next read, unless it is the first (a line larger than a limit is
    /// a batch of its own), as the batcher closes batches.
    ///
    /// # Errors
    /// [`SourceError::Read`] for I/O, [`SourceError::Malformed`] for a line that
    /// is not a record when `on_malformed` is `fail`.
    pub(super) fn read(&mut self, until: Until) -> Result<Vec<Record>, SourceError> {
        let mut records: Vec<Record> = Vec::new();
        let mut bytes = 0;
        let mut line = Vec::new();
        loop {
            match until {
                Until::Limits(limits)
                    if records.len() >= limits.max_records || bytes >= limits.max_bytes =>
                {
                    break;
                }
                Until::Byte(end) if self.offset.byte >= end => break,
                _ => {}
            }
            line.clear();
            let read = match (self.pending.take(), &mut self.input) {
                (Some(pending), _) => {
                    line = pending;
                    Ok(line.len())
                }
                (None, Input::File(r)) => r.read_until(b'\n', &mut line),
                (None, Input::Stdin(r)) => r.read_until(b'\n', &mut line),
            }
            .map_err(|source| self.io("read", source))?;
            if read == 0 {
                self.eof = true;
                break;
            }
            let number = self.offset.line + 1;
            match self.parse_line(&line) {
                Ok(mut parsed) => {
                    let size = parsed.iter().map(|r| r.json.len() + 1).sum::<usize>();
                    if let Until::Limits(limits) = until
                        && !records.is_empty()
                        && (records.len() + parsed.len() > limits.max_records
                            || bytes + size > limits.max_bytes)
                    {
                        self.pending = Some(std::mem::take(&mut line));
                        break;
                    }
                    bytes += size;
                    records.append(&mut parsed);
                }
                Err(message) => {
                    let error = SourceError::Malformed {
                        path: self.path.clone(),
                        line: number,
                        message,
                    };
                    if self.on_malformed == OnMalformed::Fail {
                        return Err(error);
                    }
                    tracing::warn!(%error, "malformed line skipped");
                    ::metrics::counter!(names::RECORDS_MALFORMED).increment(1);
                }
            }
            self.offset.line = number;
            self.offset.byte += read as u64;
        }
        Ok(records)
    }

    /// One line: a record, or `{"Records":[...]}` (a Lambda event or a
    /// GetRecords response); blank lines hold nothing.
    fn parse_line(&self, line: &[u8]) -> Result<Vec<Record>, String> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Vec::new());
        }
        let value: Value = serde_json::from_slice(line)
            .map_err(|e| format!("not JSON: {}", redact(&e.to_string())))?;
        let table = self.table.as_deref();
        match value {
            Value::Object(mut object) if object.contains_key("Records") => {
                let Some(Value::Array(items)) = object.remove("Records") else {
                    return Err("Records: not an array".into());
                };
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| {
                        parse_record(item, table)
                            .map_err(|e| format!("Records[{i}]: {}", redact(&e.to_string())))
                    })
                    .collect()
            }
            value => parse_record(value, table)
                .map(|record| vec![record])
                .map_err(|e| redact(&e.to_string())),
        }
    }
}

/// Drops the value from serde's `invalid type: string "…", expected …`
/// messages: logs never hold attribute values.
fn redact(message: &str) -> String {
    for marker in ["invalid type: ", "invalid value: "] {
        if let Some(at) = message.find(marker) {
            let rest = &message[at + marker.len()..];
            let kind = rest.split([' ', ',']).next().unwrap_or("");
            let tail = rest.find(", expected").map_or("", |i| &rest[i..]);
            return format!("{}{marker}{kind}{tail}", &message[..at]);
        }
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip_and_bad_tokens_are_refused() {
        let offset = Offset {
            line: 12,
            byte: 3456,
        };
        assert_eq!(Offset::parse(&offset.token()), Some(offset));
        assert_eq!(Offset::parse("12"), None);
        assert_eq!(Offset::parse("a:1"), None);
    }

    #[test]
    fn redaction_keeps_the_kind_and_drops_the_value() {
        let message = r#"invalid type: string "secret-session", expected i64 at line 1 column 9"#;
        let redacted = redact(message);
        assert!(!redacted.contains("secret"), "{redacted}");
        assert_eq!(
            redacted,
            "invalid type: string, expected i64 at line 1 column 9"
        );
        assert_eq!(
            redact("missing field `eventName`"),
            "missing field `eventName`"
        );
    }
}
