//! Foreground reads while the sweeper deletes a large backlog: GetItem p50 /
//! p99 over loopback HTTP through this crate's server during the sweep of
//! `items` expired items, beside the same reads with the sweeper paused,
//! measured in the same round (`reads.rs`). Run with `--release`:
//!
//! `cargo run --release -p ttlstream-server --example reads_bench -- [items] [rounds]`
//!
//! `items` defaults to 1,000,000 and `rounds` to 3; the figures are the
//! median of the rounds, each timed phase at least 5 s. The table, items
//! and statistics are `ttlstream-engine`'s `engine_bench`'s (its
//! `examples/support` and `examples/engine_bench/measure.rs`, included
//! below), so the two benches write the same workload.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../../../examples/support/mod.rs"]
mod support;

#[allow(dead_code)]
#[path = "../../../examples/engine_bench/measure.rs"]
mod measure;

mod reads;

/// The allocator of the `ttlstream` binary, which runs `ttlstream serve`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let items = number(0).unwrap_or(1_000_000);
    let rounds = number(1).unwrap_or(3).max(1);
    println!(
        "ttlstream-server reads bench: {items} items of ~150 bytes, {rounds} rounds, {} CPUs (release build)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let reads: Vec<_> = (0..rounds).map(|_| reads::round(items)).collect();
    reads::report(items, &reads);
}
