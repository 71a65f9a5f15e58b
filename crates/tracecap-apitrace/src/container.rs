//! The container layer: which compression wraps the event stream, and the snappy chunk walk.
//!
//! Decompression itself needs the `std` feature (see `decompress`); detection and walking the
//! snappy chunk headers do not allocate.

use tracecap_wire::zerocopy::byteorder::{LittleEndian, U32};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind};

/// zstd frame magic, as bytes.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// The zstd seekable-format footer magic (last 4 bytes of a seekable file), as bytes.
pub const SEEKABLE_MAGIC: [u8; 4] = [0xb1, 0xea, 0x92, 0x8f];

/// The compression around the event stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// `at` + chunks of (u32 LE length, raw snappy block): the default since apitrace 2.0.
    Snappy,
    /// gzip (oldest traces; `repack -z` up to 12.x).
    Gzip,
    /// zstd frames ending with a seek table (upstream master `repack --zstd`).
    ZstdSeekable,
    /// zstd frames without a seek table (a seekable file whose writer died).
    Zstd,
    /// A raw brotli stream (no magic; `repack --brotli`).
    Brotli,
}

impl Container {
    /// Which container `file` is, from its first bytes (and last 4 bytes for zstd). Anything
    /// without a known magic is taken as brotli, which has none; decoding it then tells.
    pub fn detect(file: &[u8]) -> Result<Container, Error> {
        if file.len() < 4 {
            return Err(Error::new(ErrorKind::NotATrace("shorter than 4 bytes"), 0));
        }
        Ok(if file.starts_with(b"at") {
            Container::Snappy
        } else if file.starts_with(&[0x1f, 0x8b]) {
            Container::Gzip
        } else if file.starts_with(&ZSTD_MAGIC) {
            if file.ends_with(&SEEKABLE_MAGIC) {
                Container::ZstdSeekable
            } else {
                Container::Zstd
            }
        } else {
            Container::Brotli
        })
    }

    /// Lower-case name (`snappy`, `gzip`, `zstd-seekable`, `zstd`, `brotli`).
    pub fn name(self) -> &'static str {
        match self {
            Container::Snappy => "snappy",
            Container::Gzip => "gzip",
            Container::ZstdSeekable => "zstd-seekable",
            Container::Zstd => "zstd",
            Container::Brotli => "brotli",
        }
    }
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct ChunkHeader {
    compressed_len: U32<LittleEndian>,
}

/// One snappy chunk: a raw snappy block (its own varint length, then tags).
#[derive(Clone, Copy, Debug)]
pub struct SnappyChunk<'a> {
    /// File offset of the chunk's 4-byte length.
    pub offset: u64,
    /// The compressed block.
    pub block: &'a [u8],
}

impl SnappyChunk<'_> {
    /// The uncompressed length the block announces (its leading varint), and the varint's size.
    pub fn uncompressed_len(&self) -> Result<u64, Error> {
        let mut r = Reader::at(self.block, self.offset.saturating_add(4));
        r.uleb64()
            .map_err(|e| Error::new(ErrorKind::Container("snappy"), e.offset))
    }
}

/// Iterator over the chunks of a snappy container; fused after the first error. A chunk length
/// of 0 ends the data, like the end of the file.
#[derive(Clone, Debug)]
pub struct SnappyChunks<'a> {
    r: Reader<'a>,
    done: bool,
}

impl<'a> SnappyChunks<'a> {
    /// The chunks of `file`, which must start with `at`.
    pub fn new(file: &'a [u8]) -> Result<Self, Error> {
        let mut r = Reader::new(file);
        match r.bytes(2) {
            Ok(b"at") => Ok(SnappyChunks { r, done: false }),
            _ => Err(Error::new(ErrorKind::NotATrace("no 'at' magic"), 0)),
        }
    }
}

impl SnappyChunks<'_> {
    /// No chunks (a source that has failed).
    #[cfg(feature = "std")]
    pub(crate) fn empty() -> SnappyChunks<'static> {
        SnappyChunks {
            r: Reader::new(&[]),
            done: true,
        }
    }

    /// File bytes not yet walked.
    pub fn rest_len(&self) -> usize {
        self.r.remaining()
    }
}

impl<'a> Iterator for SnappyChunks<'a> {
    type Item = Result<SnappyChunk<'a>, Error>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.r.is_empty() {
            return None;
        }
        let offset = self.r.offset();
        let fail = |this: &mut Self, e: tracecap_wire::Error| {
            this.done = true;
            let kind = if e.is_truncation() {
                ErrorKind::ContainerTruncated("snappy")
            } else {
                ErrorKind::Container("snappy")
            };
            Some(Err(Error::new(kind, e.offset)))
        };
        let len = match self.r.view::<ChunkHeader>() {
            Ok(h) => h.compressed_len.get(),
            Err(e) => return fail(self, e),
        };
        if len == 0 {
            self.done = true;
            return None;
        }
        match self.r.bytes(len as usize) {
            Ok(block) => Some(Ok(SnappyChunk { offset, block })),
            Err(e) => fail(self, e),
        }
    }
}

impl core::iter::FusedIterator for SnappyChunks<'_> {}
