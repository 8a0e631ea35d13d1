//! `file` source: NDJSON stream records from a file or stdin, for replays.

mod config;
mod reader;
mod source;

pub use config::{FileSourceConfig, OnMalformed};
pub use reader::Offset;
pub use source::FileSource;
