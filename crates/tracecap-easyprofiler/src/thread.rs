//! The thread section: per thread an id, a name, its context switches, then its records.

use tracecap_wire::Reader;

use crate::context_switch::ContextSwitch;
use crate::descriptor::until_nul;
use crate::error::Error;
use crate::fast::{Run, Walk};
use crate::header::Header;
use crate::lookup::KindLookup;
use crate::nesting::{NestSlot, Nested, Nesting};
use crate::record::{read_record, Record};
use crate::version::Version;
use tracecap_wire::fast::touch_ahead;
use tracecap_wire::Context;

/// One thread: its header fields and the regions of its two record lists.
///
/// Reading a `Thread` checks that the size fields of all its records fit the file, so
/// [`Thread::records_count`] and [`Thread::context_switches_count`] count records that are really
/// there. When they do not fit (a cut file), the thread still gives every record before the damage,
/// then the error ([`Thread::fault`]); it is then the last thread.
#[derive(Clone, Copy, Debug)]
pub struct Thread<'a> {
    /// Absolute offset of the thread id.
    pub offset: u64,
    /// Thread id (u32 in files older than 1.3.0).
    pub id: u64,
    /// Name without its NUL (empty for an unnamed thread).
    pub name: &'a [u8],
    /// Position in file order (0 for the first thread).
    index: u32,
    /// Records (context switches included) of the threads before this one.
    records_before: u64,
    /// The input at the thread's head.
    head: Reader<'a>,
    wide: bool,
    cs: Region<'a>,
    records: Region<'a>,
}

/// Records whose framing was checked, and the fault that ended the check early, if any.
#[derive(Clone, Copy, Debug)]
struct Region<'a> {
    r: Reader<'a>,
    count: u32,
    fault: Option<Error>,
}

impl<'a> Region<'a> {
    const EMPTY: Region<'static> = Region {
        r: Reader::new(&[]),
        count: 0,
        fault: None,
    };
}

impl<'a> Thread<'a> {
    /// Reads the `index`-th thread, at `r`, checking the framing of its records, and leaves `r`
    /// after it. `records_before` counts the records of the threads before it.
    pub(crate) fn read(
        r: &mut Reader<'a>,
        version: Version,
        index: u32,
        records_before: u64,
    ) -> Result<Self, Error> {
        let wide = version.wide_ids();
        let head = *r;
        let (offset, id, name) = read_thread_head(r, wide)?;
        let mut thread = Thread {
            offset,
            id,
            name,
            index,
            records_before,
            head,
            wide,
            cs: Region::EMPTY,
            records: Region::EMPTY,
        };
        thread.cs = match r.u32_le().what("context switch count") {
            Ok(count) => frame_records(r, count, ("context switch size", "context switch")),
            Err(e) => Region::fault(*r, e.into()),
        };
        if thread.cs.fault.is_none() {
            thread.records = match r.u32_le().what("block count") {
                Ok(count) => frame_records(r, count, ("record size", "record")),
                Err(e) => Region::fault(*r, e.into()),
            };
        }
        Ok(thread)
    }

    /// Reads the thread whose head is the first byte of `data`, at absolute offset `offset`, as
    /// the `index`-th thread of a capture of `version`: for a reader that holds one thread's
    /// bytes at a time (a capture arriving through a pipe). Bytes after the thread's records are
    /// not read. The thread is the one [`crate::Capture::threads`] gives when `data` holds the
    /// rest of the file, or at least the bytes up to the end of its records.
    pub fn read_at(
        data: &'a [u8],
        offset: u64,
        version: Version,
        index: u32,
    ) -> Result<Self, Error> {
        Thread::read(&mut Reader::at(data, offset), version, index, 0)
    }

    /// Position of the thread in file order: 0 for the first.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Records (context switches included) of the threads before this one.
    pub(crate) fn records_before(&self) -> u64 {
        self.records_before
    }

    /// Records (context switches included) of the threads up to and including this one.
    pub(crate) fn records_through(&self) -> u64 {
        self.records_before
            .saturating_add(u64::from(self.cs.count) + u64::from(self.records.count))
    }

    /// The input from the thread's head on.
    pub(crate) fn head(&self) -> Reader<'a> {
        self.head
    }

    /// The error that cut this thread short, if its records did not fit the file.
    pub fn fault(&self) -> Option<Error> {
        self.cs.fault.or(self.records.fault)
    }

    /// Number of (complete) context-switch records.
    pub fn context_switches_count(&self) -> u32 {
        self.cs.count
    }

    /// Number of (complete) block, event and value records.
    pub fn records_count(&self) -> u32 {
        self.records.count
    }

    /// The context switches, in file order (then the framing fault, if any).
    pub fn context_switches(&self) -> ContextSwitches<'a> {
        ContextSwitches {
            r: self.cs.r,
            left: self.cs.count,
            wide: self.wide,
            fault: self.cs.fault,
            failed: false,
        }
    }

    /// The block, event and value records, in file (completion) order, then the framing fault
    /// if any. `kinds` tells values from blocks (see [`crate::KindTable`], [`crate::FixedKindTable`]).
    ///
    #[cfg_attr(not(feature = "alloc"), doc = "[`crate::KindTable`]: crate#features")]
    pub fn records<K: KindLookup>(&self, kinds: K) -> Records<'a, K> {
        Records {
            r: self.records.r,
            left: self.records.count,
            kinds,
            fault: self.records.fault,
            failed: false,
        }
    }
}

impl<'a> Thread<'a> {
    /// Rebuilds the block tree of this thread's records into `slots` (one per record; see
    /// [`Nesting`]), over their times in nanoseconds as `header` converts them
    /// ([`Header::to_ns`], as upstream compares them), and gives each record to `f` with its index
    /// once it is nested. On a fault the walk stops and keeps what it read: the tree of the records
    /// before it, and the fault with its offset ([`Nested`]). [`Thread::records_count`] slots
    /// always suffice; with fewer, the fault is a full `"nesting slot"` table at the first record
    /// without one.
    ///
    /// The records are read as [`Records::try_for_each_record`] reads them, and the tree keeps
    /// their times in nanoseconds ([`crate::Tree::times`]).
    ///
    /// ```
    /// use tracecap_easyprofiler::{Capture, KindTable, NestSlot, Record};
    ///
    /// # fn main() -> Result<(), tracecap_easyprofiler::Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
    /// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
    /// let capture = Capture::parse(&bytes)?;
    /// let kinds = KindTable::new(&capture)?;
    /// let mut slots = Vec::new();
    /// for thread in capture.threads() {
    ///     let thread = thread?;
    ///     slots.resize(thread.records_count() as usize, NestSlot::default());
    ///     let mut values = 0;
    ///     let nested = thread.nest(&kinds, capture.header(), &mut slots, |_, record| {
    ///         values += u32::from(matches!(record, Record::Value(_)));
    ///     });
    ///     println!("{} records, {values} values, {} levels", nested.tree.len(), nested.tree.levels());
    ///     if let Some(fault) = nested.fault {
    ///         return Err(fault);
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    #[inline]
    pub fn nest<'s, K, F>(
        &self,
        kinds: K,
        header: &Header,
        slots: &'s mut [NestSlot],
        mut f: F,
    ) -> Nested<'s>
    where
        K: KindLookup,
        F: FnMut(usize, &Record<'a>),
    {
        let capacity = slots.len() as u64;
        let mut nesting = Nesting::new(slots);
        let mut index = 0;
        let walked = self.records(kinds).try_for_each_record(|r| {
            if nesting
                .push(header.to_ns(r.begin()), header.to_ns(r.end()))
                .is_none()
            {
                return Err(Error::table_full("nesting slot", capacity, r.offset()));
            }
            f(index, &r);
            index += 1;
            Ok(())
        });
        Nested {
            tree: nesting.finish(),
            fault: walked.err(),
        }
    }

    /// The record that starts at absolute `offset` (as [`crate::Record::offset`] gave it), read
    /// again without walking the records before it. An offset outside this thread's records, or
    /// not at a record's start, gives an error (or a different record: the size field is trusted).
    pub fn record_at<K: KindLookup>(&self, offset: u64, kinds: K) -> Result<Record<'a>, Error> {
        let mut r = self.records.r;
        // An offset before the records is as far out of them as one past their end.
        let skip = offset.checked_sub(r.offset()).unwrap_or(u64::MAX);
        r.bytes_u64(skip).what("record")?;
        read_record(&mut r, |id| kinds.kind(id))
    }
}

/// Reads a thread's id and name; returns them with the thread's offset.
pub(crate) fn read_thread_head<'a>(
    r: &mut Reader<'a>,
    wide: bool,
) -> Result<(u64, u64, &'a [u8]), Error> {
    let offset = r.offset();
    let id = if wide {
        r.u64_le().what("thread id")?
    } else {
        u64::from(r.u32_le().what("thread id")?)
    };
    let size_at = r.offset();
    let name_size = r.u16_le().what("thread name size")?;
    if name_size == 0 {
        // The size counts the NUL, so every writer writes at least 1. Refusing 0 also makes a
        // run of zero bytes (a cut file padded with zeros) fail at its first "thread" instead of
        // reading as millions of empty ones.
        let kind = tracecap_wire::ErrorKind::MissingNul {
            what: "thread name",
        };
        return Err(Error::new(kind.into(), size_at));
    }
    let name = until_nul(r.bytes(usize::from(name_size)).what("thread name")?);
    Ok((offset, id, name))
}

impl<'a> Region<'a> {
    fn fault(at: Reader<'a>, e: Error) -> Self {
        Region {
            r: Reader::at(&[], at.offset()),
            count: 0,
            fault: Some(e),
        }
    }
}

/// Walks up to `count` size-prefixed records without decoding them (time linear in the bytes, not
/// in `count`); returns a reader over exactly the complete ones and the fault that stopped it.
fn frame_records<'a>(
    r: &mut Reader<'a>,
    count: u32,
    names: (&'static str, &'static str),
) -> Region<'a> {
    let (size_name, what) = names;
    let start = *r;
    let mut done: u32 = 0;
    let mut fault = None;
    while done < count {
        touch_ahead(r.rest());
        let mut next = *r;
        let step = next
            .u16_le()
            .what(size_name)
            .and_then(|size| next.skip(usize::from(size)).what(what));
        match step {
            Ok(()) => *r = next,
            Err(e) => {
                fault = Some(e.into());
                break;
            }
        }
        done += 1;
    }
    let mut region = start;
    let len = r.position().saturating_sub(start.position());
    let reader = region
        .sub(len as u64)
        .unwrap_or(Reader::at(&[], start.offset()));
    Region {
        r: reader,
        count: done,
        fault,
    }
}

/// Iterator over a thread's context switches.
#[derive(Clone, Debug)]
pub struct ContextSwitches<'a> {
    r: Reader<'a>,
    left: u32,
    wide: bool,
    fault: Option<Error>,
    failed: bool,
}

impl<'a> Iterator for ContextSwitches<'a> {
    type Item = Result<ContextSwitch<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.left == 0 {
            return self.fault.take().map(Err);
        }
        self.left -= 1;
        let cs = ContextSwitch::read(&mut self.r, self.wide);
        self.failed = cs.is_err();
        Some(cs)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

impl core::iter::FusedIterator for ContextSwitches<'_> {}

/// Iterator over a thread's blocks, events and values.
#[derive(Debug)]
pub struct Records<'a, K> {
    r: Reader<'a>,
    left: u32,
    kinds: K,
    fault: Option<Error>,
    failed: bool,
}

impl<K: Clone> Clone for Records<'_, K> {
    fn clone(&self) -> Self {
        Records {
            r: self.r,
            left: self.left,
            kinds: self.kinds.clone(),
            fault: self.fault,
            failed: self.failed,
        }
    }
}

impl<'a, K: KindLookup> Records<'a, K> {
    /// The kind table, given back.
    pub fn into_table(self) -> K {
        self.kinds
    }

    /// Gives every remaining record to `f`, in file order, as the iterator would yield them;
    /// stops at the first error (the file's, converted, or one `f` returns) and returns it. After
    /// an error of `f` the iterator goes on from the record after the one `f` refused.
    ///
    /// The same walk as iterating, but faster: whole, well-formed records are read straight from
    /// the bytes, as [`crate::Events`] reads them, and each goes to `f` without being wrapped in
    /// `Option<Result<Record>>`; anything else goes through the checked reader, which finds the
    /// fault and reports it with its offset.
    ///
    /// ```
    /// use tracecap_easyprofiler::{Capture, Error, KindTable, Record};
    ///
    /// # fn main() -> Result<(), Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
    /// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
    /// let capture = Capture::parse(&bytes)?;
    /// let kinds = KindTable::new(&capture)?;
    /// let mut values = 0;
    /// for thread in capture.threads() {
    ///     thread?.records(&kinds).try_for_each_record(|record| {
    ///         values += u32::from(matches!(record, Record::Value(_)));
    ///         Ok::<(), Error>(())
    ///     })?;
    /// }
    /// println!("{values} values");
    /// # Ok(())
    /// # }
    /// ```
    pub fn try_for_each_record<E, F>(&mut self, f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Record<'a>) -> Result<(), E>,
    {
        crate::fast::try_for_each(self, f)
    }
}

impl<'a, K: KindLookup> Walk<'a> for Records<'a, K> {
    type Item = Record<'a>;
    type Kinds = K;

    #[inline(always)]
    fn kinds(&self) -> &K {
        &self.kinds
    }

    #[inline(always)]
    fn item(record: Record<'a>) -> Record<'a> {
        record
    }

    /// The records still to read, for the fast path (none after a fault).
    #[inline(always)]
    fn take_run(&self) -> Run<'a> {
        let rest = self.r.rest();
        Run {
            rest,
            end: self.r.offset().saturating_add(rest.len() as u64),
            left: if self.failed { 0 } else { self.left },
        }
    }

    #[inline(always)]
    fn put_run(&mut self, run: &Run<'a>) {
        if !self.failed {
            self.left = run.left;
            let _ = self
                .r
                .skip(self.r.remaining().saturating_sub(run.rest.len()));
        }
    }

    #[inline(always)]
    fn next_checked(&mut self) -> Option<Result<Record<'a>, Error>> {
        self.next()
    }
}

impl<'a, K: KindLookup> Iterator for Records<'a, K> {
    type Item = Result<Record<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.left == 0 {
            return self.fault.take().map(Err);
        }
        self.left -= 1;
        touch_ahead(self.r.rest());
        let rec = read_record(&mut self.r, |id| self.kinds.kind(id));
        self.failed = rec.is_err();
        Some(rec)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

impl<K: KindLookup> core::iter::FusedIterator for Records<'_, K> {}
