//! Environment variables in config files: `${NAME}` and `${NAME:-default}` are
//! replaced by the variable's value before the TOML is parsed, as Vector
//! interpolates its config. This is how a packaged Lambda config takes the
//! bucket its stack created (`bucket = "${TTLSTREAM_ARCHIVE_BUCKET}"`).
//!
//! Stricter than a shell, so a typo cannot pass silently:
//! - an unset variable without a default is an error naming it and the line;
//! - a value holding a quote, a backslash or a control character (a newline)
//!   is an error: it could change the file's structure, not just a value;
//! - only the braced form is replaced, so a lone `$` stays as written; `$${`
//!   writes a literal `${`.

/// Why a config file's text could not be interpolated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InterpolateError {
    /// `${` without a closing `}` or with a name that is not `[A-Za-z_][A-Za-z0-9_]*`.
    #[error("line {line}: `{text}` is not a ${{NAME}} or ${{NAME:-default}} reference")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// The text from `${` on (to the end of the line).
        text: String,
    },
    /// The variable is not set and has no default.
    #[error(
        "line {line}: environment variable {name} is not set (give a default with ${{{name}:-value}})"
    )]
    Unset {
        /// 1-based line number.
        line: usize,
        /// The variable.
        name: String,
    },
    /// The value holds a character that could change the TOML's structure.
    #[error("line {line}: the value of {name} holds a quote, backslash or control character")]
    Unsafe {
        /// 1-based line number.
        line: usize,
        /// The variable.
        name: String,
    },
}

/// Replaces every `${NAME}` / `${NAME:-default}` in `text` with `lookup(NAME)`
/// (or the default when it returns `None`). `lookup` is
/// `|name| std::env::var(name).ok()` for the process environment.
///
/// # Errors
/// [`InterpolateError`] naming the line of a malformed reference, an unset
/// variable without a default, or an unsafe value.
pub fn interpolate(
    text: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, InterpolateError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut line = 1;
    while let Some(start) = rest.find("${") {
        let (before, from) = rest.split_at(start);
        line += before.matches('\n').count();
        if let Some(literal) = before.strip_suffix('$') {
            // `$${` is a literal `${`.
            out.push_str(literal);
            out.push_str("${");
            rest = &from[2..];
            continue;
        }
        out.push_str(before);
        let malformed = || InterpolateError::Malformed {
            line,
            text: from.lines().next().unwrap_or(from).to_string(),
        };
        let end = from.find('}').ok_or_else(malformed)?;
        let inner = &from[2..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name || inner.contains('\n') {
            return Err(malformed());
        }
        let value = lookup(name)
            .or_else(|| default.map(str::to_string))
            .ok_or_else(|| InterpolateError::Unset {
                line,
                name: name.to_string(),
            })?;
        if value
            .chars()
            .any(|c| c == '"' || c == '\'' || c == '\\' || c.is_control())
        {
            return Err(InterpolateError::Unsafe {
                line,
                name: name.to_string(),
            });
        }
        out.push_str(&value);
        rest = &from[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "BUCKET" => Some("my-archive".into()),
            "EMPTY" => Some(String::new()),
            "QUOTE" => Some("a\"b".into()),
            "NEWLINE" => Some("a\nb".into()),
            _ => None,
        }
    }

    #[test]
    fn replaces_set_variables_and_defaults() {
        let text = "bucket = \"${BUCKET}\"\nns = \"${NS:-TTLStream}\"\nx = \"${EMPTY:-d}\"\n";
        assert_eq!(
            interpolate(text, env).expect("interpolated"),
            "bucket = \"my-archive\"\nns = \"TTLStream\"\nx = \"\"\n"
        );
    }

    #[test]
    fn leaves_lone_dollars_and_unescapes_double_dollar() {
        assert_eq!(
            interpolate("a = \"$HOME $5 $${BUCKET}\"", env).expect("interpolated"),
            "a = \"$HOME $5 ${BUCKET}\""
        );
    }

    #[test]
    fn errors_name_the_line_and_variable() {
        assert_eq!(
            interpolate("a = 1\nb = \"${MISSING}\"", env),
            Err(InterpolateError::Unset {
                line: 2,
                name: "MISSING".into()
            })
        );
        assert!(matches!(
            interpolate("\n\nb = \"${1X}\"", env),
            Err(InterpolateError::Malformed { line: 3, .. })
        ));
        assert!(matches!(
            interpolate("b = \"${BUCKET\"\n", env),
            Err(InterpolateError::Malformed { line: 1, .. })
        ));
        for name in ["QUOTE", "NEWLINE"] {
            assert_eq!(
                interpolate(&format!("b = \"${{{name}}}\""), env),
                Err(InterpolateError::Unsafe {
                    line: 1,
                    name: name.into()
                })
            );
        }
    }
}
