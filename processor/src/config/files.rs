//! The files a config refers to (route filters, alarm files, the replay
//! file) are checked when it loads: one that cannot be read is an error that
//! names the config file, the line and key that refer to it, and the file.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{Config, SourceConfig};
use crate::error::ConfigError;

/// Where the path-valued keys sit in the config text. Other keys are
/// ignored here (the config itself was parsed strictly).
#[derive(Default, Deserialize)]
struct Spans {
    #[serde(default)]
    source: Option<SourceSpans>,
    #[serde(default)]
    routes: Vec<RouteSpans>,
    #[serde(default)]
    alarms: Vec<AlarmSpans>,
}

#[derive(Deserialize)]
struct SourceSpans {
    #[serde(default)]
    file: Option<FileSpans>,
}

#[derive(Deserialize)]
struct FileSpans {
    path: Spanned<toml::Value>,
}

#[derive(Deserialize)]
struct RouteSpans {
    #[serde(default)]
    filter: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
struct AlarmSpans {
    file: Spanned<toml::Value>,
}

/// Checks that every file `config` refers to exists and is not a directory
/// (the paths already resolved; `text` is the file's text as parsed, for the
/// line numbers). A FIFO or device is accepted: it is not opened here.
///
/// # Errors
/// [`ConfigError::Invalid`]: `line N: routes[i] (name).filter: cannot read
/// <file>: <why>`, likewise `alarms[i].file` and `source.file.path`.
pub(super) fn check_readable(
    config: &Config,
    text: &str,
    origin: &Path,
) -> Result<(), ConfigError> {
    let spans: Spans = toml::from_str(text).unwrap_or_default();
    let line = |span: Option<std::ops::Range<usize>>| {
        span.map_or(String::new(), |span| {
            let before = text.get(..span.start).unwrap_or(text);
            format!("line {}: ", before.matches('\n').count() + 1)
        })
    };
    let check = |path: &Path, key: String, span: Option<std::ops::Range<usize>>| {
        let problem = match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_dir() => Some("is a directory".to_string()),
            Ok(_) => None,
            Err(error) => Some(error.to_string()),
        };
        match problem {
            None => Ok(()),
            Some(problem) => Err(ConfigError::Invalid {
                path: origin.to_path_buf(),
                message: format!(
                    "{}{key}: cannot read {}: {problem}",
                    line(span),
                    path.display()
                ),
            }),
        }
    };
    if let Some(SourceConfig::File(file)) = &config.source
        && !file.is_stdin()
    {
        let span = spans
            .source
            .as_ref()
            .and_then(|s| s.file.as_ref())
            .map(|f| f.path.span());
        check(&file.path, "source.file.path".into(), span)?;
    }
    for (i, route) in config.routes.iter().enumerate() {
        if let Some(filter) = &route.filter {
            let span = spans
                .routes
                .get(i)
                .and_then(|r| r.filter.as_ref())
                .map(Spanned::span);
            check(filter, format!("routes[{i}] ({}).filter", route.name), span)?;
        }
    }
    for (i, alarm) in config.alarms.iter().enumerate() {
        let span = spans.alarms.get(i).map(|a| a.file.span());
        check(&alarm.file, format!("alarms[{i}].file"), span)?;
    }
    Ok(())
}
