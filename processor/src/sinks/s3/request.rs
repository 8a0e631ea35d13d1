//! A batch becomes objects: names from the key template, bodies in NDJSON
//! (compressed as configured).

use std::collections::HashMap;

use crate::error::TemplateError;
use crate::record::Record;
use crate::sinks::SinkBatch;
use crate::sinks::encoding::{Compression, ndjson};
use crate::sinks::template::KeyTemplate;

/// One object to write.
#[derive(Debug)]
pub struct Object<'a> {
    /// The object key.
    pub key: String,
    /// The records it holds, in `SequenceNumber` order.
    pub records: Vec<&'a Record>,
}

/// Groups the batch's records by their rendered name (`objects = "batch"`): one
/// object per group, named with the group's first and last `SequenceNumber`.
///
/// # Errors
/// The [`TemplateError`] of the first record the template cannot name.
pub fn batched<'a>(
    template: &KeyTemplate,
    batch: &SinkBatch<'a>,
) -> Result<Vec<Object<'a>>, TemplateError> {
    let mut groups: Vec<(String, Vec<&'a Record>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for record in &batch.records {
        let group = template.group_of(record)?;
        match index.get(&group) {
            Some(&i) => groups[i].1.push(record),
            None => {
                index.insert(group.clone(), groups.len());
                groups.push((group, vec![record]));
            }
        }
    }
    Ok(groups
        .into_iter()
        .map(|(group, records)| {
            let first = records.first().map_or("", |r| r.sequence_number.as_str());
            let last = records.last().map_or("", |r| r.sequence_number.as_str());
            Object {
                key: template.finish(&group, first, last),
                records,
            }
        })
        .collect())
}

/// One object per record (`objects = "record"`).
///
/// # Errors
/// As [`batched`].
pub fn per_record<'a>(
    template: &KeyTemplate,
    batch: &SinkBatch<'a>,
) -> Result<Vec<Object<'a>>, TemplateError> {
    batch
        .records
        .iter()
        .map(|record| {
            template.render_one(record).map(|key| Object {
                key,
                records: vec![*record],
            })
        })
        .collect()
}

/// The object's body: NDJSON, compressed. A single-record object holds the
/// record's JSON and a newline.
///
/// # Errors
/// A compressor error.
pub fn body(object: &Object<'_>, compression: Compression) -> std::io::Result<Vec<u8>> {
    compression.encode(ndjson(object.records.iter().copied()))
}
