//! Durable local files: the one way this crate writes a file that must survive a
//! crash whole (checkpoints, file-sink batches).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// `name` with every character outside `[A-Za-z0-9._-]` replaced by `_`, so a
/// table or source name can be one path component and never escape its directory.
pub fn file_name_component(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the new
/// one: a temporary file beside it (mode 0600), fsync, rename, fsync of the
/// directory. On error, says which step failed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), (&'static str, std::io::Error)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp"));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&temp).map_err(|e| ("create", e))?;
    file.write_all(bytes).map_err(|e| ("write", e))?;
    file.sync_all().map_err(|e| ("fsync", e))?;
    drop(file);
    fs::rename(&temp, path).map_err(|e| ("rename", e))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ("fsync directory", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_escape_their_directory() {
        assert_eq!(file_name_component("../etc/passwd"), ".._etc_passwd");
        assert_eq!(file_name_component("Session Data"), "Session_Data");
        assert_eq!(file_name_component("SessionData-1.v2"), "SessionData-1.v2");
    }

    #[test]
    fn write_replaces_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.json");
        write_atomically(&path, b"first").expect("write");
        write_atomically(&path, b"second").expect("rewrite");
        assert_eq!(fs::read(&path).expect("read"), b"second");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("e").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
