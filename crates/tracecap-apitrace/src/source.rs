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

/// File bytes a gzip or brotli decoder is given per call: the rest of the block of this many
/// bytes (counted from the start of the file) that holds the next byte, once the whole block
/// is there; at the end of the file, as far as the file goes. The decoder is so called with the
/// same input and the same room however the file's bytes arrive, and gives the same bytes and
/// the same fault at the same offset.
pub(crate) const FEED_BLOCK: u64 = 16 << 10;

/// Room for the stream bytes one decoder call may write.
const STEP_OUT: usize = 64 << 10;

/// An empty raw block marked last, then a 4-byte checksum field: what ends a zstd frame cut
/// short, so that the decoder hands out every byte of the whole blocks before the cut.
const END_FRAME: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];

/// zstd frames started in one piece at most: a piece of tiny frames ends there rather than at
/// 256 KiB, so that the frame starts a reader's window holds stay few (4096 one-byte frames: a
/// piece of 4 KiB and 64 KiB of starts, instead of 262,144 starts in 4 MiB for one 256 KiB
/// piece). Frames of 64 bytes or more fill the 256 KiB first.
const FRAMES_PER_PIECE: u64 = 4096;

/// What one call of a codec did.
enum Step {
    /// Took this many input bytes (perhaps none) and wrote what it wrote: call again.
    Go(usize),
    /// Needs this many bytes more than the input holds (never at the end of the file).
    Wait(u64),
    /// The compressed data ended where the file ends.
    End,
}

/// A decoder of a gzip, brotli or zstd container fed the file's bytes as far as they have come
/// ([`StreamDecoder::fill`]): the whole file at once for [`ContainerSource`], the bytes that
/// have arrived for a [`PushParser`](crate::PushParser). What it gives does not depend on how
/// the bytes arrive: the decoders are called on whole pieces of input only (gzip and brotli:
/// the blocks of [`FEED_BLOCK`] bytes; zstd: each whole frame header, block and skippable
/// frame), with the same room for output, so the same bytes come out and a fault is met at the
/// same place. At the end of the file, the input is what there is, and a piece that needs more
/// is the file cut short ([`ErrorKind::ContainerTruncated`], at the file's length).
pub(crate) struct StreamDecoder {
    codec: Codec,
    /// File offset of the next input byte.
    pos: u64,
    /// Stream bytes produced so far.
    produced: u64,
    /// zstd frames started so far.
    frames: u64,
    done: bool,
    pending: Option<Error>,
    /// The bytes missing for the next call, when the last fill stopped for them.
    wait: Option<u64>,
}

enum Codec {
    Gzip(Box<Gzip>),
    Brotli(Box<Brotli>),
    Zstd(Box<Zstd>),
}

impl StreamDecoder {
    /// A decoder of `container` at the start of the file; `None` for snappy (chunks, read by
    /// [`snappy_chunk`]).
    pub(crate) fn new(container: Container) -> Option<Self> {
        let codec = match container {
            Container::Snappy => return None,
            Container::Gzip => Codec::Gzip(Box::new(Gzip {
                part: GzPart::Header,
                inflate: flate2::Decompress::new(false),
                crc: flate2::Crc::new(),
            })),
            Container::Brotli => Codec::Brotli(Box::new(Brotli {
                state: BrotliState::new(
                    StandardAlloc::default(),
                    StandardAlloc::default(),
                    StandardAlloc::default(),
                ),
                finished: false,
            })),
            Container::Zstd | Container::ZstdSeekable => Codec::Zstd(Box::new(Zstd {
                dec: ruzstd::frame_decoder::FrameDecoder::new(),
                active: false,
                checksum: false,
                cut: false,
            })),
        };
        Some(StreamDecoder {
            codec,
            pos: 0,
            produced: 0,
            frames: 0,
            done: false,
            pending: None,
            wait: None,
        })
    }

    /// The file offset of the next byte to decode: the file bytes taken so far.
    pub(crate) fn consumed(&self) -> u64 {
        self.pos
    }

    /// The bytes the last fill stopped for, when it stopped for lack of input.
    pub(crate) fn waiting(&self) -> Option<u64> {
        self.wait
    }

    /// Appends the next piece of the stream to `out` (up to 256 KiB, less when the input runs
    /// out or, for zstd, once 4096 frames have started), noting in `map` where each zstd frame
    /// starts. `input`: the file's bytes from [`StreamDecoder::consumed`] on, as far as they
    /// have come; `eof`: no byte comes after them. `Ok(0)` at the end, and when waiting for
    /// bytes ([`StreamDecoder::waiting`]); a fault after bytes is given by the next call.
    pub(crate) fn fill(
        &mut self,
        input: &[u8],
        eof: bool,
        out: &mut Vec<u8>,
        map: &mut OffsetMap,
    ) -> Result<usize, Error> {
        self.wait = None;
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done {
            return Ok(0);
        }
        let start = out.len();
        let first = self.frames;
        let mut off = 0usize;
        let mut fault = None;
        loop {
            let made = out.len().saturating_sub(start);
            if made >= PIECE || (made > 0 && self.frames.saturating_sub(first) >= FRAMES_PER_PIECE)
            {
                break;
            }
            let rest = input.get(off..).unwrap_or(&[]);
            let at = self.pos.saturating_add(off as u64);
            let before = out.len();
            let step = match &mut self.codec {
                Codec::Gzip(g) => g.step(rest, at, eof, out),
                Codec::Brotli(b) => b.step(rest, at, eof, out),
                Codec::Zstd(z) => {
                    let started = z.active;
                    let r = z.step(rest, at, eof, out, map, self.produced);
                    if !started && z.active {
                        self.frames = self.frames.saturating_add(1);
                    }
                    r
                }
            };
            self.produced = self
                .produced
                .saturating_add(out.len().saturating_sub(before) as u64);
            match step {
                Ok(Step::Go(used)) => off = off.saturating_add(used).min(input.len()),
                Ok(Step::Wait(hint)) => {
                    self.wait = Some(hint.max(1));
                    break;
                }
                Ok(Step::End) => {
                    self.done = true;
                    break;
                }
                Err(e) => {
                    self.done = true;
                    fault = Some(e);
                    break;
                }
            }
        }
        self.pos = self.pos.saturating_add(off as u64);
        let n = out.len().saturating_sub(start);
        match fault {
            None => Ok(n),
            Some(e) if n == 0 => Err(e),
            Some(e) => {
                self.pending = Some(e);
                Ok(n)
            }
        }
    }
}

/// Room for [`STEP_OUT`] more bytes at the end of `out`, zeroed; the error when there is no
/// memory for it.
fn room(out: &mut Vec<u8>, at: u64) -> Result<usize, Error> {
    let start = out.len();
    if out.try_reserve(STEP_OUT).is_err() {
        let want = (start as u64).saturating_add(STEP_OUT as u64);
        return Err(Error::new(ErrorKind::OutOfMemory(want), at));
    }
    out.resize(start.saturating_add(STEP_OUT), 0);
    Ok(start)
}

/// The input of a gzip or brotli decoder call at file offset `at` (see [`FEED_BLOCK`]), or
/// the bytes missing for it.
fn feed_block(input: &[u8], at: u64, eof: bool) -> Result<&[u8], u64> {
    let end = (at / FEED_BLOCK)
        .saturating_add(1)
        .saturating_mul(FEED_BLOCK);
    let want = usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX);
    match input.get(..want) {
        Some(block) => Ok(block),
        None if eof => Ok(input),
        None => Err(want.saturating_sub(input.len()) as u64),
    }
}

/// The fault of a file that ends at `at` + `input.len()` inside a piece of `name`.
fn cut_at(name: &'static str, at: u64, input: &[u8]) -> Error {
    Error::new(
        ErrorKind::ContainerTruncated(name),
        at.saturating_add(input.len() as u64),
    )
}

/// Where a gzip member is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GzPart {
    /// Its header comes next (the first member, or bytes after a member).
    Header,
    Deflate,
    /// Its CRC-32 and size.
    Trailer,
    /// A member ended: the end of the file, or another member.
    Between,
}

/// A gzip file: members (header, raw deflate, trailer) one after another.
struct Gzip {
    part: GzPart,
    inflate: flate2::Decompress,
    crc: flate2::Crc,
}

/// The length of the gzip member header at the start of `b`: `Err(Ok(n))` when `b` holds only
/// its first bytes (`n` more are needed, at least), `Err(Err(i))` when byte `i` is no gzip header.
fn gzip_header_len(b: &[u8]) -> Result<usize, Result<u64, usize>> {
    // The magic, the deflate method, no reserved flag.
    for (i, &x) in b.iter().take(4).enumerate() {
        let ok = match i {
            0 => x == 0x1f,
            1 => x == 0x8b,
            2 => x == 8,
            _ => x & 0xe0 == 0,
        };
        if !ok {
            return Err(Err(i));
        }
    }
    let flags = b.get(3).copied().unwrap_or(0);
    let mut len = 10usize;
    let short = |len: usize| Err(Ok((len.saturating_sub(b.len()) as u64).max(1)));
    if b.len() < len {
        return short(len);
    }
    if flags & 4 != 0 {
        let Some(&[lo, hi]) = b.get(len..len.saturating_add(2)) else {
            return short(len.saturating_add(2));
        };
        len = len
            .saturating_add(2)
            .saturating_add(usize::from(u16::from_le_bytes([lo, hi])));
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            match b
                .get(len..)
                .and_then(|rest| rest.iter().position(|&x| x == 0))
            {
                Some(nul) => len = len.saturating_add(nul).saturating_add(1),
                None => return short(b.len().max(len).saturating_add(1)),
            }
        }
    }
    if flags & 2 != 0 {
        len = len.saturating_add(2);
    }
    if b.len() < len {
        return short(len);
    }
    Ok(len)
}

impl Gzip {
    const NAME: &'static str = "gzip";

    fn step(&mut self, input: &[u8], at: u64, eof: bool, out: &mut Vec<u8>) -> Result<Step, Error> {
        let damaged = |off: u64| Error::new(ErrorKind::Container(Self::NAME), off);
        match self.part {
            GzPart::Between => {
                if input.is_empty() {
                    return Ok(if eof { Step::End } else { Step::Wait(1) });
                }
                self.part = GzPart::Header;
                Ok(Step::Go(0))
            }
            GzPart::Header => match gzip_header_len(input) {
                Ok(len) => {
                    self.part = GzPart::Deflate;
                    self.inflate.reset(false);
                    self.crc.reset();
                    Ok(Step::Go(len))
                }
                Err(Ok(_)) if eof => Err(cut_at(Self::NAME, at, input)),
                Err(Ok(more)) => Ok(Step::Wait(more)),
                Err(Err(i)) => Err(damaged(at.saturating_add(i as u64))),
            },
            GzPart::Trailer => {
                let Some(&[c0, c1, c2, c3, s0, s1, s2, s3]) = input.get(..8) else {
                    if eof {
                        return Err(cut_at(Self::NAME, at, input));
                    }
                    return Ok(Step::Wait(8u64.saturating_sub(input.len() as u64)));
                };
                let crc = u32::from_le_bytes([c0, c1, c2, c3]);
                let size = u32::from_le_bytes([s0, s1, s2, s3]);
                if crc != self.crc.sum() || size != self.crc.amount() {
                    return Err(damaged(at));
                }
                self.part = GzPart::Between;
                Ok(Step::Go(8))
            }
            GzPart::Deflate => {
                let block = match feed_block(input, at, eof) {
                    Ok(b) => b,
                    Err(more) => return Ok(Step::Wait(more)),
                };
                let start = room(out, at)?;
                let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
                let dst = out.get_mut(start..).unwrap_or(&mut []);
                let r = self
                    .inflate
                    .decompress(block, dst, flate2::FlushDecompress::None);
                let used = self.inflate.total_in().saturating_sub(in0) as usize;
                let made = self.inflate.total_out().saturating_sub(out0) as usize;
                out.truncate(start.saturating_add(made));
                self.crc.update(out.get(start..).unwrap_or(&[]));
                match r {
                    Err(_) => Err(damaged(at.saturating_add(used as u64))),
                    Ok(flate2::Status::StreamEnd) => {
                        self.part = GzPart::Trailer;
                        Ok(Step::Go(used))
                    }
                    Ok(_) if used > 0 || made > 0 => Ok(Step::Go(used)),
                    // Nothing more comes of the bytes there are.
                    Ok(_) if block.is_empty() => Err(cut_at(Self::NAME, at, input)),
                    Ok(_) => Err(damaged(at)),
                }
            }
        }
    }
}

/// A raw brotli stream; bytes after its end are damage.
struct Brotli {
    state: BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>,
    finished: bool,
}

impl Brotli {
    const NAME: &'static str = "brotli";

    fn step(&mut self, input: &[u8], at: u64, eof: bool, out: &mut Vec<u8>) -> Result<Step, Error> {
        let damaged = |off: u64| Error::new(ErrorKind::Container(Self::NAME), off);
        if self.finished {
            return match (input.is_empty(), eof) {
                (true, true) => Ok(Step::End),
                (true, false) => Ok(Step::Wait(1)),
                (false, _) => Err(damaged(at)),
            };
        }
        let block = match feed_block(input, at, eof) {
            Ok(b) => b,
            Err(more) => return Ok(Step::Wait(more)),
        };
        let start = room(out, at)?;
        let dst = out.get_mut(start..).unwrap_or(&mut []);
        let (mut avail_in, mut in_off) = (block.len(), 0usize);
        let (mut avail_out, mut out_off, mut total) = (dst.len(), 0usize, 0usize);
        let r = BrotliDecompressStream(
            &mut avail_in,
            &mut in_off,
            block,
            &mut avail_out,
            &mut out_off,
            dst,
            &mut total,
            &mut self.state,
        );
        let used = in_off.min(block.len());
        let made = out_off.min(STEP_OUT);
        out.truncate(start.saturating_add(made));
        match r {
            BrotliResult::ResultSuccess => {
                self.finished = true;
                Ok(Step::Go(used))
            }
            BrotliResult::NeedsMoreOutput => Ok(Step::Go(used)),
            BrotliResult::NeedsMoreInput if used > 0 || made > 0 => Ok(Step::Go(used)),
            // Nothing more comes of the bytes there are.
            BrotliResult::NeedsMoreInput if block.is_empty() => Err(cut_at(Self::NAME, at, input)),
            BrotliResult::NeedsMoreInput | BrotliResult::ResultFailure => {
                Err(damaged(at.saturating_add(used as u64)))
            }
        }
    }
}

/// zstd frames one after another, skippable frames (the seek table) skipped. Blocks are decoded
/// one at a time, and a block that is neither the last of its frame nor holds any byte is
/// damage: no encoder writes one, and a run of them (zeros after a block boundary) would
/// otherwise be decoded for as long as the file lasts.
struct Zstd {
    dec: ruzstd::frame_decoder::FrameDecoder,
    /// A frame is being decoded.
    active: bool,
    /// The frame being decoded ends with a checksum.
    checksum: bool,
    /// The file ended inside the current frame, which was ended there.
    cut: bool,
}

/// The length of the frame header (or whole skippable frame) at the start of `b`, as far as
/// `b` tells it: a longer answer once more bytes have come is possible only when `b` is shorter
/// than the answer. A magic that is neither needs 4 bytes (the decoder reads them and stops).
fn zstd_header_len(b: &[u8]) -> u64 {
    let Some(&[m0, m1, m2, m3]) = b.get(..4) else {
        return 4;
    };
    let magic = u32::from_le_bytes([m0, m1, m2, m3]);
    if magic & 0xffff_fff0 == 0x184d_2a50 {
        return match b.get(4..8) {
            Some(&[l0, l1, l2, l3]) => {
                8u64.saturating_add(u64::from(u32::from_le_bytes([l0, l1, l2, l3])))
            }
            _ => 8,
        };
    }
    if magic != u32::from_le_bytes(crate::container::ZSTD_MAGIC) {
        return 4;
    }
    let Some(&d) = b.get(4) else { return 5 };
    let single = u64::from(d & 0x20 != 0);
    let dict = match d & 3 {
        0 => 0,
        1 => 1,
        2 => 2,
        _ => 4,
    };
    let size = match d >> 6 {
        0 => single,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    5 + (1 - single) + dict + size
}

/// The length of the block at the start of `b` (its header, its content, and the frame's
/// checksum after a last block), as far as `b` tells it. A header the decoder refuses (a
/// reserved type, content over 128 KiB) is 3 bytes: it reads no more.
fn zstd_block_len(b: &[u8], checksum: bool) -> u64 {
    let Some(&[b0, b1, b2]) = b.get(..3) else {
        return 3;
    };
    let h = u32::from(b0) | (u32::from(b1) << 8) | (u32::from(b2) << 16);
    let size = u64::from(h >> 3);
    let content = match (h >> 1) & 3 {
        _ if size > 128 << 10 => return 3,
        0 | 2 => size,
        1 => 1,
        _ => return 3,
    };
    let sum = if h & 1 == 1 && checksum { 4 } else { 0 };
    3 + content + sum
}

impl Zstd {
    const NAME: &'static str = "zstd";

    fn step(
        &mut self,
        input: &[u8],
        at: u64,
        eof: bool,
        out: &mut Vec<u8>,
        map: &mut OffsetMap,
        produced: u64,
    ) -> Result<Step, Error> {
        use ruzstd::frame_decoder::{BlockDecodingStrategy, FrameDecoderError};
        let damaged = |off: u64| Error::new(ErrorKind::Container(Self::NAME), off);
        if self.cut && !self.active {
            return Err(cut_at(Self::NAME, at, input));
        }
        if self.active {
            // What the decoder has ready (all of it once the frame ends, else what lies
            // beyond its window).
            let start = room(out, at)?;
            let dst = out.get_mut(start..).unwrap_or(&mut []);
            let r = self.dec.read(dst);
            let made = r.as_ref().map_or(0, |&n| n.min(STEP_OUT));
            out.truncate(start.saturating_add(made));
            if r.is_err() {
                return Err(damaged(at));
            }
            if made > 0 {
                return Ok(Step::Go(0));
            }
            if self.dec.is_finished() || self.cut {
                self.active = false;
                return Ok(Step::Go(0));
            }
            // The next block's 3-byte header: bit 0 = last, bits 3.. = size.
            if let Some(&[b0, b1, b2]) = input.get(..3) {
                let h = u32::from(b0) | (u32::from(b1) << 8) | (u32::from(b2) << 16);
                if h & 1 == 0 && h >> 3 == 0 {
                    return Err(damaged(at));
                }
            }
            let need = zstd_block_len(input, self.checksum);
            let Some(block) = usize::try_from(need).ok().and_then(|n| input.get(..n)) else {
                if !eof {
                    return Ok(Step::Wait(need.saturating_sub(input.len() as u64)));
                }
                // The file ends inside this block (or the checksum): end the frame here with an
                // empty last block, so that every byte the whole blocks before the cut decoded
                // comes out before the cut is reported.
                self.cut = true;
                let _ = self
                    .dec
                    .decode_blocks(&END_FRAME[..], BlockDecodingStrategy::UptoBlocks(1));
                return Ok(Step::Go(input.len()));
            };
            let mut rest = block;
            let r = self
                .dec
                .decode_blocks(&mut rest, BlockDecodingStrategy::UptoBlocks(1));
            let used = block.len().saturating_sub(rest.len());
            return match r {
                Ok(_) => Ok(Step::Go(used)),
                Err(_) => Err(damaged(at.saturating_add(used as u64))),
            };
        }
        if input.is_empty() {
            return Ok(if eof { Step::End } else { Step::Wait(1) });
        }
        let need = zstd_header_len(input);
        let Some(header) = usize::try_from(need).ok().and_then(|n| input.get(..n)) else {
            if eof {
                return Err(cut_at(Self::NAME, at, input));
            }
            return Ok(Step::Wait(need.saturating_sub(input.len() as u64)));
        };
        let mut rest = header;
        match self.dec.init(&mut rest) {
            Ok(()) => {
                map.note(produced, at);
                self.active = true;
                self.checksum = header.get(4).is_some_and(|d| d & 4 != 0);
                Ok(Step::Go(header.len().saturating_sub(rest.len())))
            }
            Err(FrameDecoderError::ReadFrameHeaderError(
                ruzstd::frame::ReadFrameHeaderError::SkipFrame { .. },
            )) => Ok(Step::Go(header.len())),
            Err(_) => Err(damaged(at)),
        }
    }
}

enum Inner<'f> {
    Snappy {
        chunks: SnappyChunks<'f>,
        decoder: snap::raw::Decoder,
    },
    Stream(Box<StreamDecoder>),
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
            other => match StreamDecoder::new(other) {
                Some(d) => Inner::Stream(Box::new(d)),
                None => return Err(Error::new(ErrorKind::Container(other.name()), 0)),
            },
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
            inner: Inner::Snappy {
                chunks: SnappyChunks::empty(),
                decoder: snap::raw::Decoder::new(),
            },
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
        match &self.inner {
            Inner::Snappy { chunks, .. } => {
                (self.file.len() as u64).saturating_sub(chunks.rest_len() as u64)
            }
            Inner::Stream(d) => d.consumed(),
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
        match &mut self.inner {
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
                match chunk {
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
                }
            }
            // The whole file is there: the decoder reads it to its end.
            Inner::Stream(d) => {
                let rest = usize::try_from(d.consumed())
                    .ok()
                    .and_then(|at| self.file.get(at..))
                    .unwrap_or(&[]);
                d.fill(rest, true, out, &mut self.offsets)
            }
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
