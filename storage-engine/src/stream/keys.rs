//! The `stream` keyspace: keys (table id ++ sequence number) and the change
//! records stored under them, decoded or read in place.

use crate::error::StorageError;
use crate::storage::{STREAM, Store, corrupt};
use crate::stream::record::{ChangeRecord, SequenceNumber};

/// The highest sequence number stored for table `id`, if any.
///
/// # Errors
///
/// I/O failure or a malformed stream key.
pub(crate) fn last_sequence_number(
    store: &Store,
    id: u32,
) -> Result<Option<SequenceNumber>, StorageError> {
    let Some(guard) = store.stream.prefix(id.to_be_bytes()).next_back() else {
        return Ok(None);
    };
    let key = guard.key()?;
    decode_stream_key(&key).map(Some)
}

/// `stream` key: table id ++ sequence number.
pub(crate) fn stream_key(id: u32, seq: SequenceNumber) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&id.to_be_bytes());
    k[4..].copy_from_slice(&seq.0.to_be_bytes());
    k
}

/// The sequence number in a `stream` key.
///
/// # Errors
///
/// [`StorageError::Corrupt`] if the key is not 12 bytes.
pub(crate) fn decode_stream_key(key: &[u8]) -> Result<SequenceNumber, StorageError> {
    key.get(4..12)
        .filter(|_| key.len() == 12)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(|b| SequenceNumber(u64::from_be_bytes(b)))
        .ok_or_else(|| corrupt(STREAM, "stream key", "not 12 bytes"))
}

/// Decodes a change record value (`codec`).
///
/// # Errors
///
/// [`StorageError::Corrupt`].
pub(crate) fn decode_record(bytes: &[u8]) -> Result<ChangeRecord, StorageError> {
    crate::stream::codec::decode_record(bytes).map_err(|m| corrupt(STREAM, "change record", m))
}

/// A stored change record, checked, for reading in place.
///
/// # Errors
///
/// [`StorageError::Corrupt`] naming the keyspace.
pub(crate) fn stored_record(bytes: fjall::Slice) -> Result<crate::StoredRecord, StorageError> {
    crate::StoredRecord::parse(bytes).map_err(|m| corrupt(STREAM, "change record", m))
}

/// A stored change record as [`crate::Streams::get_stored_records_of`] hands
/// it out, with what it counts towards a read's 1 MB limit: a record whose
/// kind `full` rejects as its header only (its stored length), any other
/// record whole ([`stored_record`]; its `SizeBytes`).
///
/// # Errors
///
/// [`StorageError::Corrupt`] naming the keyspace.
pub(crate) fn stored_entry(
    bytes: fjall::Slice,
    full: impl Fn(crate::EventName) -> bool,
) -> Result<(u64, crate::StoredEntry), StorageError> {
    if crate::stream::codec::stored_event_name(&bytes).is_some_and(|kind| !full(kind))
        && let Some(header) = crate::StoredHeader::parse(bytes.clone())
            .map_err(|m| corrupt(STREAM, "change record", m))?
    {
        let len = u64::try_from(header.stored_len()).unwrap_or(u64::MAX);
        return Ok((len, crate::StoredEntry::Header(header)));
    }
    let record = stored_record(bytes)?;
    Ok((record.size_bytes(), crate::StoredEntry::Record(record)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_keys_round_trip() {
        let k = stream_key(3, SequenceNumber(99));
        assert_eq!(decode_stream_key(&k).expect("decode"), SequenceNumber(99));
        assert!(decode_stream_key(b"bad").is_err());
    }
}
