//! Decoding: the binary form back into items and change records, every
//! length checked against the bytes left.

use super::*;

/// A cursor over a binary value; every read is bounds-checked.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn byte(&mut self) -> Result<u8, String> {
        let (&b, rest) = self.bytes.split_first().ok_or("truncated")?;
        self.bytes = rest;
        Ok(b)
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.bytes.len() {
            return Err(format!(
                "length {n} beyond the {} bytes left",
                self.bytes.len()
            ));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    /// A varint length or count. One byte (below 128) is nearly every
    /// length a record holds: that case is inlined into the readers, the
    /// longer forms are read by [`Reader::long_len`], with the same errors.
    #[inline]
    pub(super) fn len(&mut self) -> Result<usize, String> {
        if let Some((&b, rest)) = self.bytes.split_first()
            && b < 0x80
            && usize::from(b) <= rest.len()
        {
            self.bytes = rest;
            return Ok(usize::from(b));
        }
        self.long_len()
    }

    #[inline(never)]
    pub(super) fn long_len(&mut self) -> Result<usize, String> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                // A count can never exceed the bytes left (each entry takes >= 1).
                return usize::try_from(n)
                    .ok()
                    .filter(|&n| n <= self.bytes.len())
                    .ok_or_else(|| {
                        format!("length {n} beyond the {} bytes left", self.bytes.len())
                    });
            }
        }
        Err("varint too long".into())
    }

    pub(super) fn bytes_vec(&mut self) -> Result<Vec<u8>, String> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }

    pub(super) fn string(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes_vec()?).map_err(|_| "invalid UTF-8".to_string())
    }

    pub(super) fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    pub(super) fn list<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let n = self.len()?;
        (0..n).map(|_| f(self)).collect()
    }

    pub(super) fn value(&mut self, depth: usize) -> Result<AttributeValue, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        Ok(match self.byte()? {
            S => AttributeValue::S(self.string()?),
            N => AttributeValue::N(self.string()?),
            B => AttributeValue::B(self.bytes_vec()?),
            BOOL => AttributeValue::Bool(self.byte()? != 0),
            NULL => AttributeValue::Null(self.byte()? != 0),
            M => AttributeValue::M(self.map(depth + 1)?),
            L => AttributeValue::L(self.list(|r| r.value(depth + 1))?),
            SS => AttributeValue::Ss(self.list(Self::string)?),
            NS => AttributeValue::Ns(self.list(Self::string)?),
            BS => AttributeValue::Bs(self.list(Self::bytes_vec)?),
            t => return Err(format!("unknown value tag {t}")),
        })
    }

    pub(super) fn map(&mut self, depth: usize) -> Result<HashMap<String, AttributeValue>, String> {
        let n = self.len()?;
        let mut m = HashMap::with_capacity(n);
        for _ in 0..n {
            let k = self.string()?;
            let v = self.value(depth)?;
            m.insert(k, v);
        }
        Ok(m)
    }

    /// A top-level map as an [`Item`], built in place: serde_dynamo's
    /// `From<HashMap>` for `Item` collects every entry into a second map.
    pub(super) fn item(&mut self) -> Result<Item, String> {
        let n = self.len()?;
        let mut item = Item::default();
        item.reserve(n);
        for _ in 0..n {
            let k = self.string()?;
            let v = self.value(0)?;
            item.insert(k, v);
        }
        Ok(item)
    }

    /// Moves past one value without building it.
    pub(super) fn skip_value(&mut self, depth: usize) -> Result<(), String> {
        self.skip(depth, false)
    }

    /// Moves past one value without building it, failing exactly where
    /// [`Reader::value`] would: also on text that is not UTF-8.
    pub(super) fn check_value(&mut self, depth: usize) -> Result<(), String> {
        self.skip(depth, true)
    }

    pub(super) fn skip(&mut self, depth: usize, utf8: bool) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        match self.byte()? {
            t @ (S | N | B) => {
                let n = self.len()?;
                self.text(n, utf8 && t != B)?;
            }
            BOOL | NULL => {
                self.byte()?;
            }
            M => {
                for _ in 0..self.len()? {
                    let n = self.len()?;
                    self.text(n, utf8)?;
                    self.skip(depth + 1, utf8)?;
                }
            }
            L => {
                for _ in 0..self.len()? {
                    self.skip(depth + 1, utf8)?;
                }
            }
            t @ (SS | NS | BS) => {
                for _ in 0..self.len()? {
                    let n = self.len()?;
                    self.text(n, utf8 && t != BS)?;
                }
            }
            t => return Err(format!("unknown value tag {t}")),
        }
        Ok(())
    }

    /// Moves past `n` bytes, checking them as UTF-8 when `utf8`.
    pub(super) fn text(&mut self, n: usize, utf8: bool) -> Result<(), String> {
        let bytes = self.take(n)?;
        if utf8 && std::str::from_utf8(bytes).is_err() {
            return Err("invalid UTF-8".into());
        }
        Ok(())
    }

    pub(super) fn start(bytes: &'a [u8]) -> Result<Self, String> {
        match bytes.split_first() {
            Some((&BINARY_TAG, rest)) => Ok(Self { bytes: rest }),
            _ => Err("not a binary value".into()),
        }
    }

    pub(super) fn finish<T>(&self, v: T) -> Result<T, String> {
        if self.bytes.is_empty() {
            Ok(v)
        } else {
            Err(format!("{} trailing bytes", self.bytes.len()))
        }
    }
}

/// Decodes a binary item (tag byte included).
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_item(bytes: &[u8]) -> Result<Item, String> {
    let mut r = Reader::start(bytes)?;
    let item = r.item()?;
    r.finish(item)
}

/// Decodes only the top-level attributes of a binary item whose names are
/// in `wanted` (the others are skipped, not built): the sweeper needs an
/// expired item's keys and TTL attribute, not all of it.
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_attributes(bytes: &[u8], wanted: &[&str]) -> Result<Item, String> {
    let mut r = Reader::start(bytes)?;
    let n = r.len()?;
    let mut item = Item::default();
    item.reserve(wanted.len());
    for _ in 0..n {
        let len = r.len()?;
        let name = r.take(len)?;
        match wanted.iter().find(|w| w.as_bytes() == name) {
            Some(w) => {
                let v = r.value(0)?;
                item.insert((*w).to_string(), v);
            }
            None => r.skip_value(0)?,
        }
    }
    r.finish(item)
}

/// The top-level attributes of a binary item named in `names`, each as its
/// stored bytes (tag byte and payload, as [`encode_item`] wrote them), in
/// `names` order; `None` for a name the item does not have. Nothing is
/// allocated: the sweeper's TTL deletions copy these bytes into the REMOVE
/// record. Fails where [`decode_attributes`] with the same names fails.
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn encoded_attributes<'a, const K: usize>(
    bytes: &'a [u8],
    names: &[&str; K],
) -> Result<[Option<&'a [u8]>; K], String> {
    let mut found = [None; K];
    let mut r = Reader::start(bytes)?;
    let n = r.len()?;
    for _ in 0..n {
        let len = r.len()?;
        let name = r.take(len)?;
        match names.iter().position(|w| w.as_bytes() == name) {
            Some(i) => {
                let start = r.bytes;
                r.check_value(0)?;
                found[i] = start.get(..start.len() - r.bytes.len());
            }
            None => r.skip_value(0)?,
        }
    }
    r.finish(found)
}

/// The text of a Number stored as `encoded` (an [`encoded_attributes`]
/// value), or `None` for any other type.
pub(crate) fn encoded_number(encoded: &[u8]) -> Option<&str> {
    let (&tag, rest) = encoded.split_first()?;
    if tag != N {
        return None;
    }
    let mut r = Reader { bytes: rest };
    let n = r.len().ok()?;
    let text = r.take(n).ok()?;
    r.finish(()).ok()?;
    std::str::from_utf8(text).ok()
}

/// The ApproximateCreationDateTime (epoch ms) of a binary change record,
/// read from its fixed header without decoding the rest; `None` if `bytes`
/// is not a binary record.
pub(crate) fn record_time_millis(bytes: &[u8]) -> Option<i64> {
    if bytes.first() != Some(&BINARY_TAG) {
        return None;
    }
    let b = bytes.get(4..12)?;
    <[u8; 8]>::try_from(b).ok().map(i64::from_be_bytes)
}

/// The fixed fields a binary change record starts with (after its tag byte).
pub(super) struct RecordHeader {
    pub(super) event_name: EventName,
    pub(super) stream_view_type: StreamViewType,
    /// `HAS_NEW`, `HAS_OLD` and the other flag bits.
    pub(super) flags: u8,
    /// `ApproximateCreationDateTime`, epoch milliseconds.
    pub(super) created_millis: i64,
    pub(super) sequence_number: SequenceNumber,
}

impl RecordHeader {
    /// Reads the header from `r`, positioned just after the tag byte.
    ///
    /// # Errors
    ///
    /// A message naming an unknown event name or view type, or truncation.
    pub(super) fn read(r: &mut Reader<'_>) -> Result<Self, String> {
        let event_name = match r.byte()? {
            0 => EventName::Insert,
            1 => EventName::Modify,
            2 => EventName::Remove,
            t => return Err(format!("unknown event name {t}")),
        };
        let stream_view_type = match r.byte()? {
            0 => StreamViewType::KeysOnly,
            1 => StreamViewType::NewImage,
            2 => StreamViewType::OldImage,
            3 => StreamViewType::NewAndOldImages,
            t => return Err(format!("unknown view type {t}")),
        };
        Ok(Self {
            event_name,
            stream_view_type,
            flags: r.byte()?,
            created_millis: r.u64()? as i64,
            sequence_number: SequenceNumber(r.u64()?),
        })
    }
}

/// Decodes a binary change record (tag byte included).
///
/// # Errors
///
/// A message saying what is wrong with the bytes.
pub(crate) fn decode_record(bytes: &[u8]) -> Result<ChangeRecord, String> {
    let mut r = Reader::start(bytes)?;
    let RecordHeader {
        event_name,
        stream_view_type,
        flags,
        created_millis: now_millis,
        sequence_number,
    } = RecordHeader::read(&mut r)?;
    let table_name = r.string()?;
    let keys = r.item()?;
    let new_image = (flags & HAS_NEW != 0).then(|| r.item()).transpose()?;
    let old_image = (flags & HAS_OLD != 0).then(|| r.item()).transpose()?;
    let user_identity = if flags & TTL_IDENTITY != 0 {
        Some(UserIdentity::dynamodb_ttl())
    } else if flags & OTHER_IDENTITY != 0 {
        Some(UserIdentity {
            r#type: r.string()?,
            principal_id: r.string()?,
        })
    } else {
        None
    };
    let size_bytes = item_size_bytes(&keys)
        + new_image.as_ref().map_or(0, item_size_bytes)
        + old_image.as_ref().map_or(0, item_size_bytes);
    r.finish(ChangeRecord {
        event_id: event_id(&table_name, sequence_number),
        table_name,
        sequence_number,
        event_name,
        approximate_creation_date_time_millis: now_millis,
        keys,
        new_image,
        old_image,
        size_bytes,
        stream_view_type,
        user_identity,
    })
}
