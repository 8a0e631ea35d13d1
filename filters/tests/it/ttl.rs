//! The TTL-deletion pattern against Lambda DynamoDB stream records.
#![allow(clippy::unwrap_used)]

use ttlstream_filters::{Matcher, Pattern, parse_filter_file};

const TTL_PATTERN: &str = r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#;
const DEPLOYED: &str = include_str!("../../../deploy/filters/ttl-system-deletes.json");
const TTL_REMOVE: &[u8] = include_bytes!("../fixtures/ttl-remove.json");
const USER_REMOVE: &[u8] = include_bytes!("../fixtures/user-remove.json");
const INSERT: &[u8] = include_bytes!("../fixtures/insert.json");

fn matcher(patterns: Vec<Pattern>) -> Matcher<&'static str> {
    Matcher::new(patterns.into_iter().map(|p| ("ttl", p)))
}

fn assert_selects_only_ttl_deletes(m: &Matcher<&'static str>) {
    assert_eq!(m.matches(TTL_REMOVE).unwrap(), vec!["ttl"]);
    assert!(
        m.matches(USER_REMOVE).unwrap().is_empty(),
        "a user's REMOVE has no userIdentity"
    );
    assert!(
        m.matches(INSERT).unwrap().is_empty(),
        "an INSERT is not a deletion"
    );
}

#[test]
fn bare_pattern_selects_only_ttl_deletes() {
    assert_selects_only_ttl_deletes(&matcher(vec![Pattern::parse(TTL_PATTERN).unwrap()]));
}

#[test]
fn filter_criteria_form_selects_only_ttl_deletes() {
    let file = serde_json::json!({ "Filters": [{ "Pattern": TTL_PATTERN }] }).to_string();
    let patterns = parse_filter_file(&file).unwrap();
    assert_eq!(patterns.len(), 1);
    assert_eq!(patterns[0], Pattern::parse(TTL_PATTERN).unwrap());
    assert_selects_only_ttl_deletes(&matcher(patterns));
}

#[test]
fn bare_pattern_file_is_one_pattern() {
    let patterns = parse_filter_file(TTL_PATTERN).unwrap();
    assert_eq!(patterns, vec![Pattern::parse(TTL_PATTERN).unwrap()]);
}

#[test]
fn deployed_filter_file_selects_only_ttl_deletes() {
    let patterns = parse_filter_file(DEPLOYED).unwrap();
    assert_eq!(patterns, vec![Pattern::parse(TTL_PATTERN).unwrap()]);
    assert_selects_only_ttl_deletes(&matcher(patterns));
}

#[test]
fn every_field_is_required() {
    let m = matcher(vec![Pattern::parse(TTL_PATTERN).unwrap()]);
    let other_principal =
        br#"{"eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"someone.else"}}"#;
    let no_principal = br#"{"eventName":"REMOVE","userIdentity":{"type":"Service"}}"#;
    let modify = br#"{"eventName":"MODIFY","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}"#;
    for event in [&other_principal[..], no_principal, modify] {
        assert!(
            m.matches(event).unwrap().is_empty(),
            "{}",
            String::from_utf8_lossy(event)
        );
    }
}

#[test]
fn streams_api_casing_does_not_match_the_lambda_pattern() {
    // DynamoDB Streams GetRecords uses userIdentity.Type / PrincipalId; the Lambda
    // event (and so the pattern) uses type / principalId. Names are case-sensitive.
    let m = matcher(vec![Pattern::parse(TTL_PATTERN).unwrap()]);
    let streams_api = br#"{"eventName":"REMOVE","userIdentity":{"Type":"Service","PrincipalId":"dynamodb.amazonaws.com"}}"#;
    assert!(m.matches(streams_api).unwrap().is_empty());
}

#[test]
fn batch_of_records_is_filtered_record_by_record() {
    let m = matcher(vec![Pattern::parse(TTL_PATTERN).unwrap()]);
    let selected: Vec<usize> = [TTL_REMOVE, USER_REMOVE, INSERT, TTL_REMOVE]
        .iter()
        .enumerate()
        .filter(|(_, r)| !m.matches(r).unwrap().is_empty())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(selected, vec![0, 3]);
}
