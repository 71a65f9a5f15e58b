//! The chunked container (format 10): the 12-byte prologue, then self-delimiting chunks, each with
//! a part table whose offsets count from the end of the table.

use tracecap_wire::{Context, Reader};
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::error::{Error, ErrorKind};

/// Chunk type of the file-header chunk.
pub const CHUNK_FILE_HEADER: u32 = 1;
/// Chunk type of an event-data chunk.
pub const CHUNK_EVENT_DATA: u32 = 2;

/// Part type of the file-header JSON.
pub const PART_FILE_HEADER: u32 = 0x10000;
/// Part type of a JSON event buffer (never in binary files; skipped).
pub const PART_JSON_EVENTS: u32 = 0x20000;
/// Part type of a legacy event buffer (in-memory only; skipped).
pub const PART_LEGACY_EVENTS: u32 = 0x20001;
/// Part type of a binary event buffer.
pub const PART_BINARY_EVENTS: u32 = 0x20002;
/// Part type of a string table.
pub const PART_STRING_TABLE: u32 = 0x30000;
/// Part type of a binary resource.
pub const PART_BINARY_RESOURCE: u32 = 0x40000;
/// Part type of a string resource.
pub const PART_STRING_RESOURCE: u32 = 0x40001;

/// The 24-byte chunk header as it sits in the file.
#[derive(Clone, Copy, Debug, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawChunkHeader {
    /// Chunk id (neither unique nor ordered).
    pub id: U32,
    /// Chunk type.
    pub kind: U32,
    /// Length in bytes including this header.
    pub length: U32,
    /// Start time (µs) or `0xFFFFFFFF`.
    pub start_time: U32,
    /// End time (µs) or `0xFFFFFFFF`.
    pub end_time: U32,
    /// Number of parts.
    pub part_count: U32,
}

/// One entry of a chunk's part table.
#[derive(Clone, Copy, Debug, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawPartEntry {
    /// Part type.
    pub kind: U32,
    /// Offset from the end of the part table.
    pub offset: U32,
    /// Unpadded length.
    pub length: U32,
}

/// A chunk: its header fields and its part table, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    /// Absolute offset of the chunk header.
    pub offset: u64,
    /// Chunk id (not unique: never use it as a key).
    pub id: u32,
    /// Chunk type ([`CHUNK_FILE_HEADER`], [`CHUNK_EVENT_DATA`], or unknown).
    pub kind: u32,
    /// Start time (µs) or `0xFFFFFFFF` for "invalid".
    pub start_time: u32,
    /// End time (µs) or `0xFFFFFFFF`.
    pub end_time: u32,
    table: &'a [RawPartEntry],
    body: &'a [u8],
    body_offset: u64,
    /// The declared length of the body (past the part table); more than `body.len()` in a cut
    /// chunk.
    body_len: u64,
}

/// A part of a chunk.
#[derive(Clone, Copy, Debug)]
pub struct Part<'a> {
    /// Part type.
    pub kind: u32,
    /// Absolute offset of the part body.
    pub offset: u64,
    /// The body (unpadded).
    pub data: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// Number of parts.
    pub fn part_count(&self) -> usize {
        self.table.len()
    }

    /// Whether the file ends inside this chunk: its header and part table are whole, the rest
    /// is cut short. [`Chunks`] yields such a chunk and then the truncation as an error.
    pub fn is_cut(&self) -> bool {
        (self.body.len() as u64) < self.body_len
    }

    /// Absolute offset of the end of the chunk's bytes in the file: the end of the chunk, or the
    /// end of the file in a cut chunk.
    pub fn end_of_data(&self) -> u64 {
        self.body_offset.saturating_add(self.body.len() as u64)
    }

    /// The chunk's body (its parts, past the part table; up to the end of the file in a cut
    /// chunk), which holds its events and string table.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Absolute offset of [`Chunk::body`].
    pub fn body_offset(&self) -> u64 {
        self.body_offset
    }

    #[cfg(feature = "alloc")]
    /// Absolute offset of the end of the chunk as its header declares it.
    pub(crate) fn declared_end(&self) -> u64 {
        self.body_offset.saturating_add(self.body_len)
    }

    /// The parts in table order; each is checked against the chunk bounds. In a cut chunk (see
    /// [`Chunk::is_cut`]), a part that lies within the chunk but reaches past the end of the file
    /// is a truncation error at the part's offset.
    pub fn parts(&self) -> impl Iterator<Item = Result<Part<'a>, Error>> + 'a {
        let this = *self;
        (0..self.table.len()).map(move |i| match this.part_at(i) {
            Ok((part, true)) => Ok(part),
            Ok((part, false)) => Err(Error::truncated(
                "part",
                part.offset,
                this.table.get(i).map_or(0, |e| u64::from(e.length.get())),
                part.data.len() as u64,
            )),
            Err(e) => Err(e),
        })
    }

    /// The part of table entry `i`, and whether it is whole; a part cut by the end of the file
    /// holds the bytes that are there.
    pub(crate) fn part_at(&self, i: usize) -> Result<(Part<'a>, bool), Error> {
        let base = self.body_offset;
        let table_off = base.saturating_sub((self.table.len() as u64).saturating_mul(12));
        let entry_off = table_off.saturating_add((i as u64).saturating_mul(12));
        let Some(e) = self.table.get(i) else {
            return Err(Error::truncated("part table", entry_off, 12, 0));
        };
        let (off, len) = (e.offset.get(), e.length.get());
        let end = u64::from(off).saturating_add(u64::from(len));
        if end > self.body_len {
            return Err(Error::new(
                ErrorKind::PartOutOfChunk {
                    offset: off,
                    length: len,
                },
                entry_off,
            ));
        }
        let start = (off as usize).min(self.body.len());
        let stop = usize::try_from(end)
            .unwrap_or(usize::MAX)
            .min(self.body.len());
        let data = self.body.get(start..stop).unwrap_or(&[]);
        let whole = data.len() as u64 == u64::from(len);
        Ok((
            Part {
                kind: e.kind.get(),
                offset: base.saturating_add(u64::from(off)),
                data,
            },
            whole,
        ))
    }

    /// The resource parts (`0x40000` binary, `0x40001` string), numbered 0, 1, ... in part order
    /// as events would reference them. The official loader never reads them.
    pub fn resources(&self) -> impl Iterator<Item = Result<(usize, Part<'a>), Error>> + 'a {
        self.parts()
            .filter(|p| {
                p.as_ref().map_or(true, |p| {
                    p.kind == PART_BINARY_RESOURCE || p.kind == PART_STRING_RESOURCE
                })
            })
            .enumerate()
            .map(|(i, p)| p.map(|p| (i, p)))
    }

    /// The first part of type `kind`, if any.
    pub fn part(&self, kind: u32) -> Result<Option<Part<'a>>, Error> {
        for p in self.parts() {
            let p = p?;
            if p.kind == kind {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }
}

/// Length of the prologue (magic, WTF version, format version), the bytes before the first chunk.
pub const PROLOGUE_LEN: usize = 12;

/// Iterator over the chunks after the prologue. Fused after the first error.
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    r: Reader<'a>,
    done: bool,
    /// The truncation of the cut chunk just yielded, given next.
    cut: Option<Error>,
}

impl<'a> Chunks<'a> {
    /// Chunks of a whole chunked file (`data` starts with the prologue).
    pub fn new(data: &'a [u8]) -> Self {
        let mut r = Reader::new(data);
        let done = r.skip(PROLOGUE_LEN).is_err();
        Chunks { r, done, cut: None }
    }

    #[cfg(feature = "alloc")]
    /// Chunks from the front of `data`, which starts at absolute offset `offset` (past the
    /// prologue).
    pub(crate) fn at(data: &'a [u8], offset: u64) -> Self {
        Chunks {
            r: Reader::at(data, offset),
            done: false,
            cut: None,
        }
    }

    /// Absolute offset of the next chunk.
    pub fn offset(&self) -> u64 {
        self.r.offset()
    }

    fn read(&mut self) -> Result<Chunk<'a>, Error> {
        let start = self.r.offset();
        let mut peek = self.r;
        let h: &RawChunkHeader = peek.view().what("chunk header")?;
        let length = h.length.get();
        let parts = h.part_count.get();
        let min = 24u64.saturating_add(u64::from(parts).saturating_mul(12));
        if u64::from(length) < min || length % 4 != 0 {
            return Err(Error::new(
                ErrorKind::BadChunkLength(length),
                start.saturating_add(8),
            ));
        }
        let mut c = match self.r.sub(u64::from(length)) {
            Ok(c) => c,
            Err(e) => {
                // Cut: the chunk is read up to the end of the file when its header and part
                // table are whole; the truncation comes next.
                let cut = Error::from(e).what("chunk");
                let rest = self.r.take_rest();
                if u64::try_from(rest.len()).unwrap_or(u64::MAX) < min {
                    return Err(cut);
                }
                self.cut = Some(cut);
                Reader::at(rest, start)
            }
        };
        let _ = c.skip(24);
        let table_bytes = c.bytes_u64(min - 24).what("part table")?;
        let table = <[RawPartEntry]>::ref_from_bytes(table_bytes)
            .map_err(|_| Error::new(ErrorKind::BadChunkLength(length), start.saturating_add(8)))?;
        let body_offset = c.offset();
        let body = c.take_rest();
        Ok(Chunk {
            offset: start,
            id: h.id.get(),
            kind: h.kind.get(),
            start_time: h.start_time.get(),
            end_time: h.end_time.get(),
            table,
            body,
            body_offset,
            body_len: u64::from(length) - min,
        })
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.cut.take() {
            self.done = true;
            return Some(Err(e));
        }
        if self.done || self.r.is_empty() {
            return None;
        }
        let r = self.read();
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }
}

impl core::iter::FusedIterator for Chunks<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_found_by_type_and_resources_numbered() {
        // prologue + one chunk with 3 parts: string resource, binary resource, string table.
        let mut f = Vec::new();
        for w in [
            0xDEAD_BEEFu32,
            0,
            10,
            7,
            CHUNK_EVENT_DATA,
            24 + 36 + 12,
            0,
            0,
            3,
        ] {
            f.extend_from_slice(&w.to_le_bytes());
        }
        for (k, o, l) in [
            (PART_STRING_RESOURCE, 0u32, 3u32),
            (PART_BINARY_RESOURCE, 4, 2),
            (PART_STRING_TABLE, 8, 2),
        ] {
            for w in [k, o, l] {
                f.extend_from_slice(&w.to_le_bytes());
            }
        }
        f.extend_from_slice(b"abc\0\x01\x02\0\0z\0\0\0");
        let c = Chunks::new(&f).next().unwrap().unwrap(); // ok: unit test
        assert_eq!(c.id, 7);
        let res: Vec<_> = c.resources().map(|r| r.unwrap()).collect(); // ok: unit test
        assert_eq!(res.len(), 2);
        assert_eq!((res[1].0, res[1].1.data), (1, &[1u8, 2][..]));
        assert_eq!(c.part(PART_STRING_TABLE).unwrap().unwrap().data, b"z\0"); // ok: unit test

        // A part reaching past its chunk is an error at its table entry.
        let mut bad = f.clone();
        bad[12 + 24 + 8..12 + 24 + 12].copy_from_slice(&100u32.to_le_bytes());
        let c = Chunks::new(&bad).next().unwrap().unwrap(); // ok: unit test
        let e = c.parts().next().unwrap().unwrap_err(); // ok: unit test
        assert_eq!(e.offset, 12 + 24);
    }
}
