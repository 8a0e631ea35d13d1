//! Throughput of [`ttlstream_filters::Matcher`] against the `quamina` crate,
//! measured in the same run, single thread, plus the memory of 1,000 compiled
//! patterns. Run in release mode:
//!
//! ```text
//! cargo run --release -p ttlstream-filters --example bench [-- SET]
//! ```
//!
//! `SET` (e.g. `exact`) runs only the pattern sets whose name contains it.
//! With `BENCH_OURS_ONLY` set in the environment quamina is not run (for
//! profiling ours alone, e.g. under `perf record`).
//!
//! Corpora (seeded, see `benches/corpus/mod.rs`): (a) 200,000 DynamoDB stream
//! records, about 10 % TTL deletions; (b) 213,068 GeoJSON "city lots"
//! features of about 900 bytes. Each pattern set is timed over the whole
//! corpus in `ROUNDS` rounds; a round is one pass of each matcher in turn
//! (ours as a stream, ours one by one, quamina), so that both meet the
//! host's speed of the same moments. The fastest pass of each is reported
//! (and ours' median pass beside it); match counts of both matchers are
//! printed so a disagreement shows.
//!
//! "ours ev/s" matches the corpus as one stream with `Matcher::matches_each`
//! (which asks for the next event's bytes while one is matched), its fastest
//! pass; "ours median" is the median pass of the same; "1 by 1" calls
//! `Matcher::matches` per event. The ratio and the target use the fastest
//! stream pass; quamina is called per event (it has no stream call).

#[path = "../benches/corpus/mod.rs"]
mod corpus;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use peak_alloc::PeakAlloc;
use ttlstream_filters::{Dialect, Matcher, Pattern};

#[global_allocator]
static ALLOCATOR: CountedOutsidePasses = CountedOutsidePasses;

/// `peak_alloc`'s counter, for the memory figures.
static COUNTER: PeakAlloc = PeakAlloc;

/// Set while a pass is timed: allocations go straight to the system
/// allocator, uncounted.
static TIMING: AtomicBool = AtomicBool::new(false);

/// [`PeakAlloc`] (counted), except while a pass is timed ([`System`]).
/// `PeakAlloc` adds two atomic read-modify-writes to each allocation and
/// one to each free, and makes every `realloc` a new block and a copy:
/// about 24 ns more per allocated and freed result `Vec` on this machine
/// (20 million of each, alone: 21-35 against 46-71 ns), which no caller
/// of the matchers pays outside this bench. The memory figures
/// ([`memory`]) are taken outside the passes, so everything they see is
/// counted; a block a pass allocates and frees is not counted at all.
struct CountedOutsidePasses;

impl CountedOutsidePasses {
    /// The allocator for a call made now: [`System`] while a pass is timed.
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
unsafe impl GlobalAlloc for CountedOutsidePasses {
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

/// Rounds of timed passes over a corpus, one pass per matcher in each; the
/// fastest pass of each matcher is reported. The VM this runs on changes
/// speed with its host from minute to minute (docs/performance.md), so
/// more passes, interleaved, find its quiet moments for every matcher alike.
const ROUNDS: usize = 5;

/// Our throughput targets, events per second (the issue's).
const TARGETS: [(&str, f64); 3] = [
    ("ttl on (a)", 4_000_000.0),
    ("5 exact on (b)", 4_000_000.0),
    ("25 mixed on (b)", 1_200_000.0),
];

fn main() {
    let records = corpus::dynamodb_records(corpus::DYNAMODB_RECORDS, 1);
    let lots = corpus::city_lots(corpus::CITY_LOTS, 2);
    println!(
        "corpus (a): {} DynamoDB records, {:.0} bytes mean; corpus (b): {} city-lots features, {:.0} bytes mean",
        records.len(),
        mean_len(&records),
        lots.len(),
        mean_len(&lots)
    );
    println!(
        "{:<18} {:>14} {:>14} {:>14} {:>14} {:>10} {:>9} {:>9} {:>8}",
        "pattern set",
        "ours ev/s",
        "ours median",
        "1 by 1 ev/s",
        "quamina ev/s",
        "ratio",
        "ours hit",
        "qm hit",
        "target"
    );
    let sets = [
        (TARGETS[0], vec![corpus::TTL_PATTERN.to_owned()], &records),
        (TARGETS[1], corpus::exact_patterns(), &lots),
        (TARGETS[2], corpus::mixed_patterns(), &lots),
    ];
    // An optional argument runs only the sets whose name contains it.
    let only = std::env::args().nth(1).unwrap_or_default();
    for ((name, target), patterns, events) in sets {
        if name.contains(&only) {
            run_set(name, target, &patterns, events);
        }
    }
    memory(1_000);
}

fn mean_len(events: &[Vec<u8>]) -> f64 {
    events.iter().map(Vec::len).sum::<usize>() as f64 / events.len() as f64
}

fn ours(patterns: &[String]) -> Matcher<usize> {
    Matcher::new(patterns.iter().enumerate().map(|(i, p)| {
        let pattern = Pattern::parse_with(p, Dialect::EventBridge)
            .unwrap_or_else(|e| panic!("bench pattern {p}: {e}"));
        (i, pattern)
    }))
}

fn quamina(patterns: &[String]) -> Option<quamina::Quamina<usize>> {
    let mut q = quamina::Quamina::new();
    for (i, p) in patterns.iter().enumerate() {
        if let Err(e) = q.add_pattern(i, p) {
            println!("  quamina rejects {p}: {e}");
            return None;
        }
    }
    Some(q)
}

fn run_set(name: &str, target: f64, patterns: &[String], events: &[Vec<u8>]) {
    let matcher = ours(patterns);
    let ours_only = std::env::var_os("BENCH_OURS_ONLY").is_some();
    let qm = if ours_only { None } else { quamina(patterns) };
    let count = |results: &mut dyn Iterator<Item = Result<Vec<usize>, _>>| {
        results.fold(0usize, |hits, ids| match ids {
            Ok(ids) => hits + usize::from(!ids.is_empty()),
            Err(e) => panic!("generated event rejected: {e}"),
        })
    };
    // The corpus as a stream (`matches_each`: the next event's bytes are
    // asked for while one is matched), one `matches` call per event, and
    // quamina (one call per event), a pass of each per round.
    let (mut stream, mut single, mut qm_times) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ours_hits, mut single_hits, mut qm_hits) = (0, 0, None);
    for _ in 0..ROUNDS {
        let (time, hits) =
            timed(|| count(&mut matcher.matches_each(events.iter().map(Vec::as_slice))));
        stream.push(time);
        ours_hits = hits;
        let (time, hits) = timed(|| count(&mut events.iter().map(|e| matcher.matches(e))));
        single.push(time);
        single_hits = hits;
        if let Some(q) = &qm {
            let (time, hits) = timed(|| {
                events
                    .iter()
                    .fold(0usize, |hits, event| match q.has_matches(event) {
                        Ok(hit) => hits + usize::from(hit),
                        Err(e) => panic!("quamina rejected a generated event: {e}"),
                    })
            });
            qm_times.push(time);
            qm_hits = Some(hits);
        }
    }
    assert_eq!(ours_hits, single_hits, "matches_each and matches disagree");
    let rate = |time: Duration| events.len() as f64 / time.as_secs_f64();
    let ours_rate = rate(fastest(&stream));
    let single_rate = rate(fastest(&single));
    let qm_rate = (!qm_times.is_empty()).then(|| rate(fastest(&qm_times)));
    stream.sort();
    let median_rate = rate(stream[stream.len() / 2]);
    println!(
        "{:<18} {:>14.0} {:>14.0} {:>14.0} {:>14} {:>10} {:>9} {:>9} {:>8}",
        name,
        ours_rate,
        median_rate,
        single_rate,
        qm_rate.map_or("n/a".to_owned(), |r| format!("{r:.0}")),
        qm_rate.map_or("n/a".to_owned(), |r| format!("{:.2}x", ours_rate / r)),
        ours_hits,
        qm_hits.map_or("n/a".to_owned(), |h| h.to_string()),
        if ours_rate >= target { "met" } else { "MISSED" },
    );
}

/// One timed pass: how long `pass` took, and what it returned.
fn timed(pass: impl FnOnce() -> usize) -> (Duration, usize) {
    TIMING.store(true, Ordering::Relaxed);
    let start = Instant::now();
    let result = std::hint::black_box(pass());
    let time = start.elapsed();
    TIMING.store(false, Ordering::Relaxed);
    (time, result)
}

fn fastest(times: &[Duration]) -> Duration {
    times.iter().copied().min().unwrap_or(Duration::MAX)
}

/// Heap held by, and peak heap while building, each matcher over `count` patterns.
fn memory(count: usize) {
    let patterns = corpus::many_patterns(count);
    let before = COUNTER.current_usage();
    COUNTER.reset_peak_usage();
    let matcher = ours(&patterns);
    let held = COUNTER.current_usage().saturating_sub(before);
    let peak = COUNTER.peak_usage().saturating_sub(before);
    println!(
        "memory, {count} patterns: ours {} held, {} peak while compiling ({} patterns)",
        kib(held),
        kib(peak),
        matcher.len()
    );
    drop(matcher);
    let before = COUNTER.current_usage();
    COUNTER.reset_peak_usage();
    if let Some(q) = quamina(&patterns) {
        let held = COUNTER.current_usage().saturating_sub(before);
        let peak = COUNTER.peak_usage().saturating_sub(before);
        println!(
            "memory, {count} patterns: quamina {} held, {} peak while compiling ({} patterns)",
            kib(held),
            kib(peak),
            q.pattern_count()
        );
    }
}

fn kib(bytes: usize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}
