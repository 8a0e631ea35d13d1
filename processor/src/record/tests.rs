//! The JSON the pipeline writes from the engine's stored records, against the
//! way it was built before: the library's `EventRecord` serialised by serde
//! (through `serde_dynamo` items), with the absent members removed.

use std::collections::HashMap;

use aws_lambda_events::event::dynamodb::{EventRecord, StreamRecord, StreamViewType, UserIdentity};
use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{
    EventName, SequenceNumber, StreamViewType as View, UserIdentity as Identity,
};

use super::*;

/// The Lambda [`EventRecord`] of an engine change record (the old path).
fn lambda_event(change: ChangeRecord, context: &RecordContext) -> EventRecord {
    let mut stream = StreamRecord::default();
    stream.approximate_creation_date_time = Utc
        .timestamp_millis_opt(change.approximate_creation_date_time_millis)
        .single()
        .expect("time in range");
    stream.keys = change.keys;
    stream.new_image = change.new_image.unwrap_or_default();
    stream.old_image = change.old_image.unwrap_or_default();
    stream.sequence_number = Some(change.sequence_number.to_string());
    stream.size_bytes = i64::try_from(change.size_bytes).unwrap_or(i64::MAX);
    stream.stream_view_type = Some(match change.stream_view_type {
        View::KeysOnly => StreamViewType::KeysOnly,
        View::NewImage => StreamViewType::NewImage,
        View::OldImage => StreamViewType::OldImage,
        View::NewAndOldImages => StreamViewType::NewAndOldImages,
    });
    let mut event = EventRecord::default();
    event.aws_region = context.region().to_string();
    event.change = stream;
    event.event_id = change.event_id;
    event.event_name = change.event_name.as_str().to_string();
    event.event_source = Some("aws:dynamodb".to_string());
    event.event_version = Some("1.1".to_string());
    event.event_source_arn = Some(context.event_source_arn().to_string());
    event.user_identity = change.user_identity.map(|identity| {
        let mut lambda_identity = UserIdentity::default();
        lambda_identity.type_ = identity.r#type;
        lambda_identity.principal_id = identity.principal_id;
        lambda_identity
    });
    event
}

/// The old path's bytes: the library type serialised by serde (maps in the
/// items' own iteration order), absent members cut.
fn old_json(change: &ChangeRecord, context: &RecordContext) -> Vec<u8> {
    let (has_new, has_old) = (change.new_image.is_some(), change.old_image.is_some());
    let mut json = serde_json::to_vec(&lambda_event(change.clone(), context)).expect("json");
    drop_absent_fields(&mut json, has_new, has_old);
    json
}

/// How the old path cut the absent members from serde's compact JSON of
/// the library type, without building a [`Value`] tree. [`EventRecord`] writes its
/// members in declaration order, ending `...,"userIdentity":null,
/// "recordFormat":null,"tableName":null}` for the members `from_change` leaves
/// `None`, and `"NewImage":{}` / `"OldImage":{}` for absent images. Exact on
/// serde_json's output: a string holds `"` only as `\"`, so `,"NewImage":` can
/// only start a member, and an item attribute's value is a one-member object
/// (`{"S":...}`), never `{}`, so only the record's own image matches.
fn drop_absent_fields(json: &mut Vec<u8>, has_new_image: bool, has_old_image: bool) {
    const TAIL: &[u8] = br#","recordFormat":null,"tableName":null}"#;
    const NO_IDENTITY: &[u8] = br#","userIdentity":null"#;
    if json.ends_with(TAIL) {
        json.truncate(json.len() - TAIL.len());
        if json.ends_with(NO_IDENTITY) {
            json.truncate(json.len() - NO_IDENTITY.len());
        }
        json.push(b'}');
    }
    let mut cut = |member: &[u8]| {
        if let Some(at) = json.windows(member.len()).position(|w| w == member) {
            json.drain(at..at + member.len());
        }
    };
    if !has_new_image {
        cut(br#","NewImage":{}"#);
    }
    if !has_old_image {
        cut(br#","OldImage":{}"#);
    }
}

fn context() -> RecordContext {
    RecordContext::new(
        "local",
        "arn:aws:dynamodb:local:000000000000:table/SessionData/stream/x",
    )
}

/// Attribute names and values that look like the record's own members.
fn item(extra: &str) -> Item {
    Item::from(HashMap::from([
        ("UserName".to_string(), AttributeValue::S("user-1".into())),
        ("NewImage".to_string(), AttributeValue::M(HashMap::new())),
        ("OldImage".to_string(), AttributeValue::Null(true)),
        (
            "tableName".to_string(),
            AttributeValue::S(r#","NewImage":{},"recordFormat":null,"tableName":null}"#.into()),
        ),
        (
            r#"x","userIdentity":null"#.to_string(),
            AttributeValue::S(extra.into()),
        ),
    ]))
}

fn change(name: EventName, view: View, new: bool, old: bool, ttl: bool) -> ChangeRecord {
    let keys = Item::from(HashMap::from([(
        "UserName".to_string(),
        AttributeValue::S("user-1".into()),
    )]));
    let (new_image, old_image) = (new.then(|| item("new")), old.then(|| item("old")));
    let size_bytes = [Some(&keys), new_image.as_ref(), old_image.as_ref()]
        .into_iter()
        .flatten()
        .map(ttlstream_engine::item_size_bytes)
        .sum();
    ChangeRecord {
        table_name: "SessionData".into(),
        sequence_number: SequenceNumber(42),
        event_id: String::new(),
        event_name: name,
        approximate_creation_date_time_millis: 1_571_827_561_000,
        keys,
        new_image,
        old_image,
        size_bytes,
        stream_view_type: view,
        user_identity: ttl.then(Identity::dynamodb_ttl),
    }
}

/// The stored form decodes to the record (event id derived as the engine
/// does), so both paths start from the same record.
fn with_engine_fields(mut change: ChangeRecord) -> ChangeRecord {
    change.event_id = StoredRecord::from_change(&change).event_id();
    change
}

/// Every combination of images and identity: the same bytes as the library
/// type, and the absent members really absent; also with a region and ARN
/// that need escaping (the context writes them once, for every record).
#[test]
fn json_equals_the_library_shape_without_absent_members() {
    let escaped = RecordContext::new(
        "re\"gi\\on\u{1}",
        "arn:aws:dynamodb:x:0:table/T/stream/\"x\"\n",
    );
    for context in [context(), escaped] {
        json_equals_the_library_shape_in(&context);
    }
}

fn json_equals_the_library_shape_in(context: &RecordContext) {
    let cases = [
        change(EventName::Insert, View::NewAndOldImages, true, false, false),
        change(EventName::Modify, View::NewAndOldImages, true, true, false),
        change(EventName::Remove, View::NewAndOldImages, false, true, true),
        change(EventName::Remove, View::OldImage, false, true, false),
        change(EventName::Insert, View::NewImage, true, false, false),
        change(EventName::Remove, View::KeysOnly, false, false, true),
    ];
    for case in cases {
        let case = with_engine_fields(case);
        let (has_new, has_old) = (case.new_image.is_some(), case.old_image.is_some());
        let ttl = case.is_ttl_delete();
        let record = Record::from_change(&case, context).expect("record");
        assert_eq!(
            String::from_utf8_lossy(&record.json),
            String::from_utf8_lossy(&old_json(&case, context))
        );
        let got: Value = serde_json::from_slice(&record.json).expect("json");
        assert_eq!(record.is_ttl_deletion, ttl);
        assert_eq!(got.get("userIdentity").is_some(), ttl);
        assert_eq!(got["dynamodb"].get("NewImage").is_some(), has_new);
        assert_eq!(got["dynamodb"].get("OldImage").is_some(), has_old);
        assert!(got.get("tableName").is_none() && got.get("recordFormat").is_none());
    }
}

#[test]
fn a_time_out_of_range_is_an_error_naming_the_record() {
    let mut case = change(EventName::Insert, View::NewImage, true, false, false);
    case.approximate_creation_date_time_millis = i64::MAX;
    let error = Record::from_change(&case, &context()).expect_err("out of range");
    assert!(
        error.to_string().contains("ApproximateCreationDateTime"),
        "{error}"
    );
}

/// Strings with quotes, backslashes, control characters and non-ASCII text.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_]{0,12}",
        "[\"\\\\\u{0}-\u{1f}\u{7f}é☃😀a]{0,8}",
        any::<String>(),
    ]
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        "-?[0-9]{1,20}(\\.[0-9]{1,10})?(E-?[0-9]{1,3})?",
    ]
}

fn value() -> impl Strategy<Value = AttributeValue> {
    let leaf = prop_oneof![
        text().prop_map(AttributeValue::S),
        number().prop_map(AttributeValue::N),
        proptest::collection::vec(any::<u8>(), 0..20).prop_map(AttributeValue::B),
        any::<bool>().prop_map(AttributeValue::Bool),
        any::<bool>().prop_map(AttributeValue::Null),
        proptest::collection::vec(text(), 1..4).prop_map(AttributeValue::Ss),
        proptest::collection::vec(number(), 1..4).prop_map(AttributeValue::Ns),
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..6), 1..4)
            .prop_map(AttributeValue::Bs),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            proptest::collection::hash_map(text(), inner, 0..4).prop_map(AttributeValue::M),
        ]
    })
}

fn items() -> impl Strategy<Value = Item> {
    proptest::collection::hash_map(text(), value(), 0..6).prop_map(Item::from)
}

fn changes() -> impl Strategy<Value = ChangeRecord> {
    (
        (
            prop_oneof![
                Just(EventName::Insert),
                Just(EventName::Modify),
                Just(EventName::Remove)
            ],
            prop_oneof![
                Just(View::KeysOnly),
                Just(View::NewImage),
                Just(View::OldImage),
                Just(View::NewAndOldImages)
            ],
            any::<u64>(),
            -62_000_000_000_000i64..250_000_000_000_000,
        ),
        (
            items(),
            proptest::option::of(items()),
            proptest::option::of(items()),
            prop_oneof![
                Just(None),
                Just(Some(Identity::dynamodb_ttl())),
                (text(), text()).prop_map(|(r#type, principal_id)| Some(Identity {
                    r#type,
                    principal_id
                })),
            ],
            text(),
        ),
    )
        .prop_map(
            |((name, view, sequence, millis), (keys, new, old, identity, table))| {
                let size_bytes = [Some(&keys), new.as_ref(), old.as_ref()]
                    .into_iter()
                    .flatten()
                    .map(ttlstream_engine::item_size_bytes)
                    .sum();
                with_engine_fields(ChangeRecord {
                    table_name: table,
                    sequence_number: SequenceNumber(sequence),
                    event_id: String::new(),
                    event_name: name,
                    approximate_creation_date_time_millis: millis,
                    keys,
                    new_image: new,
                    old_image: old,
                    size_bytes,
                    stream_view_type: view,
                    user_identity: identity,
                })
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The JSON written straight from stored bytes is byte for byte the old
    /// path's, and the stored form decodes back to the same record.
    #[test]
    fn stored_bytes_give_the_old_paths_json(case in changes()) {
        let context = context();
        let stored = StoredRecord::from_change(&case);
        prop_assert_eq!(stored.decode().expect("decode"), case.clone());
        prop_assert_eq!(stored.size_bytes(), case.size_bytes);
        let record = Record::from_stored(&stored, &context).expect("record");
        let old = old_json(&case, &context);
        prop_assert_eq!(String::from_utf8_lossy(&record.json), String::from_utf8_lossy(&old));
        prop_assert_eq!(record.is_ttl_deletion, case.is_ttl_delete());
        prop_assert_eq!(record.approximate_creation_millis, case.approximate_creation_date_time_millis);
        prop_assert_eq!(&record.sequence_number, &case.sequence_number.to_string());
        prop_assert_eq!(&record.table_name, &case.table_name);
    }

    /// A record the engine read only the header of becomes the same
    /// unmatched record as when it was read whole, errors included.
    #[test]
    fn a_header_gives_the_whole_records_unmatched_record(case in changes()) {
        let stored = StoredRecord::from_change(&case);
        let whole = Record::unmatched_from_stored(&stored);
        let header = Record::unmatched_from_header(&stored.header());
        prop_assert_eq!(whole.map_err(|e| e.to_string()), header.map_err(|e| e.to_string()));
    }
}

/// Filter files for the skip property, one route each: three whose patterns
/// all require an `eventName` (so the source may skip the others' JSON) and
/// three that do not (the last names the members the Lambda shape writes in
/// one piece).
const FILTERS: &[&str] = &[
    r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#,
    r#"{"eventName":["INSERT","MODIFY"],"dynamodb":{"Keys":{"UserName":{"S":[{"prefix":"u"}]}}}}"#,
    r#"{"$or":[{"eventName":["MODIFY"]},{"eventName":["REMOVE"],"awsRegion":["ddblocal"]}]}"#,
    r#"{"eventName":[{"prefix":"INS"}]}"#,
    r#"{"dynamodb":{"StreamViewType":["KEYS_ONLY"]}}"#,
    r#"{"eventSourceARN":[{"prefix":"arn:"}],"eventVersion":["1.1"],"eventID":[{"exists":true}],"eventSource":["aws:dynamodb"]}"#,
];

fn router(chosen: &[usize]) -> crate::router::Router {
    let routes = chosen
        .iter()
        .map(|_| crate::router::Route { sinks: vec![0] })
        .collect();
    let filters = chosen
        .iter()
        .map(|i| Some(ttlstream_filters::parse_filter_file(FILTERS[*i]).expect("filter")))
        .collect();
    crate::router::Router::new(routes, filters)
}

#[test]
fn the_routes_event_names_come_from_every_pattern() {
    let names = |chosen: &[usize]| router(chosen).event_names().cloned();
    let set = |s: &[&str]| Some(s.iter().map(|n| (*n).to_string()).collect());
    assert_eq!(names(&[0]), set(&["REMOVE"]));
    assert_eq!(names(&[0, 1, 2]), set(&["INSERT", "MODIFY", "REMOVE"]));
    assert_eq!(names(&[0, 3]), None);
    assert_eq!(names(&[4]), None);
    let unfiltered =
        crate::router::Router::new(vec![crate::router::Route { sinks: vec![0] }], vec![None]);
    assert_eq!(unfiltered.event_names(), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The source's skip is the matcher's decision: a record whose
    /// `eventName` the routes do not name matches no route on its full JSON
    /// either, and the skipped record keeps every other field.
    #[test]
    fn a_skipped_record_matches_no_route_on_its_full_json(
        case in changes(),
        chosen in proptest::sample::subsequence(vec![0usize, 1, 2, 3, 4, 5], 1..4),
    ) {
        let router = router(&chosen);
        let stored = StoredRecord::from_change(&case);
        let full = Record::from_stored(&stored, &context()).expect("record");
        let skipped = Record::unmatched_from_stored(&stored).expect("record");
        prop_assert!(skipped.unmatched && skipped.json.is_empty() && !full.unmatched);
        prop_assert_eq!(
            Record { json: Vec::new(), unmatched: true, members: None, ..full.clone() },
            skipped.clone()
        );
        prop_assert!(router.route(&skipped).expect("route").is_empty());
        // Matching the named members decides as the whole record.
        let whole = Record { members: None, ..full.clone() };
        prop_assert_eq!(router.route(&full).expect("route"), router.route(&whole).expect("route"));
        // Each member is the record's own, and absent exactly when the record has none.
        let members = full.members.expect("engine records say where their members are");
        let expected: serde_json::Value = serde_json::from_slice(&full.json).expect("json");
        let expected = expected.as_object().expect("object");
        prop_assert!(expected.keys().all(|k| crate::record::LAMBDA_MEMBERS.contains(&k.as_str())));
        for (i, name) in crate::record::LAMBDA_MEMBERS.iter().enumerate() {
            let member = members.get(&full.json, i).map(|m| {
                let object = [b"{", m, b"}"].concat();
                serde_json::from_slice::<serde_json::Value>(&object).expect("member json")
            });
            let want = expected.get(*name).map(|v| serde_json::json!({ *name: v }));
            prop_assert_eq!(member, want, "member {}", name);
        }
        if let Some(names) = router.event_names()
            && !names.contains(case.event_name.as_str())
        {
            prop_assert!(router.route(&full).expect("route").is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A router that remembers its last object of named members routes a
    /// run of records (repeats among them, as a stream's TTL deletions
    /// repeat their `eventName` and `userIdentity`) as a fresh router per
    /// record does.
    #[test]
    fn remembered_matches_route_as_fresh_ones(
        cases in proptest::collection::vec(changes(), 1..4),
        order in proptest::collection::vec(0usize..4, 1..12),
        chosen in proptest::sample::subsequence(vec![0usize, 1, 2, 3, 4, 5], 1..4),
    ) {
        let records: Vec<Record> = cases
            .iter()
            .map(|case| Record::from_stored(&StoredRecord::from_change(case), &context()).expect("record"))
            .collect();
        let remembering = router(&chosen);
        for i in order {
            let record = &records[i % records.len()];
            prop_assert_eq!(
                remembering.route(record).expect("route"),
                router(&chosen).route(record).expect("route")
            );
        }
    }
}
