//! A direct WTF walk written for the bench alone, with none of `tracecap_wtf`'s event API: it
//! reads the chunks' event buffers itself, keeps its own wire-id table of argument types (from
//! the file's `wtf.event#define` events, signatures parsed with the crate's `ArgType::parse`
//! rules through `Signature`), and adds up the same digest as `wtf_walks::full_walk`, one `match`
//! on the type per value. Array elements go through the crate's `Array::iter`, added up by the
//! bench's own `array_digest`.
//!
//! It is the yardstick for the crate's full walk: what a decoder that does nothing but this one
//! job, with the same tricks (a branch per small event size), costs on the same machine. It reads
//! chunked files only and stops at the first thing it does not expect; the bench checks that its
//! digest equals the full walk's.

use crate::wtf_walks::array_digest;
use tracecap_wtf::{
    ArgType, Array, Chunks, Signature, StringTable, CHUNK_EVENT_DATA, NULL_ORDINAL,
    PART_BINARY_EVENTS, PART_STRING_TABLE,
};

/// Most argument types kept per definition.
const MAX_TYPES: usize = 16;

/// What the walk knows of a wire id.
#[derive(Clone, Copy)]
struct Def {
    types: [ArgType; MAX_TYPES],
    count: u8,
    /// Argument bytes when every type is one 4-byte slot, else `None`.
    fixed: Option<u32>,
}

impl Def {
    fn new(types: &[ArgType]) -> Option<Def> {
        let count = u8::try_from(types.len()).ok()?;
        let scalars = types.iter().all(|t| t.element_size().is_none());
        let mut def = Def {
            types: [ArgType::Bool; MAX_TYPES],
            count,
            fixed: scalars.then_some(4 * u32::from(count)),
        };
        def.types.get_mut(..types.len())?.copy_from_slice(types);
        Some(def)
    }
}

/// The signature of `wtf.event#define` (wire id 1).
const DEFINE: [ArgType; 5] = [
    ArgType::Uint16,
    ArgType::Uint16,
    ArgType::Uint32,
    ArgType::Ascii,
    ArgType::Ascii,
];

/// Splits an event of `N` bytes (header included) off `buf`: its arguments, and the rest.
#[inline(always)]
fn split<const N: usize>(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let (event, rest) = buf.split_first_chunk::<N>()?;
    Some((event.get(8..)?, rest))
}

/// The little-endian word at the front of `rest`, moved past.
#[inline(always)]
fn word(rest: &mut &[u8]) -> Option<u32> {
    let (w, tail) = rest.split_first_chunk::<4>()?;
    *rest = tail;
    Some(u32::from_le_bytes(*w))
}

/// The digest of the array of `ty` whose count is `count` and whose padded body starts `rest`
/// (its elements added up by the bench's [`array_digest`]), moving `rest` past it.
#[inline(always)]
fn array(ty: ArgType, count: u32, rest: &mut &[u8]) -> Option<u64> {
    let data = if count == NULL_ORDINAL {
        None
    } else {
        let n = (count as usize).checked_mul(ty.element_size()?)?;
        let (body, tail) = rest.split_at_checked(n.checked_add(3)? & !3)?;
        *rest = tail;
        Some(body.get(..n)?)
    };
    Some(array_digest(&Array {
        ty,
        data,
        big_endian: false,
    }))
}

/// The digest of one value of `ty` at the front of `rest` (see `wtf_walks::digest`), moving
/// `rest` past it.
#[inline(always)]
fn value(ty: ArgType, rest: &mut &[u8]) -> Option<u64> {
    let w = word(rest)?;
    Some(match ty {
        ArgType::Uint8 => u64::from(w as u8),
        ArgType::Uint16 => u64::from(w as u16),
        ArgType::Int8 => u64::from(w as i8 as u32),
        ArgType::Int16 => u64::from(w as i16 as u32),
        ArgType::Int32 | ArgType::Uint32 | ArgType::Float32 | ArgType::FlowId | ArgType::Time32 => {
            u64::from(w)
        }
        ArgType::Bool
        | ArgType::Ascii
        | ArgType::Utf8
        | ArgType::Any
        | ArgType::Char
        | ArgType::WChar => 1,
        ty => array(ty, w, rest)?,
    })
}

/// Reads a `wtf.event#define` whose arguments are `args` into `table`.
fn define(table: &mut Vec<Option<Def>>, args: &[u8], strings: &StringTable<'_>) -> Option<()> {
    // Slots: wire id, class, flags, name, signature.
    let slot = |i: usize| Some(u32::from_le_bytes(*args.get(4 * i..)?.first_chunk::<4>()?));
    let wire_id = slot(0)? as u16;
    // The null string is an empty signature.
    let text = strings.resolve(slot(4)?).unwrap_or(&[]);
    let mut types = [ArgType::Bool; MAX_TYPES];
    let mut count = 0;
    for decl in Signature::new(std::str::from_utf8(text).ok()?) {
        *types.get_mut(count)? = decl.ok()?.ty;
        count += 1;
    }
    let slot = usize::from(wire_id);
    if table.len() <= slot {
        table.resize(slot + 1, None);
    }
    *table.get_mut(slot)? = Some(Def::new(types.get(..count)?)?);
    Some(())
}

/// Every event of the chunked file `bytes`, every value added up as `wtf_walks::full_walk` does.
pub fn direct_walk(bytes: &[u8]) -> u64 {
    let mut table: Vec<Option<Def>> = vec![None, Def::new(&DEFINE)];
    let mut acc = 0u64;
    for chunk in Chunks::new(bytes) {
        let Ok(chunk) = chunk else { break };
        if chunk.kind != CHUNK_EVENT_DATA {
            continue;
        }
        let (mut buf, mut strings): (&[u8], StringTable<'_>) = (&[], StringTable::default());
        for part in chunk.parts().flatten() {
            match part.kind {
                PART_BINARY_EVENTS => buf = part.data,
                PART_STRING_TABLE => strings = StringTable::new(part.data, part.offset),
                _ => {}
            }
        }
        while let Some(head) = buf.first_chunk::<8>() {
            let head = u64::from_le_bytes(*head);
            let (wire_id, time) = (head as u32, (head >> 32) as u32);
            let Some(Some(def)) = table.get(wire_id as usize) else {
                return acc;
            };
            let mut digest = u64::from(time ^ wire_id);
            let types = def.types.get(..usize::from(def.count)).unwrap_or(&[]);
            let args = match def.fixed {
                Some(fixed) => {
                    let split = match fixed / 4 {
                        0 => split::<8>(buf),
                        1 => split::<12>(buf),
                        2 => split::<16>(buf),
                        3 => split::<20>(buf),
                        4 => split::<24>(buf),
                        5 => split::<28>(buf),
                        _ => buf
                            .get(8..)
                            .and_then(|a| a.split_at_checked(fixed as usize)),
                    };
                    let Some((args, tail)) = split else {
                        return acc;
                    };
                    buf = tail;
                    let mut rest = args;
                    for &ty in types {
                        digest = digest.wrapping_add(value(ty, &mut rest).unwrap_or(0));
                    }
                    args
                }
                None => {
                    let args = buf.get(8..).unwrap_or(&[]);
                    let mut rest = args;
                    for &ty in types {
                        let Some(v) = value(ty, &mut rest) else {
                            return acc;
                        };
                        digest = digest.wrapping_add(v);
                    }
                    buf = rest;
                    args.get(..args.len() - rest.len()).unwrap_or(&[])
                }
            };
            if wire_id == 1 && define(&mut table, args, &strings).is_none() {
                return acc;
            }
            acc = acc.wrapping_add(digest);
        }
    }
    acc
}
