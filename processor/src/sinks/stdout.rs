//! `stdout` sink: NDJSON lines on standard output, for pipes and debugging.
//! Not durable, and a replayed batch is printed again.

use std::io::Write;

use serde::Deserialize;

use crate::error::SinkError;
use crate::sinks::batch::BatchLimits;
use crate::sinks::encoding::ndjson;
use crate::sinks::{Sink, SinkBatch};
use crate::sources::BoxFuture;

/// `[sinks.<name>.stdout]` (may be empty).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StdoutSinkConfig {
    /// When a batch is written.
    #[serde(default)]
    pub batch: BatchLimits,
}

/// Writes each batch's records to stdout, one JSON object per line.
#[derive(Clone, Debug)]
pub struct StdoutSink {
    name: String,
}

impl StdoutSink {
    /// A sink named `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
        }
    }
}

impl Sink for StdoutSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn write<'a>(&'a self, batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>> {
        let bytes = ndjson(batch.records.iter().copied());
        Box::pin(async move {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|source| SinkError::Io {
                    sink: self.name.clone(),
                    action: "write",
                    path: "<stdout>".into(),
                    source,
                })
        })
    }
}
