//! `ttlstream filter ...`: test event patterns without AWS.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use ttlstream_filters::Matcher;

use crate::router::load_filter_file;

/// `filter` subcommands.
#[derive(Debug, Subcommand)]
pub enum FilterCommand {
    /// Does this pattern match this event? Prints `true` or `false` (like
    /// EventBridge's TestEventPattern). Exit 2 for an invalid pattern or event.
    Test {
        /// A pattern file: a bare pattern or Lambda FilterCriteria JSON.
        #[arg(long)]
        pattern: PathBuf,
        /// An event file: one JSON event (e.g. a Lambda DynamoDB stream record).
        #[arg(long)]
        event: PathBuf,
    },
}

/// Runs a filter subcommand.
pub fn run(command: FilterCommand) -> ExitCode {
    match command {
        FilterCommand::Test { pattern, event } => test(&pattern, &event),
    }
}

fn test(pattern: &Path, event: &Path) -> ExitCode {
    let patterns = match load_filter_file(pattern) {
        Ok(patterns) => patterns,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(event) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: {}: cannot read: {e}", event.display());
            return ExitCode::from(2);
        }
    };
    let matcher = Matcher::new(patterns.into_iter().map(|p| ((), p)));
    match matcher.matches(&bytes) {
        Ok(matched) => {
            println!("{}", !matched.is_empty());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", event.display());
            ExitCode::from(2)
        }
    }
}
