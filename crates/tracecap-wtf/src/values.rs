//! The argument values of one event, decoded lazily: the types come from the definition, packed
//! once per definition (5 bits each, 0 after the last), so decoding a chunked value is a shift, a
//! slot read and one jump on the type, which also finds the end.
//!
//! Everything else starts with a marker code that sends the iterator to its slow path, out of
//! line: legacy values (the marker, then their packed codes), and definitions with more arguments
//! than fit in the packed form (types read from the signature text). The iterator's state is
//! thus the same few words for every event, and the common case never looks at the rest.

use tracecap_wire::Reader;

use crate::defs::Definition;
use crate::signature::{code, ArgType, Signature};
use crate::value::{chunked_value, read_value, Encoding, Value};

/// The argument values of an event (see [`crate::Event::values`]). The walker checked the
/// argument bytes against the definition before yielding the event, so values cannot fail to
/// decode; the iterator simply ends if they ever did.
#[derive(Clone, Debug)]
pub struct Values<'a> {
    /// Argument bytes not decoded yet.
    rest: &'a [u8],
    /// Codes of the chunked values still to decode, the next one in the low 5 bits; or a marker
    /// ([`code::LEGACY`] followed by the legacy codes, [`code::TEXT`], [`code::TEXT_LEGACY`]).
    packed: u64,
    /// The rest of the signature text, read only after a text marker.
    sig: Signature<'a>,
}

/// Takes the next code off `packed`.
#[inline(always)]
fn pop_code(packed: &mut u64) -> u32 {
    let code = (*packed & 0x1F) as u32;
    *packed >>= 5;
    code
}

impl<'a> Values<'a> {
    #[inline(always)]
    pub(crate) fn new(def: &Definition<'a>, args: &'a [u8], enc: Encoding) -> Self {
        // A shape whose types do not all fit holds the text marker alone.
        let packed = def.shape.packed;
        let packed = match enc {
            Encoding::Chunked => packed,
            Encoding::Legacy if packed == u64::from(code::TEXT) => u64::from(code::TEXT_LEGACY),
            Encoding::Legacy => packed << 5 | u64::from(code::LEGACY),
        };
        Values {
            rest: args,
            packed,
            sig: Signature::new(def.signature),
        }
    }
}

/// The value after the marker `marker` (the rest of the codes in `packed`, the rest of the
/// signature text in `sig`) off the front of `rest`; the codes with the marker again when more
/// values may follow, `sig` and what follows the value. All by value and out of line, so that the
/// iterator's fields can stay in registers in the caller; cold, so that the caller's loop is laid
/// out for the chunked values.
#[cold]
#[inline(never)]
fn slow_value<'a, 's>(
    marker: u32,
    mut packed: u64,
    mut sig: Signature<'s>,
    rest: &'a [u8],
) -> (Option<Value<'a>>, u64, Signature<'s>, &'a [u8]) {
    let mut r = Reader::new(rest);
    let marker = marker as u8;
    let ty = match marker {
        code::LEGACY => ArgType::from_code(pop_code(&mut packed) as u8),
        _ => sig.next().and_then(Result::ok).map(|d| d.ty),
    };
    let enc = match marker {
        code::TEXT => Encoding::Chunked,
        _ => Encoding::Legacy,
    };
    let value = ty.and_then(|ty| read_value(ty, &mut r, enc).ok());
    packed = match (value, marker) {
        (None, _) => 0,
        (Some(_), code::LEGACY) => packed << 5 | u64::from(code::LEGACY),
        (Some(_), marker) => u64::from(marker),
    };
    (value, packed, sig, r.rest())
}

impl<'a> Iterator for Values<'a> {
    type Item = Value<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Value<'a>> {
        // No codes left: the usual end, seen once per event.
        if self.packed == 0 {
            return None;
        }
        let code = pop_code(&mut self.packed);
        // Markers first (a branch the CPU predicts, to a cold path), so that decoding a chunked
        // value can move `rest` before its jump on the code: nothing of the old position stays
        // alive in the arms, which then merge with the caller's code.
        if code >= u32::from(code::LEGACY) {
            let (value, packed, sig, rest) = slow_value(code, self.packed, self.sig, self.rest);
            (self.packed, self.sig, self.rest) = (packed, sig, rest);
            return value;
        }
        let value = chunked_value(code, &mut self.rest);
        if value.is_none() {
            // A value that did not decode (or a code that is not a type).
            self.packed = 0;
        }
        value
    }
}

impl core::iter::FusedIterator for Values<'_> {}
