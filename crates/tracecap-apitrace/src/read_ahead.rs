//! Read-ahead: decompression on a second thread, a few pieces ahead of the parser.
//!
//! Decompressing and parsing an apitrace stream cost the same order of time. A [`ChunkedReader`](crate::ChunkedReader)
//! over a [`ReadAhead`] parses piece `n` while the other thread
//! decompresses pieces `n + 1` and `n + 2`, so the wall time is close to the larger of the two
//! instead of their sum. Memory stays bounded: at most [`PIECES_AHEAD`] pieces wait, and their
//! buffers are reused.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::vec::Vec;

use crate::error::Error;
use crate::source::{drop_read, ByteSource};

/// How many decompressed pieces may wait for the parser.
pub const PIECES_AHEAD: usize = 2;

/// Free bytes in front of each piece: the parser copies the unread tail of its window there and
/// takes the piece's buffer as its new window, instead of copying the piece behind the tail.
const HEADROOM: usize = 64 << 10;

/// A [`ByteSource`] fed by a decompressing thread (made by [`read_ahead`]).
pub struct ReadAhead {
    full: Receiver<(Vec<u8>, Result<usize, Error>)>,
    empty: Sender<Vec<u8>>,
    done: bool,
}

/// Runs `f` with a [`ReadAhead`] whose pieces `src` produces on a second thread. The thread
/// stops when the source ends or fails, or when `f` returns (and drops the `ReadAhead`).
///
/// The same events as reading `src` directly, in about the time of the slower of decompressing
/// and parsing:
///
/// ```
/// use tracecap_apitrace::{read_ahead, ChunkedReader, ContainerSource, EventKind, SigTable};
///
/// # let file = tracecap_apitrace::doc_example();
/// let src = ContainerSource::new(&file)?;
/// let calls = read_ahead(src, |ahead| {
///     let mut reader = ChunkedReader::new(ahead, SigTable::new());
///     let mut calls = 0;
///     reader.try_for_each_event::<tracecap_apitrace::Error, _>(|event| {
///         calls += u64::from(event.kind == EventKind::Enter);
///         Ok(())
///     })?;
///     Ok::<_, tracecap_apitrace::Error>(calls)
/// })?;
/// assert!(calls > 0);
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
pub fn read_ahead<S, R>(src: S, f: impl FnOnce(ReadAhead) -> R) -> R
where
    S: ByteSource + Send,
{
    let (full_tx, full) = sync_channel(PIECES_AHEAD);
    let (empty, empty_rx) = channel::<Vec<u8>>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut src = src;
            loop {
                let mut buf = empty_rx.try_recv().unwrap_or_default();
                buf.clear();
                buf.resize(HEADROOM, 0);
                let r = src.fill(&mut buf);
                let last = !matches!(r, Ok(n) if n > 0);
                // The parser hung up: nothing more to do.
                if full_tx.send((buf, r)).is_err() || last {
                    break;
                }
            }
        });
        f(ReadAhead {
            full,
            empty,
            done: false,
        })
    })
}

impl ReadAhead {
    /// The worker's next buffer (`HEADROOM` free bytes, then the piece) and what the source
    /// said; `None` after the end or an error.
    fn next_piece(&mut self) -> Option<(Vec<u8>, Result<usize, Error>)> {
        if self.done {
            return None;
        }
        // The worker sends until its last piece, so a closed channel only follows the end.
        let Ok(got) = self.full.recv() else {
            self.done = true;
            return None;
        };
        if !matches!(got.1, Ok(n) if n > 0) {
            self.done = true;
        }
        Some(got)
    }

    /// Appends the piece of `buf` to `out`, then gives `buf` back to the worker.
    fn append(
        &self,
        buf: Vec<u8>,
        r: Result<usize, Error>,
        out: &mut Vec<u8>,
    ) -> Result<usize, Error> {
        let r = r.map(|_| {
            let piece = buf.get(HEADROOM..).unwrap_or(&[]);
            out.extend_from_slice(piece);
            piece.len()
        });
        // The worker may have stopped; then the buffer is simply dropped.
        let _ = self.empty.send(buf);
        r
    }
}

impl ByteSource for ReadAhead {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        match self.next_piece() {
            Some((buf, r)) => self.append(buf, r, out),
            None => Ok(0),
        }
    }

    fn refill(
        &mut self,
        window: &mut Vec<u8>,
        from: usize,
        max_start: usize,
    ) -> Result<(usize, usize), Error> {
        let tail_len = window.len().saturating_sub(from);
        let start = HEADROOM.saturating_sub(tail_len);
        let piece = match self.next_piece() {
            Some(piece) if tail_len <= HEADROOM && start <= max_start => piece,
            other => {
                drop_read(window, from);
                return match other {
                    Some((buf, r)) => self.append(buf, r, window).map(|n| (0, n)),
                    None => Ok((0, 0)),
                };
            }
        };
        let (mut buf, r) = piece;
        match (&r, window.get(from..), buf.get_mut(start..HEADROOM)) {
            (Ok(n), Some(tail), Some(front)) if *n > 0 => {
                let n = *n;
                // ok: both are `tail_len` long (`start` is `HEADROOM - tail_len`).
                front.copy_from_slice(tail);
                core::mem::swap(window, &mut buf);
                // The old window goes back to the worker. Once grown for a large event, it
                // would keep its size there: bring it back to a piece buffer's size, so that
                // memory stays one large window plus pieces, not several large buffers.
                buf.clear();
                buf.shrink_to(window.capacity());
                let _ = self.empty.send(buf);
                Ok((start, n))
            }
            _ => {
                drop_read(window, from);
                self.append(buf, r, window).map(|n| (0, n))
            }
        }
    }
}
