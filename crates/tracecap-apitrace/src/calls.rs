//! Calls: ENTER and LEAVE events paired into whole calls, in the order apitrace reports them
//! (when they return; calls that never return come last, in call-number order).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::event::{Backtrace, Detail, Event, EventKind};
use crate::sig::{SigKind, Table};
use crate::value::Value;

/// How far past its signature's argument count an argument index may go (upstream would index
/// out of bounds; we keep a few and refuse absurd ones).
const ARG_SLACK: u64 = 64;

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
}

impl Call<'_> {
    /// True for a call the tracer made up (flags bit 0).
    pub fn is_fake(&self) -> bool {
        self.flags & 1 != 0
    }
}

/// Open calls kept in a plain vector (searched from the newest); beyond this many, in a map.
const SMALL_OPEN: usize = 64;

/// Pairs events into calls. Allocates per open call only until calls are recycled (give
/// finished calls back with [`Calls::recycle`] to reuse their argument vectors).
#[derive(Debug, Default)]
pub struct Calls<'a> {
    /// Most recent open calls (a call usually returns right after it starts).
    small: Vec<Call<'a>>,
    /// The rest, when many calls are open at once (threads blocked, hostile input).
    big: BTreeMap<u64, Call<'a>>,
    pool: Vec<Vec<Option<Value<'a>>>>,
}

impl<'a> Calls<'a> {
    /// No open calls.
    pub fn new() -> Self {
        Calls {
            small: Vec::new(),
            big: BTreeMap::new(),
            pool: Vec::new(),
        }
    }

    /// Number of calls entered and not yet left.
    pub fn open_len(&self) -> usize {
        self.small.len() + self.big.len()
    }

    fn insert(&mut self, call: Call<'a>) {
        if let Some(i) = self.small.iter().rposition(|c| c.no == call.no) {
            if let Some(slot) = self.small.get_mut(i) {
                let old = core::mem::replace(slot, call);
                self.recycle(old);
            }
            return;
        }
        if let Some(old) = self.big.remove(&call.no) {
            self.recycle(old);
        }
        if self.small.len() >= SMALL_OPEN {
            // Move the oldest open call to the map.
            let oldest = self.small.remove(0);
            self.big.insert(oldest.no, oldest);
        }
        self.small.push(call);
    }

    fn take(&mut self, no: u64) -> Option<Call<'a>> {
        match self.small.iter().rposition(|c| c.no == no) {
            Some(i) => Some(self.small.remove(i)),
            None => self.big.remove(&no),
        }
    }

    /// Gives a finished call's storage back for reuse.
    pub fn recycle(&mut self, call: Call<'a>) {
        let mut v = call.args;
        v.clear();
        if self.pool.len() < 64 {
            self.pool.push(v);
        }
    }

    /// Feeds one event (parsed with `table`). Returns the call a LEAVE completes.
    pub fn push<T: Table + ?Sized>(
        &mut self,
        ev: &Event<'a>,
        table: &T,
    ) -> Result<Option<Call<'a>>, Error> {
        match ev.kind {
            EventKind::Enter => {
                let num_args = table
                    .get(SigKind::Function, ev.sig)
                    .map_or(0, |i| i.extra.clamp(0, 1 << 16) as usize);
                let mut args = self.pool.pop().unwrap_or_default();
                args.resize(num_args, None);
                let mut call = Call {
                    no: ev.call_no,
                    thread: ev.thread,
                    sig: ev.sig,
                    args,
                    ret: None,
                    backtrace: None,
                    flags: 0,
                    incomplete: false,
                };
                if let Err(e) = apply(&mut call, ev, table, num_args as u64) {
                    self.recycle(call);
                    return Err(e);
                }
                self.insert(call);
                Ok(None)
            }
            EventKind::Leave => match self.take(ev.call_no) {
                Some(mut call) => {
                    let num_args = table
                        .get(SigKind::Function, call.sig)
                        .map_or(0, |i| i.extra.clamp(0, 1 << 16) as u64);
                    apply(&mut call, ev, table, num_args)?;
                    Ok(Some(call))
                }
                None => Ok(None),
            },
        }
    }

    /// Ends the stream: every call still open, marked incomplete, in call-number order.
    pub fn finish(&mut self) -> impl Iterator<Item = Call<'a>> + '_ {
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

fn apply<'a, T: Table + ?Sized>(
    call: &mut Call<'a>,
    ev: &Event<'a>,
    table: &T,
    num_args: u64,
) -> Result<(), Error> {
    for d in ev.details().iter(table) {
        match d? {
            Detail::Arg { index, value } => {
                if index >= num_args.saturating_add(ARG_SLACK) {
                    return Err(Error::stream(ErrorKind::ArgIndex(index), ev.offset));
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
