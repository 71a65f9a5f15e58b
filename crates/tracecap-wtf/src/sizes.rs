//! What the walker's plain path needs to know of a wire id before it looks at the definition: the
//! [`Size`] of its chunked arguments. Kept per wire id in a small array next to the walker, so that
//! finding where the next event starts takes one load after reading the wire id (the chain of
//! loads from one event to the next is what bounds the walk's speed).

use crate::defs::Definition;
use crate::shape::Size;

/// Wire ids below this are remembered; others always take the general path.
pub(crate) const CACHED: usize = 256;

/// `Size` per wire id below [`CACHED`], filled by the general path and cleared for a wire id when
/// it is (re)defined. The table a walker owns changes only through the walker, so an entry stays
/// true until then.
#[derive(Clone, Debug)]
pub(crate) struct Sizes {
    /// A fixed size, [`Sizes::MEASURE`], or [`Sizes::GENERAL`] (also for "not known yet").
    codes: [u32; CACHED],
}

impl Sizes {
    /// The general path takes the wire id (also "not known yet").
    pub(crate) const GENERAL: u32 = u32::MAX;
    /// The size is measured from the array counts ([`crate::shape::Shape::chunked_size`]).
    pub(crate) const MEASURE: u32 = u32::MAX - 1;

    pub(crate) const fn new() -> Self {
        Sizes {
            codes: [Self::GENERAL; CACHED],
        }
    }

    /// The size code of `wire_id`: a byte count below [`Sizes::MEASURE`], `MEASURE` itself, or
    /// [`Sizes::GENERAL`] (so that the common case, a fixed size, costs one comparison).
    #[inline(always)]
    pub(crate) fn code(&self, wire_id: u32) -> u32 {
        self.codes
            .get(wire_id as usize)
            .copied()
            .unwrap_or(Self::GENERAL)
    }

    /// Remembers the size for `wire_id` events of definition `def`.
    pub(crate) fn learn(&mut self, wire_id: u32, def: &Definition<'_>) {
        if let Some(slot) = self.codes.get_mut(wire_id as usize) {
            *slot = match def.plain_chunked_size() {
                Size::General => Self::GENERAL,
                Size::Measure => Self::MEASURE,
                Size::Fixed(n) => u32::try_from(n)
                    .ok()
                    .filter(|&n| n < Self::MEASURE)
                    .unwrap_or(Self::GENERAL),
            };
        }
    }

    /// Forgets `wire_id` (it is being redefined).
    pub(crate) fn forget(&mut self, wire_id: u32) {
        if let Some(slot) = self.codes.get_mut(wire_id as usize) {
            *slot = Self::GENERAL;
        }
    }
}
