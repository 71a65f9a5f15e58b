//! Event definitions (`wtf.event#define`): the wire-id table, in a growable (`alloc`) and a
//! fixed-capacity (no allocation) flavour, and the built-in events recognised by name.

use crate::builtin::Builtin;
use crate::error::ErrorKind;
pub(crate) use crate::shape::Shape;
use crate::signature::ArgType;

/// Event flag: high-frequency event.
pub const FLAG_HIGH_FREQUENCY: u32 = 0x02;
/// Event flag: time spent counts as system time.
pub const FLAG_SYSTEM_TIME: u32 = 0x04;
/// Event flag: internal (hidden in UIs).
pub const FLAG_INTERNAL: u32 = 0x08;
/// Event flag: the event's arguments are appended to the enclosing scope.
pub const FLAG_APPEND_SCOPE_DATA: u32 = 0x10;
/// Event flag: built-in event.
pub const FLAG_BUILTIN: u32 = 0x20;
/// Event flag: the event's arguments are appended to a flow.
pub const FLAG_APPEND_FLOW_DATA: u32 = 0x40;

/// Event class 0: an instant.
pub const CLASS_INSTANCE: u16 = 0;
/// Event class 1: a scope enter (closed by `wtf.scope#leave`).
pub const CLASS_SCOPE: u16 = 1;

/// The signature of the implicit wire id 1.
pub const DEFINE_SIGNATURE: &str =
    "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args";
const DEFINE_TYPES: [ArgType; 5] = [
    ArgType::Uint16,
    ArgType::Uint16,
    ArgType::Uint32,
    ArgType::Ascii,
    ArgType::Ascii,
];

/// One event type, as defined in the file (strings borrowed from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)] // word-sized fields first: the walker copies this for every event
pub struct Definition<'a> {
    /// Event name, e.g. `App#outer`.
    pub name: &'a str,
    /// The argument signature text as stored (empty when none).
    pub signature: &'a str,
    pub(crate) shape: Shape,
    /// Event flags (`FLAG_*`).
    pub flags: u32,
    /// Wire id events of this type carry.
    pub wire_id: u16,
    /// Event class ([`CLASS_INSTANCE`], [`CLASS_SCOPE`]; other values are kept as found).
    pub class: u16,
}

impl<'a> Definition<'a> {
    /// The implicit definition of wire id 1.
    pub fn event_define() -> Self {
        Definition {
            wire_id: 1,
            class: CLASS_INSTANCE,
            flags: FLAG_BUILTIN | FLAG_INTERNAL,
            name: "wtf.event#define",
            signature: DEFINE_SIGNATURE,
            shape: Shape::of(&DEFINE_TYPES, Some(Builtin::EventDefine)),
        }
    }

    /// What [`DefinitionLookup::get_for_walk`] may return for a wire id nothing defines: its shape
    /// sends the event to the general path.
    #[cfg(feature = "alloc")]
    pub(crate) fn placeholder() -> Self {
        Definition {
            wire_id: 0,
            class: CLASS_INSTANCE,
            flags: 0,
            name: "",
            signature: "",
            shape: Shape {
                plain: Shape::GENERAL,
                ..Shape::default()
            },
        }
    }

    /// A definition of `wire_id` (the walker builds these from `wtf.event#define` events).
    pub fn new(
        wire_id: u16,
        class: u16,
        flags: u32,
        name: &'a str,
        signature: &'a str,
        types: &[ArgType],
    ) -> Self {
        Definition {
            wire_id,
            class,
            flags,
            name,
            signature,
            shape: Shape::of(types, Builtin::from_name(name)),
        }
    }

    /// This definition with its name and signature read from elsewhere (a copy of them, for a
    /// caller that keeps definitions longer than the bytes they were read from).
    pub fn with_names<'b>(&self, name: &'b str, signature: &'b str) -> Definition<'b> {
        Definition {
            name,
            signature,
            shape: self.shape,
            flags: self.flags,
            wire_id: self.wire_id,
            class: self.class,
        }
    }

    /// The built-in event with this name, if any.
    #[inline]
    pub fn builtin(&self) -> Option<Builtin> {
        Builtin::ALL
            .get((self.shape.builtin as usize).checked_sub(1)?)
            .copied()
    }

    /// Number of declared arguments.
    pub fn arg_count(&self) -> usize {
        usize::from(self.shape.count)
    }

    /// True for scope-class events.
    pub const fn is_scope(&self) -> bool {
        self.class == CLASS_SCOPE
    }
}

/// A wire-id table the event walker fills from `wtf.event#define` events and reads for every
/// event. The walker takes the table by value and gives it back with
/// [`Events::into_table`](crate::Events::into_table); the trait is implemented for `&mut T`, so a
/// caller who keeps the table passes `&mut table`.
///
/// ```
/// use tracecap_wtf::{Capture, DefinitionLookup, FixedDefinitionTable};
///
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let capture = Capture::parse(&bytes)?;
/// let mut table = FixedDefinitionTable::<16, 64>::new();
/// let before = table.len(); // the built-in definitions
/// capture.events_with(&mut table).try_for_each_event::<tracecap_wtf::Error, _>(|_| Ok(()))?;
/// assert_eq!(table.len(), before + 1);
/// assert_eq!(table.get(2).map(|d| d.name), Some("App#tick"));
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
pub trait DefinitionLookup<'a> {
    /// Adds (or replaces) the definition of `def.wire_id`, with its parsed argument types.
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), ErrorKind>;
    /// The definition for `wire_id` and its argument types.
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])>;
    /// The definition for `wire_id` (the walker calls this for every event: keep it quick).
    #[inline]
    fn get(&self, wire_id: u32) -> Option<&Definition<'a>> {
        self.lookup(wire_id).map(|(d, _)| d)
    }
    /// What the walker's plain path reads for `wire_id`, on every event: the definition, or
    /// `None`, or a placeholder whose shape the plain path declines (which lets a table answer
    /// with one bounds check); the general path then looks the wire id up with
    /// [`DefinitionLookup::lookup`]. By default [`DefinitionLookup::get`].
    #[doc(hidden)]
    #[inline(always)]
    fn get_for_walk(&self, wire_id: u32) -> Option<&Definition<'a>> {
        self.get(wire_id)
    }
    /// Number of definitions held.
    fn len(&self) -> usize;
    /// True when no definition is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A table the walker fills while it reads, held elsewhere: `events_with(&mut table)` walks with
/// `table` and leaves it, filled, with the caller.
impl<'a, T: DefinitionLookup<'a> + ?Sized> DefinitionLookup<'a> for &mut T {
    #[inline]
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), ErrorKind> {
        (**self).insert(def, types)
    }
    #[inline]
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])> {
        (**self).lookup(wire_id)
    }
    #[inline]
    fn get(&self, wire_id: u32) -> Option<&Definition<'a>> {
        (**self).get(wire_id)
    }
    #[inline(always)]
    fn get_for_walk(&self, wire_id: u32) -> Option<&Definition<'a>> {
        (**self).get_for_walk(wire_id)
    }
    #[inline]
    fn len(&self) -> usize {
        (**self).len()
    }
}

/// Growable wire-id table (feature `alloc`): memory grows with the definitions, never with events.
///
/// ```
/// use tracecap_wtf::{Capture, DefinitionLookup, DefinitionTable};
///
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let capture = Capture::parse(&bytes)?;
/// let mut events = capture.events(); // a walk with a new DefinitionTable
/// assert_eq!(events.by_ref().count(), 2);
/// let table: DefinitionTable = events.into_table();
/// assert!(table.iter().any(|d| d.name == "App#tick"));
/// assert_eq!(table.get(2).map(|d| d.wire_id), Some(2));
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct DefinitionTable<'a> {
    /// wire id -> index into `defs` ([`DefinitionTable::UNDEFINED`] = none).
    index: alloc::vec::Vec<u32>,
    defs: alloc::vec::Vec<Definition<'a>>,
    /// Per entry of `defs`: where its argument types start in `types`, and how many.
    spans: alloc::vec::Vec<(u32, u32)>,
    types: alloc::vec::Vec<ArgType>,
    /// A copy of the definition of each wire id below [`DefinitionTable::DIRECT`] (up to the
    /// largest defined), a placeholder for the others: the walker's plain path finds an event's
    /// definition with one bounds check and one load, where `index` and `defs` take two of each.
    /// (`Option`s here, read by `get` itself, cost the full walk 3 instructions an event more:
    /// measured, hence the placeholder and `get_for_walk`.)
    direct: alloc::vec::Vec<Definition<'a>>,
}

#[cfg(feature = "alloc")]
impl Default for DefinitionTable<'_> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "alloc")]
impl<'a> DefinitionTable<'a> {
    /// `index` entry of a wire id nothing defines (past the end of `defs`).
    const UNDEFINED: u32 = u32::MAX;
    /// Wire ids below this have a copy of their definition in `direct` (at most 256 KiB of
    /// copies: recorders number their events from 1 up; larger wire ids are looked up in `index`
    /// and `defs`).
    const DIRECT: usize = 4096;

    /// A table holding only the implicit `wtf.event#define` (wire id 1).
    pub fn new() -> Self {
        let mut t = DefinitionTable {
            index: alloc::vec::Vec::new(),
            defs: alloc::vec::Vec::new(),
            spans: alloc::vec::Vec::new(),
            types: alloc::vec::Vec::new(),
            direct: alloc::vec::Vec::new(),
        };
        let _ = t.insert(Definition::event_define(), &DEFINE_TYPES);
        t
    }

    /// Every definition currently in force, by wire id.
    pub fn iter(&self) -> impl Iterator<Item = &Definition<'a>> + '_ {
        self.index
            .iter()
            .filter_map(move |&i| self.defs.get(i as usize))
    }
}

#[cfg(feature = "alloc")]
impl<'a> DefinitionLookup<'a> for DefinitionTable<'a> {
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), ErrorKind> {
        let id = usize::from(def.wire_id);
        if self.index.len() <= id {
            self.index.resize(id + 1, Self::UNDEFINED);
        }
        let start = self.types.len() as u32;
        self.types.extend_from_slice(types);
        self.spans.push((start, types.len() as u32));
        self.defs.push(def);
        if let Some(slot) = self.index.get_mut(id) {
            *slot = (self.defs.len() - 1) as u32;
        }
        if id < Self::DIRECT {
            if self.direct.len() <= id {
                self.direct.resize(id + 1, Definition::placeholder());
            }
            if let Some(slot) = self.direct.get_mut(id) {
                *slot = def;
            }
        }
        Ok(())
    }

    #[inline]
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])> {
        let i = *self.index.get(wire_id as usize)? as usize;
        let (start, len) = *self.spans.get(i)?;
        let types = self
            .types
            .get(start as usize..(start as usize).saturating_add(len as usize))?;
        Some((self.defs.get(i)?, types))
    }

    #[inline(always)]
    fn get(&self, wire_id: u32) -> Option<&Definition<'a>> {
        self.defs.get(*self.index.get(wire_id as usize)? as usize)
    }

    #[inline(always)]
    fn get_for_walk(&self, wire_id: u32) -> Option<&Definition<'a>> {
        match self.direct.get(wire_id as usize) {
            Some(def) => Some(def),
            // Past the copies: the wire ids of unusual recorders keep the plain path too.
            None => self.get(wire_id),
        }
    }

    fn len(&self) -> usize {
        self.index.iter().filter(|&&i| i != Self::UNDEFINED).count()
    }
}

/// Fixed-capacity wire-id table: at most `DEFS` definitions with `ARGS` argument types in all,
/// no allocation. Redefinitions reuse their wire id's slot. Wire ids below 256 find their slot
/// through a small index, others by a scan.
///
/// ```
/// use tracecap_wtf::{Capture, DefinitionLookup, FixedDefinitionTable};
///
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let capture = Capture::parse(&bytes)?;
/// let table = capture.events_with(FixedDefinitionTable::<16, 64>::new()).into_table();
/// assert!(table.get(2).is_none()); // nothing is read before the walk
/// let mut events = capture.events_with(FixedDefinitionTable::<16, 64>::new());
/// events.try_for_each_event::<tracecap_wtf::Error, _>(|_| Ok(()))?;
/// assert_eq!(events.table().get(2).map(|d| d.name), Some("App#tick"));
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FixedDefinitionTable<'a, const DEFS: usize, const ARGS: usize> {
    defs: [Option<(Definition<'a>, u16, u16)>; DEFS],
    count: usize,
    types: [ArgType; ARGS],
    used: usize,
    /// Per wire id below 256: 1 + its slot in `defs`, or 0 when it has none.
    small: [u16; 256],
}

impl<const DEFS: usize, const ARGS: usize> Default for FixedDefinitionTable<'_, DEFS, ARGS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, const DEFS: usize, const ARGS: usize> FixedDefinitionTable<'a, DEFS, ARGS> {
    /// A table holding only the implicit `wtf.event#define` (when it fits).
    pub fn new() -> Self {
        let mut t = FixedDefinitionTable {
            defs: [None; DEFS],
            count: 0,
            types: [ArgType::Bool; ARGS],
            used: 0,
            small: [0; 256],
        };
        let _ = t.insert(Definition::event_define(), &DEFINE_TYPES);
        t
    }

    /// The slot holding `wire_id`'s definition.
    #[inline]
    fn slot(&self, wire_id: u32) -> Option<usize> {
        match self.small.get(wire_id as usize) {
            // (Every slot number fits the index when `DEFS` does.)
            Some(&i) if DEFS < usize::from(u16::MAX) => usize::from(i).checked_sub(1),
            _ => self
                .defs
                .iter()
                .take(self.count)
                .position(|d| d.is_some_and(|d| u32::from(d.0.wire_id) == wire_id)),
        }
    }
}

impl<'a, const DEFS: usize, const ARGS: usize> DefinitionLookup<'a>
    for FixedDefinitionTable<'a, DEFS, ARGS>
{
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), ErrorKind> {
        let start = self.used;
        let end = start
            .checked_add(types.len())
            .filter(|&e| e <= ARGS && e <= usize::from(u16::MAX))
            .ok_or(table_full(ARGS))?;
        let slot_index = match self.slot(u32::from(def.wire_id)) {
            Some(i) => i,
            None if self.count < DEFS => {
                self.count += 1;
                self.count - 1
            }
            None => return Err(table_full(DEFS)),
        };
        if let Some(dst) = self.types.get_mut(start..end) {
            dst.copy_from_slice(types);
        }
        self.used = end;
        if let Some(slot) = self.defs.get_mut(slot_index) {
            *slot = Some((def, start as u16, types.len() as u16));
        }
        if let (Some(i), Ok(n)) = (
            self.small.get_mut(usize::from(def.wire_id)),
            u16::try_from(slot_index + 1),
        ) {
            *i = n;
        }
        Ok(())
    }

    #[inline]
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])> {
        let (d, start, len) = self.defs.get(self.slot(wire_id)?)?.as_ref()?;
        let types = self
            .types
            .get(usize::from(*start)..usize::from(*start) + usize::from(*len))?;
        Some((d, types))
    }

    #[inline]
    fn get(&self, wire_id: u32) -> Option<&Definition<'a>> {
        Some(&self.defs.get(self.slot(wire_id)?)?.as_ref()?.0)
    }

    fn len(&self) -> usize {
        self.count
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    /// The walker's look-up agrees with `get` wherever `get` finds a definition (redefinitions
    /// included); elsewhere it finds nothing or a placeholder the plain path declines.
    #[test]
    fn get_for_walk_agrees_with_get() {
        let mut t = DefinitionTable::new();
        for (flags, id) in [2u16, 7, 4095, 4096, 65535, 7].into_iter().enumerate() {
            let types = [ArgType::Uint32];
            let def = Definition::new(id, 0, flags as u32, "t#e", "uint32 a", &types);
            t.insert(def, &types).unwrap(); // ok: unit test
        }
        for id in 0..70_000u32 {
            match (t.get(id), t.get_for_walk(id)) {
                (Some(d), Some(w)) => assert_eq!(d, w, "{id}"),
                (Some(_), None) => panic!("{id}: defined, but not for the walk"), // ok: unit test
                (None, Some(w)) => assert_eq!(w.shape.plain, Shape::GENERAL, "{id}"),
                (None, None) => {}
            }
        }
        // The redefinition replaced the copy.
        assert_eq!(t.get_for_walk(7).map(|d| d.flags), Some(5));
    }
}

/// The fault of a fixed table with room for `capacity` definitions or argument types.
#[cold]
fn table_full(capacity: usize) -> ErrorKind {
    ErrorKind::Shared(tracecap_wire::ErrorKind::TableFull {
        what: "definitions",
        capacity: capacity as u64,
    })
}
