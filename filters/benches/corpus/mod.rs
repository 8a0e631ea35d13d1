//! Seeded corpora and pattern sets shared by the criterion bench
//! (`benches/matcher.rs`) and the release bench binary (`examples/bench.rs`).
//!
//! (a) DynamoDB stream records in the Lambda record shape, about 10 % of them
//! TTL deletions (REMOVE by `dynamodb.amazonaws.com`); (b) GeoJSON features
//! shaped like San Francisco's "city lots" data (`properties` with `MAPBLKLOT`,
//! `BLKLOT`, `BLOCK_NUM`, `LOT_NUM`, `FROM_ST`, `TO_ST`, `STREET`, `ST_TYPE`,
//! `ODD_EVEN`; a `Polygon` of `[lon, lat, 0.0]` points), about 900 bytes each.
//! Same seed, same bytes.

#![allow(dead_code)]

use std::fmt::Write;

/// Records in corpus (a).
pub const DYNAMODB_RECORDS: usize = 200_000;
/// Features in corpus (b): as many as the city-lots file has.
pub const CITY_LOTS: usize = 213_068;

/// The TTL-deletion filter (`deploy/filters/ttl-system-deletes.json`'s pattern).
pub const TTL_PATTERN: &str = r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#;

const STREETS: [&str; 24] = [
    "UNKNOWN",
    "MARKET",
    "MISSION",
    "VALENCIA",
    "GEARY",
    "FULTON",
    "CRANLEIGH",
    "17TH",
    "24TH",
    "HAIGHT",
    "DIVISADERO",
    "VAN NESS",
    "LOMBARD",
    "CASTRO",
    "NOE",
    "POLK",
    "LARKIN",
    "JACKSON",
    "CALIFORNIA",
    "TARAVAL",
    "IRVING",
    "JUDAH",
    "NORIEGA",
    "OCEAN",
];
const ST_TYPES: [&str; 6] = ["ST", "AVE", "BLVD", "WAY", "TER", "CT"];

/// splitmix64: a tiny, seeded, well-mixed generator (no dependency).
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Corpus (a): `count` DynamoDB stream records as compact JSON, one per entry.
pub fn dynamodb_records(count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let roll = rng.below(100);
            let (name, ttl) = match roll {
                0..=9 => ("REMOVE", true),
                10..=14 => ("REMOVE", false),
                15..=54 => ("INSERT", false),
                _ => ("MODIFY", false),
            };
            let user = format!("user{}", rng.below(50_000));
            let session = format!("{:016x}", rng.next_u64());
            let expires = 1_571_827_560 + rng.below(86_400);
            let image = format!(
                r#"{{"UserName":{{"S":"{user}"}},"SessionId":{{"S":"{session}"}},"CreationTime":{{"N":"{}"}},"ExpirationTime":{{"N":"{expires}"}},"Cart":{{"L":[{{"S":"item{}"}},{{"N":"{}"}}]}}}}"#,
                expires - 3600,
                rng.below(1000),
                rng.below(100)
            );
            let images = match name {
                "INSERT" => format!(r#""NewImage":{image}"#),
                "MODIFY" => format!(r#""OldImage":{image},"NewImage":{image}"#),
                _ => format!(r#""OldImage":{image}"#),
            };
            let identity = if ttl {
                r#","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}"#
            } else {
                ""
            };
            format!(
                r#"{{"eventID":"{:032x}","eventName":"{name}","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1","dynamodb":{{"ApproximateCreationDateTime":{},"Keys":{{"UserName":{{"S":"{user}"}},"SessionId":{{"S":"{session}"}}}},{images},"SequenceNumber":"{:021}","SizeBytes":{},"StreamViewType":"NEW_AND_OLD_IMAGES"}},"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/SessionData/stream/2019-10-23T00:00:00.000"{identity}}}"#,
                u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()),
                expires + 60,
                i + 1,
                100 + rng.below(300),
            )
            .into_bytes()
        })
        .collect()
}

/// Corpus (b): `count` city-lots features as compact JSON (about 900 bytes each).
pub fn city_lots(count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let block = rng.below(7600);
            let lot = rng.below(300);
            let street = STREETS[rng.below(STREETS.len() as u64) as usize];
            let st_type = if street == "UNKNOWN" {
                "null".to_owned()
            } else {
                format!("\"{}\"", ST_TYPES[rng.below(ST_TYPES.len() as u64) as usize])
            };
            let from = rng.below(4000);
            let mut out = format!(
                r#"{{"type":"Feature","properties":{{"MAPBLKLOT":"{block:04}{lot:03}","BLKLOT":"{block:04}{lot:03}","BLOCK_NUM":"{block:04}","LOT_NUM":"{lot:03}","FROM_ST":"{from}","TO_ST":"{}","STREET":"{street}","ST_TYPE":{st_type},"ODD_EVEN":"{}"}},"geometry":{{"type":"Polygon","coordinates":[["#,
                from + rng.below(40),
                if from.is_multiple_of(2) { "E" } else { "O" },
            );
            let lon = -122.52 + rng.unit() * 0.16;
            let lat = 37.70 + rng.unit() * 0.11;
            for point in 0..14 {
                if point > 0 {
                    out.push(',');
                }
                let _ = write!(
                    out,
                    "[{:.15},{:.15},0.0]",
                    lon + rng.unit() * 0.0004,
                    lat + rng.unit() * 0.0004
                );
            }
            out.push_str("]]}}");
            out.into_bytes()
        })
        .collect()
}

/// Five exact-match patterns on (b)'s `properties.STREET`.
pub fn exact_patterns() -> Vec<String> {
    ["CRANLEIGH", "17TH", "FULTON", "MARKET", "GEARY"]
        .iter()
        .map(|s| format!(r#"{{"properties":{{"STREET":["{s}"]}}}}"#))
        .collect()
}

/// 25 patterns on (b): five each of exact, prefix, equals-ignore-case,
/// anything-but and numeric (on the polygon's coordinates, the data's only
/// numbers).
pub fn mixed_patterns() -> Vec<String> {
    let mut patterns = exact_patterns();
    for p in ["00", "12", "34", "56", "75"] {
        patterns.push(format!(
            r#"{{"properties":{{"BLKLOT":[{{"prefix":"{p}"}}]}}}}"#
        ));
    }
    for s in ["mission", "Valencia", "haight", "Van Ness", "ocean"] {
        patterns.push(format!(
            r#"{{"properties":{{"STREET":[{{"equals-ignore-case":"{s}"}}]}}}}"#
        ));
    }
    for (street, st_type) in [
        ("MARKET", "ST"),
        ("CASTRO", "AVE"),
        ("NOE", "BLVD"),
        ("POLK", "WAY"),
        ("JUDAH", "TER"),
    ] {
        patterns.push(format!(
            r#"{{"properties":{{"STREET":["{street}"],"ST_TYPE":[{{"anything-but":["{st_type}"]}}]}}}}"#
        ));
    }
    for i in 0..5 {
        let low = -122.50 + f64::from(i) * 0.03;
        patterns.push(format!(
            r#"{{"geometry":{{"coordinates":[{{"numeric":[">=",{low:.3},"<",{:.3}]}}]}}}}"#,
            low + 0.004
        ));
    }
    patterns
}

/// `count` distinct patterns on (b) (for the memory figure): exact, prefix
/// and ignore-case matches on the properties, in rotation.
pub fn many_patterns(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| match i % 3 {
            0 => format!(r#"{{"properties":{{"BLKLOT":["{i:07}"]}}}}"#),
            1 => format!(r#"{{"properties":{{"MAPBLKLOT":[{{"prefix":"{i:05}"}}]}}}}"#),
            _ => format!(
                r#"{{"properties":{{"STREET":[{{"equals-ignore-case":"street{i}"}}],"ODD_EVEN":["E"]}}}}"#
            ),
        })
        .collect()
}
