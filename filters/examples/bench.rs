//! Throughput of [`ttlstream_filters::Matcher`] against the `quamina` crate
//! on DynamoDB stream records, measured in the same run, single thread, plus
//! the memory of 1,000 compiled patterns. Run in release mode:
//!
//! ```text
//! cargo run --release -p ttlstream-filters --example bench [-- SET]
//! ```
//!
//! `SET` (`ttl` or `stream`) runs only the pattern sets whose name contains
//! it. With `BENCH_OURS_ONLY` set in the environment quamina is not run (for
//! profiling ours alone, e.g. under `perf record`).
//!
//! Corpus (a) (seeded, see `benches/corpus/mod.rs`): 200,000 DynamoDB stream
//! records, about 10 % TTL deletions. Pattern sets: the TTL pattern, and a
//! realistic stream-filter set of 10 patterns. Each set runs [`ROUNDS`]
//! rounds; a round is one timed phase of each matcher in turn (so both meet
//! the host's speed of the same moments), and a phase matches the corpus
//! over and over, one `matches` call per event, for at least [`PHASE`]. The
//! figures are each matcher's median phase: events per second (wall time)
//! and on-CPU microseconds per event (the thread's run time from
//! `/proc/thread-self/schedstat`, so time the host gave to other work does
//! not count; `n/a` where that file is missing). The ratio is ours over
//! quamina's, from the same run. Match counts of both are printed, so a
//! disagreement shows. The header names the CPU, since the ratio moves
//! with it (`docs/benchmarks.md` has figures from two CPUs). A full run also
//! times one `serde_json` syntax check of each record, matching nothing:
//! the cost of a pass over the bytes, for scale.

#[path = "../benches/corpus/mod.rs"]
mod corpus;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use peak_alloc::PeakAlloc;
use ttlstream_filters::{Dialect, Matcher, Pattern};

#[global_allocator]
static ALLOCATOR: CountedOutsidePhases = CountedOutsidePhases;

/// `peak_alloc`'s counter, for the memory figures.
static COUNTER: PeakAlloc = PeakAlloc;

/// Set while a phase is timed: allocations go straight to the system
/// allocator, uncounted.
static TIMING: AtomicBool = AtomicBool::new(false);

/// [`PeakAlloc`] (counted), except while a phase is timed ([`System`]).
/// `PeakAlloc` adds atomic read-modify-writes to each allocation and free,
/// which no caller of the matchers pays outside this bench. The memory
/// figures ([`memory`]) are taken outside the phases, so everything they see
/// is counted.
struct CountedOutsidePhases;

impl CountedOutsidePhases {
    /// The allocator for a call made now: [`System`] while a phase is timed.
    fn now() -> &'static dyn GlobalAlloc {
        if TIMING.load(Ordering::Relaxed) {
            &System
        } else {
            &COUNTER
        }
    }
}

// SAFETY: each call is passed on unchanged to `System` or to `PeakAlloc`
// (which allocates and frees with `System`), so every block comes from, and
// goes back to, the system allocator whichever way a call goes, and both
// uphold `GlobalAlloc`'s contract.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountedOutsidePhases {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::now().alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::now().dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::now().alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::now().realloc(ptr, layout, new_size) }
    }
}

/// Timed phases per matcher and set; the median is reported.
const ROUNDS: usize = 3;

/// The shortest timed phase.
const PHASE: Duration = Duration::from_secs(5);

/// The targets: at least this many times quamina's rate.
const TARGET_RATIO: f64 = 2.0;

fn main() {
    let records = corpus::dynamodb_records(corpus::DYNAMODB_RECORDS, 1);
    let mean = records.iter().map(Vec::len).sum::<usize>() as f64 / records.len() as f64;
    println!(
        "corpus (a): {} DynamoDB stream records, {mean:.0} bytes mean; {ROUNDS} rounds of phases of at least {} s, medians; CPU: {}",
        records.len(),
        PHASE.as_secs(),
        cpu_model()
    );
    println!(
        "{:<12} {:>12} {:>10} {:>12} {:>10} {:>7} {:>9} {:>9} {:>8}",
        "pattern set",
        "ours ev/s",
        "ours µs",
        "quamina ev/s",
        "qm µs",
        "ratio",
        "ours hit",
        "qm hit",
        "target"
    );
    let ttl = vec![(
        corpus::TTL_PATTERN.to_owned(),
        vec![corpus::TTL_PATTERN.to_owned()],
    )];
    let sets = [("ttl", ttl), ("stream 10", corpus::stream_patterns())];
    // An optional argument runs only the sets whose name contains it.
    let only = std::env::args().nth(1).unwrap_or_default();
    for (name, patterns) in sets {
        if name.contains(&only) {
            run_set(name, &patterns, &records);
        }
    }
    if only.is_empty() {
        json_floor(&records);
    }
    memory(1_000);
}

fn ours(patterns: &[String]) -> Matcher<usize> {
    Matcher::new(patterns.iter().enumerate().map(|(i, p)| {
        let pattern = Pattern::parse_with(p, Dialect::EventBridge)
            .unwrap_or_else(|e| panic!("bench pattern {p}: {e}"));
        (i, pattern)
    }))
}

/// quamina with `patterns[i]`'s alternatives under id `i`.
fn quamina(patterns: &[Vec<String>]) -> Option<quamina::Quamina<usize>> {
    let mut q = quamina::Quamina::new();
    for (i, alternatives) in patterns.iter().enumerate() {
        for p in alternatives {
            if let Err(e) = q.add_pattern(i, p) {
                println!("  quamina rejects {p}: {e}");
                return None;
            }
        }
    }
    Some(q)
}

/// One timed phase's figures.
#[derive(Clone, Copy)]
struct Phase {
    events_per_sec: f64,
    /// On-CPU microseconds per event, where the platform tells.
    cpu_micros: Option<f64>,
    /// Events with some match in one pass over the corpus.
    hits: usize,
}

fn run_set(name: &str, patterns: &[(String, Vec<String>)], events: &[Vec<u8>]) {
    let ours_patterns: Vec<String> = patterns.iter().map(|(p, _)| p.clone()).collect();
    let qm_patterns: Vec<Vec<String>> = patterns.iter().map(|(_, q)| q.clone()).collect();
    let matcher = ours(&ours_patterns);
    let ours_only = std::env::var_os("BENCH_OURS_ONLY").is_some();
    let qm = if ours_only {
        None
    } else {
        quamina(&qm_patterns)
    };
    let (mut ours_phases, mut qm_phases) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours_phases.push(phase(events, |event| match matcher.matches(event) {
            Ok(ids) => !ids.is_empty(),
            Err(e) => panic!("generated event rejected: {e}"),
        }));
        if let Some(q) = &qm {
            qm_phases.push(phase(events, |event| match q.has_matches(event) {
                Ok(hit) => hit,
                Err(e) => panic!("quamina rejected a generated event: {e}"),
            }));
        }
    }
    let ours = median(&ours_phases);
    let qm = (!qm_phases.is_empty()).then(|| median(&qm_phases));
    let micros = |p: Phase| p.cpu_micros.map_or("n/a".to_owned(), |m| format!("{m:.3}"));
    let ratio = qm.map(|q| ours.events_per_sec / q.events_per_sec);
    println!(
        "{:<12} {:>12.0} {:>10} {:>12} {:>10} {:>7} {:>9} {:>9} {:>8}",
        name,
        ours.events_per_sec,
        micros(ours),
        qm.map_or("n/a".to_owned(), |q| format!("{:.0}", q.events_per_sec)),
        qm.map_or("n/a".to_owned(), micros),
        ratio.map_or("n/a".to_owned(), |r| format!("{r:.2}x")),
        ours.hits,
        qm.map_or("n/a".to_owned(), |q| q.hits.to_string()),
        ratio.map_or("n/a", |r| if r >= TARGET_RATIO { "met" } else { "MISSED" }),
    );
}

/// What one pass over each record's JSON costs, matching nothing:
/// `serde_json` checking its syntax (`IgnoredAny`). A matcher that reads the
/// record's bytes one at a time, as this crate's does, is not far below it.
fn json_floor(events: &[Vec<u8>]) {
    let phases: Vec<Phase> = (0..ROUNDS)
        .map(|_| {
            phase(events, |event| {
                serde_json::from_slice::<serde::de::IgnoredAny>(event).is_ok()
            })
        })
        .collect();
    let floor = median(&phases);
    println!(
        "{:<12} {:>12.0} {:>10}   (serde_json IgnoredAny: one syntax check of each record, no matching)",
        "json pass",
        floor.events_per_sec,
        floor
            .cpu_micros
            .map_or("n/a".to_owned(), |m| format!("{m:.3}")),
    );
}

/// Match `events` over and over with `hit` for at least [`PHASE`].
fn phase(events: &[Vec<u8>], mut hit: impl FnMut(&[u8]) -> bool) -> Phase {
    TIMING.store(true, Ordering::Relaxed);
    let (start, cpu_start) = (Instant::now(), cpu_time());
    let (mut matched, mut hits) = (0usize, 0usize);
    while start.elapsed() < PHASE {
        hits = events
            .iter()
            .filter(|event| std::hint::black_box(hit(event)))
            .count();
        matched += events.len();
    }
    let (wall, cpu_end) = (start.elapsed(), cpu_time());
    TIMING.store(false, Ordering::Relaxed);
    Phase {
        events_per_sec: matched as f64 / wall.as_secs_f64(),
        cpu_micros: cpu_start
            .zip(cpu_end)
            .map(|(a, b)| (b - a).as_secs_f64() * 1e6 / matched as f64),
        hits,
    }
}

/// The phase with the median rate.
fn median(phases: &[Phase]) -> Phase {
    let mut sorted = phases.to_vec();
    sorted.sort_by(|a, b| a.events_per_sec.total_cmp(&b.events_per_sec));
    sorted[sorted.len() / 2]
}

/// The CPU's model name (Linux: `/proc/cpuinfo`): the ratio to quamina
/// depends on it, so every run names it.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("model name"))?;
            Some(line.split_once(':')?.1.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// This thread's time on a CPU so far (Linux: the first field of
/// `/proc/thread-self/schedstat`, in nanoseconds).
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Heap held by, and peak heap while building, each matcher over `count` patterns.
fn memory(count: usize) {
    let patterns = corpus::many_patterns(count);
    let before = COUNTER.current_usage();
    COUNTER.reset_peak_usage();
    let matcher = ours(&patterns);
    let ours_held = COUNTER.current_usage().saturating_sub(before);
    let ours_peak = COUNTER.peak_usage().saturating_sub(before);
    drop(matcher);
    let before = COUNTER.current_usage();
    COUNTER.reset_peak_usage();
    let alternatives: Vec<Vec<String>> = patterns.iter().map(|p| vec![p.clone()]).collect();
    let qm = quamina(&alternatives);
    let qm_held = COUNTER.current_usage().saturating_sub(before);
    let qm_peak = COUNTER.peak_usage().saturating_sub(before);
    println!(
        "memory, {count} patterns: ours {} held ({} peak while compiling); quamina {} held ({} peak); ours/quamina {:.2} (target at most 0.25: {})",
        kib(ours_held),
        kib(ours_peak),
        kib(qm_held),
        kib(qm_peak),
        ours_held as f64 / qm_held as f64,
        if qm.is_some() && ours_held * 4 <= qm_held {
            "met"
        } else {
            "MISSED"
        },
    );
}

fn kib(bytes: usize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}
