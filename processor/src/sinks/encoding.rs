//! The bytes of an archive object or file: NDJSON, optionally compressed.
//! One encoder for every sink that writes NDJSON (file, S3).

use std::io::Write;

use serde::Deserialize;

use crate::record::Record;

/// `compression = "..."` of a file or S3 sink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// Plain NDJSON (default).
    #[default]
    None,
    /// gzip (RFC 1952), level 6; `.gz` and `Content-Encoding: gzip`.
    Gzip,
    /// Zstandard (RFC 8878), level 3; `.zst` and `Content-Encoding: zstd`.
    Zstd,
}

impl Compression {
    /// The file-name suffix added after `.ndjson` / `.json`: `""`, `".gz"` or `".zst"`.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }

    /// The HTTP `Content-Encoding` of a compressed body, if any.
    pub fn content_encoding(self) -> Option<&'static str> {
        match self {
            Compression::None => None,
            Compression::Gzip => Some("gzip"),
            Compression::Zstd => Some("zstd"),
        }
    }

    /// Compresses `plain` (in memory; a batch is bounded by its sink's `max_bytes`).
    ///
    /// # Errors
    /// An I/O error from the compressor (out of memory is the only realistic one).
    pub fn encode(self, plain: Vec<u8>) -> std::io::Result<Vec<u8>> {
        match self {
            Compression::None => Ok(plain),
            Compression::Gzip => {
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(plain.len() / 4),
                    flate2::Compression::default(),
                );
                encoder.write_all(&plain)?;
                encoder.finish()
            }
            Compression::Zstd => zstd::bulk::compress(&plain, 3),
        }
    }

    /// Decompresses what [`Compression::encode`] wrote (tests, replay tools).
    ///
    /// # Errors
    /// When `bytes` is not a valid stream of this compression.
    pub fn decode(self, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        match self {
            Compression::None => Ok(bytes.to_vec()),
            Compression::Gzip => {
                let mut plain = Vec::new();
                flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut plain)?;
                Ok(plain)
            }
            Compression::Zstd => zstd::stream::decode_all(bytes),
        }
    }
}

/// NDJSON: each record's Lambda-shaped JSON on one line, each line ending in `\n`.
pub fn ndjson<'r>(records: impl IntoIterator<Item = &'r Record> + Clone) -> Vec<u8> {
    let len = records.clone().into_iter().map(|r| r.json.len() + 1).sum();
    let mut body = Vec::with_capacity(len);
    for record in records {
        body.extend_from_slice(&record.json);
        body.push(b'\n');
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compression_round_trips() {
        let plain = b"{\"a\":1}\n{\"b\":2}\n".repeat(100);
        for compression in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let encoded = compression.encode(plain.clone()).expect("encode");
            if compression != Compression::None {
                assert!(encoded.len() < plain.len(), "{compression:?} compresses");
            }
            assert_eq!(compression.decode(&encoded).expect("decode"), plain);
        }
    }
}
