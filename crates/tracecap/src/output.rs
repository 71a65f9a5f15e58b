//! Writing an output file so that a failed or interrupted run never leaves a damaged one.
//!
//! [`Output::create`] writes to a temporary file beside the target (`.<name>.<pid>-<n>.tmp`, in
//! the same directory, so the final rename stays on one file system); [`Output::commit`] renames
//! it over the target. Until then the target, if it existed, is untouched. Dropping an output
//! that was not committed removes the temporary file, and so does the [fault
//! guard](crate::open::guard) when the process is ended by a shrinking input or by `SIGINT`,
//! `SIGTERM` or `SIGHUP`.
//!
//! Targets that are not regular files (`/dev/null`, `/dev/stdout`, a pipe) and paths under `/dev`
//! or `/proc` are written in place: there is no file to replace.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::open::guard;
use crate::open::with_path;

static NEXT: AtomicU64 = AtomicU64::new(0);

/// An output file being written; see the [module docs](self).
#[derive(Debug)]
pub struct Output {
    file: File,
    /// The path the user named (for messages).
    path: PathBuf,
    /// The temporary file and where it goes on commit; `None` when writing in place.
    temp: Option<Temp>,
}

#[derive(Debug)]
struct Temp {
    path: PathBuf,
    target: PathBuf,
    _watch: Option<guard::OutputWatch>,
}

impl Output {
    /// Starts writing the output `path`. Errors name the path.
    pub fn create(path: &Path) -> io::Result<Output> {
        if writes_in_place(path) {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)
                .map_err(|e| with_path(path, e))?;
            return Ok(Output {
                file,
                path: path.to_path_buf(),
                temp: None,
            });
        }
        // A symbolic link is followed: the file it names is the one replaced.
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".to_owned());
        if target.is_dir() {
            return Err(with_path(
                path,
                io::Error::new(io::ErrorKind::InvalidInput, "is a directory"),
            ));
        }
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        // Registered before the file exists, so that a signal arriving while it is created
        // still removes it; the mark makes a handler on another thread wait for the check below.
        let _creating = guard::creating();
        let watch = guard::remove_on_exit(&temp);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| with_path(path, e))?;
        // A signal that came while the file was being created may have missed it.
        if guard::ending() {
            let _ = std::fs::remove_file(&temp);
            return Err(with_path(
                path,
                io::Error::new(io::ErrorKind::Interrupted, "the process is ending"),
            ));
        }
        // The replacement keeps the permissions of the file it replaces.
        if let Ok(meta) = std::fs::metadata(&target) {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(Output {
            file,
            path: path.to_path_buf(),
            temp: Some(Temp {
                path: temp,
                target,
                _watch: watch,
            }),
        })
    }

    /// The path the output was created with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the file and moves it into place. Errors name the path.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| with_path(&self.path, e))?;
        if let Some(temp) = self.temp.take() {
            if let Err(e) = std::fs::rename(&temp.path, &temp.target) {
                let _ = std::fs::remove_file(&temp.path);
                return Err(with_path(&self.path, e));
            }
        }
        Ok(())
    }
}

/// Whether `path` is written in place rather than through a temporary file.
fn writes_in_place(path: &Path) -> bool {
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return true;
    }
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| with_path(&self.path, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| with_path(&self.path, e))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_file(&temp.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_dir(name: &str) -> tracecap_testkit::TempDir {
        tracecap_testkit::TempDir::new(&format!("output-{name}"))
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("list") // ok: test-only
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()) // ok: test-only
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_target_changes_only_on_commit() {
        let dir = scratch_dir("commit");
        let target = dir.join("out.json");
        std::fs::write(&target, b"old").expect("write"); // ok: test-only
        let mut out = Output::create(&target).expect("create"); // ok: test-only
        out.write_all(b"new").expect("write"); // ok: test-only
        assert_eq!(std::fs::read(&target).expect("read"), b"old"); // ok: test-only
        assert_eq!(files(&dir).len(), 2);
        out.commit().expect("commit"); // ok: test-only
        assert_eq!(std::fs::read(&target).expect("read"), b"new"); // ok: test-only
        assert_eq!(files(&dir), ["out.json"]);
    }

    #[test]
    fn a_dropped_output_leaves_the_old_file_and_no_temporary() {
        let dir = scratch_dir("drop");
        let target = dir.join("out.json");
        std::fs::write(&target, b"old").expect("write"); // ok: test-only
        let mut out = Output::create(&target).expect("create"); // ok: test-only
        out.write_all(b"half").expect("write"); // ok: test-only
        drop(out);
        assert_eq!(std::fs::read(&target).expect("read"), b"old"); // ok: test-only
        assert_eq!(files(&dir), ["out.json"]);
    }

    #[test]
    fn a_symbolic_link_is_followed() {
        let dir = scratch_dir("link");
        let real = dir.join("real.json");
        std::fs::write(&real, b"old").expect("write"); // ok: test-only
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&real, &link).expect("symlink"); // ok: test-only
            let mut out = Output::create(&link).expect("create"); // ok: test-only
            out.write_all(b"new").expect("write"); // ok: test-only
            out.commit().expect("commit"); // ok: test-only
            assert_eq!(std::fs::read(&real).expect("read"), b"new"); // ok: test-only
            let meta = std::fs::symlink_metadata(&link).expect("meta"); // ok: test-only
            assert!(meta.file_type().is_symlink());
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_replacement_keeps_the_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch_dir("mode");
        let target = dir.join("out.json");
        std::fs::write(&target, b"old").expect("write"); // ok: test-only
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).expect("chmod"); // ok: test-only
        let out = Output::create(&target).expect("create"); // ok: test-only
        out.commit().expect("commit"); // ok: test-only
        let meta = std::fs::metadata(&target).expect("meta"); // ok: test-only
        let mode = meta.permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn device_errors_name_the_path() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let mut out = Output::create(Path::new("/dev/full")).expect("create"); // ok: test-only
        let e = out
            .write_all(&[0; 1 << 16])
            .and_then(|()| out.flush())
            .expect_err("/dev/full is full"); // ok: test-only
        assert!(e.to_string().starts_with("/dev/full: "), "{e}");
    }
}
