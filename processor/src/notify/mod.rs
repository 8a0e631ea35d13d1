//! Alarm state-change notifiers: a webhook (HTTP POST with a JSON body) and a
//! command (the JSON on its stdin). The body uses the names of CloudWatch's
//! alarm state-change notification (`AlarmName`, `OldStateValue`,
//! `NewStateValue`, `NewStateReason`, `StateChangeTime`; CloudWatch User Guide,
//! "Using Amazon CloudWatch alarms").

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::alarm::AlarmTransition;

/// One `[[notifiers]]` entry: exactly one of `webhook` or `command`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum NotifierConfig {
    /// `webhook = { url = "https://hooks.example.com/ttl", timeout_millis = 5000 }`.
    Webhook(WebhookConfig),
    /// `command = { program = "/usr/local/bin/page", args = ["--team", "data"] }`.
    Command(CommandConfig),
}

/// A webhook notifier.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// Full URL, `http://` or `https://`; receives `POST` with
    /// `content-type: application/json`. Any 2xx status is success.
    pub url: String,
    /// Time allowed for the whole request, milliseconds. Default 5000.
    #[serde(default = "default_timeout_millis")]
    pub timeout_millis: u64,
}

/// A command notifier: run once per state change, JSON on stdin; exit 0 is success.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    /// The program: a path, or a name looked up in `PATH` (no shell).
    pub program: PathBuf,
    /// Arguments, passed as they are (no shell expansion).
    #[serde(default)]
    pub args: Vec<String>,
}

fn default_timeout_millis() -> u64 {
    5000
}

/// The JSON a notifier receives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Notification {
    /// `AlarmName`.
    pub alarm_name: String,
    /// `OldStateValue`: `OK`, `ALARM` or `INSUFFICIENT_DATA`.
    pub old_state_value: String,
    /// `NewStateValue`.
    pub new_state_value: String,
    /// `NewStateReason`: the datapoint that changed the state, in words.
    pub new_state_reason: String,
    /// `StateChangeTime`: end of the evaluated period, RFC 3339 UTC.
    pub state_change_time: String,
    /// The evaluated period's datapoint; `null` when it was missing.
    pub value: Option<f64>,
}

impl Notification {
    /// The notification for `transition`.
    pub fn from_transition(t: &AlarmTransition) -> Self {
        let time = chrono::DateTime::from_timestamp(t.at_secs, 0)
            .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
            .unwrap_or_else(|| t.at_secs.to_string());
        let reason = match t.value {
            Some(v) => format!("datapoint {v} for the period ending {time}"),
            None => format!("no datapoint for the period ending {time}"),
        };
        Self {
            alarm_name: t.alarm_name.clone(),
            old_state_value: t.from.to_string(),
            new_state_value: t.to.to_string(),
            new_state_reason: reason,
            state_change_time: time,
            value: t.value,
        }
    }
}

/// A notification that could not be delivered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NotifyError {
    /// The webhook request failed or returned a non-2xx status.
    #[error("webhook {url}: {message}")]
    Webhook {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The command could not run, or exited unsuccessfully.
    #[error("command {program}: {message}")]
    Command {
        /// The program.
        program: String,
        /// What went wrong.
        message: String,
    },
}

/// Delivers `notification` to one notifier.
///
/// # Errors
/// [`NotifyError::Webhook`] for a failed request or a non-2xx status;
/// [`NotifyError::Command`] when the program cannot start or exits non-zero.
pub async fn notify(
    config: &NotifierConfig,
    notification: &Notification,
) -> Result<(), NotifyError> {
    match config {
        NotifierConfig::Webhook(hook) => {
            let fail = |message: String| NotifyError::Webhook {
                url: hook.url.clone(),
                message,
            };
            let client = reqwest::Client::builder()
                .timeout(Duration::from_millis(hook.timeout_millis))
                .build()
                .map_err(|e| fail(e.to_string()))?;
            let response = client
                .post(&hook.url)
                .json(notification)
                .send()
                .await
                .map_err(|e| fail(e.to_string()))?;
            if !response.status().is_success() {
                return Err(fail(format!("HTTP status {}", response.status())));
            }
            Ok(())
        }
        NotifierConfig::Command(command) => {
            let command = command.clone();
            let body = serde_json::to_vec(notification).unwrap_or_default();
            let program = command.program.display().to_string();
            let result = tokio::task::spawn_blocking(move || run_command(&command, &body)).await;
            match result {
                Ok(Ok(())) => Ok(()),
                Ok(Err(message)) => Err(NotifyError::Command { program, message }),
                Err(e) => Err(NotifyError::Command {
                    program,
                    message: e.to_string(),
                }),
            }
        }
    }
}

fn run_command(command: &CommandConfig, body: &[u8]) -> Result<(), String> {
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(body)
            .map_err(|e| format!("writing stdin: {e}"))?;
    }
    let status = child.wait().map_err(|e| format!("waiting: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("exited with {status}"))
    }
}

/// Logs `transition` and delivers it to every notifier; failures are logged,
/// never fatal (the pipeline keeps archiving).
pub async fn deliver_all(notifiers: &[NotifierConfig], transition: &AlarmTransition) {
    let notification = Notification::from_transition(transition);
    for notifier in notifiers {
        if let Err(e) = notify(notifier, &notification).await {
            tracing::error!(error = %e, alarm = %notification.alarm_name, "notifier failed");
        }
    }
}
