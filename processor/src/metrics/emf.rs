//! CloudWatch Embedded Metric Format: one JSON log line per dimension set,
//! written to stdout by the Lambda, where CloudWatch Logs extracts the metrics.
//! Source: CloudWatch User Guide, "Specification: Embedded metric format".

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::snapshot::MetricDatum;

/// The specification's limit of metrics in one `Metrics` array.
pub const MAX_METRICS_PER_DIRECTIVE: usize = 100;

/// Encodes `data` as EMF lines (no trailing newline) for `namespace` at
/// `timestamp_millis` (epoch milliseconds). Data with the same dimensions share
/// a line, at most [`MAX_METRICS_PER_DIRECTIVE`] metrics each; non-finite values
/// are left out (CloudWatch rejects NaN and infinities).
pub fn encode(namespace: &str, timestamp_millis: i64, data: &[MetricDatum]) -> Vec<String> {
    let mut by_dimensions: BTreeMap<&[(String, String)], Vec<&MetricDatum>> = BTreeMap::new();
    for d in data.iter().filter(|d| d.value.is_finite()) {
        by_dimensions.entry(&d.dimensions).or_default().push(d);
    }
    let mut lines = Vec::new();
    for (dimensions, group) in by_dimensions {
        for chunk in group.chunks(MAX_METRICS_PER_DIRECTIVE) {
            let names: Vec<&str> = dimensions.iter().map(|(n, _)| n.as_str()).collect();
            let metrics: Vec<Value> = chunk
                .iter()
                .map(|d| json!({"Name": d.name, "Unit": d.unit}))
                .collect();
            let mut root = Map::new();
            root.insert(
                "_aws".into(),
                json!({
                    "Timestamp": timestamp_millis,
                    "CloudWatchMetrics": [{
                        "Namespace": namespace,
                        "Dimensions": [names],
                        "Metrics": metrics,
                    }],
                }),
            );
            for (name, value) in dimensions {
                root.insert(name.clone(), Value::String(value.clone()));
            }
            for d in chunk {
                root.insert(d.name.clone(), json!(d.value));
            }
            lines.push(Value::Object(root).to_string());
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datum(name: &str, table: Option<&str>, value: f64) -> MetricDatum {
        MetricDatum {
            name: name.into(),
            dimensions: table
                .map(|t| vec![("TableName".to_string(), t.to_string())])
                .unwrap_or_default(),
            value,
            unit: super::super::names::unit_of(name),
        }
    }

    #[test]
    fn one_line_per_dimension_set_in_the_specified_shape() {
        let data = [
            datum("RecordsRead", None, 7.0),
            datum("TimeToLiveDeletedItemCount", Some("SessionData"), 0.0),
            datum("IteratorAgeMilliseconds", None, f64::NAN),
        ];
        let lines = encode("TTLStream", 1_571_820_360_000, &data);
        assert_eq!(lines.len(), 2);
        let plain: Value = serde_json::from_str(&lines[0]).expect("json");
        assert_eq!(
            plain,
            json!({"_aws": {"Timestamp": 1_571_820_360_000_i64, "CloudWatchMetrics": [{
                "Namespace": "TTLStream", "Dimensions": [[]],
                "Metrics": [{"Name": "RecordsRead", "Unit": "Count"}]}]},
                "RecordsRead": 7.0})
        );
        let table: Value = serde_json::from_str(&lines[1]).expect("json");
        assert_eq!(table["TableName"], "SessionData");
        assert_eq!(table["TimeToLiveDeletedItemCount"], 0.0, "explicit zero");
        assert_eq!(
            table["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            json!([["TableName"]])
        );
    }

    #[test]
    fn more_than_100_metrics_split_into_directives() {
        let data: Vec<MetricDatum> = (0..150)
            .map(|i| datum(&format!("M{i:03}"), None, 1.0))
            .collect();
        let lines = encode("TTLStream", 0, &data);
        assert_eq!(lines.len(), 2);
        let first: Value = serde_json::from_str(&lines[0]).expect("json");
        let metrics = first["_aws"]["CloudWatchMetrics"][0]["Metrics"]
            .as_array()
            .map(Vec::len);
        assert_eq!(metrics, Some(100));
    }
}
