//! DescribeTimeToLive's ENABLING / ENABLED / DISABLING / DISABLED and
//! UpdateTimeToLive's refusals, driven by the engine's manual clock.

#![allow(clippy::unwrap_used)]

use crate::support;

use aws_sdk_dynamodb::types::{TimeToLiveSpecification, TimeToLiveStatus};
use std::time::Duration;
use support::{Harness, create_simple, start, start_with};

const TRANSITION: Duration = Duration::from_secs(5);

async fn update(h: &Harness, attribute: &str, enabled: bool) -> Result<(), String> {
    h.client
        .update_time_to_live()
        .table_name("TtlTable")
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name(attribute)
                .enabled(enabled)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .map(|_| ())
        .map_err(|e| {
            let e = e.into_service_error();
            assert_eq!(e.meta().code(), Some("ValidationException"), "{e:?}");
            e.meta().message().unwrap_or_default().to_string()
        })
}

async fn status(h: &Harness) -> (TimeToLiveStatus, Option<String>) {
    let out = h
        .client
        .describe_time_to_live()
        .table_name("TtlTable")
        .send()
        .await
        .unwrap();
    let d = out.time_to_live_description().unwrap();
    (
        d.time_to_live_status().unwrap().clone(),
        d.attribute_name().map(str::to_string),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_moves_through_enabling_and_disabling_on_the_engine_clock() {
    let h = start_with(|o| o.ttl_transition = TRANSITION).await;
    create_simple(&h.client, "TtlTable").await;
    assert_eq!(status(&h).await.0, TimeToLiveStatus::Disabled);
    assert_eq!(
        update(&h, "Exp", false).await.unwrap_err(),
        "TimeToLive is already disabled"
    );

    update(&h, "Exp", true).await.unwrap();
    assert_eq!(
        status(&h).await,
        (TimeToLiveStatus::Enabling, Some("Exp".into()))
    );
    h.clock.advance(TRANSITION - Duration::from_millis(1));
    assert_eq!(status(&h).await.0, TimeToLiveStatus::Enabling);
    // Any change during the transition is refused, as in DynamoDB's hour.
    assert_eq!(
        update(&h, "Exp", false).await.unwrap_err(),
        "Time to live has been modified multiple times within a fixed interval"
    );
    h.clock.advance(Duration::from_millis(1));
    assert_eq!(
        status(&h).await,
        (TimeToLiveStatus::Enabled, Some("Exp".into()))
    );
    assert_eq!(
        update(&h, "Exp", true).await.unwrap_err(),
        "TimeToLive is already enabled"
    );
    assert!(
        update(&h, "Other", true)
            .await
            .unwrap_err()
            .starts_with("TimeToLive is active on a different AttributeName")
    );

    update(&h, "Exp", false).await.unwrap();
    assert_eq!(
        status(&h).await,
        (TimeToLiveStatus::Disabling, Some("Exp".into()))
    );
    // Re-enabling right after disabling is refused too.
    assert!(update(&h, "Exp", true).await.is_err());
    h.clock.advance(TRANSITION);
    assert_eq!(status(&h).await, (TimeToLiveStatus::Disabled, None));
    // After the transition, another attribute may be enabled.
    update(&h, "Other", true).await.unwrap();
    assert_eq!(status(&h).await.0, TimeToLiveStatus::Enabling);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_transition_reports_the_final_state_at_once() {
    let h = start_with(|o| o.ttl_transition = Duration::ZERO).await;
    create_simple(&h.client, "TtlTable").await;
    update(&h, "Exp", true).await.unwrap();
    assert_eq!(status(&h).await.0, TimeToLiveStatus::Enabled);
    update(&h, "Exp", false).await.unwrap();
    assert_eq!(status(&h).await.0, TimeToLiveStatus::Disabled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_table_is_resource_not_found() {
    let h = start().await;
    let err = h
        .client
        .describe_time_to_live()
        .table_name("Nope")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
}
