//! Durable local files: the one way this crate writes a file that must survive a
//! crash whole (checkpoints, file-sink batches).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

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

/// The temporary file [`write_atomically`] writes `path` through:
/// `.<name>.tmp` beside it.
pub fn temporary_path(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    dir.join(format!(".{name}.tmp"))
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the new
/// one: a temporary file beside it (mode 0600, [`temporary_path`]), fsync,
/// rename, fsync of the directory. On error, says which step failed; the
/// temporary file is removed (a full disk must not keep a half-written copy).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), (&'static str, std::io::Error)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = temporary_path(path);
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&temp).map_err(|e| ("create", e))?;
    let written = file
        .write_all(bytes)
        .map_err(|e| ("write", e))
        .and_then(|()| file.sync_all().map_err(|e| ("fsync", e)));
    drop(file);
    if let Err(error) = written.and_then(|()| fs::rename(&temp, path).map_err(|e| ("rename", e))) {
        // Best effort: the error being reported is the write's.
        let _ = fs::remove_file(&temp);
        return Err(error);
    }
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ("fsync directory", e))?;
    Ok(())
}

/// Removes the temporary files [`write_atomically`] left in `dir` when a
/// process stopped mid-write (`.<name>.tmp`); returns how many. A missing
/// directory holds none.
///
/// # Errors
/// The I/O error of reading `dir` or removing a file.
pub fn remove_temporary_files(dir: &Path) -> std::io::Result<usize> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(".tmp") && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
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

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The target is a directory holding a file: the rename must fail.
        let path = dir.path().join("1-2.ndjson");
        fs::create_dir(&path).expect("dir");
        fs::write(path.join("inside"), b"x").expect("write");
        let (action, _) = write_atomically(&path, b"batch").expect_err("rename over a directory");
        assert_eq!(action, "rename");
        assert!(
            !temporary_path(&path).exists(),
            "the temporary file of the failed write is removed"
        );
    }

    #[test]
    fn leftover_temporary_files_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in [
            ".1-9.ndjson.tmp",
            ".1-9.ndjson.gz.tmp",
            "1-9.ndjson",
            ".hidden",
        ] {
            fs::write(dir.path().join(name), b"x").expect("write");
        }
        assert_eq!(remove_temporary_files(dir.path()).expect("remove"), 2);
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("e").file_name().into_string().expect("utf8"))
            .collect();
        names.sort();
        assert_eq!(names, [".hidden", "1-9.ndjson"]);
        assert_eq!(
            remove_temporary_files(&dir.path().join("none")).expect("missing"),
            0
        );
    }
}
