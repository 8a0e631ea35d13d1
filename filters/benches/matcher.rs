//! Criterion bench: events per second of [`Matcher::matches`], single thread,
//! beside the `quamina` crate on the same patterns and events.
//!
//! ```text
//! cargo bench -p ttlstream-filters --bench matcher
//! ```
//!
//! Each iteration matches a fixed 20,000-event slice of a seeded corpus (see
//! `corpus/mod.rs`); corpus generation and compilation are outside the timed
//! part. `examples/bench.rs` runs the full corpora and prints ratios.

mod corpus;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ttlstream_filters::{Dialect, Matcher, Pattern};

const SLICE: usize = 20_000;

fn ours(patterns: &[String]) -> Matcher<usize> {
    Matcher::new(patterns.iter().enumerate().filter_map(|(i, p)| {
        Pattern::parse_with(p, Dialect::EventBridge)
            .ok()
            .map(|p| (i, p))
    }))
}

fn quamina(patterns: &[String]) -> Option<quamina::Quamina<usize>> {
    let mut q = quamina::Quamina::new();
    for (i, p) in patterns.iter().enumerate() {
        q.add_pattern(i, p).ok()?;
    }
    Some(q)
}

fn bench_set(c: &mut Criterion, name: &str, patterns: &[String], events: &[Vec<u8>]) {
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
    let lots = corpus::city_lots(SLICE, 2);
    bench_set(
        c,
        "ttl_on_dynamodb",
        &[corpus::TTL_PATTERN.to_owned()],
        black_box(&records),
    );
    bench_set(
        c,
        "exact5_on_citylots",
        &corpus::exact_patterns(),
        black_box(&lots),
    );
    bench_set(
        c,
        "mixed25_on_citylots",
        &corpus::mixed_patterns(),
        black_box(&lots),
    );
}

criterion_group!(benches, matching);
criterion_main!(benches);
