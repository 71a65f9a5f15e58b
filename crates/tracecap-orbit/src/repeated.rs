//! Repeated fields read in place: every occurrence of a field number in a message, packed or not.

use crate::wire::{Fields, PackedVarints, Value};

/// How the elements of a repeated scalar field are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Element {
    /// Varints (`uint64`, `int32`, enums, ...).
    #[default]
    Varint,
    /// Eight bytes (`fixed64`, `double`).
    Fixed64,
}

/// The values of a repeated scalar field (`uint64` or `fixed64`), packed or unpacked, in order.
///
/// It re-reads the message when iterated, so it costs nothing to hold and never allocates. The
/// view that made it has checked the message, so iteration cannot fail.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Repeated<'a> {
    msg: &'a [u8],
    number: u32,
    element: Element,
}

impl<'a> Repeated<'a> {
    pub(crate) fn new(msg: &'a [u8], number: u32, element: Element) -> Self {
        Repeated {
            msg,
            number,
            element,
        }
    }

    /// An iterator over the values.
    pub fn iter(&self) -> RepeatedIter<'a> {
        RepeatedIter {
            fields: Fields::new(self.msg, 0),
            number: self.number,
            element: self.element,
            packed: &[],
            packed_varints: PackedVarints::new(&[]),
        }
    }

    /// True when the field has no value.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The number of values (walks the message).
    pub fn count(&self) -> usize {
        self.iter().count()
    }
}

impl<'a> IntoIterator for Repeated<'a> {
    type Item = u64;
    type IntoIter = RepeatedIter<'a>;
    fn into_iter(self) -> RepeatedIter<'a> {
        self.iter()
    }
}

/// Iterator of [`Repeated`].
#[derive(Clone, Debug)]
pub struct RepeatedIter<'a> {
    fields: Fields<'a>,
    number: u32,
    element: Element,
    packed: &'a [u8],
    packed_varints: PackedVarints<'a>,
}

impl Iterator for RepeatedIter<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        loop {
            match self.element {
                Element::Varint => {
                    if let Some(v) = self.packed_varints.next() {
                        return Some(v);
                    }
                }
                Element::Fixed64 => {
                    if let Some((head, rest)) = self.packed.split_first_chunk::<8>() {
                        self.packed = rest;
                        return Some(u64::from_le_bytes(*head));
                    }
                }
            }
            let f = self.fields.next()?.ok()?;
            if f.number != self.number {
                continue;
            }
            match (f.value, self.element) {
                (Value::Len(p), Element::Varint) => self.packed_varints = PackedVarints::new(p),
                (Value::Len(p), Element::Fixed64) => self.packed = p,
                (Value::Varint(v), Element::Varint) => return Some(v),
                (Value::Fixed64(v), Element::Fixed64) => return Some(v),
                _ => {}
            }
        }
    }
}

/// The occurrences of a repeated length-delimited field (`bytes`, `string` or a message), in
/// order, each with its absolute offset. Iteration re-reads the message; it cannot fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepeatedLen<'a> {
    msg: &'a [u8],
    base: u64,
    number: u32,
}

impl<'a> RepeatedLen<'a> {
    pub(crate) fn new(msg: &'a [u8], base: u64, number: u32) -> Self {
        RepeatedLen { msg, base, number }
    }

    /// An iterator over `(bytes, absolute offset)` of every occurrence.
    pub fn iter(&self) -> RepeatedLenIter<'a> {
        RepeatedLenIter {
            fields: Fields::new(self.msg, self.base),
            number: self.number,
        }
    }

    /// The number of occurrences (walks the message).
    pub fn count(&self) -> usize {
        self.iter().count()
    }
}

impl<'a> IntoIterator for RepeatedLen<'a> {
    type Item = (&'a [u8], u64);
    type IntoIter = RepeatedLenIter<'a>;
    fn into_iter(self) -> RepeatedLenIter<'a> {
        self.iter()
    }
}

/// Iterator of [`RepeatedLen`].
#[derive(Clone, Debug)]
pub struct RepeatedLenIter<'a> {
    fields: Fields<'a>,
    number: u32,
}

impl<'a> Iterator for RepeatedLenIter<'a> {
    type Item = (&'a [u8], u64);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let f = self.fields.next()?.ok()?;
            if f.number == self.number {
                if let Value::Len(p) = f.value {
                    return Some((p, f.value_offset));
                }
            }
        }
    }
}
