//! Bookmarks (2.1+, written by the GUI): a position, a colour and a text.

use tracecap_wire::zerocopy::byteorder::little_endian::{U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::descriptor::until_nul;
use crate::error::{Error, ErrorKind};
use tracecap_wire::Context;

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BookmarkHead {
    position: U64,
    color: U32,
}

/// Smallest bookmark payload: position, colour and an empty text's NUL.
pub const BOOKMARK_MIN_SIZE: u16 = 13;

/// One bookmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bookmark<'a> {
    /// Absolute offset of the record's size field.
    pub offset: u64,
    /// Position in nanoseconds (never converted from ticks).
    pub position: u64,
    /// Colour, ARGB.
    pub color: u32,
    /// Text, without its NUL.
    pub text: &'a [u8],
}

impl<'a> Bookmark<'a> {
    pub(crate) fn read(r: &mut Reader<'a>) -> Result<Self, Error> {
        let offset = r.offset();
        let size = r.u16_le().what("bookmark size")?;
        if size < BOOKMARK_MIN_SIZE {
            return Err(Error::new(
                ErrorKind::RecordTooShort {
                    what: "bookmark",
                    size,
                    min: BOOKMARK_MIN_SIZE,
                },
                offset,
            ));
        }
        let mut body = r.sub(u64::from(size)).what("bookmark")?;
        let h: &BookmarkHead = body.view().what("bookmark")?;
        let text = body.take_rest();
        if text.last() != Some(&0) {
            let kind = tracecap_wire::ErrorKind::MissingNul {
                what: "bookmark text",
            };
            return Err(Error::new(kind.into(), body.offset().saturating_sub(1)));
        }
        Ok(Bookmark {
            offset,
            position: h.position.get(),
            color: h.color.get(),
            text: until_nul(text),
        })
    }
}
