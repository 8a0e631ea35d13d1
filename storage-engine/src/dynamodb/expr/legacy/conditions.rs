//! The legacy conditions (`Expected`, `QueryFilter` / `ScanFilter`,
//! `KeyConditions`) as condition trees; see the table in the parent module.

use super::*;

/// The condition of an `Expected` map (`None` for an empty map).
///
/// # Errors
///
/// [`ExpressionError::Parameter`] with DynamoDB's message for an invalid
/// entry.
pub(crate) fn expected(
    map: Option<&HashMap<String, ExpectedAttributeValue>>,
    operator: Option<ConditionalOperator>,
    values: &mut LegacyValues,
) -> Result<Option<Condition>, ExpressionError> {
    let Some(map) = map else {
        if operator.is_some() {
            return Err(ExpressionError::parameter(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements",
            ));
        }
        return Ok(None);
    };
    check_operator(map.len(), operator)?;
    let mut parts = Vec::with_capacity(map.len());
    for (name, e) in sorted(map) {
        parts.push(expected_entry(name, e, values)?);
    }
    Ok(combine(parts, operator.unwrap_or_default()))
}

fn expected_entry(
    name: &str,
    e: &ExpectedAttributeValue,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    if e.value.is_some() && e.attribute_value_list.is_some() {
        return Err(invalid(format!(
            "Value and AttributeValueList cannot be used together for Attribute: {name}"
        )));
    }
    if let Some(op) = e.comparison_operator {
        if e.exists.is_some() {
            return Err(invalid(format!(
                "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
            )));
        }
        let list: Vec<AttributeValue> = match (&e.attribute_value_list, &e.value) {
            (Some(list), _) => list.clone(),
            (None, Some(v)) => vec![v.clone()],
            (None, None) => Vec::new(),
        };
        return comparison(name, op, list, values);
    }
    if e.attribute_value_list.is_some() {
        return Err(invalid(format!(
            "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
        )));
    }
    match (e.exists, &e.value) {
        (Some(false), None) => Ok(Condition::NotExists(top(name))),
        (Some(false), Some(_)) => Err(invalid(format!(
            "Value cannot be used when Exists is false for Attribute: {name}"
        ))),
        (exists, None) => Err(invalid(format!(
            "Value must be provided when Exists is {} for Attribute: {name}",
            if exists.is_some() { "true" } else { "null" }
        ))),
        (_, Some(v)) => {
            check_value(v)?;
            Ok(Condition::Compare(
                attr(name),
                Comparator::Eq,
                values.add(v.clone()),
            ))
        }
    }
}

/// The condition of a `QueryFilter` or `ScanFilter` map (`None` if absent).
///
/// # Errors
///
/// As [`expected`].
pub(crate) fn filter(
    map: Option<&HashMap<String, crate::dynamodb::request::Condition>>,
    operator: Option<ConditionalOperator>,
    values: &mut LegacyValues,
) -> Result<Option<Condition>, ExpressionError> {
    let Some(map) = map else {
        if operator.is_some() {
            return Err(ExpressionError::parameter(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements",
            ));
        }
        return Ok(None);
    };
    check_operator(map.len(), operator)?;
    let mut parts = Vec::with_capacity(map.len());
    for (name, c) in sorted(map) {
        parts.push(comparison(
            name,
            c.comparison_operator,
            c.attribute_value_list.clone(),
            values,
        )?);
    }
    Ok(combine(parts, operator.unwrap_or_default()))
}

/// `KeyConditions` as a key condition tree (one or two entries, `AND`).
///
/// # Errors
///
/// As [`expected`]; an operator a key condition cannot use.
pub(crate) fn key_conditions(
    map: &HashMap<String, crate::dynamodb::request::Condition>,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    if map.is_empty() || map.len() > 2 {
        return Err(invalid("Conditions can be of length 1 or 2 only"));
    }
    let mut parts = Vec::new();
    for (name, c) in sorted(map) {
        use ComparisonOperator as C;
        if !matches!(
            c.comparison_operator,
            C::Eq | C::Le | C::Lt | C::Ge | C::Gt | C::BeginsWith | C::Between
        ) {
            return Err(ExpressionError::parameter(
                "Attempted conditional constraint is not an indexable operation",
            ));
        }
        parts.push(comparison(
            name,
            c.comparison_operator,
            c.attribute_value_list.clone(),
            values,
        )?);
    }
    combine(parts, ConditionalOperator::And).ok_or_else(|| invalid("KeyConditions is empty"))
}

/// One `ComparisonOperator` with its operands, checked as DynamoDB checks
/// them: the number of operands, one type for all of them, a type the
/// operator takes, `BETWEEN` bounds in order.
fn comparison(
    name: &str,
    op: ComparisonOperator,
    list: Vec<AttributeValue>,
    values: &mut LegacyValues,
) -> Result<Condition, ExpressionError> {
    use ComparisonOperator as C;
    let count_ok = match op {
        C::Null | C::NotNull => list.is_empty(),
        C::In => !list.is_empty(),
        C::Between => list.len() == 2,
        _ => list.len() == 1,
    };
    if !count_ok {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {} ComparisonOperator",
            op.as_str()
        )));
    }
    for v in &list {
        check_value(v)?;
    }
    if let Some(first) = list.first()
        && list.iter().any(|v| type_name(v) != type_name(first))
    {
        return Err(invalid(
            "AttributeValues inside AttributeValueList must be of same type",
        ));
    }
    let allowed: &[&str] = match op {
        // "AttributeValueList can contain only one AttributeValue element of
        // type String, Number, Binary, String Set, Number Set, or Binary Set"
        // (Condition, DynamoDB API Reference).
        C::Eq | C::Ne => &["S", "N", "B", "SS", "NS", "BS"],
        C::BeginsWith => &["S", "B"],
        _ => &["S", "N", "B"],
    };
    if let Some(bad) = list.iter().find(|v| !allowed.contains(&type_name(v))) {
        return Err(invalid(format!(
            "ComparisonOperator {} is not valid for {} AttributeValue type",
            op.as_str(),
            type_name(bad)
        )));
    }
    if op == C::Between
        && let [lo, hi] = list.as_slice()
        && compare(lo, hi).is_some_and(|o| o.is_gt())
    {
        return Err(ExpressionError::parameter(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ));
    }
    let mut operands = list.into_iter().map(|v| values.add(v));
    let mut next = || operands.next().unwrap_or(Operand::Value(String::new()));
    let compare = |c: Comparator, v: Operand| Condition::Compare(attr(name), c, v);
    Ok(match op {
        C::Eq => compare(Comparator::Eq, next()),
        C::Ne => compare(Comparator::Ne, next()),
        C::Le => compare(Comparator::Le, next()),
        C::Lt => compare(Comparator::Lt, next()),
        C::Ge => compare(Comparator::Ge, next()),
        C::Gt => compare(Comparator::Gt, next()),
        C::NotNull => Condition::Exists(top(name)),
        C::Null => Condition::NotExists(top(name)),
        C::Contains => Condition::Contains(attr(name), next()),
        C::NotContains => Condition::And(
            Box::new(Condition::Exists(top(name))),
            Box::new(Condition::Not(Box::new(Condition::Contains(
                attr(name),
                next(),
            )))),
        ),
        C::BeginsWith => Condition::BeginsWith(attr(name), next()),
        C::In => Condition::In(attr(name), operands.collect()),
        C::Between => {
            let lo = next();
            Condition::Between(attr(name), lo, next())
        }
    })
}

/// The conditions joined by `operator` in a balanced tree (depth log2 n).
fn combine(mut parts: Vec<Condition>, operator: ConditionalOperator) -> Option<Condition> {
    while parts.len() > 1 {
        let mut next = Vec::with_capacity(parts.len().div_ceil(2));
        let mut it = parts.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => match operator {
                    ConditionalOperator::And => Condition::And(Box::new(a), Box::new(b)),
                    ConditionalOperator::Or => Condition::Or(Box::new(a), Box::new(b)),
                },
                None => a,
            });
        }
        parts = next;
    }
    parts.pop()
}
