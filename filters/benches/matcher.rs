//! Criterion bench: events per second of [`Matcher::matches`], single thread,
//! beside the `quamina` crate on the same patterns and events.
//!
//! ```text
//! cargo bench -p ttlstream-filters --bench matcher
//! ```
//!
//! Each iteration matches a fixed 20,000-record slice of corpus (a) (see
//! `corpus/mod.rs`) with the TTL pattern and with the 10-pattern stream-filter
//! set; corpus generation and compilation are outside the timed part.
//! `examples/bench.rs` runs the whole corpus and prints ratios.

mod corpus;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ttlstream_filters::{Dialect, Matcher, Pattern};

const SLICE: usize = 20_000;

fn ours(patterns: &[(String, Vec<String>)]) -> Matcher<usize> {
    Matcher::new(patterns.iter().enumerate().filter_map(|(i, (p, _))| {
        Pattern::parse_with(p, Dialect::EventBridge)
            .ok()
            .map(|p| (i, p))
    }))
}

/// quamina with each pattern's alternatives under its index.
fn quamina(patterns: &[(String, Vec<String>)]) -> Option<quamina::Quamina<usize>> {
    let mut q = quamina::Quamina::new();
    for (i, (_, alternatives)) in patterns.iter().enumerate() {
        for p in alternatives {
            q.add_pattern(i, p).ok()?;
        }
    }
    Some(q)
}

fn bench_set(
    c: &mut Criterion,
    name: &str,
    patterns: &[(String, Vec<String>)],
    events: &[Vec<u8>],
) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(events.len() as u64));
    let matcher = ours(patterns);
    group.bench_function("ttlstream", |b| {
        b.iter(|| {
            events
                .iter()
                .filter(|e| matcher.matches(e).is_ok_and(|ids| !ids.is_empty()))
                .count()
        });
    });
    if let Some(q) = quamina(patterns) {
        group.bench_function("quamina", |b| {
            b.iter(|| {
                events
                    .iter()
                    .filter(|e| q.has_matches(e).unwrap_or(false))
                    .count()
            });
        });
    }
    group.finish();
}

fn matching(c: &mut Criterion) {
    let records = corpus::dynamodb_records(SLICE, 1);
    let ttl = [(
        corpus::TTL_PATTERN.to_owned(),
        vec![corpus::TTL_PATTERN.to_owned()],
    )];
    bench_set(c, "ttl_on_stream_records", &ttl, black_box(&records));
    bench_set(
        c,
        "stream10_on_stream_records",
        &corpus::stream_patterns(),
        black_box(&records),
    );
}

criterion_group!(benches, matching);
criterion_main!(benches);
