//! `ttlstream filter ...`: test event patterns without AWS.
//!
//! Exit codes: 0 when the command ran (whether or not anything matched); 2 for
//! an invalid pattern file or event (the error names the file, and the line for
//! NDJSON input); 1 when reading input or writing output fails.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use ttlstream_filters::{Dialect, Matcher, Pattern};

use crate::router::load_filter_file_with;

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
        /// Whose pattern language the file must stay within.
        #[arg(long, value_enum, default_value_t = DialectArg::Lambda)]
        dialect: DialectArg,
    },
    /// Validates a pattern or FilterCriteria file and prints each filter in
    /// normal form (fields sorted, operators in canonical shape), one compact
    /// JSON object per line. Exit 2 with the error if it is invalid.
    Check {
        /// A pattern file: a bare pattern or Lambda FilterCriteria JSON.
        file: PathBuf,
        /// Whose pattern language the file must stay within.
        #[arg(long, value_enum, default_value_t = DialectArg::Lambda)]
        dialect: DialectArg,
    },
    /// Matches newline-delimited JSON events: prints one `true`/`false` per
    /// event line (blank lines are skipped). Stops with exit 2 at the first
    /// malformed event, naming its line.
    Match {
        /// A pattern file: a bare pattern or Lambda FilterCriteria JSON.
        #[arg(long)]
        pattern: PathBuf,
        /// NDJSON events, one per line. Default: standard input.
        events: Option<PathBuf>,
        /// Whose pattern language the file must stay within.
        #[arg(long, value_enum, default_value_t = DialectArg::Lambda)]
        dialect: DialectArg,
    },
}

/// `--dialect`: which AWS service's pattern language to accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// Lambda event source mapping FilterCriteria (4096 characters, fewer operators).
    Lambda,
    /// EventBridge rule event patterns (the full language, 2048 characters).
    Eventbridge,
}

impl From<DialectArg> for Dialect {
    fn from(arg: DialectArg) -> Self {
        match arg {
            DialectArg::Lambda => Dialect::Lambda,
            DialectArg::Eventbridge => Dialect::EventBridge,
        }
    }
}

/// Runs a filter subcommand.
pub fn run(command: FilterCommand) -> ExitCode {
    match command {
        FilterCommand::Test {
            pattern,
            event,
            dialect,
        } => test(&pattern, &event, dialect.into()),
        FilterCommand::Check { file, dialect } => check(&file, dialect.into()),
        FilterCommand::Match {
            pattern,
            events,
            dialect,
        } => match_events(&pattern, events.as_deref(), dialect.into()),
    }
}

/// Loads `path`, or prints the error and returns exit code 2.
fn load(path: &Path, dialect: Dialect) -> Result<Vec<Pattern>, ExitCode> {
    load_filter_file_with(path, dialect).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn test(pattern: &Path, event: &Path, dialect: Dialect) -> ExitCode {
    let patterns = match load(pattern, dialect) {
        Ok(patterns) => patterns,
        Err(code) => return code,
    };
    let bytes = match std::fs::read(event) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: {}: cannot read: {e}", event.display());
            return ExitCode::from(2);
        }
    };
    let matcher = Matcher::new(patterns.into_iter().map(|p| ((), p)));
    match matcher.matches_strict(&bytes) {
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

fn check(file: &Path, dialect: Dialect) -> ExitCode {
    let patterns = match load(file, dialect) {
        Ok(patterns) => patterns,
        Err(code) => return code,
    };
    let mut out = io::stdout().lock();
    for pattern in &patterns {
        if let Err(e) = writeln!(out, "{}", pattern.to_json()) {
            return write_failed(&e);
        }
    }
    ExitCode::SUCCESS
}

fn match_events(pattern: &Path, events: Option<&Path>, dialect: Dialect) -> ExitCode {
    let patterns = match load(pattern, dialect) {
        Ok(patterns) => patterns,
        Err(code) => return code,
    };
    let matcher = Matcher::new(patterns.into_iter().map(|p| ((), p)));
    let (input, name): (Box<dyn BufRead>, String) = match events {
        Some(path) => match File::open(path) {
            Ok(file) => (Box::new(BufReader::new(file)), path.display().to_string()),
            Err(e) => {
                eprintln!("error: {}: cannot read: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => (Box::new(io::stdin().lock()), "<stdin>".to_owned()),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let code = match_lines(&matcher, input, &name, &mut out);
    if let Err(e) = out.flush() {
        return write_failed(&e);
    }
    code
}

/// Matches each non-blank line of `input`, writing `true`/`false` lines to `out`.
fn match_lines(
    matcher: &Matcher<()>,
    mut input: Box<dyn BufRead>,
    name: &str,
    out: &mut impl Write,
) -> ExitCode {
    let mut line = Vec::new();
    let mut number: u64 = 0;
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => number += 1,
            Err(e) => {
                eprintln!("error: {name}: cannot read line {}: {e}", number + 1);
                return ExitCode::FAILURE;
            }
        }
        // Without its line end (`\n` or `\r\n`), so an error's line and
        // column are those of the event's own line.
        let event = line.strip_suffix(b"\n").unwrap_or(&line);
        let event = event.strip_suffix(b"\r").unwrap_or(event);
        if event.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let matched = match matcher.matches_strict(event) {
            Ok(ids) => !ids.is_empty(),
            Err(e) => {
                // Flush the answers so far so they stay aligned with the input.
                let _ = out.flush();
                eprintln!("error: {name}:{number}: {e}");
                return ExitCode::from(2);
            }
        };
        if let Err(e) = writeln!(out, "{matched}") {
            return write_failed(&e);
        }
    }
}

/// A closed pipe (`| head`) ends the command quietly; other write errors are failures.
fn write_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    eprintln!("error: cannot write to standard output: {e}");
    ExitCode::FAILURE
}
