//! The argument types of a definition packed for the event walker (5 bits each, in order), with
//! the size of its arguments: fixed when no type has a data-dependent size, otherwise measured
//! from the array counts.

use crate::builtin::Builtin;
use crate::signature::{code, ArgType};
use crate::strings::NULL_ORDINAL;

/// Argument types packed for the event walker: up to [`Shape::PACKED`] types in 5 bits each, and
/// the byte size of the arguments when it does not depend on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C)]
pub(crate) struct Shape {
    /// The code of type `i` ([`ArgType::code`]) in bits `5 * i ..`, 0 after the last; or only
    /// [`code::TEXT`] when there are more types than fit.
    pub(crate) packed: u64,
    /// Argument bytes in chunked files when every type is a scalar, else [`Shape::VARIABLE`].
    pub(crate) fixed_chunked: u32,
    /// Argument bytes in legacy files when no type has a variable size, else [`Shape::VARIABLE`].
    pub(crate) fixed_legacy: u32,
    /// How the walker's plain path sizes chunked events: a number of 4-byte slots below
    /// [`Shape::MEASURE`], `MEASURE` (from the array counts, [`Shape::chunked_slots`]), or
    /// [`Shape::GENERAL`] (the general path takes them: long signatures, and the built-ins the
    /// walker acts on, `wtf.event#define` and `wtf.zone#set`, whatever their flags).
    pub(crate) plain: u32,
    /// Number of arguments (saturated at `u16::MAX`).
    pub(crate) count: u16,
    /// 0, or 1 + the index of the built-in in [`Builtin::ALL`].
    pub(crate) builtin: u8,
}

impl Shape {
    /// Most types kept packed (11, so that a marker code and the codes fit in 64 bits); longer
    /// signatures are re-read from their text.
    pub(crate) const PACKED: usize = 11;
    /// `fixed_*` value of a signature whose size depends on the data.
    pub(crate) const VARIABLE: u32 = u32::MAX;
    /// `plain`: measure the arguments.
    pub(crate) const MEASURE: u32 = u32::MAX - 1;
    /// `plain`: leave the event to the general path.
    pub(crate) const GENERAL: u32 = u32::MAX;

    pub(crate) fn of(types: &[ArgType], builtin: Option<Builtin>) -> Shape {
        let mut packed = 0u64;
        let mut chunked = Some(0u32);
        let mut legacy = Some(0u32);
        for (i, &t) in types.iter().enumerate() {
            if i < Self::PACKED {
                packed |= u64::from(t.code()) << (5 * i);
            }
            chunked = match t.element_size() {
                None => chunked.and_then(|n| n.checked_add(4)),
                Some(_) => None,
            };
            legacy = legacy
                .zip(legacy_size(t))
                .and_then(|(n, k)| n.checked_add(k));
        }
        let complete = types.len() <= Self::PACKED;
        if !complete {
            packed = u64::from(code::TEXT);
        }
        let acts = matches!(builtin, Some(Builtin::EventDefine | Builtin::ZoneSet));
        let plain = match chunked {
            _ if acts => Self::GENERAL,
            Some(bytes) => bytes / 4,
            None if complete => Self::MEASURE,
            None => Self::GENERAL,
        };
        Shape {
            packed,
            count: u16::try_from(types.len()).unwrap_or(u16::MAX),
            builtin: builtin.map_or(0, |b| b as u8 + 1),
            plain,
            fixed_chunked: chunked.unwrap_or(Self::VARIABLE),
            fixed_legacy: legacy.unwrap_or(Self::VARIABLE),
        }
    }

    /// Size in 4-byte slots of the chunked arguments that start `args` (each scalar one slot; each
    /// array a count slot and its padded elements), when every type is packed and every count
    /// fits in `args`.
    #[inline(never)]
    pub(crate) fn chunked_slots(&self, args: &[u8]) -> Option<usize> {
        if !self.complete() {
            return None;
        }
        let mut packed = self.packed;
        let mut at = 0usize;
        for _ in 0..self.count {
            let ty = ArgType::from_code((packed & 0x1F) as u8)?;
            packed >>= 5;
            let word = args.get(at..at.checked_add(4)?)?;
            at += 4;
            let count = u32::from_le_bytes(word.try_into().ok()?);
            if let (Some(size), false) = (ty.element_size(), count == NULL_ORDINAL) {
                let body = (count as usize).checked_mul(size)?.checked_add(3)? & !3;
                at = at.checked_add(body).filter(|&end| end <= args.len())?;
            }
        }
        Some(at / 4)
    }

    /// Size in bytes of the legacy arguments that start `args` (big-endian, packed: see
    /// `value::read_legacy`), when every type is packed, none is one that legacy files cannot
    /// hold, and everything fits in `args`. Agrees with reading the values one by one.
    pub(crate) fn legacy_size(&self, args: &[u8]) -> Option<usize> {
        if !self.complete() {
            return None;
        }
        let u16_at = |at: usize| -> Option<usize> {
            let b = args.get(at..at.checked_add(2)?)?;
            Some(usize::from(u16::from_be_bytes([*b.first()?, *b.get(1)?])))
        };
        let mut packed = self.packed;
        let mut at = 0usize;
        for _ in 0..self.count {
            let ty = ArgType::from_code((packed & 0x1F) as u8)?;
            packed >>= 5;
            let size = match ty {
                ArgType::Char | ArgType::WChar | ArgType::CharArray | ArgType::WCharArray => {
                    return None
                }
                // A length (0 null, 0xFFFF an ordinal follows), then the bytes.
                ArgType::Ascii => match u16_at(at)? {
                    0 => 2,
                    0xFFFF => 6,
                    n => 2 + n,
                },
                // A count of code units (0 null, 0xFFFF an ordinal follows), a byte length, the
                // bytes.
                ArgType::Utf8 | ArgType::Any => match u16_at(at)? {
                    0 => 2,
                    0xFFFF => 6,
                    _ => 4 + u16_at(at + 2)?,
                },
                t => match (legacy_size(t), t.element_size()) {
                    (Some(n), _) => n as usize,
                    // A u32 count, then the elements.
                    (None, Some(elem)) => {
                        let b = args.get(at..at.checked_add(4)?)?;
                        let count = u32::from_be_bytes(b.try_into().ok()?) as usize;
                        count.checked_mul(elem)?.checked_add(4)?
                    }
                    (None, None) => return None,
                },
            };
            at = at.checked_add(size).filter(|&end| end <= args.len())?;
        }
        Some(at)
    }

    /// True when every type is packed.
    #[inline]
    pub(crate) fn complete(&self) -> bool {
        usize::from(self.count) <= Self::PACKED
    }
}

const fn legacy_size(t: ArgType) -> Option<u32> {
    match t {
        ArgType::Bool | ArgType::Int8 | ArgType::Uint8 => Some(1),
        ArgType::Int16 | ArgType::Uint16 => Some(2),
        ArgType::Int32 | ArgType::Uint32 | ArgType::Float32 | ArgType::FlowId | ArgType::Time32 => {
            Some(4)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{skip_value, Encoding};
    use tracecap_wire::Reader;

    /// The measured legacy size agrees with reading the values one by one, on random types and
    /// random bytes (which hit nulls, ordinals, short inputs and unsupported types).
    #[test]
    fn legacy_size_matches_reading() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut measured = 0;
        for _ in 0..20_000 {
            let types: Vec<ArgType> = (0..next() % 6)
                .map(|_| ArgType::ALL[(next() % 24) as usize])
                .collect();
            let bytes: Vec<u8> = (0..next() % 24)
                .map(|_| match next() % 4 {
                    0 => 0,
                    1 => 0xFF,
                    _ => (next() % 8) as u8,
                })
                .collect();
            let shape = Shape::of(&types, None);
            let mut r = Reader::new(&bytes);
            let read = types
                .iter()
                .try_for_each(|&t| skip_value(t, &mut r, Encoding::Legacy))
                .ok()
                .map(|()| r.offset() as usize);
            match shape.legacy_size(&bytes) {
                Some(n) => {
                    measured += 1;
                    assert_eq!(Some(n), read, "{types:?} {bytes:?}");
                }
                // Declining is always allowed; it must not hide a size that unsupported types
                // would not explain.
                None => assert!(
                    read.is_none()
                        || types.iter().any(|t| matches!(
                            t,
                            ArgType::Char
                                | ArgType::WChar
                                | ArgType::CharArray
                                | ArgType::WCharArray
                        )),
                    "{types:?} {bytes:?}"
                ),
            }
        }
        assert!(measured > 1000, "{measured}");
    }
}
