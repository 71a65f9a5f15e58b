//! The 24-byte file header, and recognising files that are not ORBT captures.

use tracecap_wire::zerocopy::byteorder::little_endian::{U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::error::{what, Error, ErrorKind};

/// The four bytes every ORBT capture starts with.
pub const MAGIC: [u8; 4] = *b"ORBT";
/// The only container version that exists.
pub const VERSION: u32 = 1;
/// Size of the header; Orbit's writer starts the capture section right after it.
pub const HEADER_LEN: u64 = 24;

/// The header as it sits in the file (all little-endian).
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Debug)]
#[repr(C)]
pub struct RawHeader {
    /// `ORBT`.
    pub magic: [u8; 4],
    /// Format version (1).
    pub version: U32,
    /// Absolute offset of the capture section (24 when written by Orbit).
    pub capture_section_offset: U64,
    /// Absolute offset of the section list, 0 when there is none.
    pub section_list_offset: U64,
}

/// The decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version (always 1 once parsed).
    pub version: u32,
    /// Absolute offset of the capture section.
    pub capture_section_offset: u64,
    /// Absolute offset of the section list, 0 when there is none.
    pub section_list_offset: u64,
}

/// True when `data` is an Orbit capture this crate recognises: one that starts with the `ORBT`
/// magic, or a capture of Orbit 1.63 or older ([`is_legacy`]), which [`Header::parse`] reports as
/// [`ErrorKind::LegacyCapture`]. A cheap check of the first bytes only.
pub fn detect(data: &[u8]) -> bool {
    has_magic(data) || is_legacy(data)
}

/// True when `data` starts with the `ORBT` magic.
fn has_magic(data: &[u8]) -> bool {
    data.get(..4) == Some(&MAGIC[..])
}

/// True when `data` looks like a capture of Orbit 1.63 or older: a u32 length, then a
/// `CaptureHeader` message whose field 1 is the version string `"1.59"`. Such a file is
/// recognised ([`detect`]) but not read: [`Header::parse`] says it is a legacy capture.
pub fn is_legacy(data: &[u8]) -> bool {
    // u32 LE record length, then tag 0x0a (field 1, length-delimited), string length, "1.".
    match data.get(..8) {
        Some([len0, len1, len2, len3, 0x0a, slen, b'1', b'.']) => {
            let len = u32::from_le_bytes([*len0, *len1, *len2, *len3]);
            len == u32::from(*slen) + 2 && *slen <= 16
        }
        _ => false,
    }
}

impl Header {
    /// Reads and checks the header: the signature, the version and both offsets, with Orbit's
    /// own error wording for each short read.
    pub fn parse(data: &[u8]) -> Result<Header, Error> {
        let len = data.len() as u64;
        let short = |what: &'static str, start: u64, needed: u64| {
            Error::truncated(what, start.min(len), needed, len.saturating_sub(start))
        };
        if data.len() < 4 {
            return Err(short(what::SIGNATURE, 0, 4));
        }
        if !has_magic(data) {
            let kind = if is_legacy(data) {
                ErrorKind::LegacyCapture
            } else {
                ErrorKind::InvalidSignature
            };
            return Err(Error::new(kind, 0));
        }
        if data.len() < 8 {
            return Err(short(what::VERSION, 4, 4));
        }
        let mut r = tracecap_wire::Reader::at(data, 0);
        r.skip(4)?;
        let version = r.u32_le()?;
        if version != VERSION {
            return Err(Error::unsupported_version(version.into(), "1", 4));
        }
        if data.len() < 16 {
            return Err(short(what::CAPTURE_SECTION_OFFSET, 8, 8));
        }
        let Ok((raw, _)) = RawHeader::ref_from_prefix(data) else {
            return Err(short(what::SECTION_LIST_OFFSET, 16, 8));
        };
        Ok(Header {
            version,
            capture_section_offset: raw.capture_section_offset.get(),
            section_list_offset: raw.section_list_offset.get(),
        })
    }
}
