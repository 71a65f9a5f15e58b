//! [`Capture`]: a whole `.trace` file, container and all, read in constant memory.

use crate::chunked::{ChunkedReader, OwnedHeader};
use crate::container::Container;
use crate::error::{Error, FileError};
use crate::sig::SigLookup;
use crate::source::{ContainerSource, OffsetMap};
use crate::table::SigTable;

/// A `.trace` file: its container, detected, and its stream header, read (feature `std`).
///
/// [`Capture::parse`] decompresses only what the header takes (the first snappy chunk or the
/// first piece of a gzip, brotli or zstd stream); each walk from [`Capture::events`] or
/// [`Capture::events_with`] decompresses the file again, piece by piece, through a bounded
/// window, so a trace of any size is read in constant memory.
///
/// The header is kept as an owned copy ([`OwnedHeader`]): it is decompressed from the
/// container, so there are no file bytes for it to borrow.
///
/// ```
/// use tracecap_apitrace::{Capture, Container};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let capture = Capture::parse(&file)?;
/// assert_eq!(capture.container(), Container::Snappy);
/// assert_eq!(capture.header().version, 6);
/// let mut events = capture.events();
/// let mut n = 0;
/// while let Some(next) = events.next_event() {
///     let (_event, _table) = next?; // the event lives until the next read
///     n += 1;
/// }
/// assert_eq!(n, 4); // two calls: ENTER and LEAVE each
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Capture<'a> {
    file: &'a [u8],
    container: Container,
    header: OwnedHeader,
}

impl<'a> Capture<'a> {
    /// Detects the container of `file` (snappy, gzip, brotli, zstd or seekable zstd) and reads
    /// the stream header.
    pub fn parse(file: &'a [u8]) -> Result<Capture<'a>, Error> {
        let src = ContainerSource::new(file)?;
        let container = src.container();
        let header = ChunkedReader::new(src, SigTable::new()).header()?.clone();
        Ok(Capture {
            file,
            container,
            header,
        })
    }

    /// [`Capture::parse`] with its fault placed in the file ([`FileError`]): a fault of the
    /// header's stream bytes maps to the snappy chunk or zstd frame holding it. With
    /// [`ChunkedReader::next_located`] and [`ChunkedReader::file_error`] on the reader of
    /// [`Capture::events`], a walk that reports every offset in the file as well.
    ///
    /// ```
    /// use tracecap_apitrace::Capture;
    ///
    /// # let file = tracecap_apitrace::doc_example();
    /// let capture = Capture::parse_located(&file)?;
    /// let mut events = capture.events();
    /// let mut chunks = Vec::new();
    /// loop {
    ///     let chunk = match events.next_located() {
    ///         None => break,
    ///         Some(Ok((_event, _table, chunk))) => chunk,
    ///         // The event's borrow is over: the reader places the fault.
    ///         Some(Err(e)) => return Err(events.file_error(e)),
    ///     };
    ///     chunks.push(chunk);
    /// }
    /// assert_eq!(chunks, [Some(2); 4]); // one snappy chunk, after the magic `at`
    ///
    /// // A stream fault: its offset in the stream, and its chunk's in the file.
    /// let mut newer = file.to_vec();
    /// newer[9] = 7; // stream byte 0, the version: 7 is past what apitrace writes
    /// let e = Capture::parse_located(&newer).unwrap_err();
    /// assert_eq!((e.stream_offset(), e.file_offset), (Some(0), 2));
    /// # Ok::<(), tracecap_apitrace::FileError>(())
    /// ```
    pub fn parse_located(file: &'a [u8]) -> Result<Capture<'a>, FileError> {
        Capture::parse_with_events(file).map(|(capture, _)| capture)
    }

    /// [`Capture::parse_located`], and the reader that read the header, at the first event:
    /// the stream is opened (and, in a compressed container, its first piece decompressed) once
    /// for both. Place the reader's faults in the file with [`ChunkedReader::file_error`].
    ///
    /// ```
    /// # #[cfg(feature = "write")]
    /// # fn main() -> Result<(), tracecap_apitrace::FileError> {
    /// use tracecap_apitrace::write::{wrap, Writer};
    /// use tracecap_apitrace::{Capture, Container};
    ///
    /// let mut w = Writer::new(6, 6, &[]);
    /// w.function(1, b"glFlush", &[]);
    /// let call = w.enter(0, 1, &[]);
    /// w.leave(call, &[]);
    /// let file = wrap(&w.finish(), Container::Snappy);
    /// let (capture, mut events) = Capture::parse_with_events(&file)?;
    /// assert_eq!(capture.header().version, 6);
    /// let mut n = 0;
    /// let walked = events.try_for_each_event(|_| {
    ///     n += 1;
    ///     Ok::<(), tracecap_apitrace::Error>(())
    /// });
    /// walked.map_err(|e| events.file_error(e))?;
    /// assert_eq!(n, 2); // its ENTER and its LEAVE
    /// # Ok(())
    /// # }
    /// # #[cfg(not(feature = "write"))]
    /// # fn main() {}
    /// ```
    pub fn parse_with_events(
        file: &'a [u8],
    ) -> Result<(Capture<'a>, ChunkedReader<ContainerSource<'a>, SigTable>), FileError> {
        let src = ContainerSource::new(file).map_err(|e| FileError {
            error: e,
            file_offset: OffsetMap::default().error_offset(&e),
        })?;
        let container = src.container();
        let mut reader = ChunkedReader::new(src, SigTable::new());
        let header = match reader.header() {
            Ok(h) => h.clone(),
            Err(e) => return Err(reader.file_error(e)),
        };
        let capture = Capture {
            file,
            container,
            header,
        };
        Ok((capture, reader))
    }

    /// The container the stream is compressed in.
    pub fn container(&self) -> Container {
        self.container
    }

    /// The stream header: versions and properties.
    pub fn header(&self) -> &OwnedHeader {
        &self.header
    }

    /// The file's bytes.
    pub fn file(&self) -> &'a [u8] {
        self.file
    }

    /// The events, in stream order, with a new [`SigTable`] (see [`ChunkedReader`] for why
    /// its events come from a lending `next_event()` rather than an `Iterator`).
    pub fn events(&self) -> ChunkedReader<ContainerSource<'a>, SigTable> {
        self.events_with(SigTable::new())
    }

    /// The events, in stream order, defining signatures into `table`. The reader keeps the
    /// table and gives it back with [`ChunkedReader::into_table`]; to keep it yourself, pass
    /// `&mut table`.
    pub fn events_with<T: SigLookup>(&self, table: T) -> ChunkedReader<ContainerSource<'a>, T> {
        // The container was recognised by `parse`: opening it again cannot fail, but a reader
        // over no bytes reports it all the same if it did.
        match ContainerSource::new(self.file) {
            Ok(src) => ChunkedReader::new(src, table),
            Err(e) => {
                ChunkedReader::new(ContainerSource::failed(self.file, self.container, e), table)
            }
        }
    }
}
