//! The router: one compiled filter set for all routes; each record goes to the
//! routes whose filter it matches.
//!
//! Three shortcuts, each measured by `pipeline_bench 200000 2000 5 3`
//! (file sink, median of 3 rounds, each shortcut turned off in the same run
//! as the baseline of 240,593 archived/s and 6.44 CPU µs per record):
//! - [`Router::event_names`] lets the engine source skip the JSON of records
//!   no route can match: without it 184,044/s, 8.56 µs (24 % slower).
//! - A record is matched as an object of only the members some pattern
//!   names: matching the whole record, 177,778/s, 7.98 µs (26 % slower).
//! - The last object of named members is remembered with its routes, so a
//!   run of TTL deletions is matched once: without it 205,395/s, 7.21 µs
//!   (15 % slower by rate, 11 % more CPU per record: at the bar).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

use ttlstream_filters::{Dialect, Matcher, Pattern, parse_filter_file_with};

use crate::error::ConfigError;
use crate::record::{LAMBDA_MEMBERS, Record};

thread_local! {
    /// [`Router::route`]'s object of a record's named members, reused from
    /// record to record.
    static NAMED_OBJECT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A route after its filter file was loaded: which sinks (by index) it feeds.
#[derive(Clone, Debug)]
pub struct Route {
    /// Indexes into the pipeline's sink list.
    pub sinks: Vec<usize>,
}

/// All routes, their filters compiled into one [`Matcher`].
pub struct Router {
    routes: Vec<Route>,
    matcher: Matcher<usize>,
    /// Routes without a filter: every record matches them.
    unfiltered: Vec<usize>,
    /// The `eventName`s some route's patterns accept, when every pattern
    /// requires one of a set ([`Pattern::required_strings`]); `None` when a
    /// route takes any.
    event_names: Option<BTreeSet<String>>,
    /// The members of [`LAMBDA_MEMBERS`] (indices, in that order) some
    /// pattern names: a record with [`Record::members`] is matched as an
    /// object of only these. `None` when the patterns name them all.
    named_members: Option<Vec<usize>>,
    /// The last object of named members matched and the routes it matched
    /// (empty bytes: none yet). Records of one kind carry the same named
    /// members: every TTL deletion's `eventName` and `userIdentity` are the
    /// same bytes, so a run of them is matched once, and the matcher, a
    /// function of the bytes alone, would decide the same each time.
    last_named: Mutex<(Vec<u8>, Vec<usize>)>,
}

/// Reads a filter file (bare pattern or Lambda `FilterCriteria`).
///
/// # Errors
/// [`ConfigError::Read`] or [`ConfigError::Filter`] naming the file and the
/// pattern's JSON path.
pub fn load_filter_file(path: &Path) -> Result<Vec<Pattern>, ConfigError> {
    load_filter_file_with(path, Dialect::Lambda)
}

/// Reads a filter file as [`load_filter_file`], checking its patterns against
/// `dialect`'s operators and limits.
///
/// # Errors
/// As [`load_filter_file`].
pub fn load_filter_file_with(path: &Path, dialect: Dialect) -> Result<Vec<Pattern>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_filter_file_with(&text, dialect).map_err(|source| ConfigError::Filter {
        path: path.to_path_buf(),
        source,
    })
}

impl Router {
    /// Compiles the routes. `filters[i]` is route `i`'s patterns (ORed), `None` for
    /// a route that takes every record.
    pub fn new(routes: Vec<Route>, filters: Vec<Option<Vec<Pattern>>>) -> Self {
        let mut unfiltered = Vec::new();
        let mut compiled = Vec::new();
        for (index, patterns) in filters.into_iter().enumerate() {
            match patterns {
                None => unfiltered.push(index),
                Some(patterns) => compiled.extend(patterns.into_iter().map(|p| (index, p))),
            }
        }
        let event_names = if unfiltered.is_empty() {
            compiled
                .iter()
                .try_fold(BTreeSet::new(), |mut names, (_, p)| {
                    names.extend(p.required_strings(&["eventName"])?);
                    Some(names)
                })
        } else {
            None
        };
        let named: BTreeSet<&str> = compiled
            .iter()
            .flat_map(|(_, p)| p.top_level_fields())
            .collect();
        let named_members: Vec<usize> = (0..LAMBDA_MEMBERS.len())
            .filter(|i| named.contains(LAMBDA_MEMBERS[*i]))
            .collect();
        let named_members = (named_members.len() < LAMBDA_MEMBERS.len()).then_some(named_members);
        Self {
            routes,
            matcher: Matcher::new(compiled),
            unfiltered,
            event_names,
            named_members,
            last_named: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// The `eventName`s a record must have for some route to match it, when
    /// every route's every pattern requires one of a set of exact strings
    /// there (as the TTL filter's `"eventName": ["REMOVE"]`); `None` when a
    /// route can match a record of any `eventName`.
    pub fn event_names(&self) -> Option<&BTreeSet<String>> {
        self.event_names.as_ref()
    }

    /// Indexes of the routes `record` matches, in config order; none for a
    /// record its source marked [`Record::unmatched`]. A record with
    /// [`Record::members`] is matched as an object of only the members some
    /// pattern names ([`Pattern::top_level_fields`]: the others cannot
    /// change a match), so the filter reads neither the images nor the
    /// members it would skim.
    ///
    /// # Errors
    /// The filter engine's error when the record is not valid JSON.
    pub fn route(&self, record: &Record) -> Result<Vec<usize>, ttlstream_filters::EventError> {
        if record.unmatched {
            return Ok(Vec::new());
        }
        let mut matched = match (&self.named_members, &record.members) {
            // The named members, as an object of their own, in a buffer the
            // thread keeps (no allocation per record).
            (Some(named), Some(members)) => NAMED_OBJECT.with_borrow_mut(|object| {
                object.clear();
                object.push(b'{');
                for member in named.iter().filter_map(|i| members.get(&record.json, *i)) {
                    if object.len() > 1 {
                        object.push(b',');
                    }
                    object.extend_from_slice(member);
                }
                object.push(b'}');
                self.matches_named(object)
            })?,
            _ => self.matcher.matches(&record.json)?,
        };
        matched.extend(self.unfiltered.iter().copied());
        matched.sort_unstable();
        matched.dedup();
        Ok(matched)
    }

    /// [`Matcher::matches`] of an object of named members, or the routes
    /// of the last object matched when `object` is the same bytes; keeps
    /// `object`'s bytes as the last one (the caller's buffer gets the
    /// previous one's allocation back).
    fn matches_named(
        &self,
        object: &mut Vec<u8>,
    ) -> Result<Vec<usize>, ttlstream_filters::EventError> {
        let mut last = self
            .last_named
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !last.0.is_empty() && last.0 == *object {
            return Ok(last.1.clone());
        }
        let matched = self.matcher.matches(object)?;
        std::mem::swap(&mut last.0, object);
        last.1.clone_from(&matched);
        Ok(matched)
    }

    /// The sinks (indices, ascending, each once) that the routes `routes`
    /// (as returned by [`Router::route`]) send a record to.
    pub fn sinks_for(&self, routes: &[usize]) -> Vec<usize> {
        let mut sinks: Vec<usize> = routes
            .iter()
            .flat_map(|r| self.routes[*r].sinks.iter().copied())
            .collect();
        sinks.sort_unstable();
        sinks.dedup();
        sinks
    }
}
