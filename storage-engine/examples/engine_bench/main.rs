//! The engine's speed figures, each beside a baseline measured in the same
//! run. Run with `--release`:
//!
//! `cargo run --release -p ttlstream-engine --example engine_bench -- [items] [rounds] [phases]`
//!
//! `items` defaults to 1,000,000, `rounds` to 3 and `phases` to
//! `rates,enable,lag` (any of them, comma-separated); every figure is the
//! median of the rounds, each rate measured over at least 5 s of timed work
//! with the CPU time of all the process's threads per item beside it
//! (Linux), and the phases of a round run one after the other, so a busy
//! machine slows a round's baseline and its subject alike.
//!
//! 1. **Writes** and **sweep** against raw fjall doing the same storage
//!    work (`rates.rs`).
//! 2. **UpdateTimeToLive** on a table of `items` items: the call, the index
//!    build it no longer waits for, a writer's latency during the build
//!    (`enable.rs`).
//! 3. **Expiry lag** under a steady 50,000 expirations per second (`lag.rs`).
//!
//! Foreground reads during a sweep (GetItem over loopback HTTP) need the
//! server: `ttlstream-server`'s `reads_bench` example, which shares this
//! bench's `measure.rs` and `../support`.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../support/mod.rs"]
mod support;

mod enable;
mod lag;
mod measure;
mod rates;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let items = number(0).unwrap_or(1_000_000);
    let rounds = number(1).unwrap_or(3).max(1);
    let phases = args.get(2).map_or("rates,enable,lag", String::as_str);
    let run = |phase: &str| phases.split(',').any(|p| p == phase);
    println!(
        "ttlstream-engine bench: {items} items of ~150 bytes, {rounds} rounds, {} CPUs (release build)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    if run("rates") {
        let writes_and_sweeps: Vec<_> = (0..rounds)
            .map(|_| {
                let raw = rates::raw(items);
                let ours = rates::engine(items);
                (ours, raw)
            })
            .collect();
        let writes: Vec<_> = writes_and_sweeps.iter().map(|(o, b)| (o.0, b.0)).collect();
        let sweeps: Vec<_> = writes_and_sweeps.iter().map(|(o, b)| (o.1, b.1)).collect();
        rates::report(
            "writes (item + expiry entry + stream record)",
            "raw fjall, the same 3 entries",
            &writes,
        );
        rates::report(
            "sweep (read, delete item + entry, REMOVE record)",
            "raw fjall removes of item + entry",
            &sweeps,
        );
    }
    if run("enable") {
        let enables: Vec<_> = (0..rounds).map(|_| enable::round(items)).collect();
        enable::report(items, &enables);
    }
    if run("lag") {
        let lags: Vec<_> = (0..rounds).map(|_| lag::round()).collect();
        lag::report(&lags);
    }
}
