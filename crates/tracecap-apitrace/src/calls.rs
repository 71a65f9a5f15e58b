//! Calls: ENTER and LEAVE events paired into whole calls, in the order apitrace reports them
//! (when they return; calls that never return come last, in call-number order).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::event::{Backtrace, Detail, Event, EventKind};
use crate::sig::{SigKind, SigLookup};
use crate::value::Value;

/// How far past its signature's argument count an argument index may go: [`Calls`] keeps an
/// argument whose index is less than the count (at most [`MAX_SIG_ARGS`]) plus `ARG_SLACK`, and
/// refuses any other with [`ErrorKind::ArgIndex`] (upstream would index out of bounds).
pub const ARG_SLACK: u64 = 64;

/// The largest argument count [`Calls`] takes from a function signature: a call starts with this
/// many empty arguments at most, whatever count the file gives (a negative count is none).
pub const MAX_SIG_ARGS: u64 = 1 << 16;

/// The argument count [`Calls`] takes from a signature's [`SigInfo::extra`](crate::SigInfo::extra):
/// clamped to `0..=`[`MAX_SIG_ARGS`].
fn sig_args(extra: i64) -> u64 {
    u64::try_from(extra).map_or(0, |n| n.min(MAX_SIG_ARGS))
}

/// One call, its details merged from its ENTER and LEAVE events.
#[derive(Clone, Debug)]
pub struct Call<'a> {
    /// Call number (index of its ENTER among all enters).
    pub no: u64,
    /// Thread index.
    pub thread: u64,
    /// Function signature id.
    pub sig: u64,
    /// Arguments by index; `None` where no value was recorded (`?` in a dump).
    pub args: Vec<Option<Value<'a>>>,
    /// Return value.
    pub ret: Option<Value<'a>>,
    /// Backtrace, if recorded.
    pub backtrace: Option<Backtrace<'a>>,
    /// The flags detail (bit 0 = fake), OR-ed over both events.
    pub flags: u64,
    /// The call never returned (no LEAVE before the end of the stream).
    pub incomplete: bool,
    /// Stream offset of the call's ENTER event (its first byte).
    pub offset: u64,
}

impl Call<'_> {
    /// True for a call the tracer made up (flags bit 0).
    pub fn is_fake(&self) -> bool {
        self.flags & 1 != 0
    }
}

/// Open calls kept in a plain vector (searched from the newest); beyond this many, in a map.
const SMALL_OPEN: usize = 64;

/// Pairs events into calls. Allocates per open call only until argument vectors are reused
/// (the call [`Calls::feed`] lends is reused by the next feed; give the calls [`Calls::push`]
/// and [`Calls::finish`] hand over back with [`Calls::recycle`]).
///
/// Calls are built in place and never moved on the common path: a call is larger than most
/// events, and copying it would cost more than parsing it.
#[derive(Debug, Default)]
pub struct Calls<'a> {
    /// Most recent open calls (a call usually returns right after it starts). When `done` is
    /// set, the last one is the call the latest LEAVE completed.
    small: Vec<Call<'a>>,
    done: bool,
    /// The rest, when many calls are open at once (threads blocked, hostile input).
    big: BTreeMap<u64, Call<'a>>,
    pool: Vec<Vec<Option<Value<'a>>>>,
}

impl<'a> Calls<'a> {
    /// No open calls.
    pub fn new() -> Self {
        Calls {
            small: Vec::new(),
            done: false,
            big: BTreeMap::new(),
            pool: Vec::new(),
        }
    }

    /// Number of calls entered and not yet left.
    pub fn open_len(&self) -> usize {
        self.small.len() - usize::from(self.done) + self.big.len()
    }

    /// Drops the call the previous push completed, keeping its argument vector.
    #[inline]
    fn drop_done(&mut self) {
        if self.done {
            self.done = false;
            if let Some(last) = self.small.last_mut() {
                let args = core::mem::take(&mut last.args);
                self.keep_args(args);
            }
            self.small.truncate(self.small.len().saturating_sub(1));
        }
    }

    #[inline]
    fn keep_args(&mut self, mut v: Vec<Option<Value<'a>>>) {
        v.clear();
        if self.pool.len() < 64 {
            self.pool.push(v);
        }
    }

    /// Makes room for a new open call numbered `no` at the end of `small`: drops an open call
    /// with the same number, moves the oldest to the map when `small` is full.
    fn make_room(&mut self, no: u64) {
        if let Some(i) = self.small.iter().rposition(|c| c.no == no) {
            let old = self.small.remove(i);
            self.recycle(old);
        } else if !self.big.is_empty() {
            if let Some(old) = self.big.remove(&no) {
                self.recycle(old);
            }
        }
        if self.small.len() >= SMALL_OPEN {
            let oldest = self.small.remove(0);
            self.big.insert(oldest.no, oldest);
        }
    }

    /// Puts the open call numbered `no` last in `small`; false if there is none.
    #[inline]
    fn bring_last(&mut self, no: u64) -> bool {
        // A call usually returns before the next one starts: it is already last.
        if self.small.last().is_some_and(|c| c.no == no) {
            return true;
        }
        let call = match self.small.iter().rposition(|c| c.no == no) {
            Some(i) => self.small.remove(i),
            None if self.big.is_empty() => return false,
            None => match self.big.remove(&no) {
                Some(c) => c,
                None => return false,
            },
        };
        self.small.push(call);
        true
    }

    /// Gives a call's storage back for reuse.
    pub fn recycle(&mut self, call: Call<'a>) {
        self.keep_args(call.args);
    }

    /// Feeds one event (parsed with `table`). Returns the call a LEAVE completes, handed over
    /// (give it back with [`Calls::recycle`] to reuse its storage); [`Calls::feed`] lends it
    /// instead, without copying it.
    #[inline]
    pub fn push<T: SigLookup + ?Sized>(
        &mut self,
        ev: &Event<'a>,
        table: &T,
    ) -> Result<Option<Call<'a>>, Error> {
        if self.feed(ev, table)?.is_none() {
            return Ok(None);
        }
        self.done = false;
        Ok(self.small.pop())
    }

    /// Feeds one event (parsed with `table`). Returns the call a LEAVE completes, lent until
    /// the next call of a `Calls` method (which reuses its storage).
    #[inline]
    pub fn feed<T: SigLookup + ?Sized>(
        &mut self,
        ev: &Event<'a>,
        table: &T,
    ) -> Result<Option<&Call<'a>>, Error> {
        self.drop_done();
        match ev.kind {
            EventKind::Enter => {
                let num_args = table
                    .get(SigKind::Function, ev.sig)
                    .map_or(0, |i| sig_args(i.extra));
                self.make_room(ev.call_no);
                let mut args = self.pool.pop().unwrap_or_default();
                args.resize(num_args as usize, None);
                self.small.push(Call {
                    no: ev.call_no,
                    thread: ev.thread,
                    sig: ev.sig,
                    args,
                    ret: None,
                    backtrace: None,
                    flags: 0,
                    incomplete: false,
                    offset: ev.offset,
                });
                self.apply_last(ev, table, num_args)?;
                Ok(None)
            }
            EventKind::Leave => {
                if !self.bring_last(ev.call_no) {
                    return Ok(None);
                }
                let sig = self.small.last().map_or(0, |c| c.sig);
                let num_args = table
                    .get(SigKind::Function, sig)
                    .map_or(0, |i| sig_args(i.extra));
                self.apply_last(ev, table, num_args)?;
                self.done = true;
                Ok(self.small.last())
            }
        }
    }

    /// Applies `ev`'s details to the last call of `small`; on error the call is dropped.
    #[inline]
    fn apply_last<T: SigLookup + ?Sized>(
        &mut self,
        ev: &Event<'a>,
        table: &T,
        num_args: u64,
    ) -> Result<(), Error> {
        if let Some(call) = self.small.last_mut() {
            if let Err(e) = apply(call, ev, table, num_args) {
                if let Some(call) = self.small.pop() {
                    self.recycle(call);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Ends the stream: every call still open, marked incomplete, in call-number order.
    pub fn finish(&mut self) -> impl Iterator<Item = Call<'a>> + '_ {
        self.drop_done();
        for c in self.small.drain(..) {
            self.big.insert(c.no, c);
        }
        core::iter::from_fn(move || {
            let (_, mut call) = self.big.pop_first()?;
            call.incomplete = true;
            Some(call)
        })
    }
}

/// The faults [`Calls::feed`] finds applying an ENTER event to its new call, without the call:
/// a detail that does not read, an argument index past the signature's count and
/// [`ARG_SLACK`].
fn check_enter<T: SigLookup + ?Sized>(ev: &Event<'_>, table: &T) -> Result<(), Error> {
    let num_args = table
        .get(SigKind::Function, ev.sig)
        .map_or(0, |i| sig_args(i.extra));
    for d in ev.details().iter(table) {
        if let Detail::Arg { index, .. } = d? {
            if index >= num_args.saturating_add(ARG_SLACK) {
                return Err(Error::new(ErrorKind::ArgIndex(index), ev.offset));
            }
        }
    }
    Ok(())
}

#[inline]
fn apply<'a, T: SigLookup + ?Sized>(
    call: &mut Call<'a>,
    ev: &Event<'a>,
    table: &T,
    num_args: u64,
) -> Result<(), Error> {
    for d in ev.details().iter(table) {
        match d? {
            Detail::Arg { index, value } => {
                if index >= num_args.saturating_add(ARG_SLACK) {
                    return Err(Error::new(ErrorKind::ArgIndex(index), ev.offset));
                }
                let i = index as usize;
                if i >= call.args.len() {
                    call.args.resize(i + 1, None);
                }
                if let Some(slot) = call.args.get_mut(i) {
                    *slot = Some(value);
                }
            }
            Detail::Ret(v) => call.ret = Some(v),
            Detail::Backtrace(b) => call.backtrace = Some(b),
            Detail::Flags(f) => call.flags |= f,
        }
    }
    Ok(())
}

/// An open call kept by [`KeptCalls`]: its ENTER event, with a copy of its details' bytes.
#[derive(Debug)]
struct Kept<N> {
    thread: u64,
    sig: u64,
    offset: u64,
    /// Stream offset of the first detail byte.
    details_at: u64,
    version: u8,
    bytes: Vec<u8>,
    note: N,
}

impl<N> Kept<N> {
    /// The ENTER event again, over the bytes kept.
    fn enter(&self, call_no: u64) -> Event<'_> {
        Event {
            kind: EventKind::Enter,
            call_no,
            thread: self.thread,
            sig: self.sig,
            offset: self.offset,
            details: crate::event::Details {
                body: crate::cursor::Span {
                    data: &self.bytes,
                    base: self.details_at,
                },
                version: self.version,
            },
        }
    }
}

/// Pairs events that do not outlive their reading (those of a
/// [`PushParser`](crate::PushParser), whose window moves on) into the calls [`Calls`] makes of
/// them, in the same order and with the same faults: each open call keeps a copy of its ENTER
/// event's detail bytes (and a note of the caller's, `N`), and the call is assembled when its
/// LEAVE arrives. What is held is the open calls' ENTER details, never a closed call's.
#[derive(Debug)]
pub struct KeptCalls<N = ()> {
    open: BTreeMap<u64, Kept<N>>,
    /// Byte buffers of closed calls, reused.
    pool: Vec<Vec<u8>>,
}

impl<N> Default for KeptCalls<N> {
    fn default() -> Self {
        KeptCalls {
            open: BTreeMap::new(),
            pool: Vec::new(),
        }
    }
}

impl<N: Copy> KeptCalls<N> {
    /// No open calls.
    pub fn new() -> Self {
        KeptCalls::default()
    }

    /// Number of calls entered and not yet left.
    pub fn open_len(&self) -> usize {
        self.open.len()
    }

    /// The detail bytes the open calls hold.
    pub fn held_bytes(&self) -> usize {
        self.open.values().map(|k| k.bytes.len()).sum()
    }

    fn keep_bytes(&mut self, mut b: Vec<u8>) {
        b.clear();
        if self.pool.len() < 64 {
            self.pool.push(b);
        }
    }

    /// Feeds one event (parsed with `table`); an ENTER is kept with `note`. The call a LEAVE
    /// completes is handed to `f` with its ENTER's note, and `f`'s answer returned. The faults
    /// are those of [`Calls::feed`].
    pub fn feed<T: SigLookup + ?Sized, R>(
        &mut self,
        ev: &Event<'_>,
        table: &T,
        note: N,
        f: impl FnOnce(&Call<'_>, N) -> R,
    ) -> Result<Option<R>, Error> {
        match ev.kind {
            EventKind::Enter => {
                // An ENTER with the number of an open call replaces it, as in `Calls`.
                if let Some(old) = self.open.remove(&ev.call_no) {
                    self.keep_bytes(old.bytes);
                }
                // The ENTER's own faults (its details against its signature), when it comes.
                check_enter(ev, table)?;
                let mut bytes = self.pool.pop().unwrap_or_default();
                let details = ev.details();
                bytes.extend_from_slice(details.raw());
                self.open.insert(
                    ev.call_no,
                    Kept {
                        thread: ev.thread,
                        sig: ev.sig,
                        offset: ev.offset,
                        details_at: details.offset(),
                        version: details.version,
                        bytes,
                        note,
                    },
                );
                Ok(None)
            }
            EventKind::Leave => {
                let Some(kept) = self.open.remove(&ev.call_no) else {
                    return Ok(None);
                };
                let answer = {
                    let enter = kept.enter(ev.call_no);
                    let mut calls = Calls::new();
                    match calls.feed(&enter, table) {
                        Ok(_) => calls.feed(ev, table).map(|c| c.map(|c| f(c, kept.note))),
                        Err(e) => Err(e),
                    }
                };
                self.keep_bytes(kept.bytes);
                answer
            }
        }
    }

    /// Ends the stream: every call still open, marked incomplete, handed to `f` in call-number
    /// order (as [`Calls::finish`] gives them), until `f` fails.
    pub fn finish<T: SigLookup + ?Sized, E>(
        &mut self,
        table: &T,
        mut f: impl FnMut(&Call<'_>, N) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some((no, kept)) = self.open.pop_first() {
            let enter = kept.enter(no);
            let mut calls = Calls::new();
            // Its faults were met when it entered.
            if calls.feed(&enter, table).is_err() {
                continue;
            }
            let done = match calls.finish().next() {
                Some(call) => f(&call, kept.note),
                None => Ok(()),
            };
            done?;
        }
        Ok(())
    }
}
