//! Unit tests of the expression pipeline: one per operator and error class.

use super::*;
use serde_dynamo::AttributeValue as V;
use std::collections::HashMap;

fn s(x: &str) -> V {
    V::S(x.to_string())
}
fn n(x: &str) -> V {
    V::N(x.to_string())
}

fn item() -> Attrs {
    HashMap::from([
        ("pk".to_string(), s("user#1")),
        ("age".to_string(), n("42")),
        ("name".to_string(), s("alice")),
        ("tags".to_string(), V::Ss(vec!["a".into(), "b".into()])),
        ("nums".to_string(), V::Ns(vec!["1".into(), "2.0".into()])),
        (
            "list".to_string(),
            V::L(vec![
                n("1"),
                s("x"),
                V::M(HashMap::from([("c".to_string(), s("deep"))])),
            ]),
        ),
        (
            "map".to_string(),
            V::M(HashMap::from([("b".to_string(), V::L(vec![s("zero")]))])),
        ),
        ("flag".to_string(), V::Bool(true)),
    ])
}

fn values() -> Values {
    HashMap::from([
        (":n40".to_string(), n("40")),
        (":n42".to_string(), n("42.0")),
        (":s".to_string(), s("ali")),
        (":alice".to_string(), s("alice")),
        (":a".to_string(), s("a")),
        (":one".to_string(), n("1")),
        (":S".to_string(), s("S")),
        (":BOOL".to_string(), s("BOOL")),
        (":bad".to_string(), s("STRING")),
        (":l".to_string(), V::L(vec![s("y")])),
        (":ss".to_string(), V::Ss(vec!["b".into(), "c".into()])),
        (":deep".to_string(), s("deep")),
    ])
}

fn check(text: &str) -> Result<bool, ExpressionError> {
    let names = HashMap::from([("#n".to_string(), "name".to_string())]);
    let vals = values();
    let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
    let c = compile_condition(ExpressionKind::ConditionExpression, text, &mut ph)?;
    evaluate(
        ExpressionKind::ConditionExpression,
        &c,
        Some(&item()),
        &vals,
    )
}

fn yes(text: &str) {
    assert_eq!(check(text), Ok(true), "{text}");
}
fn no(text: &str) {
    assert_eq!(check(text), Ok(false), "{text}");
}

#[test]
fn comparisons() {
    yes("age = :n42");
    no("age = :n40");
    yes("age <> :n40");
    yes("age > :n40");
    yes("age >= :n42");
    no("age < :n40");
    yes("age <= :n42");
    yes("#n > :s");
    // Across types: = false, <> true, ordering false.
    no("age = :alice");
    yes("age <> :alice");
    no("age > :alice");
    // Absent operand: every comparison is false except <>, which is true
    // ("Comparison operator and function reference": a <> b is true when
    // a is absent).
    yes("missing <> :one");
    no("missing = :one");
    no("missing < :one");
}

#[test]
fn between_and_in() {
    yes("age BETWEEN :n40 AND :n42");
    no("age BETWEEN :one AND :n40");
    yes("age IN (:one, :n42)");
    no("age IN (:one, :n40)");
    assert!(matches!(
        check("age BETWEEN :n42 AND :n40"),
        Err(ExpressionError::Invalid { .. })
    ));
}

#[test]
fn functions() {
    yes("attribute_exists(map.b[0])");
    no("attribute_exists(map.b[1])");
    yes("attribute_not_exists(nope)");
    yes("attribute_type(#n, :S)");
    no("attribute_type(flag, :S)");
    yes("attribute_type(flag, :BOOL)");
    assert!(matches!(
        check("attribute_type(flag, :bad)"),
        Err(ExpressionError::Invalid { .. })
    ));
    yes("begins_with(#n, :s)");
    no("begins_with(age, :s)");
    assert!(matches!(
        check("begins_with(#n, :one)"),
        Err(ExpressionError::Invalid { .. })
    ));
    yes("contains(#n, :s)");
    yes("contains(tags, :a)");
    yes("contains(nums, :one)");
    yes("contains(list, :one)");
    no("contains(tags, :s)");
    yes("size(#n) = :n40 OR size(#n) > :one");
    yes("size(tags) BETWEEN :one AND :n40");
    yes("list[2].c = :deep");
}

#[test]
fn logic_and_parentheses() {
    yes("age = :n42 AND #n = :alice");
    no("age = :n40 AND #n = :alice");
    yes("age = :n40 OR #n = :alice");
    yes("NOT age = :n40");
    no("NOT (age = :n40 OR #n = :alice)");
    yes("(age = :n40 OR age = :n42) AND NOT attribute_exists(nope)");
}

#[test]
fn placeholder_errors() {
    assert!(
        matches!(check("#x = :one"), Err(ExpressionError::UndefinedName { ref name, .. }) if name == "#x")
    );
    assert!(
        matches!(check("age = :nope"), Err(ExpressionError::UndefinedValue { ref name, .. }) if name == ":nope")
    );
    let names = HashMap::from([("#unused".to_string(), "x".to_string())]);
    let vals = values();
    let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
    let _ = compile_condition(ExpressionKind::FilterExpression, "age = :one", &mut ph);
    assert!(matches!(
        ph.finish(),
        Err(ExpressionError::Unused {
            parameter: "ExpressionAttributeNames",
            ..
        })
    ));
}

#[test]
fn syntax_errors_name_expression_token_and_position() {
    let err = check("age = = :one").expect_err("syntax");
    assert_eq!(
        err,
        ExpressionError::Syntax {
            kind: ExpressionKind::ConditionExpression,
            position: 6,
            token: "=".into(),
            near: "age = = :one".into(),
        }
    );
    assert!(
        err.to_string()
            .starts_with("Invalid ConditionExpression: Syntax error; token: \"=\"")
    );
    let eof = check("age = :one AND").expect_err("syntax");
    assert!(matches!(eof, ExpressionError::Syntax { ref token, .. } if token == "<EOF>"));
}

fn update(text: &str) -> Result<Attrs, ExpressionError> {
    let names = HashMap::new();
    let vals = values();
    let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
    let u = compile_update(text, &mut ph)?;
    apply_update(&u, &item(), &vals)
}

#[test]
fn update_set_arithmetic_and_functions() {
    let out =
        update("SET age = age + :one, c = if_not_exists(c, :one), list = list_append(list, :l)")
            .expect("update");
    assert_eq!(out.get("age"), Some(&n("43")));
    assert_eq!(out.get("c"), Some(&n("1")));
    assert!(matches!(out.get("list"), Some(V::L(l)) if l.len() == 4));
    let out = update("SET age = age - :n40, map.b[5] = :one, map.x = :a").expect("update");
    assert_eq!(out.get("age"), Some(&n("2")));
    assert!(
        matches!(out.get("map"), Some(V::M(m)) if matches!(m.get("b"), Some(V::L(l)) if l.len() == 2) && m.contains_key("x"))
    );
    assert!(matches!(
        update("SET age = #n + :one"),
        Err(ExpressionError::UndefinedName { .. })
    ));
    assert!(matches!(
        update("SET age = tags + :one"),
        Err(ExpressionError::Invalid { .. })
    ));
    assert!(matches!(
        update("SET x = nope + :one"),
        Err(ExpressionError::Invalid { .. })
    ));
    assert!(matches!(
        update("SET nope.x = :one"),
        Err(ExpressionError::Invalid { .. })
    ));
}

#[test]
fn update_remove_add_delete() {
    let out = update("REMOVE #x").map(|_| ());
    assert!(matches!(out, Err(ExpressionError::UndefinedName { .. })));
    let out = update(
        "REMOVE age, list[0], list[2] ADD nums :one, tags :ss, counter :one DELETE tags :ss",
    )
    .map(|_| ());
    assert!(
        matches!(out, Err(ExpressionError::Invalid { .. })),
        "tags overlaps"
    );
    let out = update("REMOVE age, list[0], list[2] ADD nums :one, counter :one DELETE tags :ss");
    assert!(
        matches!(out, Err(ExpressionError::Invalid { .. })),
        "ADD N to NS"
    );
    let out = update("REMOVE age, list[0], list[2] ADD counter :one, nums :n40 DELETE tags :ss");
    assert!(out.is_err());
    let out =
        update("REMOVE age, list[0], list[2] ADD counter :one DELETE tags :ss").expect("update");
    assert!(!out.contains_key("age"));
    assert_eq!(out.get("list"), Some(&V::L(vec![s("x")])));
    assert_eq!(out.get("counter"), Some(&n("1")));
    assert_eq!(out.get("tags"), Some(&V::Ss(vec!["a".into()])));
    let out = update("ADD tags :ss").expect("update");
    assert_eq!(
        out.get("tags"),
        Some(&V::Ss(vec!["a".into(), "b".into(), "c".into()]))
    );
}

#[test]
fn update_errors() {
    assert!(matches!(
        update("SET a = :one SET b = :one"),
        Err(ExpressionError::Invalid { .. })
    ));
    assert!(
        matches!(update("SET a = :one REMOVE a"), Err(ExpressionError::Invalid { ref message, .. }) if message.contains("overlap"))
    );
    assert!(matches!(
        update("SET a = size(b)"),
        Err(ExpressionError::Syntax { .. })
    ));
    assert!(
        matches!(update("UPSERT a = :one"), Err(ExpressionError::Syntax { ref token, .. }) if token == "UPSERT")
    );
}

#[test]
fn projection_keeps_named_paths() {
    let names = HashMap::from([("#n".to_string(), "name".to_string())]);
    let vals = Values::new();
    let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
    let paths = compile_projection("#n, map.b[0], list[2].c, nope", &mut ph).expect("projection");
    let out = project(&item(), &paths);
    assert_eq!(out.len(), 3);
    assert_eq!(out.get("name"), Some(&s("alice")));
    assert_eq!(
        out.get("list"),
        Some(&V::L(vec![V::M(HashMap::from([(
            "c".to_string(),
            s("deep")
        )]))]))
    );
}

#[test]
fn key_conditions() {
    let vals = values();
    let names = HashMap::new();
    let kc = |text: &str| {
        let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
        let c = compile_condition(ExpressionKind::KeyConditionExpression, text, &mut ph)?;
        let pk = crate::KeyAttribute::new("pk", crate::ScalarAttributeType::S);
        let sk = crate::KeyAttribute::new("sk", crate::ScalarAttributeType::N);
        KeyCondition::from_condition(&c, &pk, Some(&sk), &vals)
    };
    assert!(matches!(kc("pk = :a"), Ok(KeyCondition { sort: None, .. })));
    assert!(matches!(
        kc("pk = :a AND sk > :one"),
        Ok(KeyCondition {
            sort: Some(SortCondition::Compare(..)),
            ..
        })
    ));
    let kc_s = |text: &str| {
        let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
        let c = compile_condition(ExpressionKind::KeyConditionExpression, text, &mut ph)?;
        let pk = crate::KeyAttribute::new("pk", crate::ScalarAttributeType::S);
        let sk = crate::KeyAttribute::new("sk", crate::ScalarAttributeType::S);
        KeyCondition::from_condition(&c, &pk, Some(&sk), &vals)
    };
    assert!(matches!(
        kc_s("begins_with(sk, :s) AND pk = :a"),
        Ok(KeyCondition {
            sort: Some(SortCondition::BeginsWith(_)),
            ..
        })
    ));
    assert!(matches!(
        kc("pk = :a AND sk BETWEEN :one AND :n40"),
        Ok(KeyCondition {
            sort: Some(SortCondition::Between(..)),
            ..
        })
    ));
    // The value may come first: `:v = pk`, `:one < sk` (sk > :one).
    assert!(matches!(
        kc(":a = pk AND :one < sk"),
        Ok(KeyCondition {
            sort: Some(SortCondition::Compare(Comparator::Gt, _)),
            ..
        })
    ));
    // A value of the wrong type for the key, begins_with on a Number.
    assert!(matches!(
        kc("pk = :one"),
        Err(ExpressionError::Parameter { ref message }) if message.contains("does not match schema type")
    ));
    assert!(matches!(
        kc("pk = :a AND begins_with(sk, :one)"),
        Err(ExpressionError::Invalid { ref message, .. }) if message.contains("begins_with, operand type: N")
    ));
    for bad in [
        "sk = :one",
        "pk > :a",
        "pk = :a OR sk = :one",
        "pk = :a AND sk <> :one",
        "pk = :a AND other = :one",
        "pk = :a AND sk BETWEEN :n40 AND :one",
    ] {
        assert!(
            matches!(kc(bad), Err(ExpressionError::Invalid { .. })),
            "{bad}"
        );
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_expressions_never_panic(text in "[ -~]{0,60}") {
            let names = HashMap::from([("#n".to_string(), "name".to_string())]);
            let vals = values();
            let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
            if let Ok(c) = compile_condition(ExpressionKind::FilterExpression, &text, &mut ph) {
                let _ = evaluate(ExpressionKind::FilterExpression, &c, Some(&item()), &vals);
            }
            if let Ok(u) = compile_update(&text, &mut ph) {
                let _ = apply_update(&u, &item(), &vals);
            }
            let _ = compile_projection(&text, &mut ph);
        }

        #[test]
        fn grammar_shaped_expressions_never_panic(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("a"), Just("#n"), Just(":one"), Just(":l"), Just("("), Just(")"),
                    Just(","), Just("."), Just("[0]"), Just("="), Just("<>"), Just("<"),
                    Just("+"), Just("-"), Just("AND"), Just("OR"), Just("NOT"),
                    Just("BETWEEN"), Just("IN"), Just("SET"), Just("REMOVE"), Just("ADD"),
                    Just("DELETE"), Just("size("), Just("contains("), Just("if_not_exists("),
                    Just("list_append("), Just("list"), Just("tags"), Just(":ss"),
                ],
                0..16,
            )
        ) {
            let text = parts.join(" ");
            let names = HashMap::from([("#n".to_string(), "name".to_string())]);
            let vals = values();
            let mut ph = Placeholders::new(&names, &vals).expect("placeholders");
            if let Ok(c) = compile_condition(ExpressionKind::ConditionExpression, &text, &mut ph) {
                let _ = evaluate(ExpressionKind::ConditionExpression, &c, Some(&item()), &vals);
            }
            if let Ok(u) = compile_update(&text, &mut ph) {
                let _ = apply_update(&u, &item(), &vals);
            }
        }
    }
}
