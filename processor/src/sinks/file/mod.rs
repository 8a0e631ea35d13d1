//! `file` sink: NDJSON files on local disk, one file per source batch, named after
//! the batch's `SequenceNumber` range.

mod config;
mod request;
mod sink;

pub use config::FileSinkConfig;
pub use request::object_name;
pub use sink::FileSink;
