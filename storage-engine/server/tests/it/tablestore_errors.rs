//! The Tablestore JSON API's errors: Tablestore's error codes with their
//! HTTP status ("Tablestore: Error codes") for bad requests, and an
//! unsigned request refused when the server has credentials.
#![allow(clippy::unwrap_used)]

use super::support::{self, START_MILLIS};
use super::tablestore::{DAY_MILLIS, call, create_body, get_body, ok, pk};
use serde_json::{Value, json};

#[tokio::test]
async fn bad_requests_get_tablestore_error_codes() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", 86_400, 1)).await;
    let now = START_MILLIS;
    let day = DAY_MILLIS;
    let put_at = |ts: i64| {
        json!({"table_name": "T", "row": {"primary_key": pk("a", 1),
            "attribute_columns": [{"name": "c", "value": {"INTEGER": 1}, "timestamp": ts}]}})
    };
    // (operation, body, HTTP status, code, words the message must contain)
    let cases: Vec<(&str, Value, u16, &str, Vec<String>)> = vec![
        (
            "CreateTable",
            create_body("T", 86_400, 1),
            409,
            "OTSObjectAlreadyExist",
            vec!["T".into()],
        ),
        (
            "DescribeTable",
            json!({"table_name": "Nope"}),
            404,
            "OTSObjectNotExist",
            vec!["Nope".into()],
        ),
        (
            "GetRow",
            get_body("Nope", "a", 1, 1),
            404,
            "OTSObjectNotExist",
            vec!["Nope".into()],
        ),
        (
            "CreateTable",
            create_body("Short", 3_600, 1),
            400,
            "OTSParameterInvalid",
            vec!["time_to_live".into(), "86400".into()],
        ),
        (
            "CreateTable",
            create_body("Zero", -1, 0),
            400,
            "OTSParameterInvalid",
            vec!["max_versions".into()],
        ),
        // A version older than now - time_to_live, and one past now + the max version offset.
        (
            "PutRow",
            put_at(now - day - 1),
            400,
            "OTSParameterInvalid",
            vec!["`c`".into(), format!("[{}, {})", now - day, now + day)],
        ),
        (
            "PutRow",
            put_at(now + day),
            400,
            "OTSParameterInvalid",
            vec!["`c`".into(), format!("[{}, {})", now - day, now + day)],
        ),
        (
            "PutRow",
            json!({"table_name": "T", "row": {"primary_key": pk("a", 1)},
            "condition": {"row_existence": "EXPECT_EXIST"}}),
            403,
            "OTSConditionCheckFail",
            vec![],
        ),
        (
            "PutRow",
            json!({"table_name": "T", "row": {"primary_key":
            [{"name": "user", "value": {"STRING": "a"}}]}}),
            400,
            "OTSParameterInvalid",
            vec!["primary key".into()],
        ),
        (
            "PutRow",
            json!({"table_name": "T", "row": {"primary_key":
            [{"name": "user", "value": {"STRING": "a"}}, {"name": "seq", "value": {"DOUBLE": 1.5}}]}}),
            400,
            "OTSParameterInvalid",
            vec!["seq".into(), "INTEGER".into()],
        ),
        (
            "PutRow",
            json!({"table_name": "T", "row": {"primary_key": pk("a", 1)}, "bogus": 1}),
            400,
            "OTSParameterInvalid",
            vec!["bogus".into()],
        ),
        (
            "GetRow",
            json!({"table_name": "T", "primary_key": pk("a", 1)}),
            400,
            "OTSParameterInvalid",
            vec!["max_versions".into(), "time_range".into()],
        ),
        (
            "GetRange",
            json!({"table_name": "T", "max_versions": 1, "direction": "SIDEWAYS",
            "inclusive_start_primary_key": pk("a", 1), "exclusive_end_primary_key": pk("b", 1)}),
            400,
            "OTSParameterInvalid",
            vec!["SIDEWAYS".into()],
        ),
        (
            "UpdateRow",
            json!({"table_name": "T", "row_change": {"primary_key": pk("a", 1),
            "update_of_attribute_columns": {}}}),
            400,
            "OTSParameterInvalid",
            vec!["no column".into()],
        ),
        (
            "DeleteRow",
            json!({"table_name": "T", "primary_key": pk("zz", 1),
            "condition": {"row_existence": "EXPECT_EXIST"}}),
            403,
            "OTSConditionCheckFail",
            vec![],
        ),
    ];
    for (operation, body, status, code, words) in cases {
        let (got_status, answer) = call(&h.url, operation, &body).await;
        assert_eq!(
            (got_status, answer["code"].as_str()),
            (status, Some(code)),
            "{operation} {body}: {answer}"
        );
        let message = answer["message"].as_str().unwrap();
        for w in words {
            assert!(message.contains(&w), "{operation}: {message:?} lacks {w:?}");
        }
    }
    // Not JSON; and not POST.
    let response = reqwest::Client::new()
        .post(format!("{}/PutRow", h.url))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(
        response.json::<Value>().await.unwrap()["code"],
        "OTSParameterInvalid"
    );
    let response = reqwest::get(format!("{}/ListTable", h.url)).await.unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(
        response.json::<Value>().await.unwrap()["code"],
        "OTSMethodNotAllowed"
    );
}

#[tokio::test]
async fn with_credentials_an_unsigned_request_is_refused() {
    let h = support::start_with(|o| {
        o.credentials = Some(ttlstream_server::Credentials::new("AKID", "SECRET"));
    })
    .await;
    let (status, answer) = call(&h.url, "ListTable", &json!({})).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (403, Some("OTSAuthFailed")),
        "{answer}"
    );
}
