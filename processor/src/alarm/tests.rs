//! Every row of the two tables in the CloudWatch User Guide, "Configuring how
//! CloudWatch alarms treat missing data", section "How alarm state is evaluated
//! when data is missing" (<https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html>),
//! for each of the four `TreatMissingData` columns and each starting state; the
//! examples of its section "Avoiding premature transitions to alarm state"; the
//! rows of the page's earlier tables that the current page dropped; plus the
//! four comparison operators and M out of N from "Alarm evaluation".
//!
//! Notation as in the guide: `0` a non-breaching datapoint, `X` a breaching one,
//! `-` a missing one, "shown with the most recent data point on the right"; the
//! range is the 5 most recent datapoints. The expected states are typed in from
//! the page.

use std::path::Path;

use super::{AlarmDefinition, AlarmState, TreatMissingData, evaluate, evaluation_range};

use AlarmState::{Alarm, InsufficientData as Insufficient, Ok};

/// What a table cell says: a state, or "Retain current state".
#[derive(Clone, Copy, Debug)]
enum Cell {
    Is(AlarmState),
    Retain,
}

const ALL: [AlarmState; 3] = [Ok, Alarm, Insufficient];

fn alarm(namespace: &str, treat: &str, m: usize, n: usize, op: &str) -> AlarmDefinition {
    let text = format!(
        r#"{{"AlarmName":"a","Namespace":"{namespace}","MetricName":"TimeToLiveDeletedItemCount",
            "Statistic":"Sum","Period":300,"EvaluationPeriods":{n},"DatapointsToAlarm":{m},
            "Threshold":100,"ComparisonOperator":"{op}","TreatMissingData":"{treat}"}}"#
    );
    AlarmDefinition::parse(&text, Path::new("a.json")).expect("valid alarm")
}

/// `0 - X` -> datapoints for `LessThanThreshold 100`: X = 5 (breaching), 0 = 500.
fn points(row: &str) -> Vec<Option<f64>> {
    row.split_whitespace()
        .map(|c| match c {
            "X" => Some(5.0),
            "0" => Some(500.0),
            _ => None,
        })
        .collect()
}

/// Checks one table row: the cells for MISSING, IGNORE, BREACHING, NOT BREACHING.
fn row(m: usize, n: usize, data: &str, cells: [Cell; 4]) {
    let datapoints = points(data);
    assert_eq!(datapoints.len(), 5, "{data}");
    for (treat, cell) in ["missing", "ignore", "breaching", "notBreaching"]
        .iter()
        .zip(cells)
    {
        let a = alarm("TTLStream", treat, m, n, "LessThanThreshold");
        assert_eq!(evaluation_range(&a), 5);
        for current in ALL {
            let expected = match cell {
                Cell::Is(state) => state,
                Cell::Retain => current,
            };
            assert_eq!(
                evaluate(&a, &datapoints, current),
                expected,
                "{m} of {n}, `{data}`, {treat}, current {current}"
            );
        }
    }
}

use Cell::{Is, Retain};

// First table: Datapoints to Alarm and Evaluation Periods both 3.

#[test]
fn table1_row1_0_m_x_m_x() {
    row(3, 3, "0 - X - X", [Is(Ok), Is(Ok), Is(Ok), Is(Ok)]);
}

#[test]
fn table1_row2_0_m_m_m_m() {
    row(3, 3, "0 - - - -", [Is(Ok), Is(Ok), Is(Ok), Is(Ok)]);
}

#[test]
fn table1_row3_all_missing() {
    row(
        3,
        3,
        "- - - - -",
        [Is(Insufficient), Retain, Is(Alarm), Is(Ok)],
    );
}

#[test]
fn table1_row4_0_x_x_m_x() {
    row(
        3,
        3,
        "0 X X - X",
        [Is(Alarm), Is(Alarm), Is(Alarm), Is(Alarm)],
    );
}

/// The premature-transition row: ALARM under `missing` although only one of
/// the three needed datapoints exists.
#[test]
fn table1_row5_m_m_x_m_m() {
    row(3, 3, "- - X - -", [Is(Alarm), Retain, Is(Alarm), Is(Ok)]);
}

// Second table: Datapoints to Alarm 2, Evaluation Periods 3.

#[test]
fn table2_row1_0_m_x_m_x() {
    row(
        2,
        3,
        "0 - X - X",
        [Is(Alarm), Is(Alarm), Is(Alarm), Is(Alarm)],
    );
}

#[test]
fn table2_row2_0_0_x_0_x() {
    row(
        2,
        3,
        "0 0 X 0 X",
        [Is(Alarm), Is(Alarm), Is(Alarm), Is(Alarm)],
    );
}

#[test]
fn table2_row3_0_m_x_m_m() {
    row(2, 3, "0 - X - -", [Is(Ok), Is(Ok), Is(Alarm), Is(Ok)]);
}

#[test]
fn table2_row4_m_m_m_m_0() {
    row(2, 3, "- - - - 0", [Is(Ok), Is(Ok), Is(Alarm), Is(Ok)]);
}

/// The premature-transition row of the M out of N table.
#[test]
fn table2_row5_m_m_m_x_m() {
    row(2, 3, "- - - X -", [Is(Alarm), Retain, Is(Alarm), Is(Ok)]);
}

// "Avoiding premature transitions to alarm state": Evaluation Periods 3, range 5,
// Datapoints to Alarm 3.

/// "the alarm does not go immediately into ALARM state when the data is either
/// `- - - - X` or `- - - X -` and Datapoints to Alarm is 3", and "false positives
/// are avoided when the next data point is non-breaching and causes the data to
/// be `- - - X O` or `- - X - O`".
#[test]
fn premature_a_young_breach_does_not_alarm_and_a_good_datapoint_clears_it() {
    let a = alarm("TTLStream", "missing", 3, 3, "LessThanThreshold");
    for young in ["- - - - X", "- - - X -"] {
        for current in [Ok, Insufficient] {
            let state = evaluate(&a, &points(young), current);
            assert_ne!(state, Alarm, "`{young}` from {current}");
        }
    }
    for cleared in ["- - - X 0", "- - X - 0"] {
        assert_eq!(
            evaluate(&a, &points(cleared), Insufficient),
            Ok,
            "{cleared}"
        );
    }
}

/// "if the last few data points are `- - X - -`, the alarm goes into ALARM state
/// even if missing data points are treated as missing"; the same one period
/// later, when the breach is 4 periods old, and for M out of N: "If the oldest
/// breaching data point during the evaluation range is at least as old as the
/// value of Datapoints to Alarm, and all of the more recent data points are
/// either breaching or missing, the alarm goes into ALARM state".
#[test]
fn premature_an_old_enough_breach_alarms_under_missing() {
    let three = alarm("TTLStream", "missing", 3, 3, "LessThanThreshold");
    for data in ["- - X - -", "- X - - -", "- - X X -"] {
        assert_eq!(evaluate(&three, &points(data), Ok), Alarm, "{data}");
    }
    let two = alarm("TTLStream", "missing", 2, 3, "LessThanThreshold");
    for data in ["- - - X -", "- - X - -", "- X - - -"] {
        assert_eq!(evaluate(&two, &points(data), Ok), Alarm, "{data}");
    }
    // Younger than M: not yet.
    assert_eq!(evaluate(&two, &points("- - - - X"), Ok), Insufficient);
    // A non-breaching datapoint anywhere in the range turns the rule off
    // (second table, row 3: `0 - X - -` is OK under MISSING).
    assert_eq!(evaluate(&three, &points("0 - X - -"), Alarm), Ok);
}

// Rows of the page's earlier tables (first table: 3 of 3, second: 2 of 3) that
// the current tables replaced. They agree with the current rule: `- - - - X` is
// too young, `X - - - -` old enough.

#[test]
fn earlier_table1_m_m_m_m_x() {
    row(
        3,
        3,
        "- - - - X",
        [Is(Insufficient), Retain, Is(Alarm), Is(Ok)],
    );
}

#[test]
fn earlier_table1_x_m_m_m_m() {
    row(3, 3, "X - - - -", [Is(Alarm), Retain, Is(Alarm), Is(Ok)]);
}

#[test]
fn earlier_table2_m_m_m_m_x() {
    row(
        2,
        3,
        "- - - - X",
        [Is(Insufficient), Retain, Is(Alarm), Is(Ok)],
    );
}

/// "Alarm evaluation": 3 of 3 above a threshold of 3; ALARM in periods 3-5,
/// OK from period 6, and one breach in period 9 leaves it OK.
#[test]
fn evaluating_an_alarm_figure() {
    let a = alarm("TTLStream", "missing", 3, 3, "GreaterThanThreshold");
    let a = AlarmDefinition {
        threshold: 3.0,
        ..a
    };
    let values = [1.0, 2.0, 4.0, 5.0, 6.0, 2.0, 1.0, 2.0, 4.0, 1.0];
    let mut state = Insufficient;
    let mut seen = Vec::new();
    for end in 1..=values.len() {
        let range: Vec<Option<f64>> = values[..end].iter().copied().map(Some).collect();
        state = evaluate(&a, &range, state);
        seen.push(state);
    }
    assert_eq!(
        seen,
        [Ok, Ok, Ok, Ok, Alarm, Ok, Ok, Ok, Ok, Ok],
        "periods 1-2 have one and two existing points and none breaching: OK"
    );
}

#[test]
fn four_static_comparison_operators_at_and_around_the_threshold() {
    let cases = [
        ("GreaterThanOrEqualToThreshold", [false, true, true]),
        ("GreaterThanThreshold", [false, false, true]),
        ("LessThanThreshold", [true, false, false]),
        ("LessThanOrEqualToThreshold", [true, true, false]),
    ];
    for (op, expected) in cases {
        let a = alarm("TTLStream", "missing", 1, 1, op);
        for (value, alarm_expected) in [99.0, 100.0, 101.0].into_iter().zip(expected) {
            let state = evaluate(&a, &[Some(value)], Insufficient);
            assert_eq!(state == Alarm, alarm_expected, "{op} {value}");
            assert_eq!(state == Ok, !alarm_expected, "{op} {value}");
        }
    }
}

#[test]
fn m_of_n_needs_m_breaching_among_the_last_n_existing() {
    let a = alarm("TTLStream", "missing", 2, 3, "LessThanThreshold");
    assert_eq!(evaluate(&a, &points("X 0 0 X 0"), Alarm), Ok);
    assert_eq!(evaluate(&a, &points("0 0 X 0 X"), Ok), Alarm);
    // Older breaches beyond the range do not count.
    let mut long = points("X X X X X");
    long.extend(points("0 0 0 0 0"));
    assert_eq!(evaluate(&a, &long, Alarm), Ok);
}

fn without_treat_missing_data(namespace: &str) -> AlarmDefinition {
    let text = format!(
        r#"{{"AlarmName":"a","Namespace":"{namespace}","MetricName":"TimeToLiveDeletedItemCount",
            "Statistic":"Sum","Period":300,"EvaluationPeriods":2,
            "Threshold":100,"ComparisonOperator":"LessThanThreshold"}}"#
    );
    AlarmDefinition::parse(&text, Path::new("a.json")).expect("valid alarm")
}

/// "Alarms that evaluate metrics in the AWS/DynamoDB namespace default to
/// ignore missing data. You can override this if you choose a different option
/// for how the alarm should treat missing data." (User Guide, "Configuring how
/// CloudWatch alarms treat missing data".)
#[test]
fn aws_dynamodb_namespace_defaults_to_ignore_and_can_be_overridden() {
    let default = without_treat_missing_data("AWS/DynamoDB");
    assert_eq!(default.treat_missing_data, None);
    assert_eq!(default.treat_missing_data(), TreatMissingData::Ignore);
    for current in ALL {
        assert_eq!(evaluate(&default, &[None; 4], current), current);
    }
    // Real datapoints are evaluated as in any namespace.
    assert_eq!(evaluate(&default, &points("- - - 0 0")[1..], Alarm), Ok);

    let breaching = alarm("AWS/DynamoDB", "breaching", 2, 2, "LessThanThreshold");
    assert_eq!(breaching.treat_missing_data(), TreatMissingData::Breaching);
    assert_eq!(evaluate(&breaching, &[None; 4], Ok), Alarm);
    let missing = alarm("AWS/DynamoDB", "missing", 2, 2, "LessThanThreshold");
    assert_eq!(evaluate(&missing, &[None; 4], Ok), Insufficient);
}

/// "If TreatMissingData is omitted, the default behavior of missing is used"
/// (API Reference, "PutMetricAlarm"): the first table's all-missing row under
/// MISSING gives INSUFFICIENT_DATA whatever the state before.
#[test]
fn treat_missing_data_defaults_to_missing_elsewhere() {
    for namespace in ["TTLStream", "AWS/Lambda"] {
        let a = without_treat_missing_data(namespace);
        assert_eq!(a.treat_missing_data(), TreatMissingData::Missing);
        for current in ALL {
            assert_eq!(evaluate(&a, &[None; 4], current), Insufficient);
        }
    }
}

#[test]
fn empty_and_nan_input_do_not_panic() {
    let a = alarm("TTLStream", "missing", 1, 1, "LessThanThreshold");
    assert_eq!(evaluate(&a, &[], Ok), Insufficient);
    assert_eq!(evaluate(&a, &[Some(f64::NAN)], Alarm), Ok);
}
