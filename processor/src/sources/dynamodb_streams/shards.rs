//! Shard lineage: which shards may be read now. A child is read only after its
//! parent has been read to its end, so a key's changes arrive in order
//! (DynamoDB Developer Guide, "Reading and processing a stream": "process the
//! parent shard before the child shard").

use std::collections::{BTreeMap, BTreeSet};

use crate::checkpoint::PartitionCheckpoint;

/// A shard as DescribeStream lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    /// `ShardId`.
    pub shard_id: String,
    /// `ParentShardId`, when the shard has one.
    pub parent_shard_id: Option<String>,
    /// `SequenceNumberRange.StartingSequenceNumber`.
    pub starting_sequence_number: Option<String>,
    /// `SequenceNumberRange.EndingSequenceNumber`: present once the shard is
    /// closed (it takes no new records).
    pub ending_sequence_number: Option<String>,
}

/// The shards that may be read now, in the order given: not finished, and with
/// no parent, a parent the stream no longer lists (trimmed away), or a parent
/// that is finished.
pub fn readable<'a>(
    shards: &'a [ShardInfo],
    checkpoints: &BTreeMap<String, PartitionCheckpoint>,
) -> Vec<&'a ShardInfo> {
    let listed: BTreeSet<&str> = shards.iter().map(|s| s.shard_id.as_str()).collect();
    let finished = |id: &str| checkpoints.get(id).is_some_and(|c| c.finished);
    shards
        .iter()
        .filter(|shard| !finished(&shard.shard_id))
        .filter(|shard| match shard.parent_shard_id.as_deref() {
            None => true,
            Some(parent) => !listed.contains(parent) || finished(parent),
        })
        .collect()
}

/// Compares two DynamoDB sequence numbers (decimal strings of up to 40 digits,
/// too long for `u128` in general): by length, then by digits.
pub fn compare_sequence_numbers(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>, closed: bool) -> ShardInfo {
        ShardInfo {
            shard_id: id.into(),
            parent_shard_id: parent.map(Into::into),
            starting_sequence_number: Some("1".into()),
            ending_sequence_number: closed.then(|| "9".into()),
        }
    }

    fn done(position: &str) -> PartitionCheckpoint {
        PartitionCheckpoint {
            position: position.into(),
            finished: true,
        }
    }

    #[test]
    fn children_wait_for_their_parent_to_finish() {
        let shards = [
            shard("a", None, true),
            shard("b", Some("a"), true),
            shard("c", Some("b"), false),
            shard("orphan", Some("trimmed-away"), false),
        ];
        let ids = |c: &BTreeMap<String, PartitionCheckpoint>| -> Vec<String> {
            readable(&shards, c)
                .iter()
                .map(|s| s.shard_id.clone())
                .collect()
        };
        let mut checkpoints = BTreeMap::new();
        assert_eq!(ids(&checkpoints), ["a", "orphan"]);
        checkpoints.insert(
            "a".to_string(),
            PartitionCheckpoint {
                position: "5".into(),
                finished: false,
            },
        );
        assert_eq!(ids(&checkpoints), ["a", "orphan"], "a read part-way");
        checkpoints.insert("a".to_string(), done("9"));
        assert_eq!(ids(&checkpoints), ["b", "orphan"]);
        checkpoints.insert("b".to_string(), done("9"));
        assert_eq!(ids(&checkpoints), ["c", "orphan"]);
    }

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        use std::cmp::Ordering::*;
        assert_eq!(compare_sequence_numbers("99", "100"), Less);
        assert_eq!(compare_sequence_numbers("000100", "100"), Equal);
        assert_eq!(
            compare_sequence_numbers(
                "4000000000000000004996600000000000000001",
                "400000000000000000499660000000000000000"
            ),
            Greater
        );
    }
}
