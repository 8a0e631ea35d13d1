//! What the demo prints: counts, rates, the metric, alarm transitions, and a
//! check of the archive it wrote.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::DateTime;

use crate::alarm::{AlarmDefinition, AlarmTransition};

/// What the archive directory holds, read back from disk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArchiveCheck {
    /// `.ndjson` files.
    pub files: usize,
    /// Records (lines).
    pub records: u64,
    /// Rows the records delete: one per record, except a Spanner data
    /// change record, which deletes one per entry of its `mods`.
    pub rows: u64,
    /// Distinct `dynamodb.SequenceNumber` values among them (a Spanner
    /// record's identity: its `server_transaction_id` and
    /// `record_sequence`).
    pub distinct_sequence_numbers: u64,
    /// Total size of the files, bytes.
    pub bytes: u64,
    /// The archived record of the guide's `user1` (else the first record),
    /// pretty-printed, if present.
    pub sample: Option<String>,
}

/// Reads every `.ndjson` file in `dir` and counts records, the rows they
/// delete and distinct sequence numbers. Lines that are not JSON count as
/// records of one row without a sequence number.
///
/// # Errors
/// An I/O error reading the directory or a file.
pub fn check_archive(dir: &Path) -> std::io::Result<ArchiveCheck> {
    let mut check = ArchiveCheck::default();
    let mut sequences = HashSet::new();
    // The first record, the sample when no record is the guide's `user1`.
    let mut first = None;
    let mut names: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    names.retain(|p| p.extension().is_some_and(|e| e == "ndjson"));
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path)?;
        check.files += 1;
        check.bytes += text.len() as u64;
        for line in text.lines() {
            check.records += 1;
            let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
                check.rows += 1;
                continue;
            };
            if let Some(mods) = record["mods"].as_array() {
                // A Spanner data change record.
                check.rows += mods.len() as u64;
                let id = &record["server_transaction_id"];
                sequences.insert(format!("{id}/{}", record["record_sequence"]));
            } else {
                check.rows += 1;
                if let Some(sequence) = record["dynamodb"]["SequenceNumber"].as_str() {
                    sequences.insert(sequence.to_string());
                }
            }
            if record["dynamodb"]["Keys"]["UserName"]["S"] == "user1" {
                check.sample = serde_json::to_string_pretty(&record).ok();
            } else if first.is_none() {
                first = serde_json::to_string_pretty(&record).ok();
            }
        }
    }
    check.distinct_sequence_numbers = sequences.len() as u64;
    if check.sample.is_none() {
        check.sample = first;
    }
    Ok(check)
}

/// Everything the demo reports.
#[derive(Clone, Debug)]
pub struct DemoSummary {
    /// The tables the demo made, for the summary's first line.
    pub description: String,
    /// The table archived and counted.
    pub table: String,
    /// The metric its TTL deletions are counted under.
    pub metric_name: &'static str,
    /// Items written (seed + generated), or rows the TTL will delete.
    pub items_written: u64,
    /// Wall time of the writes.
    pub write_elapsed: Duration,
    /// Items the sweeper deleted.
    pub ttl_deletions: u64,
    /// Wall time from the start of the run to the sweeper's last deletion.
    pub sweep_elapsed: Duration,
    /// Stream records the pipeline read (inserts and deletions).
    pub records_read: u64,
    /// Records the archive sink acknowledged.
    pub archived: u64,
    /// Wall time the pipeline spent on non-empty batches.
    pub archive_busy: Duration,
    /// Items (rows) still in the demo's tables at the end.
    pub remaining_items: u64,
    /// Metric period, seconds.
    pub period_secs: u64,
    /// `metric_name` per period: (period start epoch secs, Sum).
    pub datapoints: Vec<(i64, f64)>,
    /// The alarm evaluated.
    pub alarm: AlarmDefinition,
    /// Its state changes.
    pub transitions: Vec<AlarmTransition>,
    /// The archive, read back.
    pub archive: ArchiveCheck,
    /// The archive directory of the table.
    pub archive_dir: PathBuf,
    /// Clock speed (simulated seconds per real second).
    pub speed: f64,
    /// Simulated start, epoch seconds.
    pub start_secs: i64,
    /// Simulated end, epoch seconds.
    pub end_secs: i64,
}

impl DemoSummary {
    /// Whether the archive holds exactly the TTL deletions, each once, and the
    /// tables are empty.
    pub fn is_complete(&self) -> bool {
        self.remaining_items == 0
            && self.ttl_deletions == self.items_written
            && self.archive.rows == self.ttl_deletions
            && self.archive.distinct_sequence_numbers == self.archive.records
    }
}

fn iso(secs: i64) -> String {
    DateTime::from_timestamp(secs, 0).map_or_else(
        || secs.to_string(),
        |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
    )
}

fn rate(count: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs <= 0.0 {
        return "-".to_string();
    }
    format!("{:.0} items/s", count as f64 / secs)
}

impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "ttlstream demo: {}", self.description)?;
        writeln!(
            f,
            "clock: {} -> {}, accelerated x{}",
            iso(self.start_secs),
            iso(self.end_secs),
            self.speed
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "  written       {:>10} items   {:>8.2} s   {}",
            self.items_written,
            self.write_elapsed.as_secs_f64(),
            rate(self.items_written, self.write_elapsed)
        )?;
        writeln!(
            f,
            "  TTL deletions {:>10} items   {:>8.2} s   {} (first to last deletion; paced by the clock while the sweeper keeps up)",
            self.ttl_deletions,
            self.sweep_elapsed.as_secs_f64(),
            rate(self.ttl_deletions, self.sweep_elapsed)
        )?;
        writeln!(
            f,
            "  archived      {:>10} items   {:>8.2} s   {} (pipeline busy time; {} stream records read)",
            self.archived,
            self.archive_busy.as_secs_f64(),
            rate(self.archived, self.archive_busy),
            self.records_read
        )?;
        writeln!(f, "  left in table {:>10} items", self.remaining_items)?;
        writeln!(f)?;
        writeln!(
            f,
            "{} (TableName={}, Sum per {} s):",
            self.metric_name, self.table, self.period_secs
        )?;
        let mut zeros = 0;
        for (i, (start, value)) in self.datapoints.iter().enumerate() {
            let next_is_zero = self.datapoints.get(i + 1).is_some_and(|(_, v)| *v == 0.0);
            if *value == 0.0 && zeros > 0 && next_is_zero {
                zeros += 1;
                continue;
            }
            if zeros > 1 {
                writeln!(f, "  ... {} more periods of 0", zeros - 1)?;
            }
            zeros = usize::from(*value == 0.0);
            writeln!(f, "  {}  {:>10}", iso(*start), value)?;
        }
        writeln!(f)?;
        let alarm = &self.alarm;
        writeln!(
            f,
            "alarm {}: {:?} {:?} {} per {} s, {} of {} periods, TreatMissingData {:?}",
            alarm.alarm_name,
            alarm.statistic,
            alarm.comparison_operator,
            alarm.threshold,
            alarm.period,
            alarm.datapoints_to_alarm(),
            alarm.evaluation_periods,
            alarm.treat_missing_data()
        )?;
        for t in &self.transitions {
            let value = t
                .value
                .map_or_else(|| "missing".to_string(), |v| v.to_string());
            writeln!(
                f,
                "  {}  {} -> {}  (period value {value})",
                iso(t.at_secs),
                t.from,
                t.to
            )?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "archive: {} ({} files, {} records{}, {} distinct SequenceNumbers, {} bytes) — {}",
            self.archive_dir.display(),
            self.archive.files,
            self.archive.records,
            if self.archive.rows == self.archive.records {
                String::new()
            } else {
                format!(" of {} rows", self.archive.rows)
            },
            self.archive.distinct_sequence_numbers,
            self.archive.bytes,
            if self.is_complete() {
                "complete: every TTL deletion archived once"
            } else {
                "INCOMPLETE"
            }
        )?;
        if let Some(sample) = &self.archive.sample {
            writeln!(f, "sample archived record:\n{sample}")?;
        }
        Ok(())
    }
}
