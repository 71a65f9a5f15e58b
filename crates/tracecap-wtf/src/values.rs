//! The argument values of one event, decoded lazily: the types come from the definition, packed
//! once per definition (5 bits each, 0 after the last), so decoding a chunked value is a shift, a
//! slot read and one jump on the type, which also finds the end. Legacy values come next (their
//! own packed codes, decoded by a call per value); definitions with more arguments than fit in
//! the packed form take their types from the signature text, slowest.

use tracecap_wire::Reader;

use crate::defs::Definition;
use crate::signature::{ArgType, Signature};
use crate::value::{chunked_value, read_value, Encoding, Value};

/// The argument values of an event (see [`crate::Event::values`]). The walker checked the
/// argument bytes against the definition before yielding the event, so values cannot fail to
/// decode; the iterator simply ends if they ever did.
#[derive(Clone, Debug)]
pub struct Values<'a> {
    /// Argument bytes not decoded yet.
    rest: &'a [u8],
    /// Codes of the chunked values still to decode, the next one in the low 5 bits.
    packed: u64,
    /// Codes of the legacy values still to decode, likewise.
    legacy: u64,
    /// The types from the signature text, for definitions whose types do not all fit in the
    /// packed form.
    text: Option<(Signature<'a>, Encoding)>,
}

/// Takes the next code off `packed`.
#[inline(always)]
fn pop_code(packed: &mut u64) -> u8 {
    let code = (*packed & 0x1F) as u8;
    *packed >>= 5;
    code
}

impl<'a> Values<'a> {
    #[inline(always)]
    pub(crate) fn new(def: &Definition<'a>, args: &'a [u8], enc: Encoding) -> Self {
        let shape = def.shape;
        let mut v = Values {
            rest: args,
            packed: 0,
            legacy: 0,
            text: None,
        };
        match (shape.complete(), enc) {
            (true, Encoding::Chunked) => v.packed = shape.packed,
            (true, Encoding::Legacy) => v.legacy = shape.packed,
            (false, enc) => v.text = Some((Signature::new(def.signature), enc)),
        }
        v
    }

    /// The next value after the chunked ones.
    #[inline(always)]
    fn next_other(&mut self) -> Option<Value<'a>> {
        let (value, rest) = if self.legacy != 0 {
            legacy_value(pop_code(&mut self.legacy), self.rest)
        } else {
            let (sig, enc) = self.text?;
            let (value, sig, rest) = text_value(sig, enc, self.rest);
            self.text = Some((sig, enc));
            (value, rest)
        };
        self.rest = rest;
        if value.is_none() {
            self.legacy = 0;
            self.text = None;
        }
        value
    }
}

/// One legacy value of type code `code` off the front of `rest`, and what follows it.
#[inline(never)]
fn legacy_value(code: u8, rest: &[u8]) -> (Option<Value<'_>>, &[u8]) {
    let mut r = Reader::new(rest);
    let value =
        ArgType::from_code(code).and_then(|ty| read_value(ty, &mut r, Encoding::Legacy).ok());
    (value, r.rest())
}

/// The value of the next type of `sig` off the front of `rest`, the rest of `sig` and what follows
/// the value (all by value, so that the iterator's fields can stay in registers in the caller).
#[inline(never)]
fn text_value<'a, 's>(
    mut sig: Signature<'s>,
    enc: Encoding,
    rest: &'a [u8],
) -> (Option<Value<'a>>, Signature<'s>, &'a [u8]) {
    let mut r = Reader::new(rest);
    let value = sig
        .next()
        .and_then(Result::ok)
        .and_then(|d| read_value(d.ty, &mut r, enc).ok());
    (value, sig, r.rest())
}

impl<'a> Iterator for Values<'a> {
    type Item = Value<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Value<'a>> {
        let value = chunked_value(pop_code(&mut self.packed), &mut self.rest);
        if value.is_some() {
            return value;
        }
        // The end of the chunked codes (or a value that did not decode).
        self.packed = 0;
        if self.legacy == 0 && self.text.is_none() {
            return None;
        }
        self.next_other()
    }
}

impl core::iter::FusedIterator for Values<'_> {}
