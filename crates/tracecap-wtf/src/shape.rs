//! The argument types of a definition packed for the event walker (5 bits each, in order), with
//! the size of its arguments: fixed when no type has a data-dependent size, otherwise measured
//! from the array counts.

use crate::defs::{Builtin, FLAG_BUILTIN};
use crate::signature::ArgType;
use crate::strings::NULL_ORDINAL;

/// The plain path's size of a wire id's chunked arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// This many bytes.
    Fixed(usize),
    /// Measured from the array counts ([`Shape::chunked_size`]).
    Measure,
    /// The general path takes such events (built-ins that act, long signatures).
    General,
}

/// Argument types packed for the event walker: up to [`Shape::PACKED`] types in 5 bits each, and
/// the byte size of the arguments when it does not depend on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C)]
pub(crate) struct Shape {
    /// The code of type `i` ([`ArgType::code`]) in bits `5 * i ..`; 0 after the last packed type.
    pub(crate) packed: u64,
    /// Argument bytes in chunked files when every type is a scalar, else [`Shape::VARIABLE`].
    pub(crate) fixed_chunked: u32,
    /// Argument bytes in legacy files when no type has a variable size, else [`Shape::VARIABLE`].
    pub(crate) fixed_legacy: u32,
    /// Number of arguments (saturated at `u16::MAX`).
    pub(crate) count: u16,
    /// 0, or 1 + the index of the built-in in [`Builtin::ALL`].
    pub(crate) builtin: u8,
    /// True for the built-ins the walker acts on (`wtf.event#define`, `wtf.zone#set`) when they
    /// also carry [`crate::FLAG_BUILTIN`].
    pub(crate) acts: bool,
}

impl Shape {
    /// Most types kept packed; longer signatures are re-read from their text.
    pub(crate) const PACKED: usize = 12;
    /// `fixed_*` value of a signature whose size depends on the data.
    pub(crate) const VARIABLE: u32 = u32::MAX;

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
        Shape {
            packed,
            count: u16::try_from(types.len()).unwrap_or(u16::MAX),
            builtin: builtin.map_or(0, |b| b as u8 + 1),
            acts: matches!(builtin, Some(Builtin::EventDefine | Builtin::ZoneSet)),
            fixed_chunked: chunked.unwrap_or(Self::VARIABLE),
            fixed_legacy: legacy.unwrap_or(Self::VARIABLE),
        }
    }

    /// Size of the chunked arguments that start `args` (each scalar one slot; each array a count
    /// slot and its padded elements), when every type is packed and every count fits in `args`.
    #[inline(never)]
    pub(crate) fn chunked_size(&self, args: &[u8]) -> Option<usize> {
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
        Some(at)
    }

    /// How the walker's plain path sizes events of this shape whose definition has `flags`.
    #[inline]
    pub(crate) fn plain_size(&self, flags: u32) -> Size {
        if self.acts && flags & FLAG_BUILTIN != 0 {
            Size::General
        } else if self.fixed_chunked != Shape::VARIABLE {
            Size::Fixed(self.fixed_chunked as usize)
        } else if self.complete() {
            Size::Measure
        } else {
            Size::General
        }
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
