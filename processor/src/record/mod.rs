//! The canonical record: a DynamoDB stream record in the exact JSON shape a Lambda
//! function receives (`eventID`, `eventName`, `dynamodb{...}`, `userIdentity{type,
//! principalId}`), because that is the shape users write filters against.
//!
//! The shape is [`aws_lambda_events::event::dynamodb::EventRecord`]'s: sources
//! that receive records in that shape parse and write it with the library;
//! engine records are written straight from their stored bytes by `json`,
//! whose output is checked byte for byte against the library type's (`tests`,
//! on generated records). Source: AWS Lambda Developer Guide, "Using AWS Lambda
//! with Amazon DynamoDB" (example event) and DynamoDB Developer Guide, "DynamoDB
//! Streams and Time to Live" (the `userIdentity` of TTL deletions).

use serde_json::Value;
use ttlstream_engine::{ChangeRecord, SequenceNumber, StoredHeader, StoredRecord};

mod json;
#[cfg(test)]
mod tests;

use crate::error::SourceError;

/// `userIdentity.type` of a deletion made by DynamoDB's TTL process.
pub const TTL_IDENTITY_TYPE: &str = "Service";
/// `userIdentity.principalId` of a deletion made by DynamoDB's TTL process.
pub const TTL_PRINCIPAL_ID: &str = "dynamodb.amazonaws.com";

/// One change record on its way through the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The table the change happened in.
    pub table_name: String,
    /// The stream's `SequenceNumber`, as a decimal string.
    pub sequence_number: String,
    /// `ApproximateCreationDateTime` in epoch milliseconds.
    pub approximate_creation_millis: i64,
    /// A REMOVE made by the TTL process (`userIdentity` Service /
    /// dynamodb.amazonaws.com), as opposed to a user's delete.
    pub is_ttl_deletion: bool,
    /// Rows (items) the change deleted, counted into the TTL-deletion metric
    /// when `is_ttl_deletion`: 1, except for a Spanner data change record,
    /// whose `mods` may delete several rows in one record.
    pub deleted_rows: u32,
    /// The record's JSON, one line, no trailing newline (the Lambda shape, or
    /// a Spanner data change record); empty when `unmatched`.
    pub json: Vec<u8>,
    /// Set by a source that proved no route matches the record and so left
    /// `json` empty: its `eventName` is none the routes' patterns require
    /// ([`crate::sources::Source::route_event_names`]). Routing sends it to no
    /// sink; it still counts, and moves the checkpoint, as a read record.
    pub unmatched: bool,
    /// Where each top-level member of `json` lies, when its source wrote
    /// `json` in the Lambda shape's member order ([`Members`]): routing then
    /// matches an object of only the members some pattern names, not the
    /// whole record.
    pub members: Option<Members>,
}

/// The top-level members of a DynamoDB stream record as Lambda receives it,
/// in the order `aws_lambda_events`' `EventRecord` declares (and serde_json
/// writes) them: the indices of [`Members`].
pub const LAMBDA_MEMBERS: [&str; 8] = [
    "awsRegion",
    "dynamodb",
    "eventID",
    "eventName",
    "eventSource",
    "eventVersion",
    "eventSourceARN",
    "userIdentity",
];

/// Where each top-level member of a record's JSON lies, for JSON written with
/// exactly the members of [`LAMBDA_MEMBERS`] (some may be absent), in that
/// order: byte offsets into [`Record::json`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Members {
    /// `bounds[i]`: the offset of the `{` or `,` before member `i`;
    /// `bounds[8]`: that of the record's closing `}`. Member `i` is
    /// `json[bounds[i] + 1..bounds[i + 1]]` (`"name":value`), absent when
    /// `bounds[i + 1] == bounds[i]`.
    bounds: [u32; LAMBDA_MEMBERS.len() + 1],
}

impl Members {
    /// Members from their bounds, as [`Members`] describes them (offsets
    /// from the start of the record's JSON).
    pub(crate) fn new(bounds: [u32; LAMBDA_MEMBERS.len() + 1]) -> Self {
        Self { bounds }
    }

    /// Member `i` of `json` (`"name":value`, no separator), `None` when the
    /// record has none or the offsets do not fit `json`.
    #[must_use]
    pub fn get<'j>(&self, json: &'j [u8], i: usize) -> Option<&'j [u8]> {
        let start = usize::try_from(*self.bounds.get(i)?).ok()?;
        let end = usize::try_from(*self.bounds.get(i + 1)?).ok()?;
        if end <= start {
            return None;
        }
        json.get(start + 1..end)
    }
}

/// Where records come from, for the fields of the Lambda shape that the engine
/// does not know: `awsRegion` and `eventSourceARN` (the stream's ARN), with
/// the JSON text they give every record, escaped once.
#[derive(Clone, Debug)]
pub struct RecordContext {
    region: String,
    event_source_arn: String,
    /// `{"awsRegion":"..."`: how each record's JSON begins.
    head_json: Vec<u8>,
    /// `,"eventSource":"aws:dynamodb","eventVersion":"1.1","eventSourceARN":"..."`.
    source_json: Vec<u8>,
}

impl RecordContext {
    /// The context of records from the stream `event_source_arn` in `region`.
    #[must_use]
    pub fn new(region: impl Into<String>, event_source_arn: impl Into<String>) -> Self {
        let (region, event_source_arn) = (region.into(), event_source_arn.into());
        let (head_json, source_json) = json::context_json(&region, &event_source_arn);
        Self {
            region,
            event_source_arn,
            head_json,
            source_json,
        }
    }

    /// `awsRegion`.
    #[must_use]
    pub fn region(&self) -> &str {
        &self.region
    }

    /// `eventSourceARN`: the stream's ARN.
    #[must_use]
    pub fn event_source_arn(&self) -> &str {
        &self.event_source_arn
    }
}

impl Record {
    /// A record with its Lambda-shaped JSON, to be matched whole (neither
    /// [`Record::unmatched`] nor with [`Record::members`]): what every
    /// source but the engine's makes.
    #[must_use]
    pub fn new(
        table_name: String,
        sequence_number: String,
        approximate_creation_millis: i64,
        is_ttl_deletion: bool,
        json: Vec<u8>,
    ) -> Self {
        Self {
            table_name,
            sequence_number,
            approximate_creation_millis,
            is_ttl_deletion,
            deleted_rows: 1,
            json,
            unmatched: false,
            members: None,
        }
    }

    /// Converts an engine change record, as the stream stores it, into the
    /// Lambda record shape, straight to bytes (no `Item` in between).
    ///
    /// # Errors
    /// [`SourceError::Record`] when the record's time is out of range.
    pub fn from_stored(
        stored: &StoredRecord,
        context: &RecordContext,
    ) -> Result<Self, SourceError> {
        let mut record = Self::unmatched_from_stored(stored)?;
        // The Lambda shape's own text (names, event ID, sequence number,
        // identity: under 384 bytes) and the context's, then the keys and
        // images at most twice their size in JSON for most items: written
        // without growing the buffer (a regrowth copied the record once).
        let capacity = 384
            + context.head_json.len()
            + context.source_json.len()
            + 2 * usize::try_from(stored.size_bytes()).unwrap_or(0);
        record.json.reserve_exact(capacity);
        record.members = Some(
            json::write_record(&mut record.json, stored, &record.sequence_number, context)
                .map_err(|message| record.error(message))?,
        );
        record.unmatched = false;
        Ok(record)
    }

    /// An engine change record no route matches ([`Record::unmatched`]): its
    /// table, `SequenceNumber`, time and kind, without the JSON. Fails on
    /// what [`Record::from_stored`] fails on, so skipping the JSON changes no
    /// outcome.
    ///
    /// # Errors
    /// [`SourceError::Record`] when the record's time is out of range.
    pub fn unmatched_from_stored(stored: &StoredRecord) -> Result<Self, SourceError> {
        Self::unmatched_of(
            stored.table_name(),
            stored.sequence_number(),
            stored.approximate_creation_date_time_millis(),
            stored.is_ttl_delete(),
        )
    }

    /// [`Record::unmatched_from_stored`] of a record the engine read only
    /// the header of ([`ttlstream_engine::Streams::get_stored_records_of`]):
    /// the same record, with the same errors.
    ///
    /// # Errors
    /// [`SourceError::Record`] when the record's time is out of range.
    pub fn unmatched_from_header(header: &StoredHeader) -> Result<Self, SourceError> {
        Self::unmatched_of(
            header.table_name(),
            header.sequence_number(),
            header.approximate_creation_date_time_millis(),
            header.is_ttl_delete(),
        )
    }

    /// The record both of the above build from a stored record's fixed
    /// fields (its time checked as [`Record::from_stored`] checks it).
    fn unmatched_of(
        table: &str,
        sequence_number: SequenceNumber,
        created_millis: i64,
        ttl_delete: bool,
    ) -> Result<Self, SourceError> {
        let record = Self {
            unmatched: true,
            ..Self::new(
                table.to_string(),
                // ASCII digits: from_utf8 never fails.
                std::str::from_utf8(&sequence_number.decimal_digits())
                    .unwrap_or_default()
                    .to_string(),
                created_millis,
                ttl_delete,
                Vec::new(),
            )
        };
        json::check_time(record.approximate_creation_millis).map_err(|m| record.error(m))?;
        Ok(record)
    }

    fn error(&self, message: String) -> SourceError {
        SourceError::Record {
            table: self.table_name.clone(),
            sequence_number: self.sequence_number.clone(),
            message,
        }
    }

    /// Converts a decoded engine change record: [`Record::from_stored`] of its
    /// stored form, so both give the same bytes.
    ///
    /// # Errors
    /// As [`Record::from_stored`].
    pub fn from_change(
        change: &ChangeRecord,
        context: &RecordContext,
    ) -> Result<Self, SourceError> {
        Self::from_stored(&StoredRecord::from_change(change), context)
    }
}

/// The record's `dynamodb.Keys` as compact JSON (`{}` when absent): what a log
/// line may show of a record when `log_keys` is on, and nothing more.
pub fn keys_json(record: &Record) -> String {
    #[derive(serde::Deserialize)]
    struct Shape {
        dynamodb: Stream,
    }
    #[derive(serde::Deserialize)]
    struct Stream {
        #[serde(rename = "Keys", default)]
        keys: Option<Value>,
    }
    serde_json::from_slice::<Shape>(&record.json)
        .ok()
        .and_then(|shape| shape.dynamodb.keys)
        .map_or_else(|| "{}".to_string(), |keys| keys.to_string())
}

/// Lambda leaves out what a record does not have: no `NewImage` on a REMOVE or an
/// OLD_IMAGE stream, no `userIdentity` on a user's write. The library type always
/// serialises them (as `{}` or `null`), so drop them here.
pub(crate) fn trim_absent_fields(value: &mut Value, has_new_image: bool, has_old_image: bool) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    object.retain(|_, field| !field.is_null());
    if let Some(Value::Object(dynamodb)) = object.get_mut("dynamodb") {
        dynamodb.retain(|_, field| !field.is_null());
        if !has_new_image {
            dynamodb.remove("NewImage");
        }
        if !has_old_image {
            dynamodb.remove("OldImage");
        }
    }
}
