use super::*;

fn p(s: &str) -> Path {
    let mut paths = projection(s).expect("path");
    assert_eq!(paths.len(), 1, "{s}");
    paths.remove(0)
}

fn syntax(offset: usize) -> ParseError {
    ParseError::Syntax { offset }
}

#[test]
fn paths_parse_nested_elements() {
    assert_eq!(
        p("a.#b[0].c").0,
        vec![
            PathElem::Attr("a".into()),
            PathElem::Attr("#b".into()),
            PathElem::Index(0),
            PathElem::Attr("c".into()),
        ]
    );
    assert_eq!(p("a[1][2]").to_string(), "a[1][2]");
}

#[test]
fn precedence_is_not_and_or() {
    let c = condition("a = :x OR b = :y AND NOT c = :z").expect("parse");
    assert!(matches!(c, Condition::Or(_, ref r) if matches!(**r, Condition::And(_, _))));
    let c = condition("(a = :x OR b = :y) AND c = :z").expect("parse");
    assert!(matches!(c, Condition::And(_, _)));
    let c = condition("a between :lo and :hi and b in (:x, :y)").expect("parse");
    assert!(matches!(c, Condition::And(ref l, _) if matches!(**l, Condition::Between(..))));
    let c = condition("NOT (a = :x) AND b = :y").expect("parse");
    assert!(matches!(c, Condition::And(ref l, _) if matches!(**l, Condition::Not(_))));
    let c = condition("NOT NOT a = :x OR b = :y").expect("parse");
    assert!(matches!(c, Condition::Or(ref l, _) if matches!(**l, Condition::Not(_))));
    // AND and OR are left-associative.
    let c = condition("a = :x AND b = :y AND c = :z").expect("parse");
    assert!(matches!(c, Condition::And(ref l, _) if matches!(**l, Condition::And(..))));
}

#[test]
fn functions_parse() {
    for text in [
        "attribute_exists(a.b)",
        "attribute_not_exists(#n)",
        "attribute_type(a, :t)",
        "begins_with(a, :p)",
        "contains(a, :v)",
        "size(a) > :n",
        "attribute_not_exists(expiresAt) OR expiresAt > :now",
        "(a = :v)",
        "((a = :v) OR b = :w)",
    ] {
        assert!(condition(text).is_ok(), "{text}");
    }
}

#[test]
fn syntax_errors_point_at_the_token() {
    assert_eq!(condition("a = = :v"), Err(syntax(4)));
    assert_eq!(condition("a = :v AND"), Err(syntax(10)));
    assert_eq!(condition("a = :v )"), Err(syntax(7)));
    assert_eq!(condition("(a = :v"), Err(syntax(7)));
    assert!(condition("").is_err());
    assert!(condition("begins_with(a").is_err());
    assert!(condition("a").is_err());
    assert!(condition("NOT").is_err());
    assert!(condition("()").is_err());
}

#[test]
fn deep_nesting_costs_no_stack() {
    // 100,000 parentheses on a small thread stack: the condition parser
    // keeps them on the heap, and answers (here: redundant parentheses).
    let text = format!("{}a = :v{}", "(".repeat(100_000), ")".repeat(100_000));
    let parsed = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || condition(&text))
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert_eq!(parsed, Err(ParseError::RedundantParentheses));
    let unclosed = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| condition(&"(".repeat(100_000)))
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert!(matches!(unclosed, Err(ParseError::Syntax { .. })));
}

#[test]
fn operators_are_counted_to_dynamodb_limit() {
    // 149 levels: 299 operators ("<" and "or"), accepted by DynamoDB.
    let ok = format!("a < b {}{}", "or (a < b ".repeat(149), ")".repeat(149));
    assert!(condition(&ok).is_ok());
    let over = format!("a < b {}{}", "or (a < b ".repeat(150), ")".repeat(150));
    assert_eq!(
        condition(&over),
        Err(ParseError::TooManyOperators { count: 301 })
    );
    let nots = format!("{}a < b", "NOT ".repeat(1000));
    assert_eq!(
        condition(&nots),
        Err(ParseError::TooManyOperators { count: 301 })
    );
    let plus = format!(
        "SET a = {}:v{}",
        "list_append(".repeat(40),
        ", :w)".repeat(40)
    );
    assert!(update(&plus).is_ok());
    let deep = format!(
        "SET a = {}:v{}",
        "if_not_exists(b, ".repeat(65),
        ")".repeat(65)
    );
    assert_eq!(update(&deep), Err(ParseError::NestedTooDeep));
}

#[test]
fn update_clauses_parse() {
    let clauses =
        update("SET a = :v, b = if_not_exists(b, :z) + :one REMOVE c[1] ADD n :d DELETE s :e")
            .expect("parse");
    let u = Clause::merge(clauses).expect("merge");
    assert_eq!(u.set.len(), 2);
    assert_eq!(u.remove.len(), 1);
    assert_eq!(u.add.len(), 1);
    assert_eq!(u.delete.len(), 1);
    let twice = update("SET a = :v SET b = :w").expect("parse");
    assert_eq!(Clause::merge(twice), Err("SET"));
    assert!(update("SET a :v").is_err());
    assert!(update("set l = list_append(l, :x)").is_ok());
}

#[test]
fn projections_parse() {
    assert_eq!(projection("a, b.c, #d[0]").expect("parse").len(), 3);
    assert!(projection("a,").is_err());
}

#[test]
fn redundant_parentheses_and_unknown_functions_are_refused() {
    assert_eq!(
        condition("((a = :v))"),
        Err(ParseError::RedundantParentheses)
    );
    assert_eq!(condition("NOT ((a = :v) OR b = :w)").map(|_| ()), Ok(()));
    assert_eq!(
        condition("(a = :v) AND ((b = :w))"),
        Err(ParseError::RedundantParentheses)
    );
    assert_eq!(
        condition("a < f(b)"),
        Err(ParseError::UnknownFunction { name: "f".into() })
    );
    assert_eq!(
        update("SET a = g(b)"),
        Err(ParseError::UnknownFunction { name: "g".into() })
    );
}
