//! A `metrics` recorder that keeps every counter and gauge in memory, so the
//! CloudWatch exporters (PutMetricData and Embedded Metric Format) can read
//! them once per flush interval. Counters are published as the increase since
//! the previous flush, so an interval without events is an explicit 0.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};

use super::names::unit_of;

/// One published value: a metric, its dimensions, a value and a unit.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricDatum {
    /// `MetricName`.
    pub name: String,
    /// `Dimensions` as (`Name`, `Value`), sorted by name.
    pub dimensions: Vec<(String, String)>,
    /// `Value`: a counter's increase since the previous flush, or a gauge's value.
    pub value: f64,
    /// CloudWatch `StandardUnit`: `Count` or `Milliseconds`.
    pub unit: &'static str,
}

type SeriesKey = (String, Vec<(String, String)>);

#[derive(Default)]
struct Series {
    counters: BTreeMap<SeriesKey, Arc<AtomicU64>>,
    gauges: BTreeMap<SeriesKey, Arc<AtomicU64>>,
    published: BTreeMap<SeriesKey, u64>,
}

/// The in-memory recorder. Cloning shares the storage: install one clone with
/// `metrics::set_global_recorder` (or `with_local_recorder`) and flush another.
#[derive(Clone, Default)]
pub struct SnapshotRecorder {
    series: Arc<Mutex<Series>>,
}

impl std::fmt::Debug for SnapshotRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotRecorder").finish_non_exhaustive()
    }
}

fn series_key(key: &Key) -> SeriesKey {
    let mut labels: Vec<(String, String)> = key
        .labels()
        .map(|l| (l.key().to_string(), l.value().to_string()))
        .collect();
    labels.sort();
    (key.name().to_string(), labels)
}

impl SnapshotRecorder {
    /// A recorder with no series yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every series now: counters as their increase since the previous call
    /// (0 when nothing happened), gauges as their value. Sorted by name, then
    /// dimensions.
    pub fn flush(&self) -> Vec<MetricDatum> {
        let mut guard = self.series.lock().unwrap_or_else(PoisonError::into_inner);
        let series = &mut *guard;
        let mut out = Vec::new();
        for (key, counter) in &series.counters {
            let now = counter.load(Ordering::Relaxed);
            let before = series.published.insert(key.clone(), now).unwrap_or(0);
            out.push(datum(key, now.saturating_sub(before) as f64));
        }
        for (key, gauge) in &series.gauges {
            out.push(datum(key, f64::from_bits(gauge.load(Ordering::Relaxed))));
        }
        out.sort_by(|a, b| (&a.name, &a.dimensions).cmp(&(&b.name, &b.dimensions)));
        out
    }
}

fn datum(key: &SeriesKey, value: f64) -> MetricDatum {
    MetricDatum {
        name: key.0.clone(),
        dimensions: key.1.clone(),
        value,
        unit: unit_of(&key.0),
    }
}

impl Recorder for SnapshotRecorder {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let mut series = self.series.lock().unwrap_or_else(PoisonError::into_inner);
        Counter::from_arc(series.counters.entry(series_key(key)).or_default().clone())
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        let mut series = self.series.lock().unwrap_or_else(PoisonError::into_inner);
        Gauge::from_arc(series.gauges.entry(series_key(key)).or_default().clone())
    }

    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_flush_as_increases_with_explicit_zeros() {
        let recorder = SnapshotRecorder::new();
        metrics::with_local_recorder(&recorder, || {
            metrics::counter!("RecordsRead").increment(5);
            metrics::counter!("TimeToLiveDeletedItemCount", "TableName" => "T").increment(3);
            metrics::gauge!("IteratorAgeMilliseconds").set(250.0);
        });
        let first = recorder.flush();
        let values: Vec<(&str, f64)> = first.iter().map(|d| (d.name.as_str(), d.value)).collect();
        assert_eq!(
            values,
            [
                ("IteratorAgeMilliseconds", 250.0),
                ("RecordsRead", 5.0),
                ("TimeToLiveDeletedItemCount", 3.0)
            ]
        );
        assert_eq!(first[0].unit, "Milliseconds");
        assert_eq!(first[2].dimensions, [("TableName".into(), "T".into())]);
        let second = recorder.flush();
        assert_eq!(second[1].value, 0.0, "no reads since: an explicit 0");
        assert_eq!(second[2].value, 0.0);
    }
}
