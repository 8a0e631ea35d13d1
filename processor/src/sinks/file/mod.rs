//! `file` sink: NDJSON files on local disk (optionally gzip or zstd), one file
//! per batch, mode 0600, named after the batch's `SequenceNumber` range; the
//! batch limits rotate files by records, bytes and age.

mod config;
mod request;
mod sink;

pub use config::FileSinkConfig;
pub use request::object_name;
pub use sink::FileSink;
