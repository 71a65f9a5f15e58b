//! A whole capture: header, descriptors, threads, then (2.1+) end signature and bookmarks.

use tracecap_wire::Reader;

use crate::bookmark::Bookmark;
use crate::descriptor::Descriptors;
use crate::error::{Error, ErrorKind};
use crate::header::{Header, SIGNATURE};
use crate::lookup::{FixedKindTable, KindLookup};
use crate::nesting::{NestSlot, Tree};
use crate::thread::Thread;
use crate::version::Version;
use tracecap_wire::Context;

/// A parsed `.prof` file: the header and the positions of its sections, borrowing the bytes.
///
/// Only the header and the descriptor framing are read by [`Capture::parse`]; everything else is
/// read lazily by the iterators, which never allocate.
///
/// ```
/// use tracecap_easyprofiler::Capture;
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let capture = Capture::parse(&bytes)?;
/// assert_eq!(capture.descriptors().count(), capture.header().descriptors_count as usize);
/// let threads = capture.threads().count();
/// assert!(threads > 0);
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Capture<'a> {
    data: &'a [u8],
    header: Header,
    descriptors: Reader<'a>,
    threads: Reader<'a>,
    /// Set when the descriptor section is damaged: the descriptors before the damage are still
    /// readable, and the threads iterator reports this error instead of reading garbage.
    descriptors_fault: Option<Error>,
}

impl<'a> Capture<'a> {
    /// Reads the header and finds the thread section. Only a bad header is an error here; a
    /// damaged descriptor section is reported by the iterators, after every good descriptor.
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        let mut r = Reader::new(data);
        let header = Header::read(&mut r)?;
        let descriptors = r;
        let (threads, descriptors_fault) =
            match Descriptors::new(r, header.descriptors_count).skip_all() {
                Ok(after) => (after, None),
                Err(e) => (Reader::at(&[], e.offset), Some(e)),
            };
        Ok(Capture {
            data,
            header,
            descriptors,
            threads,
            descriptors_fault,
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The descriptors, in file order (index = what records refer to).
    pub fn descriptors(&self) -> Descriptors<'a> {
        Descriptors::new(self.descriptors, self.header.descriptors_count)
    }

    /// Absolute offset of the first thread.
    pub fn threads_offset(&self) -> u64 {
        self.threads.offset()
    }

    /// The thread section, from its first thread to the end of the file (empty when the
    /// descriptor section is damaged).
    pub(crate) fn thread_section(&self) -> Reader<'a> {
        self.threads
    }

    /// The damage of the descriptor section, which every thread walk reports first.
    pub(crate) fn descriptors_fault(&self) -> Option<Error> {
        self.descriptors_fault
    }

    /// The threads, in file order. After them, [`Threads::tail`] gives the bookmarks.
    pub fn threads(&self) -> Threads<'a> {
        Threads {
            r: self.threads,
            version: self.header.version,
            left: self.header.threads_count,
            index: 0,
            records: 0,
            stated: self.header.blocks_count,
            bookmarks: self.header.bookmarks_count,
            done: false,
            fault: self.descriptors_fault,
        }
    }

    /// Rebuilds the block tree of `thread` into `slots` (one per record; see [`Nesting`]), over
    /// the records' times in nanoseconds, as upstream compares them. Fails at the first fault:
    /// the file's, or a full `"nesting slot"` table ([`tracecap_wire::ErrorKind::TableFull`]) at
    /// the first record that has no slot; [`Thread::records_count`] slots always suffice.
    /// [`Thread::nest`] is the same walk that keeps the tree of the records before a fault.
    ///
    /// [`Nesting`]: crate::Nesting
    pub fn nest<'s, K: KindLookup>(
        &self,
        thread: &Thread<'a>,
        kinds: K,
        slots: &'s mut [NestSlot],
    ) -> Result<Tree<'s>, Error> {
        thread
            .nest(kinds, &self.header, slots, |_, _| {})
            .into_result()
    }
}

impl<const N: usize> FixedKindTable<N> {
    /// Reads the descriptor section of `capture`; fails with a full `"descriptor kind"` table
    /// ([`tracecap_wire::ErrorKind::TableFull`]) at the first descriptor past `N` (the header's
    /// `descriptors_count` says how many there are).
    pub fn new(capture: &Capture<'_>) -> Result<Self, Error> {
        Self::from_descriptors(capture.descriptors())
    }
}

#[cfg(feature = "alloc")]
impl crate::lookup::KindTable {
    /// Reads the descriptor section of `capture`.
    pub fn new(capture: &Capture<'_>) -> Result<Self, Error> {
        Self::from_descriptors(capture.descriptors())
    }
}

/// Iterator over the threads of a capture.
#[derive(Clone, Debug)]
pub struct Threads<'a> {
    r: Reader<'a>,
    version: Version,
    left: Option<u32>,
    /// Threads read so far.
    index: u32,
    /// Records (context switches included) of the threads read so far.
    records: u64,
    /// The header's `blocks_count`: before 2.1, the end of the file comes after that many.
    stated: u32,
    bookmarks: u16,
    done: bool,
    fault: Option<Error>,
}

impl<'a> Iterator for Threads<'a> {
    type Item = Result<Thread<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(e) = self.fault.take() {
            self.done = true;
            return Some(Err(e));
        }
        match self.left {
            Some(0) => return None,
            Some(ref mut n) => *n -= 1,
            // Before 2.1 the threads simply run to the end of the file, which must come after
            // the header's count of records.
            None if self.r.is_empty() => {
                self.done = true;
                return records_missing(self.records, self.stated, self.r.offset())
                    .err()
                    .map(Err);
            }
            None => {}
        }
        let t = Thread::read(&mut self.r, self.version, self.index, self.records);
        self.index = self.index.saturating_add(1);
        match &t {
            Err(_) => self.done = true,
            Ok(t) if t.fault().is_some() => self.done = true,
            Ok(t) => self.records = t.records_through(),
        }
        Some(t)
    }
}

impl core::iter::FusedIterator for Threads<'_> {}

impl<'a> Threads<'a> {
    /// Skips the remaining threads and reads what follows them: for 2.1+ files the end signature
    /// and the bookmarks. Fails on the first damaged thread.
    pub fn tail(mut self) -> Result<Bookmarks<'a>, Error> {
        for t in self.by_ref() {
            if let Some(e) = t?.fault() {
                return Err(e);
            }
        }
        if self.version.has_end_signature() {
            read_signature(&mut self.r)?;
        } else {
            self.bookmarks = 0;
        }
        Ok(Bookmarks {
            r: self.r,
            left: self.bookmarks,
            done: false,
            pending: None,
        })
    }
}

/// The end of a file older than 2.1 at `at`, after `read` records of the header's `stated`: an
/// error when records are missing (more than stated is accepted).
pub(crate) fn records_missing(read: u64, stated: u32, at: u64) -> Result<(), Error> {
    if read < u64::from(stated) {
        Err(Error::new(ErrorKind::RecordsMissing { read, stated }, at))
    } else {
        Ok(())
    }
}

pub(crate) fn read_signature(r: &mut Reader<'_>) -> Result<(), Error> {
    let at = r.offset();
    let sig = r.u32_le().what("end signature")?;
    if sig == SIGNATURE {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::BadEndSignature(sig), at))
    }
}

/// Iterator over the bookmarks (2.1+); it checks the closing signature after the last one.
#[derive(Clone, Debug)]
pub struct Bookmarks<'a> {
    r: Reader<'a>,
    left: u16,
    done: bool,
    pending: Option<Error>,
}

impl<'a> Bookmarks<'a> {
    /// Bytes after the last signature (0 in files written by EasyProfiler). Meaningful once the
    /// iterator is exhausted.
    pub fn trailing(&self) -> u64 {
        self.r.remaining() as u64
    }
}

impl<'a> Iterator for Bookmarks<'a> {
    type Item = Result<Bookmark<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        if self.done || self.left == 0 {
            return None;
        }
        self.left -= 1;
        let b = Bookmark::read(&mut self.r);
        if b.is_err() {
            self.done = true;
            return Some(b);
        }
        if self.left == 0 {
            if let Err(e) = read_signature(&mut self.r) {
                // The bookmark is good, the signature after it is not: report the bookmark now,
                // the error on the next call.
                self.done = true;
                self.left = 0;
                self.pending = Some(e);
            }
        }
        Some(b)
    }
}
