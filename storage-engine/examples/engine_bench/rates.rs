//! Writes and sweep, each against raw fjall doing the same storage work.
//!
//! * Writes: `put_items` of 1,000 items at a time into the bench table (TTL
//!   enabled, a `NEW_AND_OLD_IMAGES` stream), against raw fjall batches of
//!   1,000 writing the same three entries per item (the item, an expiry-index
//!   key, a stream record holding the item's bytes).
//! * Sweep: `sweep_now` over the `items` expired items just written (each
//!   deleted with its expiry entry and a REMOVE record), against raw fjall
//!   batches of 1,000 removing the item and expiry entries the raw writes
//!   made (the engine also reads each item and writes its REMOVE record).
//!
//! Each side repeats "write `items`, then sweep or remove them" until both
//! its write and its sweep time reach [`MIN_PHASE`](super::measure::MIN_PHASE).

use super::measure::{Phase, median};
use super::support::{START_MILLIS, TABLE, item, open};
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::{Clock, Item, ManualClock};

/// An item's key and bytes, its expiry key and its record's number.
type RawEntry = (Vec<u8>, Vec<u8>, Vec<u8>, u64);

/// Items per timed piece (ten batches): reading the CPU clocks costs a few
/// microseconds, well under 1 % of a piece.
const PIECE: usize = 10_000;

/// The engine's write and sweep phases, on a fresh engine.
pub fn engine(items: usize) -> (Phase, Phase) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), clock.clone());
    let (mut write, mut sweep) = (Phase::default(), Phase::default());
    while !write.long_enough() || !sweep.long_enough() {
        let now_secs = clock.now_millis() / 1000;
        for first in (0..items).step_by(PIECE) {
            let end = items.min(first + PIECE);
            let batches: Vec<Vec<Item>> = (first..end)
                .map(|i| item(i, now_secs + 1 + (i % 3600) as i64))
                .collect::<Vec<_>>()
                .chunks(1000)
                .map(<[Item]>::to_vec)
                .collect();
            write.time((end - first) as u64, || {
                for batch in batches {
                    engine.dynamodb().put_items(TABLE, batch).unwrap();
                }
            });
        }
        clock.advance(Duration::from_secs(3601));
        let deleted = sweep.time(items as u64, || engine.sweep_now().unwrap().deleted);
        assert_eq!(deleted as usize, items, "sweep deleted the wrong count");
    }
    (write, sweep)
}

/// Raw fjall's write and remove phases, on a fresh database.
pub fn raw(items: usize) -> (Phase, Phase) {
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(dir.path()).open().unwrap();
    let [ks_items, ks_expiry, ks_stream] = ["items", "expiry", "stream"].map(|name| {
        db.keyspace(name, fjall::KeyspaceCreateOptions::default)
            .unwrap()
    });
    let (mut write, mut remove) = (Phase::default(), Phase::default());
    let mut seq = 0u64;
    while !write.long_enough() || !remove.long_enough() {
        let mut keys = Vec::with_capacity(items);
        for first in (0..items).step_by(PIECE) {
            let end = items.min(first + PIECE);
            // The item's key and bytes (its DynamoDB JSON, about the size of
            // the engine's encoding), the expiry key, the record's number.
            let entries: Vec<RawEntry> = (first..end)
                .map(|i| {
                    let key = format!("user{i:08}").into_bytes();
                    let value = serde_json::to_vec(&item(i, START_MILLIS / 1000)).unwrap();
                    let mut expiry = ((i % 3600) as u64).to_be_bytes().to_vec();
                    expiry.extend_from_slice(&key);
                    seq += 1;
                    (key, value, expiry, seq)
                })
                .collect();
            write.time((end - first) as u64, || {
                for batch in entries.chunks(1000) {
                    let mut b = db.batch();
                    for (key, value, expiry, seq) in batch {
                        b.insert(&ks_items, key.as_slice(), value.as_slice());
                        b.insert(&ks_expiry, expiry.as_slice(), b"");
                        b.insert(&ks_stream, seq.to_be_bytes(), value.as_slice());
                    }
                    b.commit().unwrap();
                }
            });
            keys.extend(entries.into_iter().map(|(key, _, expiry, _)| (key, expiry)));
        }
        for piece in keys.chunks(PIECE) {
            remove.time(piece.len() as u64, || {
                for batch in piece.chunks(1000) {
                    let mut b = db.batch();
                    for (key, expiry) in batch {
                        b.remove(&ks_items, key.as_slice());
                        b.remove(&ks_expiry, expiry.as_slice());
                    }
                    b.commit().unwrap();
                }
            });
        }
    }
    (write, remove)
}

/// Prints the rounds and their medians: rate, CPU per item, ratio to the
/// baseline of the same round.
pub fn report(name: &str, base_name: &str, rounds: &[(Phase, Phase)]) {
    for (i, (ours, base)) in rounds.iter().enumerate() {
        println!(
            "  round {}: {name} {:>9.0} items/s {:>6.2} µs CPU/item ({:.1} s)   {base_name} {:>9.0}/s {:>6.2} µs CPU/item ({:.1} s)   ratio {:.2}",
            i + 1,
            ours.rate(),
            ours.cpu_micros_per_item(),
            ours.wall.as_secs_f64(),
            base.rate(),
            base.cpu_micros_per_item(),
            base.wall.as_secs_f64(),
            ours.rate() / base.rate()
        );
    }
    let ours = median(rounds.iter().map(|(o, _)| o.rate()).collect());
    let base = median(rounds.iter().map(|(_, b)| b.rate()).collect());
    let ratio = median(rounds.iter().map(|(o, b)| o.rate() / b.rate()).collect());
    println!(
        "{name}: median {ours:.0} items/s, {:.2} µs CPU/item; {base_name} {base:.0}/s, {:.2} µs CPU/item; ratio (median of rounds) {ratio:.2}",
        median(
            rounds
                .iter()
                .map(|(o, _)| o.cpu_micros_per_item())
                .collect()
        ),
        median(
            rounds
                .iter()
                .map(|(_, b)| b.cpu_micros_per_item())
                .collect()
        ),
    );
}
