//! `ttlstream alarm ...`: evaluate alarm files locally, or create them in
//! CloudWatch.
//!
//! Exit codes: 0 success; 2 an invalid alarm or datapoints file; 1 a failed
//! call to CloudWatch.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use crate::alarm::{AlarmDefinition, AlarmState, evaluate, evaluation_range};
use crate::error::ConfigError;

/// `alarm` subcommands.
#[derive(Debug, Subcommand)]
pub enum AlarmCommand {
    /// Prints the state an alarm reaches for the given datapoints, evaluated
    /// period by period as CloudWatch does (CloudWatch User Guide, "Configuring
    /// how CloudWatch alarms treat missing data").
    Simulate {
        /// An alarm file: PutMetricAlarm JSON.
        #[arg(long)]
        alarm: PathBuf,
        /// A JSON array of per-period datapoints (one per alarm `Period`, after
        /// the alarm's `Statistic`), oldest first and the most recent last, as
        /// in the CloudWatch User Guide's tables; `null` for a missing period.
        #[arg(long)]
        datapoints: PathBuf,
        /// The state before the first datapoint. Default: INSUFFICIENT_DATA,
        /// the state a new alarm starts in.
        #[arg(long, value_enum, default_value_t = StateArg::InsufficientData)]
        state: StateArg,
        /// Print every period's state, not only the last.
        #[arg(long)]
        verbose: bool,
    },
    /// Creates or updates the alarm in CloudWatch with PutMetricAlarm. Region
    /// and credentials come from the usual AWS sources (`AWS_REGION`,
    /// `AWS_PROFILE`, ...); `AWS_ENDPOINT_URL` points it elsewhere.
    Apply {
        /// An alarm file: PutMetricAlarm JSON.
        #[arg(long)]
        alarm: PathBuf,
    },
}

/// A state on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StateArg {
    /// `OK`.
    #[value(name = "OK")]
    Ok,
    /// `ALARM`.
    #[value(name = "ALARM")]
    Alarm,
    /// `INSUFFICIENT_DATA`.
    #[value(name = "INSUFFICIENT_DATA")]
    InsufficientData,
}

impl From<StateArg> for AlarmState {
    fn from(state: StateArg) -> Self {
        match state {
            StateArg::Ok => Self::Ok,
            StateArg::Alarm => Self::Alarm,
            StateArg::InsufficientData => Self::InsufficientData,
        }
    }
}

/// Runs an `alarm` subcommand; returns the process exit code.
pub fn run(command: AlarmCommand) -> ExitCode {
    match command {
        AlarmCommand::Simulate {
            alarm,
            datapoints,
            state,
            verbose,
        } => match simulate(&alarm, &datapoints, state.into()) {
            Ok(states) => {
                if verbose {
                    for (i, s) in states.iter().enumerate() {
                        println!("{i}\t{s}");
                    }
                } else {
                    println!("{}", states.last().copied().unwrap_or(state.into()));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        AlarmCommand::Apply { alarm } => apply(&alarm),
    }
}

fn apply(file: &Path) -> ExitCode {
    let definition = match AlarmDefinition::load(file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        let client = aws_sdk_cloudwatch::Client::new(&aws);
        match crate::alarm::apply::put_metric_alarm(&client, &definition).await {
            Ok(()) => {
                println!("{}: created or updated", definition.alarm_name);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Evaluates the alarm after each datapoint in `datapoints_file` (a JSON array
/// of numbers or `null`, oldest first) starting from `state`; returns the state
/// after each period.
///
/// # Errors
/// [`ConfigError`] for an unreadable or invalid alarm file, or a datapoints file
/// that is not a JSON array of numbers and `null`s.
pub fn simulate(
    alarm_file: &Path,
    datapoints_file: &Path,
    state: AlarmState,
) -> Result<Vec<AlarmState>, ConfigError> {
    let definition = AlarmDefinition::load(alarm_file)?;
    let text = std::fs::read_to_string(datapoints_file).map_err(|source| ConfigError::Read {
        path: datapoints_file.to_path_buf(),
        source,
    })?;
    let points: Vec<Option<f64>> = serde_json::from_str(&text).map_err(|e| ConfigError::Parse {
        path: datapoints_file.to_path_buf(),
        message: format!("expected a JSON array of numbers and nulls: {e}"),
    })?;
    Ok(simulate_points(&definition, &points, state))
}

/// As [`simulate`], on parsed input: the state after each of `points`.
pub fn simulate_points(
    definition: &AlarmDefinition,
    points: &[Option<f64>],
    mut state: AlarmState,
) -> Vec<AlarmState> {
    let width = evaluation_range(definition);
    let mut states = Vec::with_capacity(points.len());
    for end in 1..=points.len() {
        let range = &points[end.saturating_sub(width)..end];
        state = evaluate(definition, range, state);
        states.push(state);
    }
    states
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_alarm_stopped_deletions() {
        let text = include_str!("../../../deploy/alarms/ttl-deletion-anomaly.json");
        let definition = AlarmDefinition::parse(text, Path::new("seed.json")).expect("valid");
        // ttlstream's namespace: explicit zeros -> ALARM after 2 hours.
        let zeros = [Some(900.0), Some(0.0), Some(0.0)];
        let states = simulate_points(&definition, &zeros, AlarmState::InsufficientData);
        assert_eq!(
            states,
            [AlarmState::Ok, AlarmState::Ok, AlarmState::Alarm],
            "{states:?}"
        );
        // No datapoints at all (the AWS/DynamoDB shape, but in TTLStream):
        // breaching once the 900 leaves the 4-period range.
        let gone = [Some(900.0), None, None, None, None];
        let states = simulate_points(&definition, &gone, AlarmState::InsufficientData);
        assert_eq!(states.last(), Some(&AlarmState::Alarm), "{states:?}");
        assert_eq!(states[3], AlarmState::Ok, "{states:?}");
    }
}
