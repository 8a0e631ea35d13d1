//! Table definitions: key schema, stream settings and TTL settings.
//!
//! Reproduces the shapes of DynamoDB's `CreateTable` (`KeySchema`,
//! `AttributeDefinitions`, `StreamSpecification`) and `UpdateTimeToLive`
//! (`TimeToLiveSpecification`) requests — see "Core components of Amazon
//! DynamoDB" and "Using time to live (TTL) in DynamoDB".

use crate::dynamodb::index::{GlobalSecondaryIndex, LocalSecondaryIndex, Projection};
pub use crate::storage::key::{KeyAttribute, ScalarAttributeType};
pub use crate::stream::record::StreamViewType;
use serde::{Deserialize, Serialize};

/// A table: name, primary key (partition key and optional sort key) and
/// whether it has a change stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDefinition {
    /// Table name: 3 to 255 characters from `a-z A-Z 0-9 _ - .` (DynamoDB's
    /// naming rules, "Supported data types and naming rules").
    pub table_name: String,
    /// The partition (hash) key attribute.
    pub partition_key: KeyAttribute,
    /// The sort (range) key attribute, if the table has a composite key.
    pub sort_key: Option<KeyAttribute>,
    /// `None`: no change stream. `Some(v)`: every write appends a
    /// [`ChangeRecord`](crate::ChangeRecord) carrying the images `v` selects.
    pub stream_view_type: Option<StreamViewType>,
    /// Global secondary indexes (DynamoDB `GlobalSecondaryIndexes`); see
    /// [`GlobalSecondaryIndex`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<GlobalSecondaryIndex>,
    /// Local secondary indexes (DynamoDB `LocalSecondaryIndexes`); see
    /// [`LocalSecondaryIndex`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<LocalSecondaryIndex>,
}

impl TableDefinition {
    /// A table with only a partition key and no stream.
    pub fn new(
        table_name: impl Into<String>,
        partition_key: impl Into<String>,
        attribute_type: ScalarAttributeType,
    ) -> Self {
        Self {
            table_name: table_name.into(),
            partition_key: KeyAttribute::new(partition_key, attribute_type),
            sort_key: None,
            stream_view_type: None,
            global_secondary_indexes: Vec::new(),
            local_secondary_indexes: Vec::new(),
        }
    }

    /// Builder-style: adds a sort key.
    #[must_use]
    pub fn with_sort_key(
        mut self,
        attribute_name: impl Into<String>,
        attribute_type: ScalarAttributeType,
    ) -> Self {
        self.sort_key = Some(KeyAttribute::new(attribute_name, attribute_type));
        self
    }

    /// Builder-style: enables the change stream with this view type.
    #[must_use]
    pub fn with_stream(mut self, view: StreamViewType) -> Self {
        self.stream_view_type = Some(view);
        self
    }

    /// Builder-style: adds a global secondary index.
    #[must_use]
    pub fn with_global_secondary_index(mut self, index: GlobalSecondaryIndex) -> Self {
        self.global_secondary_indexes.push(index);
        self
    }

    /// Builder-style: adds a local secondary index on sort key
    /// `attribute_name` (the table must have a sort key).
    #[must_use]
    pub fn with_local_secondary_index(
        mut self,
        index_name: impl Into<String>,
        attribute_name: impl Into<String>,
        attribute_type: ScalarAttributeType,
        projection: Projection,
    ) -> Self {
        self.local_secondary_indexes.push(LocalSecondaryIndex {
            index_name: index_name.into(),
            sort_key: KeyAttribute::new(attribute_name, attribute_type),
            projection,
        });
        self
    }

    /// The key attributes, partition key first.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.partition_key).chain(self.sort_key.iter())
    }

    /// Checks the name and key schema.
    ///
    /// # Errors
    ///
    /// A message naming the bad field: table name length or characters, an
    /// empty key attribute name, or partition and sort key with the same name.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let name = &self.table_name;
        if !(3..=255).contains(&name.len()) {
            return Err(format!(
                "table name must be 3 to 255 characters long, got {}",
                name.len()
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(format!(
                "table name contains {c:?}; allowed: a-z A-Z 0-9 _ - ."
            ));
        }
        for k in self.key_attributes() {
            if k.attribute_name.is_empty() || k.attribute_name.len() > 255 {
                return Err("key attribute names must be 1 to 255 bytes long".to_string());
            }
        }
        if let Some(sk) = &self.sort_key
            && sk.attribute_name == self.partition_key.attribute_name
        {
            return Err(format!(
                "partition key and sort key are both named `{}`",
                sk.attribute_name
            ));
        }
        crate::dynamodb::index::validate(self)?;
        Ok(())
    }
}

/// `BillingMode` of a table (CreateTable, UpdateTable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BillingMode {
    /// `PROVISIONED`: with read and write capacity units.
    Provisioned,
    /// `PAY_PER_REQUEST` (on demand).
    #[default]
    PayPerRequest,
}

impl BillingMode {
    /// `"PROVISIONED"` or `"PAY_PER_REQUEST"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Provisioned => "PROVISIONED",
            Self::PayPerRequest => "PAY_PER_REQUEST",
        }
    }
}

/// `ProvisionedThroughput` of a `PROVISIONED` table: capacity units per
/// second, reported by DescribeTable, not enforced by this engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProvisionedThroughput {
    /// `ReadCapacityUnits`, at least 1.
    pub read_capacity_units: u64,
    /// `WriteCapacityUnits`, at least 1.
    pub write_capacity_units: u64,
}

/// What DynamoDB reports about a table beyond its schema, kept with the
/// table for DescribeTable and the tag operations ("CreateTable",
/// "TagResource" in the DynamoDB API Reference). The engine stores these
/// and does not act on them: no capacity is enforced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableProperties {
    /// `BillingMode`; default `PAY_PER_REQUEST`.
    #[serde(default)]
    pub billing_mode: BillingMode,
    /// `ProvisionedThroughput` (`PROVISIONED` tables only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<ProvisionedThroughput>,
    /// Tags: key -> value (TagResource, UntagResource, ListTagsOfResource).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tags: std::collections::BTreeMap<String, String>,
}

/// An item count and size of a table (DescribeTable `ItemCount`,
/// `TableSizeBytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableSize {
    /// Items in the table.
    pub item_count: u64,
    /// The sum of the items' sizes, in bytes, by DynamoDB's rules
    /// ([`item_size_bytes`](crate::item_size_bytes)).
    pub table_size_bytes: u64,
}

/// Per-table TTL setting (DynamoDB `TimeToLiveSpecification`, "Using time to
/// live (TTL) in DynamoDB").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeToLiveSpecification {
    /// The top-level attribute holding the expiry as epoch seconds (a Number).
    pub attribute_name: String,
    /// `true` enables expiry; `false` disables it.
    pub enabled: bool,
}

impl TimeToLiveSpecification {
    /// An enabled TTL on `attribute_name`.
    pub fn enabled(attribute_name: impl Into<String>) -> Self {
        Self {
            attribute_name: attribute_name.into(),
            enabled: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_validated() {
        let ok = TableDefinition::new("Sessions", "pk", ScalarAttributeType::S);
        assert!(ok.validate().is_ok());
        assert!(
            TableDefinition::new("ab", "pk", ScalarAttributeType::S)
                .validate()
                .is_err()
        );
        assert!(
            TableDefinition::new("a b c", "pk", ScalarAttributeType::S)
                .validate()
                .is_err()
        );
        let same = ok.clone().with_sort_key("pk", ScalarAttributeType::N);
        assert!(same.validate().is_err());
    }
}
