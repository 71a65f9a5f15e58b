//! Decompression of every container (feature `std`): whole-stream, or piece by piece through
//! [`ContainerSource`] for the chunked reader.

use std::boxed::Box;
use std::io::Read;
use std::vec::Vec;

use crate::chunked::ByteSource;
use crate::container::{Container, SnappyChunks};
use crate::error::{Error, ErrorKind};

/// Largest uncompressed size accepted for one snappy chunk. The tracer writes 1 MiB chunks; the
/// reader of upstream accepts more, so do we, within reason.
pub const MAX_SNAPPY_CHUNK: u64 = 64 << 20;

/// Bytes a streaming decoder (gzip, brotli, zstd) produces per [`ByteSource::fill`].
const PIECE: usize = 256 << 10;

/// A whole decompressed stream.
#[derive(Clone, Debug)]
pub struct Decompressed {
    /// The container it came from.
    pub container: Container,
    /// The event stream (everything that could be decompressed).
    pub data: Vec<u8>,
    /// Why decompression stopped early, if it did (a cut or damaged container). `data` then
    /// holds everything before the damage.
    pub fault: Option<Error>,
    /// (stream offset, file offset) of each snappy chunk or zstd frame, to map stream offsets
    /// back to the file (empty for gzip and brotli, whose blocks are not indexed).
    pub chunks: Vec<(u64, u64)>,
}

impl Decompressed {
    /// The file offset of the snappy chunk or zstd frame holding stream offset `at` (other
    /// containers: the start of the file).
    pub fn file_offset(&self, at: u64) -> u64 {
        self.chunk_offset(at).unwrap_or(0)
    }

    /// The file offset of the snappy chunk or zstd frame holding stream offset `at`; `None`
    /// for gzip and brotli (one compressed stream from the start of the file).
    pub fn chunk_offset(&self, at: u64) -> Option<u64> {
        match self.chunks.partition_point(|&(s, _)| s <= at) {
            0 => None,
            i => self.chunks.get(i - 1).map(|&(_, f)| f),
        }
    }

    /// What the pieces [`Decompressed::chunk_offset`] finds are called in this container:
    /// `chunk` (snappy), `frame` (zstd) or `stream` (one stream: gzip, brotli).
    pub fn piece_name(&self) -> &'static str {
        match self.container {
            Container::Snappy => "chunk",
            Container::Zstd | Container::ZstdSeekable => "frame",
            Container::Gzip | Container::Brotli => "stream",
        }
    }
}

/// Decompresses the whole of `file` (any container) in one go.
///
/// Fails only when `file` is too short to be a trace; damage inside the container is reported
/// in [`Decompressed::fault`] next to everything decoded before it.
pub fn decompress(file: &[u8]) -> Result<Decompressed, Error> {
    decompress_limited(file, u64::MAX)
}

/// Like [`decompress`], but stops with a fault once the stream exceeds `limit` bytes (a
/// decompression bomb: a few KiB of zstd or brotli can claim gigabytes). Use
/// [`crate::ChunkedReader`] to read huge traces in constant memory instead.
pub fn decompress_limited(file: &[u8], limit: u64) -> Result<Decompressed, Error> {
    let mut src = ContainerSource::new(file)?;
    let mut data = Vec::new();
    let mut chunks = Vec::new();
    src.take_frames(&mut chunks);
    let fault = loop {
        let before = data.len() as u64;
        let chunk_at = src.next_chunk_offset();
        let r = src.fill(&mut data);
        src.take_frames(&mut chunks);
        match r {
            Ok(0) => break None,
            Ok(_) => {
                if let Some(off) = chunk_at {
                    chunks.push((before, off));
                }
                if data.len() as u64 > limit {
                    break Some(Error::file(ErrorKind::StreamLimit(limit), src.consumed()));
                }
            }
            Err(e) => break Some(e),
        }
    };
    Ok(Decompressed {
        container: src.container(),
        data,
        fault,
        chunks,
    })
}

/// A reader over several concatenated zstd frames, skipping skippable frames (the seek table).
/// It notes where each frame starts: (stream offset, file offset).
struct ZstdFrames<'f> {
    input: &'f [u8],
    file_len: usize,
    dec: Option<ruzstd::StreamingDecoder<&'f [u8], ruzstd::FrameDecoder>>,
    produced: u64,
    /// Frame starts, noted only when asked for (streaming keeps constant memory).
    record: bool,
    frames: Vec<(u64, u64)>,
}

impl Read for ZstdFrames<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if let Some(d) = self.dec.as_mut() {
                let n = d.read(buf)?;
                if n > 0 || buf.is_empty() {
                    self.produced = self.produced.saturating_add(n as u64);
                    return Ok(n);
                }
                self.input = d.get_ref();
                self.dec = None;
            }
            if self.input.is_empty() {
                return Ok(0);
            }
            let at = self.file_len.saturating_sub(self.input.len()) as u64;
            match ruzstd::StreamingDecoder::new(self.input) {
                Ok(d) => {
                    if self.record {
                        self.frames.push((self.produced, at));
                    }
                    self.dec = Some(d);
                }
                Err(ruzstd::frame_decoder::FrameDecoderError::ReadFrameHeaderError(
                    ruzstd::frame::ReadFrameHeaderError::SkipFrame { length, .. },
                )) => {
                    let skip = 8usize.saturating_add(length as usize);
                    match self.input.get(skip..) {
                        Some(rest) => self.input = rest,
                        None => {
                            return Err(std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                "skippable frame cut short",
                            ))
                        }
                    }
                }
                Err(e) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        std::format!("{e:?}"),
                    ))
                }
            }
        }
    }
}

enum Inner<'f> {
    Snappy {
        chunks: SnappyChunks<'f>,
        decoder: snap::raw::Decoder,
    },
    Gzip(Box<flate2::read::MultiGzDecoder<&'f [u8]>>),
    Brotli(Box<brotli_decompressor::Decompressor<&'f [u8]>>),
    Zstd(Box<ZstdFrames<'f>>),
}

/// The decompressed stream of a file, produced piece by piece (a snappy chunk, or 256 KiB of a
/// gzip/brotli/zstd stream, per [`ByteSource::fill`]).
pub struct ContainerSource<'f> {
    container: Container,
    file: &'f [u8],
    inner: Inner<'f>,
    done: bool,
    pending: Option<Error>,
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
            Container::Brotli => {
                Inner::Brotli(Box::new(brotli_decompressor::Decompressor::new(file, 4096)))
            }
            Container::Zstd | Container::ZstdSeekable => Inner::Zstd(Box::new(ZstdFrames {
                input: file,
                file_len: file.len(),
                dec: None,
                produced: 0,
                record: false,
                frames: Vec::new(),
            })),
        };
        Ok(ContainerSource {
            container,
            file,
            inner,
            done: false,
            pending: None,
        })
    }

    /// The container.
    pub fn container(&self) -> Container {
        self.container
    }

    /// For snappy, the file offset of the chunk the next fill decodes.
    fn next_chunk_offset(&self) -> Option<u64> {
        match &self.inner {
            Inner::Snappy { chunks, .. } => {
                chunks.clone().next().and_then(|c| c.ok()).map(|c| c.offset)
            }
            _ => None,
        }
    }

    /// Moves the zstd frame starts noted since the last call to `out` (and notes them from now
    /// on).
    fn take_frames(&mut self, out: &mut Vec<(u64, u64)>) {
        if let Inner::Zstd(z) = &mut self.inner {
            z.record = true;
            out.append(&mut z.frames);
        }
    }

    fn consumed(&self) -> u64 {
        let rest = match &self.inner {
            Inner::Snappy { chunks, .. } => chunks.rest_len(),
            Inner::Gzip(d) => d.get_ref().len(),
            Inner::Brotli(d) => d.get_ref().len(),
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
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done {
            return Ok(0);
        }
        let name = self.container.name();
        let r = match &mut self.inner {
            Inner::Snappy { chunks, decoder } => {
                let chunk = match chunks.next() {
                    None => {
                        self.done = true;
                        return Ok(0);
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        return Err(match e.kind {
                            ErrorKind::Truncated { .. } => {
                                Error::file(ErrorKind::ContainerTruncated("snappy"), e.offset)
                            }
                            _ => e,
                        });
                    }
                    Some(Ok(c)) => c,
                };
                let len = match chunk.uncompressed_len() {
                    Ok(n) if n <= MAX_SNAPPY_CHUNK => n as usize,
                    Ok(n) => {
                        self.done = true;
                        return Err(Error::file(ErrorKind::ImplausibleChunk(n), chunk.offset));
                    }
                    Err(e) => {
                        self.done = true;
                        return Err(e);
                    }
                };
                // A snappy block expands at most ~21x (a 64-byte copy from a 3-byte tag).
                if len as u64
                    > (chunk.block.len() as u64)
                        .saturating_mul(24)
                        .saturating_add(64)
                {
                    self.done = true;
                    return Err(Error::file(
                        ErrorKind::ImplausibleChunk(len as u64),
                        chunk.offset,
                    ));
                }
                let start = out.len();
                out.resize(start.saturating_add(len), 0);
                let dst = out.get_mut(start..).unwrap_or(&mut []);
                match decoder.decompress(chunk.block, dst) {
                    Ok(n) => {
                        out.truncate(start + n);
                        return Ok(n);
                    }
                    Err(_) => {
                        out.truncate(start);
                        self.done = true;
                        return Err(Error::file(ErrorKind::Container("snappy"), chunk.offset));
                    }
                }
            }
            Inner::Gzip(d) => Self::read_piece(d, out, name),
            Inner::Brotli(d) => Self::read_piece(d, out, name),
            Inner::Zstd(d) => Self::read_piece(d, out, name),
        };
        let (n, fault) = r;
        let fault = fault.map(|(kind, at_end)| {
            let off = if at_end {
                self.file.len() as u64
            } else {
                self.consumed()
            };
            Error::file(kind, off)
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

/// True when `file` looks like an apitrace trace: a known container (or a brotli stream) whose
/// first decompressed bytes are a valid header followed by an event byte (or nothing yet).
pub fn is_apitrace(file: &[u8]) -> bool {
    let Ok(mut src) = ContainerSource::new(file) else {
        return false;
    };
    let mut head = Vec::new();
    while head.len() < 4096 {
        match src.fill(&mut head) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    if head.is_empty() {
        return false;
    }
    let mut r = tracecap_wire::Reader::new(&head);
    match crate::header::Header::parse(&mut r) {
        Ok(h) => {
            h.semantic_version <= h.version && matches!(r.rest().first(), None | Some(0) | Some(1))
        }
        Err(e) => e.is_truncation() && head.len() < 4096,
    }
}
