//! Where the event stream comes from, piece by piece: the [`ByteSource`] trait, an in-memory
//! [`SliceSource`], and [`ContainerSource`], which decompresses a file of any container and
//! notes in its [`OffsetMap`] where each snappy chunk or zstd frame it decodes starts.

use std::boxed::Box;
use std::collections::VecDeque;
use std::io::Read;
use std::vec::Vec;

use brotli_decompressor::{BrotliDecompressStream, BrotliResult, BrotliState, StandardAlloc};

use crate::container::{Container, SnappyChunk, SnappyChunks};
use crate::error::{Error, ErrorKind, Space};

/// Where the decompressed stream comes from, piece by piece.
pub trait ByteSource {
    /// Appends the next piece of the stream to `out` and returns its length; `Ok(0)` at the end.
    /// After an error, the source is finished.
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error>;

    /// Puts the next piece behind the unread tail of `window` (`window[from..]`) and returns
    /// where that tail now starts and the piece's length (`Ok(0)` at the end). The tail may be
    /// moved at most `max_start` bytes from the front of the window. By default the read bytes
    /// are dropped (the tail moves to the front) and [`ByteSource::fill`] appends the piece; a
    /// source that owns each piece's buffer may instead hand it over as the new window, with
    /// the tail copied in front of the piece (see [`ReadAhead`](crate::ReadAhead)).
    fn refill(
        &mut self,
        window: &mut Vec<u8>,
        from: usize,
        max_start: usize,
    ) -> Result<(usize, usize), Error> {
        let _ = max_start;
        drop_read(window, from);
        self.fill(window).map(|n| (0, n))
    }

    /// Tells the source that its reader is done with the stream bytes before stream offset
    /// `before` (counted from the first byte the source gave): no event, and so no fault, will
    /// be read there any more. A [`ContainerSource`] then forgets where the pieces that hold
    /// only such bytes start. A [`ChunkedReader`](crate::ChunkedReader) calls it before each
    /// refill, with the start of its unread tail. By default, nothing.
    fn release(&mut self, before: u64) {
        let _ = before;
    }

    /// True when the last [`ByteSource::fill`] (or [`ByteSource::refill`]) gave no bytes
    /// because none have arrived yet, not because the stream ended: a source fed with bytes as
    /// they arrive, such as the one under a [`PushParser`](crate::PushParser). The reader then
    /// reads on with the bytes it has, or stops (`next_event` gives `None`) without ending the
    /// walk: a later call reads on. By default false: 0 bytes is the end.
    fn waiting(&self) -> bool {
        false
    }
}

/// Drops the read bytes `window[..from]`: the unread tail moves to the front.
pub(crate) fn drop_read(window: &mut Vec<u8>, from: usize) {
    window.drain(..from.min(window.len()));
}

/// An in-memory stream handed out in pieces of chosen sizes (tests, fuzzing).
#[derive(Clone, Debug)]
pub struct SliceSource<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl<'a> SliceSource<'a> {
    /// Pieces of `piece` bytes (at least 1).
    pub fn new(data: &'a [u8], piece: usize) -> Self {
        Self::with_sizes(data, &[piece])
    }

    /// Pieces whose sizes cycle through `sizes` (zeros count as 1).
    pub fn with_sizes(data: &'a [u8], sizes: &[usize]) -> Self {
        let mut sizes: Vec<usize> = sizes.iter().map(|&s| s.max(1)).collect();
        if sizes.is_empty() {
            sizes.push(1 << 16);
        }
        SliceSource {
            data,
            sizes,
            next: 0,
        }
    }
}

impl ByteSource for SliceSource<'_> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        let size = self
            .sizes
            .get(self.next % self.sizes.len().max(1))
            .copied()
            .unwrap_or(1);
        self.next = self.next.wrapping_add(1);
        let n = size.min(self.data.len());
        let (head, tail) = self.data.split_at(n);
        out.extend_from_slice(head);
        self.data = tail;
        Ok(n)
    }
}

/// Largest uncompressed size accepted for one snappy chunk. The tracer writes 1 MiB chunks; the
/// reader of upstream accepts more, so do we, within reason.
pub const MAX_SNAPPY_CHUNK: u64 = 64 << 20;

/// Largest compressed length of one snappy chunk: what snappy makes of [`MAX_SNAPPY_CHUNK`]
/// bytes at worst (32 + n + n / 6).
pub(crate) const MAX_SNAPPY_BLOCK: u64 = 32 + MAX_SNAPPY_CHUNK + MAX_SNAPPY_CHUNK / 6;

/// Bytes a streaming decoder (gzip, brotli, zstd) produces per [`ByteSource::fill`] (zstd: less
/// when [`FRAMES_PER_PIECE`] frames have started).
const PIECE: usize = 256 << 10;

/// Default largest window of a [`ChunkedReader`](crate::ChunkedReader): one event may not be
/// larger than this. A source's [`OFFSET_WINDOW`] is sized by it.
pub const DEFAULT_WINDOW_LIMIT: usize = 256 << 20;

/// How far behind the decompression front a [`ContainerSource`] keeps the starts of its pieces
/// unless told otherwise ([`ContainerSource::with_offset_window`]): the furthest a fault can lie
/// behind the front in a [`ChunkedReader`](crate::ChunkedReader) with the default window limit.
/// The reader asks for more bytes when its unread tail (the start of the event being read, which
/// holds the fault) is less than [`DEFAULT_WINDOW_LIMIT`](crate::DEFAULT_WINDOW_LIMIT) long, and
/// gets one piece: at most [`MAX_SNAPPY_CHUNK`] bytes (256 KiB for gzip, brotli and zstd).
pub const OFFSET_WINDOW: u64 = DEFAULT_WINDOW_LIMIT as u64 + MAX_SNAPPY_CHUNK;

/// Where the decompressed stream comes from in the file: the stream offset and the file offset
/// of each snappy chunk or zstd frame decoded lately. A [`ContainerSource`] fills one as it
/// decodes ([`ContainerSource::offsets`]), and [`Decompressed`](crate::Decompressed) keeps the
/// one of the whole file. gzip and brotli are one compressed stream from the start of the file:
/// their map stays empty, and every stream offset maps to file offset 0.
///
/// A snappy chunk is noted when it gives bytes (a chunk the file cuts short or that is damaged
/// too, for the bytes decoded before the cut or the damage); a zstd frame when its header is
/// read. Of pieces that start at the same stream offset (zstd frames that hold no byte), only
/// the last one is kept: a stream offset lies in a piece that gave bytes.
///
/// What is kept is bounded by stream bytes, not by pieces: the pieces that hold any of the last
/// [`OffsetMap::window`] bytes of stream produced and, once the reader has released the bytes
/// before some offset ([`ByteSource::release`]), only those that hold bytes from there on. The
/// pieces kept start at distinct stream offsets, so there are at most one more than the bytes
/// they cover (and never more than the window plus one): a stream of tiny pieces costs 16 bytes
/// per byte under the reader's window, never per byte of the file.
///
/// ```
/// # #[cfg(feature = "write")]
/// # fn main() -> Result<(), tracecap_apitrace::Error> {
/// use tracecap_apitrace::write::{zstd, Writer};
/// use tracecap_apitrace::{ByteSource, ContainerSource, ZSTD_MAGIC};
///
/// let mut w = Writer::new(6, 6, &[]);
/// w.raw(&[0; 3000]);
/// let file = zstd(&w.finish(), 1000, false); // frames of 1000 stream bytes
/// let mut src = ContainerSource::new(&file)?;
/// let mut stream = Vec::new();
/// while src.fill(&mut stream)? > 0 {}
/// let map = src.offsets();
/// // The frame holding stream offset 1500.
/// let second = map.chunk_offset(1500).unwrap(); // ok: doc example
/// assert_eq!(file[second as usize..][..4], ZSTD_MAGIC);
/// assert_eq!(map.pieces().nth(1), Some((1000, second)));
/// assert_eq!(map.file_offset(0), 0); // the first frame starts the file
///
/// // Kept for the last 1000 stream bytes only: the frames that hold them.
/// let mut src = ContainerSource::new(&file)?.with_offset_window(1000);
/// while src.fill(&mut stream)? > 0 {}
/// let end = src.offsets().pieces().last().unwrap().0; // ok: doc example
/// assert!(src.offsets().pieces().len() <= 2);
/// assert!(src.offsets().chunk_offset(end).is_some());
/// assert_eq!(src.offsets().chunk_offset(0), None); // forgotten
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "write"))]
/// # fn main() {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetMap {
    /// (stream offset, file offset) of each piece kept, in stream order, the stream offsets
    /// distinct.
    starts: VecDeque<(u64, u64)>,
    /// Stream bytes behind the front whose pieces are kept.
    window: u64,
    /// The reader is done with the stream bytes before this offset.
    released: u64,
}

impl Default for OffsetMap {
    fn default() -> Self {
        OffsetMap::new(OFFSET_WINDOW)
    }
}

impl OffsetMap {
    /// An empty map that keeps the pieces holding the last `window` bytes of stream produced
    /// (`u64::MAX`: every piece).
    pub fn new(window: u64) -> Self {
        OffsetMap {
            starts: VecDeque::new(),
            window,
            released: 0,
        }
    }

    /// How many stream bytes behind the front the pieces holding them are kept.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The file offset of the snappy chunk or zstd frame holding stream offset `at`; `None` when
    /// no piece kept holds it: gzip and brotli, or a piece further behind than those kept.
    pub fn chunk_offset(&self, at: u64) -> Option<u64> {
        match self.starts.partition_point(|&(s, _)| s <= at) {
            0 => None,
            i => self.starts.get(i - 1).map(|&(_, f)| f),
        }
    }

    /// The file offset of the snappy chunk or zstd frame holding stream offset `at`, else 0 (the
    /// start of the one compressed stream of gzip and brotli).
    pub fn file_offset(&self, at: u64) -> u64 {
        self.chunk_offset(at).unwrap_or(0)
    }

    /// The file offset of error `e`: its own for a fault of the container, else (a fault of
    /// the stream) [`OffsetMap::file_offset`] of its stream offset.
    pub fn error_offset(&self, e: &Error) -> u64 {
        match e.kind.space() {
            Space::File => e.offset,
            Space::Stream => self.file_offset(e.offset),
        }
    }

    /// (stream offset, file offset) of each piece kept, in stream order; `pieces().len()` is
    /// how many are kept.
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = (u64, u64)> + '_ {
        self.starts.iter().copied()
    }

    /// Notes that the piece at file offset `file` starts at stream offset `stream` (at or after
    /// the last piece noted, and at or before the front).
    pub(crate) fn note(&mut self, stream: u64, file: u64) {
        if let Some(last) = self.starts.back_mut() {
            if last.0 == stream {
                // The last piece gave no byte: the new one holds what comes.
                last.1 = file;
                return;
            }
        }
        self.starts.push_back((stream, file));
        self.trim(stream);
    }

    /// The reader is done with the stream bytes before `before`.
    pub(crate) fn release(&mut self, before: u64) {
        self.released = self.released.max(before);
    }

    /// Forgets the pieces that hold none of the bytes still wanted: those from `front` less the
    /// window, and from the offset released, up to `front` (the bytes produced so far).
    pub(crate) fn trim(&mut self, front: u64) {
        let from = front.saturating_sub(self.window).max(self.released);
        // The first piece ends where the second starts.
        while self.starts.get(1).is_some_and(|&(s, _)| s <= from) {
            self.starts.pop_front();
        }
        // Distinct starts cover at least one byte each but the last: the window bounds them.
        // Checked anyway, so that nothing can make the map outgrow it.
        let cap = usize::try_from(self.window.saturating_add(1)).unwrap_or(usize::MAX);
        while self.starts.len() > cap {
            self.starts.pop_front();
        }
    }
}

/// A reader over several concatenated zstd frames, skipping skippable frames (the seek table),
/// through [`Noting`], which notes where each frame starts. Blocks are decoded one at a
/// time, and a block that is neither the last of its frame nor holds any byte is damage: no
/// encoder writes one, and a run of them (zeros after a block boundary) would otherwise be
/// decoded for as long as the file lasts.
struct ZstdFrames<'f> {
    input: &'f [u8],
    file_len: usize,
    dec: ruzstd::frame_decoder::FrameDecoder,
    /// A frame is being decoded.
    active: bool,
    produced: u64,
    /// Frames started so far.
    started: u64,
    /// The file ended inside the current frame, which was ended there.
    cut: bool,
}

/// An empty raw block marked last, then a 4-byte checksum field: what ends a frame cut short.
const END_FRAME: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];

impl ZstdFrames<'_> {
    fn new(input: &[u8]) -> ZstdFrames<'_> {
        ZstdFrames {
            input,
            file_len: input.len(),
            dec: ruzstd::frame_decoder::FrameDecoder::new(),
            active: false,
            produced: 0,
            started: 0,
            cut: false,
        }
    }
}

fn zstd_error(cut: bool, what: &'static str) -> std::io::Error {
    let kind = if cut {
        std::io::ErrorKind::UnexpectedEof
    } else {
        std::io::ErrorKind::InvalidData
    };
    std::io::Error::new(kind, what)
}

/// zstd frames started in one piece at most: a piece of tiny frames ends there rather than at
/// 256 KiB, so that the frame starts a reader's window holds stay few (4096 one-byte frames: a
/// piece of 4 KiB and 64 KiB of starts, instead of 262,144 starts in 4 MiB for one 256 KiB
/// piece). Frames of 64 bytes or more fill the 256 KiB first.
const FRAMES_PER_PIECE: u64 = 4096;

/// A [`ZstdFrames`] read for one piece, noting each frame it starts in `map`; it ends the piece
/// (reads 0 bytes) once the piece holds bytes and [`FRAMES_PER_PIECE`] frames have started.
struct Noting<'a, 'f> {
    frames: &'a mut ZstdFrames<'f>,
    map: &'a mut OffsetMap,
    /// Frames started before this piece.
    first: u64,
    /// Bytes read into this piece.
    got: usize,
}

impl Read for Noting<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.got > 0 && self.frames.started.saturating_sub(self.first) >= FRAMES_PER_PIECE {
            return Ok(0);
        }
        let n = self.frames.read_noting(buf, self.map)?;
        self.got = self.got.saturating_add(n);
        Ok(n)
    }
}

impl ZstdFrames<'_> {
    /// Reads like [`Read::read`], noting in `map` where each frame it starts comes from.
    fn read_noting(&mut self, buf: &mut [u8], map: &mut OffsetMap) -> std::io::Result<usize> {
        use ruzstd::frame_decoder::{BlockDecodingStrategy, FrameDecoderError};
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.active {
                let n = self.dec.read(buf)?;
                if n > 0 {
                    self.produced = self.produced.saturating_add(n as u64);
                    return Ok(n);
                }
                if self.dec.is_finished() {
                    self.active = false;
                    continue;
                }
                // The next block's 3-byte header: bit 0 = last, bits 3.. = size.
                if let Some(&[b0, b1, b2]) = self.input.get(..3) {
                    let h = u32::from(b0) | (u32::from(b1) << 8) | (u32::from(b2) << 16);
                    if h & 1 == 0 && h >> 3 == 0 {
                        return Err(zstd_error(false, "empty zstd block"));
                    }
                }
                if self.cut {
                    return Err(zstd_error(true, "zstd frame cut short"));
                }
                if self
                    .dec
                    .decode_blocks(&mut self.input, BlockDecodingStrategy::UptoBlocks(1))
                    .is_err()
                {
                    if !self.input.is_empty() {
                        return Err(zstd_error(false, "zstd block"));
                    }
                    // A block (or the checksum) that needed bytes past the end of the file: cut,
                    // not damaged. The decoder hands out the last window of a frame only once
                    // the frame ends: end it here with an empty last block (and a checksum
                    // field, which is not checked), so that every byte the whole blocks before
                    // the cut decoded comes out before the cut is reported.
                    self.cut = true;
                    let _ = self
                        .dec
                        .decode_blocks(&END_FRAME[..], BlockDecodingStrategy::UptoBlocks(1));
                }
                continue;
            }
            if self.cut {
                return Err(zstd_error(true, "zstd frame cut short"));
            }
            if self.input.is_empty() {
                return Ok(0);
            }
            let at = self.file_len.saturating_sub(self.input.len()) as u64;
            let mut rest = self.input;
            match self.dec.init(&mut rest) {
                Ok(()) => {
                    self.input = rest;
                    map.note(self.produced, at);
                    self.started = self.started.saturating_add(1);
                    self.active = true;
                }
                Err(FrameDecoderError::ReadFrameHeaderError(
                    ruzstd::frame::ReadFrameHeaderError::SkipFrame { length, .. },
                )) => {
                    let skip = 8usize.saturating_add(length as usize);
                    match self.input.get(skip..) {
                        Some(rest) => self.input = rest,
                        None => return Err(zstd_error(true, "skippable frame cut short")),
                    }
                }
                // A frame header that needed bytes past the end of the file: cut.
                Err(_) => return Err(zstd_error(rest.is_empty(), "zstd frame header")),
            }
        }
    }
}

/// File bytes handed to the brotli decoder per call.
const BROTLI_INPUT: usize = 1 << 20;

/// A raw brotli stream over the file bytes. Unlike a plain `Read` adapter, it tells a stream
/// that stops because the file ends (`UnexpectedEof`: cut short) from damaged data
/// (`InvalidData`), and bytes after the end of the stream are damage too.
struct BrotliStream<'f> {
    input: &'f [u8],
    pos: usize,
    state: BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>,
    /// What the next read reports once the bytes decoded before it are handed out.
    end: Option<std::io::ErrorKind>,
    finished: bool,
}

impl<'f> BrotliStream<'f> {
    fn new(input: &'f [u8]) -> Self {
        BrotliStream {
            input,
            pos: 0,
            state: BrotliState::new(
                StandardAlloc::default(),
                StandardAlloc::default(),
                StandardAlloc::default(),
            ),
            end: None,
            finished: false,
        }
    }

    /// File bytes not yet consumed.
    fn rest_len(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }
}

impl Read for BrotliStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(kind) = self.end {
            return Err(std::io::Error::new(kind, "brotli stream"));
        }
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        let mut avail_out = buf.len();
        let mut out_off = 0;
        let mut total = 0;
        loop {
            // The input in bounded slices: the decoder keeps offsets in narrower integers.
            let stop = self.pos.saturating_add(BROTLI_INPUT).min(self.input.len());
            let input = self.input.get(..stop).unwrap_or(&[]);
            let mut avail_in = stop.saturating_sub(self.pos);
            let mut in_off = self.pos;
            let r = BrotliDecompressStream(
                &mut avail_in,
                &mut in_off,
                input,
                &mut avail_out,
                &mut out_off,
                buf,
                &mut total,
                &mut self.state,
            );
            self.pos = in_off.min(stop);
            match r {
                BrotliResult::NeedsMoreOutput => {}
                BrotliResult::ResultSuccess => {
                    self.finished = true;
                    if self.rest_len() > 0 {
                        self.end = Some(std::io::ErrorKind::InvalidData);
                    }
                }
                BrotliResult::NeedsMoreInput if self.pos < self.input.len() => {
                    if out_off == 0 {
                        continue;
                    }
                }
                BrotliResult::NeedsMoreInput => {
                    // The file ends. Before asking for input the decoder hands out what it has
                    // decoded, as far as `buf` has room: with `buf` full it may hold more (up
                    // to its window), which the next read gets. The stream is cut short once
                    // a read leaves room.
                    if avail_out > 0 {
                        self.end = Some(std::io::ErrorKind::UnexpectedEof);
                    }
                }
                BrotliResult::ResultFailure => self.end = Some(std::io::ErrorKind::InvalidData),
            }
            break;
        }
        match self.end {
            Some(kind) if out_off == 0 => Err(std::io::Error::new(kind, "brotli stream")),
            _ => Ok(out_off),
        }
    }
}

enum Inner<'f> {
    Snappy {
        chunks: SnappyChunks<'f>,
        decoder: snap::raw::Decoder,
    },
    Gzip(Box<flate2::read::MultiGzDecoder<&'f [u8]>>),
    Brotli(Box<BrotliStream<'f>>),
    Zstd(Box<ZstdFrames<'f>>),
}

/// The decompressed stream of a file, produced piece by piece (a snappy chunk, or 256 KiB of a
/// gzip/brotli/zstd stream, per [`ByteSource::fill`]; a zstd piece ends after 4096 frames). It
/// notes where each snappy chunk or zstd frame it decodes starts in its [`OffsetMap`]
/// ([`ContainerSource::offsets`]), so that a stream offset (of a fault) maps back to the file.
///
/// What it keeps is bounded by stream bytes, not by a number of pieces: the pieces that hold the
/// last [`OFFSET_WINDOW`] bytes it produced ([`ContainerSource::with_offset_window`] for another
/// window) and, under a [`ChunkedReader`](crate::ChunkedReader), only those that hold the
/// reader's unread tail and the bytes after it: the reader releases what it has parsed
/// ([`ByteSource::release`]) before it asks for more. A fault of the stream lies in the event
/// being read, at or after the start of that tail, so its piece is always kept, whatever the
/// number of pieces a read brings (a read of one-byte zstd frames brings 4096, of one-byte
/// snappy chunks one; a large event spans many reads); and memory follows the reader's window
/// (16 bytes per piece under it, so 16 bytes per byte at worst), never the file. Pieces further behind are forgotten:
/// [`OffsetMap::chunk_offset`] of a stream offset there is `None`. A reader with a window limit
/// above [`DEFAULT_WINDOW_LIMIT`](crate::DEFAULT_WINDOW_LIMIT) needs a source window of at least
/// that limit plus [`MAX_SNAPPY_CHUNK`] for its faults in events larger than the default limit.
///
/// A [`ChunkedReader`](crate::ChunkedReader) lends its source
/// ([`ChunkedReader::source`](crate::ChunkedReader::source)):
///
/// ```
/// # #[cfg(feature = "write")]
/// # fn main() -> Result<(), tracecap_apitrace::Error> {
/// use tracecap_apitrace::write::{snappy, Writer};
/// use tracecap_apitrace::{ChunkedReader, ContainerSource, SigTable, SnappyChunks};
///
/// let mut w = Writer::new(6, 6, &[]);
/// w.function(1, b"glFlush", &[]);
/// while w.stream_len() < 2500 {
///     let no = w.enter(0, 1, &[]);
///     w.leave(no, &[]);
/// }
/// let bad = w.stream_len() as u64;
/// w.raw(&[0x07]); // no event starts with 0x07
/// let file = snappy(&w.finish(), 1000); // chunks of 1000 stream bytes
/// let mut reader = ChunkedReader::new(ContainerSource::new(&file)?, SigTable::new());
/// let e = loop {
///     match reader.next_event() {
///         Some(Ok(_)) => {}
///         Some(Err(e)) => break e,
///         None => unreachable!(), // ok: doc example; the damage is before the end
///     }
/// };
/// assert_eq!(e.offset, bad); // a stream offset
/// let third = SnappyChunks::new(&file)?.nth(2).unwrap()?.offset; // ok: doc example, three chunks
/// assert_eq!(reader.source().offsets().error_offset(&e), third);
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "write"))]
/// # fn main() {}
/// ```
pub struct ContainerSource<'f> {
    container: Container,
    file: &'f [u8],
    inner: Inner<'f>,
    done: bool,
    pending: Option<Error>,
    /// Stream bytes produced so far.
    produced: u64,
    offsets: OffsetMap,
}

impl<'f> ContainerSource<'f> {
    /// Detects the container of `file` and prepares to decode it.
    pub fn new(file: &'f [u8]) -> Result<Self, Error> {
        let container = Container::detect(file)?;
        let inner = match container {
            Container::Snappy => Inner::Snappy {
                chunks: SnappyChunks::new(file)?,
                decoder: snap::raw::Decoder::new(),
            },
            Container::Gzip => Inner::Gzip(Box::new(flate2::read::MultiGzDecoder::new(file))),
            Container::Brotli => Inner::Brotli(Box::new(BrotliStream::new(file))),
            Container::Zstd | Container::ZstdSeekable => {
                Inner::Zstd(Box::new(ZstdFrames::new(file)))
            }
        };
        Ok(ContainerSource {
            container,
            file,
            inner,
            done: false,
            pending: None,
            produced: 0,
            offsets: OffsetMap::default(),
        })
    }

    /// Keeps in [`ContainerSource::offsets`] the pieces that hold the last `bytes` bytes of
    /// stream produced (`u64::MAX`: every piece, one entry per snappy chunk or zstd frame that
    /// gives bytes, as [`decompress`](crate::decompress) keeps them) instead of the last
    /// [`OFFSET_WINDOW`]. Under a [`ChunkedReader`](crate::ChunkedReader), what the reader
    /// releases is forgotten all the same.
    pub fn with_offset_window(mut self, bytes: u64) -> Self {
        self.offsets = OffsetMap::new(bytes);
        self
    }

    /// Where the pieces decoded so far come from in the file.
    pub fn offsets(&self) -> &OffsetMap {
        &self.offsets
    }

    /// Gives the offset map back (the source is done with).
    pub fn into_offsets(self) -> OffsetMap {
        self.offsets
    }

    /// A source over `file` of `container` that gives only the error `e`.
    pub(crate) fn failed(file: &'f [u8], container: Container, e: Error) -> Self {
        ContainerSource {
            container,
            file,
            inner: Inner::Gzip(Box::new(flate2::read::MultiGzDecoder::new(&[][..]))),
            done: true,
            pending: Some(e),
            produced: 0,
            offsets: OffsetMap::default(),
        }
    }

    /// The container.
    pub fn container(&self) -> Container {
        self.container
    }

    /// For snappy, the file offset of the chunk the next fill decodes.
    fn next_chunk_offset(&self) -> Option<u64> {
        match &self.inner {
            // Also for a chunk the file cuts short: its first bytes may still decompress.
            Inner::Snappy { chunks, .. } if chunks.rest_len() > 0 && !self.done => {
                Some(self.file.len().saturating_sub(chunks.rest_len()) as u64)
            }
            _ => None,
        }
    }

    /// The file bytes read so far (for progress: all of the file once the stream has ended).
    pub fn consumed(&self) -> u64 {
        let rest = match &self.inner {
            Inner::Snappy { chunks, .. } => chunks.rest_len(),
            Inner::Gzip(d) => d.get_ref().len(),
            Inner::Brotli(d) => d.rest_len(),
            Inner::Zstd(z) => z.input.len(),
        };
        (self.file.len() as u64).saturating_sub(rest as u64)
    }

    fn read_piece<R: Read>(
        r: &mut R,
        out: &mut Vec<u8>,
        name: &'static str,
    ) -> (usize, Option<(ErrorKind, bool)>) {
        let start = out.len();
        if out.try_reserve(PIECE).is_err() {
            let want = (start as u64).saturating_add(PIECE as u64);
            return (0, Some((ErrorKind::OutOfMemory(want), false)));
        }
        out.resize(start.saturating_add(PIECE), 0);
        let mut filled = 0;
        let result = loop {
            let Some(buf) = out.get_mut(start + filled..) else {
                break Ok(());
            };
            if buf.is_empty() {
                break Ok(());
            }
            match r.read(buf) {
                Ok(0) => break Ok(()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        out.truncate(start + filled);
        match result {
            Ok(()) => (filled, None),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                (filled, Some((ErrorKind::ContainerTruncated(name), true)))
            }
            Err(_) => (filled, Some((ErrorKind::Container(name), false))),
        }
    }
}

impl ByteSource for ContainerSource<'_> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        let chunk_at = self.next_chunk_offset();
        let r = self.decode(out);
        if let Ok(n) = r {
            if let (Some(at), true) = (chunk_at, n > 0) {
                self.offsets.note(self.produced, at);
            }
            self.produced = self.produced.saturating_add(n as u64);
            self.offsets.trim(self.produced);
        }
        r
    }

    fn release(&mut self, before: u64) {
        self.offsets.release(before);
        self.offsets.trim(self.produced);
    }
}

impl ContainerSource<'_> {
    /// The next piece (see [`ByteSource::fill`]); zstd frames are noted as they start.
    fn decode(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done {
            return Ok(0);
        }
        let name = self.container.name();
        let r = match &mut self.inner {
            Inner::Snappy { chunks, decoder } => {
                let at = self.file.len().saturating_sub(chunks.rest_len());
                let chunk = match chunks.next() {
                    None => {
                        self.done = true;
                        return Ok(0);
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        let ErrorKind::ContainerTruncated(_) = e.kind else {
                            return Err(e);
                        };
                        // The file ends inside this chunk: whatever its bytes hold, then the cut.
                        let block = self.file.get(at.saturating_add(4)..).unwrap_or(&[]);
                        snappy_cut(block, self.file.len() as u64, out)
                    }
                    Some(Ok(c)) => snappy_chunk(decoder, c, out),
                };
                return match chunk {
                    (n, None) => Ok(n),
                    (0, Some(e)) => {
                        self.done = true;
                        Err(e)
                    }
                    (n, Some(e)) => {
                        self.done = true;
                        self.pending = Some(e);
                        Ok(n)
                    }
                };
            }
            Inner::Gzip(d) => Self::read_piece(d, out, name),
            Inner::Brotli(d) => Self::read_piece(d, out, name),
            Inner::Zstd(d) => {
                let first = d.started;
                let mut noting = Noting {
                    frames: d,
                    map: &mut self.offsets,
                    first,
                    got: 0,
                };
                Self::read_piece(&mut noting, out, name)
            }
        };
        let (n, fault) = r;
        let fault = fault.map(|(kind, at_end)| {
            let off = if at_end {
                self.file.len() as u64
            } else {
                self.consumed()
            };
            Error::new(kind, off)
        });
        if n == 0 || fault.is_some() {
            self.done = true;
        }
        match fault {
            Some(e) if n == 0 => Err(e),
            Some(e) => {
                self.pending = Some(e);
                Ok(n)
            }
            None => Ok(n),
        }
    }
}

/// Decodes one whole snappy chunk, appending its bytes to `out`: the bytes appended, and the
/// fault that ends the container if there is one (a damaged block: the bytes its elements before
/// the damage decode, then the fault; an implausible length: no bytes).
pub(crate) fn snappy_chunk(
    decoder: &mut snap::raw::Decoder,
    chunk: SnappyChunk<'_>,
    out: &mut Vec<u8>,
) -> (usize, Option<Error>) {
    let len = match chunk.uncompressed_len() {
        Ok(n) if n <= MAX_SNAPPY_CHUNK => n as usize,
        Ok(n) => {
            return (
                0,
                Some(Error::new(ErrorKind::ImplausibleChunk(n), chunk.offset)),
            )
        }
        Err(e) => return (0, Some(e)),
    };
    // A snappy block expands at most ~21x (a 64-byte copy from a 3-byte tag).
    if len as u64
        > (chunk.block.len() as u64)
            .saturating_mul(24)
            .saturating_add(64)
    {
        return (
            0,
            Some(Error::new(
                ErrorKind::ImplausibleChunk(len as u64),
                chunk.offset,
            )),
        );
    }
    let start = out.len();
    if out.try_reserve(len).is_err() {
        let want = (start as u64).saturating_add(len as u64);
        return (
            0,
            Some(Error::new(ErrorKind::OutOfMemory(want), chunk.offset)),
        );
    }
    out.resize(start.saturating_add(len), 0);
    let dst = out.get_mut(start..).unwrap_or(&mut []);
    match decoder.decompress(chunk.block, dst) {
        Ok(n) => {
            out.truncate(start + n);
            (n, None)
        }
        Err(_) => {
            // A damaged block: what its elements before the damage decode, then the fault (as
            // for a block the file cuts short).
            out.truncate(start);
            let bad = Error::new(ErrorKind::Container("snappy"), chunk.offset);
            (snappy_prefix(chunk.block, out), Some(bad))
        }
    }
}

/// The end of a snappy file cut inside a chunk (`block`: the bytes after the chunk's 4-byte
/// length, as far as the file holds them; none when the length itself is cut): the bytes the
/// block's whole elements decode, appended to `out`, then the cut at `file_len`.
pub(crate) fn snappy_cut(block: &[u8], file_len: u64, out: &mut Vec<u8>) -> (usize, Option<Error>) {
    let cut = Error::new(ErrorKind::ContainerTruncated("snappy"), file_len);
    (snappy_prefix(block, out), Some(cut))
}

/// Decodes the start of a raw snappy block whose end is cut off, appending to `out` every
/// byte its whole elements (and the available part of a cut literal) produce, within the
/// length the block announces. Stops at the cut or at the first malformed element. Returns the
/// bytes appended.
fn snappy_prefix(block: &[u8], out: &mut Vec<u8>) -> usize {
    let mut r = tracecap_wire::Reader::new(block);
    let Ok(total) = r.uleb64() else { return 0 };
    // The same plausibility bound as for a whole chunk, against the bytes that are there.
    let cap = total
        .min(MAX_SNAPPY_CHUNK)
        .min((block.len() as u64).saturating_mul(24).saturating_add(64)) as usize;
    let mut b = r.rest();
    let start = out.len();
    let little = |b: &[u8], n: usize| -> Option<usize> {
        let bytes = b.get(..n)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0usize, |acc, &x| (acc << 8) | usize::from(x)),
        )
    };
    while let Some((&tag, rest)) = b.split_first() {
        let made = out.len() - start;
        let (len, offset, rest) = match tag & 3 {
            0 => {
                let (len, rest) = match usize::from(tag >> 2) {
                    n @ 0..=59 => (n + 1, rest),
                    n => {
                        let extra = n - 59;
                        let Some(v) = little(rest, extra) else { break };
                        (v.saturating_add(1), rest.get(extra..).unwrap_or(&[]))
                    }
                };
                let len = len.min(cap - made);
                let take = len.min(rest.len());
                if out.try_reserve(take).is_err() {
                    break;
                }
                out.extend_from_slice(rest.get(..take).unwrap_or(&[]));
                if take < len || len == 0 {
                    break;
                }
                b = rest.get(take..).unwrap_or(&[]);
                continue;
            }
            1 => {
                let Some(&low) = rest.first() else { break };
                let len = 4 + usize::from((tag >> 2) & 7);
                let offset = (usize::from(tag >> 5) << 8) | usize::from(low);
                (len, offset, rest.get(1..).unwrap_or(&[]))
            }
            2 => {
                let Some(offset) = little(rest, 2) else { break };
                (
                    1 + usize::from(tag >> 2),
                    offset,
                    rest.get(2..).unwrap_or(&[]),
                )
            }
            _ => {
                let Some(offset) = little(rest, 4) else { break };
                (
                    1 + usize::from(tag >> 2),
                    offset,
                    rest.get(4..).unwrap_or(&[]),
                )
            }
        };
        if offset == 0 || offset > made || len > cap - made {
            break;
        }
        if out.try_reserve(len).is_err() {
            break;
        }
        // A copy may overlap what it writes (offset < len): byte by byte.
        for _ in 0..len {
            let Some(&x) = out.len().checked_sub(offset).and_then(|i| out.get(i)) else {
                break;
            };
            out.push(x);
        }
        b = rest;
    }
    out.len() - start
}
