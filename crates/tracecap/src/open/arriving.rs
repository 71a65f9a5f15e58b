//! The bytes of a capture as they arrive: a file that is still being written, followed as it
//! grows, or a stream (standard input, a pipe) read a piece at a time.
//!
//! [`Arriving`] hands its caller the next bytes ([`Arriving::read_more`]) and says why it stopped
//! ([`Stop`]) when no more will come: the stream closed, a followed file did not grow for the idle
//! time, the user pressed Ctrl-C (with [`guard::interrupt_requests_stop`](super::guard)), or the
//! followed file shrank or was replaced by another file. The caller feeds the bytes to a format's
//! push parser and keeps only what the parser has not consumed, so memory stays bounded by the
//! largest item, not by the capture.
//!
//! A followed file is watched with inotify on Linux; elsewhere it is polled every 100 ms.
//!
//! ```no_run
//! use tracecap::open::{Arriving, Arrival};
//! use std::time::Duration;
//!
//! let mut bytes = Vec::new();
//! let mut arriving = Arriving::follow("capture.dat".as_ref(), Some(Duration::from_secs(5)))?;
//! loop {
//!     match arriving.read_more(&mut bytes)? {
//!         Arrival::More(n) => println!("{n} more bytes, {} in all", arriving.position()),
//!         Arrival::Stopped(why) => {
//!             println!("stopped: {why}");
//!             break;
//!         }
//!     }
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{guard, with_path, FileId};

/// The longest a followed file is waited for before it is looked at again.
const LONGEST_WAIT: Duration = Duration::from_millis(500);

/// How many bytes one call of [`Arriving::read_more`] reads at most.
pub const PIECE: usize = 64 << 10;

/// What [`Arriving::read_more`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// This many bytes were appended to the buffer.
    More(usize),
    /// No more bytes will come, for this reason.
    Stopped(Stop),
}

/// Why no more bytes will come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The stream closed (a pipe's writer ended), or a file read without following ended.
    Closed,
    /// The followed file did not grow for the idle time.
    Idle(Duration),
    /// The user asked to stop (Ctrl-C).
    Interrupted,
    /// The followed file is now shorter than what was read of it.
    Shrunk {
        /// The file's size now.
        size: u64,
    },
    /// The path now names another file (the followed one was replaced or removed).
    Replaced,
}

impl Stop {
    /// Whether this stop means the capture's bytes can no longer be trusted to be one capture (a
    /// file that shrank or was replaced under the reader).
    pub fn is_fault(&self) -> bool {
        matches!(self, Stop::Shrunk { .. } | Stop::Replaced)
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Closed => f.write_str("the input ended"),
            Stop::Idle(d) => write!(f, "the file did not grow for {} s", d.as_secs_f64()),
            Stop::Interrupted => f.write_str("interrupted"),
            Stop::Shrunk { size } => {
                write!(f, "the file shrank to {size} bytes while it was followed")
            }
            Stop::Replaced => f.write_str("the file was replaced or removed while it was followed"),
        }
    }
}

/// A capture's bytes as they arrive; see the [module docs](self).
pub struct Arriving {
    source: Source,
    /// The path given (for messages and to notice a replaced file).
    path: PathBuf,
    /// Bytes read so far.
    position: u64,
}

enum Source {
    Stream(Box<dyn Read + Send>),
    Followed(Followed),
}

struct Followed {
    file: File,
    id: Option<FileId>,
    idle: Option<Duration>,
    last_growth: Instant,
    watch: Watcher,
}

impl fmt::Debug for Arriving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Arriving")
            .field("path", &self.path)
            .field("position", &self.position)
            .field("followed", &matches!(self.source, Source::Followed(_)))
            .finish()
    }
}

impl Arriving {
    /// Follows the file at `path` as it grows, from its first byte: [`read_more`](Self::read_more)
    /// waits for bytes, and stops after `idle` without growth (`None`: never), at Ctrl-C once
    /// [`guard::interrupt_requests_stop`] was called, or
    /// when the file shrinks or is replaced. `-` and files that are not regular files (pipes) are
    /// read as streams ([`Arriving::stream`]): they end when their writer closes them.
    pub fn follow(path: &Path, idle: Option<Duration>) -> io::Result<Arriving> {
        if path == Path::new("-") {
            return Ok(Arriving::stdin());
        }
        let file = File::open(path).map_err(|e| with_path(path, e))?;
        let meta = file.metadata().map_err(|e| with_path(path, e))?;
        if meta.is_dir() {
            return Err(with_path(
                path,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is a directory, not a capture file",
                ),
            ));
        }
        if !meta.is_file() {
            return Ok(Arriving::stream(Box::new(file), path));
        }
        Ok(Arriving {
            source: Source::Followed(Followed {
                id: FileId::of(&meta),
                file,
                idle,
                last_growth: Instant::now(),
                watch: Watcher::new(path),
            }),
            path: path.to_path_buf(),
            position: 0,
        })
    }

    /// Opens `path` to be read a piece at a time without following it: a regular file ends at
    /// its current end, a stream when its writer closes it; `-` is standard input.
    pub fn open(path: &Path) -> io::Result<Arriving> {
        if path == Path::new("-") {
            return Ok(Arriving::stdin());
        }
        let file = File::open(path).map_err(|e| with_path(path, e))?;
        if file.metadata().map_err(|e| with_path(path, e))?.is_dir() {
            return Err(with_path(
                path,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is a directory, not a capture file",
                ),
            ));
        }
        Ok(Arriving::stream(Box::new(file), path))
    }

    /// Standard input, read a piece at a time.
    pub fn stdin() -> Arriving {
        Arriving::stream(Box::new(io::stdin()), Path::new("standard input"))
    }

    /// Any reader, read a piece at a time until it ends; `name` names it in errors.
    pub fn stream(reader: Box<dyn Read + Send>, name: &Path) -> Arriving {
        Arriving {
            source: Source::Stream(reader),
            path: name.to_path_buf(),
            position: 0,
        }
    }

    /// How many bytes were read so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The path given, or `standard input`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the next bytes (at most [`PIECE`]) to `buffer`, waiting for a followed file to
    /// grow; or says why no more will come. Errors name the path.
    pub fn read_more(&mut self, buffer: &mut Vec<u8>) -> io::Result<Arrival> {
        let got = match &mut self.source {
            Source::Stream(r) => match read_piece(r, buffer) {
                Ok(0) => Ok(Arrival::Stopped(Stop::Closed)),
                Ok(n) => Ok(Arrival::More(n)),
                Err(e) => Err(e),
            },
            Source::Followed(f) => f.read_more(buffer, &self.path, self.position),
        }
        .map_err(|e| with_path(&self.path, e))?;
        if let Arrival::More(n) = got {
            self.position += n as u64;
        }
        Ok(got)
    }
}

/// Reads at most [`PIECE`] bytes onto the end of `buffer`; 0 at the end. Retries on `EINTR`.
fn read_piece(r: &mut dyn Read, buffer: &mut Vec<u8>) -> io::Result<usize> {
    let len = buffer.len();
    buffer.resize(len + PIECE, 0);
    let n = loop {
        match r.read(buffer.get_mut(len..).unwrap_or_default()) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other,
        }
    };
    buffer.truncate(len + *n.as_ref().unwrap_or(&0));
    n
}

impl Followed {
    fn read_more(
        &mut self,
        buffer: &mut Vec<u8>,
        path: &Path,
        position: u64,
    ) -> io::Result<Arrival> {
        loop {
            let n = read_piece(&mut self.file, buffer)?;
            if n > 0 {
                self.last_growth = Instant::now();
                return Ok(Arrival::More(n));
            }
            if let Some(stop) = self.stopped(path, position)? {
                return Ok(Arrival::Stopped(stop));
            }
            // At most half a second, so that Ctrl-C and a replaced file are seen in time.
            let until_idle = self
                .idle
                .map(|idle| idle.saturating_sub(self.last_growth.elapsed()));
            self.watch
                .wait(until_idle.map_or(LONGEST_WAIT, |w| w.min(LONGEST_WAIT)));
        }
    }

    /// Why following ends now, if it does.
    fn stopped(&self, path: &Path, position: u64) -> io::Result<Option<Stop>> {
        if guard::stop_requested() {
            return Ok(Some(Stop::Interrupted));
        }
        let size = self.file.metadata()?.len();
        if size < position {
            return Ok(Some(Stop::Shrunk { size }));
        }
        let now = std::fs::metadata(path).ok().and_then(|m| FileId::of(&m));
        if self.id.is_some() && now != self.id {
            return Ok(Some(Stop::Replaced));
        }
        if let Some(idle) = self.idle {
            if self.last_growth.elapsed() >= idle {
                return Ok(Some(Stop::Idle(idle)));
            }
        }
        Ok(None)
    }
}

/// Waits for a followed file to change: inotify on Linux (a write, a change of its attributes,
/// its removal or move), a plain sleep elsewhere or when inotify cannot be had. A wait also ends
/// at a signal, so that Ctrl-C is seen at once.
struct Watcher {
    #[cfg(target_os = "linux")]
    fd: Option<std::os::fd::OwnedFd>,
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
impl Watcher {
    fn new(path: &Path) -> Watcher {
        use std::os::fd::{FromRawFd, OwnedFd};
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return Watcher { fd: None };
        };
        // SAFETY: `inotify_init1` takes flags only and returns a new descriptor or -1.
        let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if raw < 0 {
            return Watcher { fd: None };
        }
        // SAFETY: `raw` is a descriptor just opened and owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mask = libc::IN_MODIFY
            | libc::IN_ATTRIB
            | libc::IN_CLOSE_WRITE
            | libc::IN_DELETE_SELF
            | libc::IN_MOVE_SELF;
        // SAFETY: `fd` is a live inotify descriptor and `c` a NUL-terminated path.
        let wd = unsafe { libc::inotify_add_watch(raw, c.as_ptr(), mask) };
        Watcher {
            fd: (wd >= 0).then_some(fd),
        }
    }

    fn wait(&mut self, most: Duration) {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            std::thread::sleep(most.min(Duration::from_millis(100)));
            return;
        };
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(most.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: `poll` is one live pollfd; a signal ends the wait with EINTR, which is fine.
        let ready = unsafe { libc::poll(&mut poll, 1, ms) };
        if ready > 0 {
            // Drain the events: which change it was does not matter, the caller reads again.
            let mut events = [0u8; 4096];
            loop {
                // SAFETY: `events` is a live buffer of the length given; the descriptor is
                // non-blocking, so the call returns -1 (EAGAIN) once drained.
                let n =
                    unsafe { libc::read(fd.as_raw_fd(), events.as_mut_ptr().cast(), events.len()) };
                if n <= 0 {
                    break;
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl Watcher {
    fn new(_path: &Path) -> Watcher {
        Watcher {}
    }

    fn wait(&mut self, most: Duration) {
        std::thread::sleep(most.min(Duration::from_millis(100)));
    }
}
