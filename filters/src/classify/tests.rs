//! The AVX2, AVX-512BW and VBMI bodies against the byte-by-byte reference.

use super::gated::{GATED_BLOCKS, gated_numbers_with, portable_gated};
use super::*;

/// What [`gated_numbers_with`] finds, when it accepts the array.
fn found(accepted: bool, gated: &Gated) -> Option<(Vec<u32>, bool, usize, Vec<u64>)> {
    accepted.then(|| {
        let blocks = gated.delimiters.iter().position(|&d| d == 0);
        (
            gated.starts[..gated.count].to_vec(),
            gated.any,
            gated.end,
            gated.delimiters[..blocks.unwrap_or(GATED_BLOCKS + 1)].to_vec(),
        )
    })
}

#[test]
fn gated_bodies_agree_with_the_portable_one() {
    let text = |t: &[u8]| {
        let mut word = [0u8; 8];
        word[..t.len()].copy_from_slice(t);
        u64::from_le_bytes(word)
    };
    let gate = Gate::new(
        [(text(b"-122"), 122), (text(b"0"), 0), (text(b"-0"), 0)],
        &[(-12_250_010_000, -12_237_590_000), (-10_000, 50_000_000)],
        None,
    );
    // Every text negative: every negative number goes through.
    let negative = Gate::new(
        [(text(b"-122"), 122), (text(b"-0"), 0)],
        &[(-12_250_010_000, -12_237_590_000), (-10_000, 0)],
        None,
    );
    assert!(negative.negative && !gate.negative);
    let pieces = [
        "[",
        "]",
        ",",
        "-",
        ".",
        "0",
        "7",
        "-122",
        "-122.5",
        "-1220.5",
        "37.70041",
        "0.0",
        "-0.25",
        "00",
        "01",
        "1e5",
        " ",
        "\"",
        "[-122.4985,37.7002,0.0],",
        "1.2.3",
        "5.",
        "-122.49712345678901,",
        "[[]],",
        "-122",
        // Two neighbours each, every rule once.
        "]7,",
        "]-1,",
        "[,",
        ",,",
        "[1,]",
        "[.5]",
        "7[",
        "7-",
        "-.",
        "--5",
        "[0.]",
        "5..5,",
        "-01,",
        "[-]",
        "[1]7",
        "0.0.0,",
        "[00]",
    ];
    let mut state: u64 = 3;
    let mut accepted = 0;
    for round in 0..20_000 {
        let mut array = String::from("[");
        array.push_str(&"7".repeat(round % 70));
        array.push(',');
        // Well-formed points with one piece of any kind among them
        // (odd rounds), or a faulty piece now and then (even rounds).
        let one = round % 40 / 2;
        for i in 0..(round % 40) {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let any = (state >> 33) as usize % pieces.len();
            let piece = match round % 2 {
                1 if i == one => any,
                1 => 18,
                _ if state >> 60 < 13 => 18,
                _ => any,
            };
            array.push_str(pieces[piece]);
        }
        let array = array.trim_end_matches(',').to_owned() + "]],1]";
        let bytes = array.as_bytes();
        for (room, gate) in [(3, &gate), (128, &gate), (128, &negative)] {
            let mut want = Gated::default();
            let ok = gated_numbers_with(portable_gated, bytes, 0, room, gate, &mut want);
            let want = found(ok, &want);
            accepted += usize::from(want.is_some());
            #[cfg(target_arch = "x86_64")]
            {
                let mut got = Gated::default();
                if Classifier::new().is_some() {
                    // SAFETY: `Classifier::new` found AVX2 and POPCNT.
                    #[allow(unsafe_code)]
                    let ok = unsafe { x86::gated_numbers(bytes, 0, room, gate, &mut got) };
                    assert_eq!(found(ok, &got), want, "AVX2 {array}");
                }
                if Classifier::new().is_some_and(|c| c.avx512) {
                    // SAFETY: `Classifier::new` found AVX-512BW and POPCNT.
                    #[allow(unsafe_code)]
                    let ok = unsafe { avx512::gated_numbers(bytes, 0, room, gate, &mut got) };
                    assert_eq!(found(ok, &got), want, "AVX-512 {array}");
                }
                if Classifier::new().is_some_and(|c| c.vbmi) {
                    // SAFETY: `Classifier::new` found AVX-512BW, VBMI and POPCNT.
                    #[allow(unsafe_code)]
                    let ok = unsafe { vbmi::gated_numbers(bytes, 0, room, gate, &mut got) };
                    assert_eq!(found(ok, &got), want, "VBMI {array}");
                }
            }
        }
    }
    assert!(accepted > 3_000, "{accepted}");
}

#[test]
fn blocks_agree_with_a_byte_by_byte_classification() {
    let Some(classifier) = Classifier::new() else {
        return;
    };
    let bytes: Vec<u8> = (0..=255u8)
        .chain(b"[[-122.5,37.25,0.0],[1e5, \"x\"]]".iter().copied())
        .collect();
    for at in [0, 1, 31, 64, 100, 200, bytes.len() - 70, bytes.len() - 5] {
        let mut want = [0u8; 64];
        let rest = &bytes[at..];
        let n = rest.len().min(64);
        want[..n].copy_from_slice(&rest[..n]);
        assert_eq!(classifier.block(&bytes, at), portable(&want), "at {at}");
    }
}
