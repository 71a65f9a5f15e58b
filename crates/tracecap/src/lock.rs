//! An advisory lock on a file, for writers that must not run at the same time (two exports into
//! one dataset).
//!
//! [`FileLock::acquire`] opens (creating it if needed) the lock file and takes an exclusive
//! `flock` on it; the lock is released when the [`FileLock`] is dropped or the process ends,
//! however it ends (`SIGKILL` included: the kernel releases it with the last open descriptor).
//! Only programs that take the same lock are held back: it does not stop a plain write.
//!
//! On platforms without `flock` (anything but Unix), the lock file is created and no lock is
//! taken.
//!
//! ```
//! # fn main() -> std::io::Result<()> {
//! # let dir = std::env::temp_dir().join(format!("tracecap-lock-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! use tracecap::lock::FileLock;
//!
//! let path = dir.join(".lock");
//! let held = FileLock::acquire(&path, |_| {})?;          // waits while another holds it
//! assert!(FileLock::try_acquire(&path)?.is_none());      // taken: a second taker is refused
//! drop(held);
//! assert!(FileLock::try_acquire(&path)?.is_some());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::open::with_path;

/// A held lock; see the [module docs](self).
#[derive(Debug)]
pub struct FileLock {
    /// Held open: closing the last descriptor releases the lock.
    _file: File,
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock at `path`, waiting for it while another process (or another [`FileLock`]
    /// of this one) holds it; `waiting` is called once, before the wait, when it is held.
    /// Errors name the path.
    pub fn acquire(path: &Path, waiting: impl FnOnce(&Path)) -> io::Result<FileLock> {
        let file = open(path)?;
        if !flock(&file, false).map_err(|e| with_path(path, e))? {
            waiting(path);
            flock(&file, true).map_err(|e| with_path(path, e))?;
        }
        Ok(FileLock {
            _file: file,
            path: path.to_path_buf(),
        })
    }

    /// Takes the lock at `path` if no one holds it; `None` when it is held. Errors name the path.
    pub fn try_acquire(path: &Path) -> io::Result<Option<FileLock>> {
        let file = open(path)?;
        Ok(flock(&file, false)
            .map_err(|e| with_path(path, e))?
            .then(|| FileLock {
                _file: file,
                path: path.to_path_buf(),
            }))
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| with_path(path, e))
}

/// Takes an exclusive lock on `file`: true once held; false when another holds it and `wait` is
/// false.
#[cfg(unix)]
fn flock(file: &File, wait: bool) -> io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    let op = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: `flock` takes a descriptor and flags; the descriptor is open for as long as
        // `file` is borrowed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
        if rc == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock if !wait => return Ok(false),
            _ => return Err(e),
        }
    }
}

#[cfg(not(unix))]
fn flock(_: &File, _: bool) -> io::Result<bool> {
    Ok(true)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_makes_the_next_taker_wait_until_it_is_dropped() {
        let dir = tracecap_testkit::TempDir::new("lock-wait");
        let path = dir.join(".lock");
        let held = FileLock::acquire(&path, |_| panic!("free: no wait")).expect("lock"); // ok: test-only
        assert!(FileLock::try_acquire(&path).expect("try").is_none()); // ok: test-only
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn({
            let path = path.clone();
            move || {
                let mut waited = false;
                let lock = FileLock::acquire(&path, |_| waited = true).expect("lock"); // ok: test-only
                tx.send(()).expect("send"); // ok: test-only
                drop(lock);
                waited
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(rx.try_recv().is_err(), "took a held lock");
        drop(held);
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("took the lock once it was free"); // ok: test-only
        assert!(waiter.join().expect("join"), "was not told it waited"); // ok: test-only
    }

    #[test]
    fn errors_name_the_path() {
        let e = FileLock::acquire(Path::new("/nonexistent-dir/.lock"), |_| {})
            .expect_err("no such folder"); // ok: test-only
        assert!(e.to_string().starts_with("/nonexistent-dir/.lock: "), "{e}");
    }
}
