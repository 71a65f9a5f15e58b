//! Decompression of a whole file of any container (feature `std`), through the chunked reader
//! over a [`ContainerSource`]; and the recognition of an apitrace file.

use std::vec::Vec;

use crate::chunked::ChunkedReader;
use crate::container::Container;
use crate::error::{Error, ErrorKind, Space};
use crate::source::{ByteSource, ContainerSource, OffsetMap, MAX_SNAPPY_BLOCK, MAX_SNAPPY_CHUNK};
use crate::table::SigTable;

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
    /// Where each snappy chunk or zstd frame starts, in the stream and in the file: every one
    /// decoded (the map of the [`ContainerSource`] that decoded them), to map stream offsets
    /// back to the file. Empty for gzip and brotli, whose blocks are not indexed.
    pub offsets: OffsetMap,
}

impl Decompressed {
    /// The file offset of the snappy chunk or zstd frame holding stream offset `at` (other
    /// containers: the start of the file). See [`OffsetMap::file_offset`].
    pub fn file_offset(&self, at: u64) -> u64 {
        self.offsets.file_offset(at)
    }

    /// The file offset of the snappy chunk or zstd frame holding stream offset `at`; `None`
    /// for gzip and brotli (one compressed stream from the start of the file). See
    /// [`OffsetMap::chunk_offset`].
    pub fn chunk_offset(&self, at: u64) -> Option<u64> {
        self.offsets.chunk_offset(at)
    }

    /// The file offset of error `e`: its own for a fault of the container, else (a fault of
    /// the stream) the file offset of the snappy chunk or zstd frame holding it, or 0 (the
    /// start of the one compressed stream of gzip and brotli). See [`OffsetMap::error_offset`].
    pub fn error_offset(&self, e: &Error) -> u64 {
        self.offsets.error_offset(e)
    }

    /// What starts at [`Decompressed::file_offset`]`(at)`: the snappy `chunk` or zstd `frame`
    /// holding stream offset `at`, else the whole compressed `stream`.
    pub fn piece_at(&self, at: u64) -> &'static str {
        match self.chunk_offset(at) {
            Some(_) => self.piece_name(),
            None => "stream",
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
/// in [`Decompressed::fault`] next to everything decoded before it: every whole snappy chunk and
/// the bytes of the elements of a cut or damaged one before the cut or the bad element; what
/// the gzip or brotli decoder gives; every whole block of a zstd frame cut short. A file cut
/// anywhere decompresses to a prefix of the whole file's stream.
pub fn decompress(file: &[u8]) -> Result<Decompressed, Error> {
    decompress_limited(file, u64::MAX)
}

/// Like [`decompress`], but stops with a fault once the stream exceeds `limit` bytes (a
/// decompression bomb: a few KiB of zstd or brotli can claim gigabytes). Use
/// [`crate::ChunkedReader`] to read huge traces in constant memory instead.
///
/// Decompression goes only as far as the stream parses: the events are read as the pieces come
/// (through a [`ChunkedReader`] with its default window limit), and decompression stops at the
/// first piece holding a fault of the stream. `data` then ends a little past that fault (so that
/// walking `data` meets it), and garbage behind it is never decompressed. An event larger than
/// the window limit stops decompression too, with that fault in [`Decompressed::fault`].
pub fn decompress_limited(file: &[u8], limit: u64) -> Result<Decompressed, Error> {
    // Every piece is kept: `Decompressed` maps any offset of the stream it holds (the `Tee`
    // releases nothing).
    let src = ContainerSource::new(file)?.with_offset_window(u64::MAX);
    let container = src.container();
    let mut reader = ChunkedReader::new(
        Tee {
            src,
            data: Vec::new(),
            limit,
        },
        SigTable::new(),
    );
    let end = reader.try_for_each_parsed(|_| Ok(()));
    let tee = reader.into_source();
    let fault = match end {
        // Container faults, the stream limit and events past the window: walking `data`
        // (which ends there) meets a cut stream, explained by this fault.
        Err(e) if e.kind.space() == Space::File || matches!(e.kind, ErrorKind::WindowLimit(_)) => {
            Some(e)
        }
        // A fault of the stream itself: `data` holds it, walking it finds it.
        _ => None,
    };
    Ok(Decompressed {
        container,
        data: tee.data,
        fault,
        offsets: tee.src.into_offsets(),
    })
}

/// The container source, keeping a copy of every piece it hands to the chunked reader.
struct Tee<'f> {
    src: ContainerSource<'f>,
    data: Vec<u8>,
    limit: u64,
}

impl ByteSource for Tee<'_> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if self.data.len() as u64 > self.limit {
            return Err(Error::new(
                ErrorKind::StreamLimit(self.limit),
                self.src.consumed(),
            ));
        }
        let before = self.data.len() as u64;
        let start = out.len();
        let r = self.src.fill(out);
        let piece = out.get(start..).unwrap_or(&[]);
        if !piece.is_empty() {
            if self.data.try_reserve(piece.len()).is_err() {
                return Err(Error::new(
                    ErrorKind::OutOfMemory(before.saturating_add(piece.len() as u64)),
                    self.src.consumed(),
                ));
            }
            self.data.extend_from_slice(piece);
        }
        r
    }
}

/// True when `file` looks like an apitrace trace.
///
/// Snappy, gzip and zstd need their magic and a plausible container header: for snappy, a whole
/// first chunk length within what the writer can make, an uncompressed length within
/// [`MAX_SNAPPY_CHUNK`] and a literal as the first element; for gzip, the deflate method and no
/// reserved flag; for zstd, the frame header's reserved bit clear. Brotli has no magic (anything
/// else is tried as brotli): its stream must use the 16 MiB window apitrace writes with and
/// start with a compressed meta-block. Whatever the first 4 KiB decompress to must then start
/// with a valid stream header (and an event byte). When nothing decompresses (a file cut inside
/// its first chunk or block), the container header decides; for brotli, the whole file (at
/// least 256 bytes) must also be a valid start of a brotli stream (cut short, not damaged).
pub fn detect(file: &[u8]) -> bool {
    let Ok(container) = Container::detect(file) else {
        return false;
    };
    if !container_signature(file, container) {
        return false;
    }
    // A snappy chunk starts with a literal, which is the start of the stream as it is: when it
    // holds a whole valid header and an event byte, the chunk need not be decompressed (what
    // follows cannot change the answer). Otherwise the chunk decides.
    let by_literal = container == Container::Snappy
        && first_snappy_literal(file)
            .is_some_and(|lit| stream_start_is_valid(lit, true) == Some(true));
    by_literal || head_is_valid(file, container)
}

/// The part of [`detect`] that decompresses: whether the first 4 KiB of the stream (or the
/// container header, when nothing decompresses) look like a trace.
fn head_is_valid(file: &[u8], container: Container) -> bool {
    let Ok(mut src) = ContainerSource::new(file) else {
        return false;
    };
    let mut head = Vec::new();
    let mut cut = false;
    while head.len() < 4096 {
        match src.fill(&mut head) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                cut = matches!(e.kind, ErrorKind::ContainerTruncated(_));
                break;
            }
        }
    }
    if head.is_empty() {
        return match container {
            Container::Brotli => cut && file.len() >= MIN_CUT_BROTLI,
            _ => true,
        };
    }
    stream_start_is_valid(&head, false).unwrap_or(head.len() < 4096)
}

/// Whether the stream that starts with `head` begins with a valid header, then an event byte or
/// its end. `None` when `head` is too short to tell: it ends inside the header, or right after
/// it while the stream may go on (`more`).
fn stream_start_is_valid(head: &[u8], more: bool) -> Option<bool> {
    let mut r = tracecap_wire::Reader::new(head);
    match crate::header::Header::parse(&mut r) {
        Ok(h) => match r.rest().first() {
            None if more => None,
            next => {
                Some(h.semantic_version <= h.version && matches!(next, None | Some(0) | Some(1)))
            }
        },
        Err(e) if e.is_truncation() => None,
        Err(_) => Some(false),
    }
}

/// The bytes of the literal that starts the first snappy chunk of `file`, as far as the file
/// holds them (the chunk's 4-byte length, the block's varint length, then a literal tag: its
/// length in the tag's upper six bits, or in the 1 to 4 bytes after it).
fn first_snappy_literal(file: &[u8]) -> Option<&[u8]> {
    let mut r = tracecap_wire::Reader::new(file.get(6..)?);
    r.uleb64().ok()?;
    let rest = r.rest();
    let (&tag, rest) = rest.split_first()?;
    if tag & 3 != 0 {
        return None;
    }
    let code = usize::from(tag >> 2);
    let (len, data) = if code < 60 {
        (code + 1, rest)
    } else {
        let extra = code - 59;
        let bytes = rest.get(..extra)?;
        let len = bytes
            .iter()
            .rev()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len.checked_add(1)?, rest.get(extra..)?)
    };
    data.get(..len.min(data.len()))
}

/// The checks of [`detect`] on the container header (the magic is already known).
fn container_signature(file: &[u8], container: Container) -> bool {
    match container {
        Container::Snappy => {
            // The first chunk's length, as far as the file holds it.
            let Some(len_bytes) = file.get(2..6) else {
                return false;
            };
            let len = len_bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            if len == 0 || len > MAX_SNAPPY_BLOCK {
                return false;
            }
            let block = file.get(6..).unwrap_or(&[]);
            let mut r = tracecap_wire::Reader::new(block);
            match r.uleb64() {
                Ok(n) => {
                    n > 0
                        && n <= MAX_SNAPPY_CHUNK
                        && n <= len.saturating_mul(24).saturating_add(64)
                        && r.rest().first().is_none_or(|tag| tag & 3 == 0)
                }
                // Cut inside the varint (a malformed one is not snappy).
                Err(e) => matches!(e.kind, tracecap_wire::ErrorKind::Truncated { .. }),
            }
        }
        // Compression method 8 (deflate), reserved flag bits clear.
        Container::Gzip => file.get(2) == Some(&8) && file.get(3).is_some_and(|f| f & 0xe0 == 0),
        // The frame header descriptor's reserved bit clear.
        Container::Zstd | Container::ZstdSeekable => file.get(4).is_none_or(|d| d & 0x08 == 0),
        Container::Brotli => brotli_start(file),
    }
}

/// Shortest brotli file taken as a cut trace when nothing of it decompresses.
const MIN_CUT_BROTLI: usize = 256;

/// True when `file` starts like the brotli streams apitrace writes: a 16 MiB window (WBITS 24),
/// and a first meta-block that is neither empty, nor metadata, nor stored uncompressed.
fn brotli_start(file: &[u8]) -> bool {
    // Bits are read from the least significant bit of each byte on.
    let mut at = 0usize;
    let mut bits = |n: usize| -> Option<u32> {
        let mut v = 0u32;
        for i in 0..n {
            let byte = file.get(at / 8)?;
            v |= u32::from((byte >> (at % 8)) & 1) << i;
            at += 1;
        }
        Some(v)
    };
    // WBITS: 1, then 7 (17 + 7 = 24).
    if bits(4) != Some(0x0f) {
        return false;
    }
    let Some(last) = bits(1) else { return true };
    if last == 1 && bits(1).is_some_and(|empty| empty == 1) {
        return false;
    }
    let nibbles = match bits(2) {
        None => return true,
        Some(3) => return false,
        Some(n) => 4 + n as usize,
    };
    if bits(nibbles * 4).is_none() {
        return true;
    }
    // ISUNCOMPRESSED (only when not the last meta-block).
    last == 1 || bits(1).is_none_or(|stored| stored == 0)
}

#[cfg(all(test, feature = "write"))]
mod tests {
    use super::*;
    use crate::write::{self, WDetail, WValue, Writer};
    use proptest::prelude::*;

    /// A small snappy trace: a header with properties, then a few calls.
    fn snappy_trace() -> Vec<u8> {
        let mut w = Writer::new(6, 6, &[(b"process.name", b"detect")]);
        w.function(3, b"glClear", &[b"mask"]);
        for i in 0..200u64 {
            let no = w.enter(0, 3, &[WDetail::Arg(0, WValue::UInt(i))]);
            w.leave(no, &[]);
        }
        write::snappy(&w.finish(), 1 << 20)
    }

    /// What [`detect`] answers when the first chunk is always decompressed.
    fn detect_by_decoding(file: &[u8]) -> bool {
        Container::detect(file)
            .is_ok_and(|c| container_signature(file, c) && head_is_valid(file, c))
    }

    #[test]
    fn a_snappy_trace_is_told_by_its_first_literal() {
        let file = snappy_trace();
        let lit = first_snappy_literal(&file).expect("a literal first"); // ok: test code, a failure is the test failing
        assert_eq!(stream_start_is_valid(lit, true), Some(true));
        assert!(detect(&file));
    }

    /// A snappy trace whose first chunk is two literals: the stream's header, then `next`.
    fn header_then(next: u8) -> Vec<u8> {
        let stream = Writer::new(6, 6, &[(b"process.name", b"detect")]).finish();
        let mut r = tracecap_wire::Reader::new(&stream);
        crate::header::Header::parse(&mut r).expect("a header"); // ok: test code, a failure is the test failing
        let header = stream
            .get(..stream.len() - r.rest().len())
            .expect("in the stream"); // ok: test code, a failure is the test failing
        assert!((1..=60).contains(&header.len()));
        let mut block = vec![header.len() as u8 + 1, (header.len() as u8 - 1) << 2];
        block.extend_from_slice(header);
        block.extend_from_slice(&[0, next]);
        let mut file = b"at".to_vec();
        file.extend_from_slice(&(block.len() as u32).to_le_bytes());
        file.extend_from_slice(&block);
        file
    }

    #[test]
    fn a_literal_that_ends_with_the_header_leaves_the_answer_to_the_chunk() {
        // The byte after the header is in the next literal: 5 is no event, 0 is one.
        assert!(!detect(&header_then(5)));
        assert!(detect(&header_then(0)));
    }

    proptest! {
        /// Reading the first literal only never changes the answer: a trace with any byte of
        /// its start changed, cut anywhere, is told apart as decompressing its chunk tells.
        #[test]
        fn the_first_literal_answers_as_decompressing_does(
            at in 0usize..48,
            byte in any::<u8>(),
            cut in 0usize..4096,
        ) {
            let mut file = snappy_trace();
            if let Some(b) = file.get_mut(at) {
                *b = byte;
            }
            file.truncate(cut.max(1));
            prop_assert_eq!(detect(&file), detect_by_decoding(&file));
        }
    }
}
