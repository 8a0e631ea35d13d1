//! The seeded corpus and pattern sets shared by the criterion bench
//! (`benches/matcher.rs`) and the release bench binary (`examples/bench.rs`).
//!
//! Corpus (a): DynamoDB stream records in the shape a Lambda function
//! receives them, about 10 % of them TTL deletions (REMOVE by
//! `dynamodb.amazonaws.com`), 5 % user deletions, 40 % INSERTs and 45 %
//! MODIFYs; images of a `SessionData`-like table with string, number, list,
//! BOOL and NULL attributes. Same seed, same bytes.

#![allow(dead_code)]

/// Records in corpus (a).
pub const DYNAMODB_RECORDS: usize = 200_000;

/// The TTL-deletion filter (`deploy/filters/ttl-system-deletes.json`'s pattern).
pub const TTL_PATTERN: &str = r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#;

const STATUSES: [&str; 5] = ["OPEN", "open", "CLOSED", "Closed", "PENDING"];
const REGIONS: [&str; 5] = [
    "us-east-1",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-south-1",
];
const PRIORITIES: [&str; 3] = ["low", "normal", "high"];

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

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// One image of the table: the item's attributes in DynamoDB JSON.
fn image(rng: &mut Rng, user: &str, session: &str, expires: u64) -> String {
    let deleted = if rng.below(10) == 0 {
        r#","DeletedAt":{"NULL":true}"#
    } else {
        ""
    };
    format!(
        r#"{{"UserName":{{"S":"{user}"}},"SessionId":{{"S":"{session}"}},"CreationTime":{{"N":"{}"}},"ExpirationTime":{{"N":"{expires}"}},"Status":{{"S":"{}"}},"Region":{{"S":"{}"}},"Priority":{{"S":"{}"}},"Active":{{"BOOL":{}}}{deleted},"Cart":{{"L":[{{"S":"item{}"}},{{"N":"{}"}}]}}}}"#,
        expires - 3600,
        rng.pick(&STATUSES),
        rng.pick(&REGIONS),
        rng.pick(&PRIORITIES),
        rng.below(4) != 0,
        rng.below(1000),
        rng.below(100),
    )
}

/// Corpus (a): `count` DynamoDB stream records as compact JSON, one per entry.
pub fn dynamodb_records(count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let (name, ttl) = match rng.below(100) {
                0..=9 => ("REMOVE", true),
                10..=14 => ("REMOVE", false),
                15..=54 => ("INSERT", false),
                _ => ("MODIFY", false),
            };
            let user = format!("user{}", rng.below(50_000));
            let session = format!("{:016x}", rng.next_u64());
            let expires = 1_571_827_560 + rng.below(86_400);
            let new = image(&mut rng, &user, &session, expires);
            let old = image(&mut rng, &user, &session, expires);
            let images = match name {
                "INSERT" => format!(r#""NewImage":{new}"#),
                "MODIFY" => format!(r#""OldImage":{old},"NewImage":{new}"#),
                _ => format!(r#""OldImage":{old}"#),
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

/// A realistic stream-filter set of 10 patterns on corpus (a): `eventName`
/// INSERT/MODIFY, `NewImage`/`OldImage` attributes with exact, `prefix`,
/// `equals-ignore-case`, `anything-but`, `exists`, BOOL and NULL values, and
/// one `$or`. Each entry is the pattern, then the same pattern for quamina,
/// which has no `$or`: there, its alternatives as separate patterns under
/// one id (a match of any is a match of the id).
pub fn stream_patterns() -> Vec<(String, Vec<String>)> {
    let plain = [
        r#"{"eventName":["INSERT"],"dynamodb":{"NewImage":{"Status":{"S":["OPEN"]}}}}"#,
        r#"{"eventName":["MODIFY"],"dynamodb":{"NewImage":{"UserName":{"S":[{"prefix":"user1234"}]}}}}"#,
        r#"{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"Status":{"S":[{"equals-ignore-case":"closed"}]}}}}"#,
        r#"{"eventName":["INSERT"],"dynamodb":{"NewImage":{"Region":{"S":[{"anything-but":["us-east-1","us-west-2","eu-west-1"]}]}}}}"#,
        r#"{"eventName":["MODIFY"],"dynamodb":{"NewImage":{"DeletedAt":{"NULL":[{"exists":true}]}}}}"#,
        r#"{"eventName":["MODIFY"],"dynamodb":{"NewImage":{"Active":{"BOOL":[false]}},"OldImage":{"Active":{"BOOL":[true]}}}}"#,
        r#"{"eventName":["INSERT"],"dynamodb":{"NewImage":{"DeletedAt":{"NULL":[true]}}}}"#,
        r#"{"eventName":["INSERT","MODIFY"],"dynamodb":{"Keys":{"SessionId":{"S":[{"prefix":"fff"}]}}}}"#,
        r#"{"eventName":["MODIFY"],"dynamodb":{"NewImage":{"Priority":{"S":["high"]},"Status":{"S":[{"anything-but":["CLOSED","Closed"]}]}}}}"#,
    ];
    let mut set: Vec<(String, Vec<String>)> = plain
        .iter()
        .map(|p| ((*p).to_owned(), vec![(*p).to_owned()]))
        .collect();
    set.push((
        r#"{"eventName":["INSERT","MODIFY"],"$or":[{"dynamodb":{"NewImage":{"Priority":{"S":["high"]}}}},{"dynamodb":{"NewImage":{"Region":{"S":[{"prefix":"ap-"}]}}}}]}"#.to_owned(),
        vec![
            r#"{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"Priority":{"S":["high"]}}}}"#.to_owned(),
            r#"{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"Region":{"S":[{"prefix":"ap-"}]}}}}"#.to_owned(),
        ],
    ));
    set
}

/// `count` distinct patterns on corpus (a)'s fields (for the memory figure):
/// exact, prefix and ignore-case matches on the images, in rotation.
pub fn many_patterns(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| match i % 3 {
            0 => format!(r#"{{"dynamodb":{{"NewImage":{{"UserName":{{"S":["user{i}"]}}}}}}}}"#),
            1 => format!(
                r#"{{"eventName":["MODIFY"],"dynamodb":{{"Keys":{{"SessionId":{{"S":[{{"prefix":"{i:05x}"}}]}}}}}}}}"#
            ),
            _ => format!(
                r#"{{"dynamodb":{{"OldImage":{{"Status":{{"S":[{{"equals-ignore-case":"status{i}"}}]}},"Region":{{"S":["eu-west-1"]}}}}}}}}"#
            ),
        })
        .collect()
}
