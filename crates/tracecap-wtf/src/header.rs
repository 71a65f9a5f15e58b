//! The 12-byte prologue shared by both formats, the chunked file-header part, and the legacy
//! (format 3) header.

use tracecap_wire::{Context, Reader};
use zerocopy::{big_endian, little_endian};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::chunk::{Chunks, CHUNK_FILE_HEADER, PART_FILE_HEADER, PROLOGUE_LEN};
use crate::error::{Error, ErrorKind};
use crate::value::{read_legacy_utf8, Str};

/// The chunked format's version.
pub const CHUNKED_VERSION: u32 = 10;
/// The legacy format's version.
pub const LEGACY_VERSION: u32 = 3;
/// Magic word, as a `u32` in the file's byte order.
pub const MAGIC: u32 = 0xDEAD_BEEF;

/// File flag: times are high resolution.
pub const FLAG_HIGH_RESOLUTION_TIMES: u32 = 1;
/// File flag: times are counts, not microseconds.
pub const FLAG_TIMES_AS_COUNT: u32 = 2;

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct PrologueLe {
    magic: little_endian::U32,
    wtf_version: little_endian::U32,
    format_version: little_endian::U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct PrologueBe {
    magic: big_endian::U32,
    wtf_version: big_endian::U32,
    format_version: big_endian::U32,
}

/// Which container a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Chunked file format (version 10), little-endian.
    Chunked,
    /// Legacy unchunked format (version 3), big-endian.
    Legacy,
}

/// True when `bytes` start like a `.wtf-trace` file of either format (magic and a supported
/// version).
pub fn detect(bytes: &[u8]) -> bool {
    matches!(
        bytes.get(..PROLOGUE_LEN),
        Some([0xEF, 0xBE, 0xAD, 0xDE, _, _, _, _, 10, 0, 0, 0])
            | Some([0xDE, 0xAD, 0xBE, 0xEF, _, _, _, _, 0, 0, 0, 3])
    )
}

/// The legacy header fields that follow the prologue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyHeader<'a> {
    /// Context information JSON text (`None` when the string is null).
    pub context_info: Str<'a>,
    /// File flags bitmask ([`FLAG_HIGH_RESOLUTION_TIMES`], [`FLAG_TIMES_AS_COUNT`]).
    pub flags: u32,
    /// Time base in integer milliseconds since the epoch.
    pub timebase_ms: u64,
    /// Metadata JSON text.
    pub metadata: Str<'a>,
}

/// The file-level facts: container, versions and the header.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    /// Container kind.
    pub container: Container,
    /// The WTF version word (opaque; a build date in ms truncated to 32 bits).
    pub wtf_version: u32,
    /// Format version (10 or 3).
    pub format_version: u32,
    /// Chunked: the file-header JSON text, checked to be one JSON object (part `0x10000` of the
    /// first chunk, when it is a file-header chunk).
    pub header_json: Option<&'a str>,
    /// Absolute offset of the header JSON text (0 when absent).
    pub header_json_offset: u64,
    /// Legacy: the header after the prologue.
    pub legacy: Option<LegacyHeader<'a>>,
    /// Absolute offset of the first event (legacy) or of the first chunk (chunked).
    pub body_offset: u64,
}

impl<'a> Header<'a> {
    /// Reads the prologue and the header of either format.
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        let mut r = Reader::new(data);
        let head = r.peek(PROLOGUE_LEN).what("prologue")?;
        match head.get(..4) {
            Some([0xEF, 0xBE, 0xAD, 0xDE]) => {
                let p: &PrologueLe = r.view()?;
                let v = p.format_version.get();
                if v != CHUNKED_VERSION {
                    return Err(Error::unsupported_version(u64::from(v), "10", 8));
                }
                let mut info = Header {
                    container: Container::Chunked,
                    wtf_version: p.wtf_version.get(),
                    format_version: v,
                    header_json: None,
                    header_json_offset: 0,
                    legacy: None,
                    body_offset: PROLOGUE_LEN as u64,
                };
                if let Some(first) = Chunks::new(data).next() {
                    let first = first?;
                    if first.kind == CHUNK_FILE_HEADER {
                        if let Some(part) = first.part(PART_FILE_HEADER)? {
                            let text = core::str::from_utf8(part.data)
                                .map_err(|_| Error::new(ErrorKind::InvalidUtf8, part.offset))?;
                            if !crate::json_check::is_object(text) {
                                return Err(Error::new(ErrorKind::BadHeaderJson, part.offset));
                            }
                            info.header_json = Some(text);
                            info.header_json_offset = part.offset;
                        }
                    }
                }
                Ok(info)
            }
            Some([0xDE, 0xAD, 0xBE, 0xEF]) => {
                let p: &PrologueBe = r.view()?;
                let v = p.format_version.get();
                if v != LEGACY_VERSION {
                    return Err(Error::unsupported_version(u64::from(v), "3", 8));
                }
                let context_info = read_legacy_utf8(&mut r)?;
                let flags = r.u32_be().what("legacy header")?;
                let lo = r.u32_be().what("legacy header")?;
                let hi = r.u32_be().what("legacy header")?;
                let metadata = read_legacy_utf8(&mut r)?;
                Ok(Header {
                    container: Container::Legacy,
                    wtf_version: p.wtf_version.get(),
                    format_version: v,
                    header_json: None,
                    header_json_offset: 0,
                    legacy: Some(LegacyHeader {
                        context_info,
                        flags,
                        timebase_ms: (u64::from(hi) << 32) | u64::from(lo),
                        metadata,
                    }),
                    body_offset: r.offset(),
                })
            }
            _ => Err(Error::new(ErrorKind::BadMagic, 0)),
        }
    }

    /// The file-header JSON parsed with serde_json (feature `json`): `None` when the file has no
    /// header part (legacy files never have one).
    #[cfg(feature = "json")]
    pub fn header_value(&self) -> Result<Option<serde_json::Value>, Error> {
        match self.header_json {
            None => Ok(None),
            Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(v @ serde_json::Value::Object(_)) => Ok(Some(v)),
                _ => Err(Error::new(
                    ErrorKind::BadHeaderJson,
                    self.header_json_offset,
                )),
            },
        }
    }
}
