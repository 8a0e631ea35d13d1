//! Databases and backups as name prefixes of engine tables.
//!
//! The engine has one flat namespace of Spanner tables; this server keeps
//! each database's tables in it under a prefix, so a database exists as soon
//! as it has a table, and a backup is a set of table copies:
//!
//! * table `T` of database `D` is engine table `{D'}Z{T}`,
//! * table `T` of backup `B` is engine table `B{B'}Z{T}`,
//!
//! where `D'` / `B'` is the id with each `-` written as `H`. Database and
//! backup ids follow Spanner's rule (`[a-z][a-z0-9_-]*[a-z0-9]`, 2 to 30
//! characters), so they hold no upper-case letter: the first `Z` ends the
//! prefix, and the mapping is one to one. The project and instance in the
//! path are not part of the name (one instance per server).

use super::error::SpannerError;

/// Checks a database or backup id against Spanner's rule.
pub(crate) fn check_id(kind: &str, id: &str) -> Result<(), SpannerError> {
    let ok = (2..=30).contains(&id.len())
        && id.as_bytes()[0].is_ascii_lowercase()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && !id.ends_with(['_', '-']);
    if ok {
        Ok(())
    } else {
        Err(SpannerError::invalid(format!(
            "Invalid {kind} id `{id}`: 2 to 30 characters, a lower-case letter first, then lower-case letters, digits, `_` or `-`, not ending in `_` or `-`"
        )))
    }
}

/// The engine-table prefix of database `id`.
pub(crate) fn database_prefix(id: &str) -> String {
    format!("{}Z", id.replace('-', "H"))
}

/// The engine-table prefix of backup `id`.
pub(crate) fn backup_prefix(id: &str) -> String {
    format!("B{}Z", id.replace('-', "H"))
}

/// A prefix and the name of one of its tables.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub(crate) prefix: String,
}

impl Scope {
    /// The engine name of table `table`.
    pub(crate) fn engine(&self, table: &str) -> String {
        format!("{}{table}", self.prefix)
    }

    /// The caller's name of engine table `engine` (unchanged if it is not
    /// in this scope).
    pub(crate) fn user(&self, engine: &str) -> String {
        engine
            .strip_prefix(&self.prefix)
            .unwrap_or(engine)
            .to_string()
    }

    /// The caller's names of this scope's tables, among `all` engine names.
    pub(crate) fn tables(&self, all: &[String]) -> Vec<String> {
        all.iter()
            .filter_map(|t| t.strip_prefix(&self.prefix))
            .map(str::to_string)
            .collect()
    }
}
