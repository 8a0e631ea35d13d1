//! The sweeper: passes that delete what has expired in every model's tables,
//! shared fairly across tables (`pass.rs`), paced on a background thread
//! (`thread.rs`), with each deletion's lag counted (`lag_histogram.rs`).

pub(crate) mod lag_histogram;
pub(crate) mod pass;
pub(crate) mod resume;
pub(crate) mod thread;
pub(crate) mod watermark;
