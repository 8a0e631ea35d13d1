//! `alarm apply` as a recorded PutMetricAlarm request, and state-change
//! notifiers against real receivers: an axum server on 127.0.0.1 and a shell
//! command reading stdin.

use std::path::Path;

use crate::common;

use axum::Json;
use axum::http::StatusCode;
use axum::routing::post;
use common::cloudwatch_replay;
use tokio::sync::mpsc;
use ttlstream::Config;
use ttlstream::alarm::{AlarmDefinition, AlarmState, AlarmTransition};
use ttlstream::notify::{
    self, CommandConfig, Notification, NotifierConfig, NotifyError, WebhookConfig,
};

const SEED: &str = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test]
async fn apply_sends_the_files_fields_with_put_metric_alarm() {
    let (client, http) = cloudwatch_replay(&[200]);
    let definition = AlarmDefinition::parse(SEED, Path::new("seed.json")).expect("valid");
    ttlstream::alarm::apply::put_metric_alarm(&client, &definition)
        .await
        .expect("applied");
    let requests: Vec<_> = http.actual_requests().collect();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].uri().ends_with("/operation/PutMetricAlarm"),
        "{}",
        requests[0].uri()
    );
    let body = requests[0].body().bytes().unwrap_or_default();
    for expected in [
        "AlarmName",
        "ttl-deletion-anomaly-SessionData",
        "TTLStream",
        "TimeToLiveDeletedItemCount",
        "TableName",
        "SessionData",
        "Sum",
        "LessThanThreshold",
        "TreatMissingData",
        "breaching",
        "DatapointsToAlarm",
        "EvaluationPeriods",
        "Count",
    ] {
        assert!(
            contains(body, expected),
            "{expected} missing from the request body"
        );
    }
}

/// A file that omits PutMetricAlarm's optional parameters sends a request that
/// omits them too, so CloudWatch applies its own defaults (`missing`, M = N,
/// actions enabled), the ones the local evaluator uses.
#[tokio::test]
async fn apply_omits_what_the_file_omits() {
    let minimal = r#"{"AlarmName": "minimal", "MetricName": "TimeToLiveDeletedItemCount",
        "Statistic": "Sum", "Period": 60, "EvaluationPeriods": 3, "Threshold": 1,
        "ComparisonOperator": "LessThanThreshold"}"#;
    let (client, http) = cloudwatch_replay(&[200]);
    let definition = AlarmDefinition::parse(minimal, Path::new("minimal.json")).expect("valid");
    ttlstream::alarm::apply::put_metric_alarm(&client, &definition)
        .await
        .expect("applied");
    let requests: Vec<_> = http.actual_requests().collect();
    assert_eq!(requests.len(), 1);
    let body = requests[0].body().bytes().unwrap_or_default();
    for sent in [
        "AlarmName",
        "MetricName",
        "Statistic",
        "Period",
        "EvaluationPeriods",
        "Threshold",
        "ComparisonOperator",
    ] {
        assert!(contains(body, sent), "{sent} missing from the request body");
    }
    for omitted in [
        "TreatMissingData",
        "DatapointsToAlarm",
        "ActionsEnabled",
        "Namespace",
        "Dimensions",
        "Unit",
        "AlarmActions",
        "OKActions",
        "InsufficientDataActions",
        "EvaluateLowSampleCountPercentile",
        "Tags",
    ] {
        assert!(
            !contains(body, omitted),
            "{omitted} sent but not in the file"
        );
    }
}

fn transition() -> AlarmTransition {
    AlarmTransition {
        alarm_name: "ttl-deletion-anomaly-SessionData".into(),
        from: AlarmState::Ok,
        to: AlarmState::Alarm,
        at_secs: 1_571_835_600,
        value: Some(0.0),
    }
}

#[tokio::test]
async fn webhook_posts_the_json_body_to_a_real_server() {
    let (tx, mut rx) = mpsc::unbounded_channel::<Notification>();
    let app = axum::Router::new()
        .route(
            "/hook",
            post(move |Json(body): Json<Notification>| {
                let tx = tx.clone();
                async move {
                    let _ = tx.send(body);
                    StatusCode::NO_CONTENT
                }
            }),
        )
        .route(
            "/fail",
            post(|| async { StatusCode::INTERNAL_SERVER_ERROR }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });

    let hook = NotifierConfig::Webhook(WebhookConfig {
        url: format!("http://{addr}/hook"),
        timeout_millis: 5000,
    });
    let expected = Notification::from_transition(&transition());
    notify::notify(&hook, &expected).await.expect("delivered");
    let received = rx.recv().await.expect("one notification");
    assert_eq!(received, expected);
    assert_eq!(received.new_state_value, "ALARM");
    assert_eq!(received.old_state_value, "OK");
    assert_eq!(received.state_change_time, "2019-10-23T13:00:00Z");

    let failing = NotifierConfig::Webhook(WebhookConfig {
        url: format!("http://{addr}/fail"),
        timeout_millis: 5000,
    });
    let err = notify::notify(&failing, &expected).await.expect_err("500");
    assert!(matches!(err, NotifyError::Webhook { .. }), "{err}");
    assert!(err.to_string().contains("500"), "{err}");
}

#[tokio::test]
async fn command_gets_the_json_on_stdin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("notification.json");
    let command = NotifierConfig::Command(CommandConfig {
        program: "sh".into(),
        args: vec!["-c".into(), format!("cat > '{}'", out.display())],
    });
    let expected = Notification::from_transition(&transition());
    notify::notify(&command, &expected).await.expect("ran");
    let written = std::fs::read_to_string(&out).expect("written");
    let parsed: Notification = serde_json::from_str(&written).expect("json");
    assert_eq!(parsed, expected);

    let failing = NotifierConfig::Command(CommandConfig {
        program: "sh".into(),
        args: vec!["-c".into(), "cat >/dev/null; exit 3".into()],
    });
    let err = notify::notify(&failing, &expected)
        .await
        .expect_err("exit 3");
    assert!(matches!(err, NotifyError::Command { .. }), "{err}");
    assert!(err.to_string().contains('3'), "{err}");
}

const BASE: &str = r#"
[source.engine]
data_dir = "data"
table = "SessionData"

[checkpoint]
dir = "state"
"#;

#[test]
fn notifier_config_is_strict() {
    let good = format!(
        "{BASE}\n[[notifiers]]\nwebhook = {{ url = \"http://127.0.0.1:9/h\" }}\n\n[[notifiers]]\ncommand = {{ program = \"/bin/true\", args = [\"x\"] }}\n"
    );
    let config = Config::parse(&good, Path::new("t.toml")).expect("valid");
    assert_eq!(config.notifiers.len(), 2);
    assert!(matches!(&config.notifiers[0], NotifierConfig::Webhook(w) if w.timeout_millis == 5000));
    let typo = format!("{BASE}\n[[notifiers]]\nwebhook = {{ uri = \"http://x\" }}\n");
    let err = Config::parse(&typo, Path::new("t.toml")).expect_err("typo");
    assert!(err.to_string().contains("uri"), "{err}");
    let reserved = format!("{BASE}\n[metrics]\nemf = true\nnamespace = \"AWS/DynamoDB\"\n");
    let err = Config::parse(&reserved, Path::new("t.toml")).expect_err("AWS/");
    assert!(err.to_string().contains("metrics.namespace"), "{err}");
}
