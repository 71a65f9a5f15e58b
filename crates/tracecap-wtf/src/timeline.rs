//! The loader's view of a file (feature `alloc`): events grouped per zone, stably sorted by time,
//! and the scope structure rebuilt (which enter each leave closes, depth, end time).

use alloc::vec::Vec;

use crate::builtin::Builtin;
use crate::defs::DefinitionLookup;
use crate::error::Error;
use crate::event::{Event, ScopeRole, ZoneInfo};
use crate::Capture;

/// Deepest scope nesting the loader tracks; it stops scoping a zone beyond it.
pub const MAX_DEPTH: usize = 1024;

/// A zone of the timeline.
#[derive(Clone, Debug)]
pub struct Zone<'a> {
    /// The file-local zone id (`None` for the loader's default zone, used before any
    /// `wtf.zone#set`).
    pub id: Option<u16>,
    /// How `wtf.zone#create` declared it (`None` for the default zone or an undeclared id).
    pub info: Option<ZoneInfo<'a>>,
    /// The zone's events in the loader's order (time, then file order), without the events the
    /// loader consumes itself (`wtf.event#define`, `wtf.zone#*`).
    pub events: Vec<Event<'a>>,
}

/// How an event takes part in the scope structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An instant event.
    Instance,
    /// Opens a scope (`wtf.scope#enter` or a scope-class event).
    Enter,
    /// `wtf.scope#leave`; `closes` names the enter it closes (index in the zone's events), `None`
    /// when no scope was open.
    Leave {
        /// Index of the enter this leave closes.
        closes: Option<usize>,
    },
    /// Arguments appended to the innermost open scope (`wtf.scope#appendData` or an
    /// `APPEND_SCOPE_DATA` event); `target` is that scope's index, `None` when none is open.
    Append {
        /// Index of the scope the arguments are appended to.
        target: Option<usize>,
    },
}

/// One event with its place in the scope structure.
#[derive(Clone, Copy, Debug)]
pub struct Scoped<'a> {
    /// Index of the event in [`Zone::events`].
    pub index: usize,
    /// The event.
    pub event: Event<'a>,
    /// Nesting depth (number of scopes open around it).
    pub depth: usize,
    /// Index of the innermost open scope around it.
    pub parent: Option<usize>,
    /// Its role.
    pub role: Role,
    /// For an enter: the time of the leave that closes it (`None` while open at the end).
    pub end_time: Option<u32>,
}

/// Per-zone events of a file: every event the walk read, and the fault that ended it early.
#[derive(Clone, Debug, Default)]
pub struct Timeline<'a> {
    /// Zones in the order they received their first event or were created.
    pub zones: Vec<Zone<'a>>,
    /// The first fault of the file, if any: the zones then hold every event before it.
    pub fault: Option<Error>,
}

/// Where the timeline puts an event.
enum Route<'a> {
    /// Consumed by the loader (`wtf.event#define`, `wtf.zone#set`, `wtf.zone#delete`).
    Skip,
    /// `wtf.zone#create`: declares a zone.
    Declare(ZoneInfo<'a>),
    /// An event of the zone with this id.
    Zone(Option<u16>),
}

fn route<'a>(ev: &Event<'a>) -> Route<'a> {
    let builtin = ev.flags() & crate::FLAG_BUILTIN != 0;
    match ev.builtin() {
        Some(Builtin::EventDefine | Builtin::ZoneSet | Builtin::ZoneDelete) if builtin => {
            Route::Skip
        }
        Some(Builtin::ZoneCreate) if builtin => match ev.zone_create() {
            Some(info) => Route::Declare(info),
            None => Route::Skip,
        },
        _ => Route::Zone(ev.zone),
    }
}

impl<'a> Timeline<'a> {
    /// Walks every event of `trace` with the table `table` and groups them per zone. A damaged
    /// file gives every event before its first fault, and the fault in [`Timeline::fault`].
    ///
    /// The events are walked twice: first to count each zone's, so that each zone's list is
    /// allocated once at its size. The heap then holds the events
    /// ([`size_of::<Event>()`](core::mem::size_of) bytes each) and little more.
    pub fn build_with<T: DefinitionLookup<'a> + Clone>(trace: &Capture<'a>, table: T) -> Self {
        // Events per zone id, in the order the zones are met.
        let mut counts: Vec<(Option<u16>, usize)> = Vec::new();
        for ev in trace.events_with(table.clone()).map_while(Result::ok) {
            if let Route::Zone(id) = route(&ev) {
                match counts.iter_mut().find(|(z, _)| *z == id) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((id, 1)),
                }
            }
        }
        let mut zones: Vec<Zone<'a>> = Vec::new();
        let mut fault = None;
        for ev in trace.events_with(table) {
            let ev = match ev {
                Ok(ev) => ev,
                Err(e) => {
                    fault = Some(e);
                    break;
                }
            };
            match route(&ev) {
                Route::Skip => {}
                Route::Declare(info) => {
                    let i = zone_index(&mut zones, Some(info.id), &counts);
                    if let Some(z) = zones.get_mut(i) {
                        z.info = Some(info);
                    }
                }
                Route::Zone(id) => {
                    let i = zone_index(&mut zones, id, &counts);
                    if let Some(z) = zones.get_mut(i) {
                        z.events.push(ev);
                    }
                }
            }
        }
        for z in &mut zones {
            // Equal times keep file order (offsets grow through the file); an unstable sort
            // needs no buffer as large as the events.
            z.events.sort_unstable_by_key(|e| (e.time, e.offset));
        }
        Timeline { zones, fault }
    }

    /// Like [`Timeline::build_with`] with a growable table.
    pub fn build(trace: &Capture<'a>) -> Self {
        Self::build_with(trace, crate::DefinitionTable::new())
    }
}

/// The index of the zone `id`, added (with room for its `counts`) when new.
fn zone_index(
    zones: &mut Vec<Zone<'_>>,
    id: Option<u16>,
    counts: &[(Option<u16>, usize)],
) -> usize {
    match zones.iter().position(|z| z.id == id) {
        Some(p) => p,
        None => {
            let n = counts.iter().find(|(z, _)| *z == id).map_or(0, |(_, n)| *n);
            zones.push(Zone {
                id,
                info: None,
                events: Vec::with_capacity(n),
            });
            zones.len() - 1
        }
    }
}

impl<'a> Zone<'a> {
    /// The zone's events with their scope structure, in the loader's order.
    pub fn scopes(&self) -> Scopes<'a, '_> {
        Scopes {
            events: &self.events,
            pos: 0,
            stack: Vec::new(),
            ends: None,
        }
    }
}

/// Iterator over a zone's events with depth, parent, role and end time (see [`Zone::scopes`]).
/// Stops after [`MAX_DEPTH`] nested scopes, as the loader does.
#[derive(Clone, Debug)]
pub struct Scopes<'a, 'z> {
    events: &'z [Event<'a>],
    pos: usize,
    stack: Vec<usize>,
    ends: Option<Vec<Option<u32>>>,
}

impl<'a> Scopes<'a, '_> {
    /// End time of every enter, computed in one pass (index -> leave time).
    fn ends(&mut self) -> &[Option<u32>] {
        if self.ends.is_none() {
            let mut ends = alloc::vec![None; self.events.len()];
            let mut stack: Vec<usize> = Vec::new();
            for (i, e) in self.events.iter().enumerate() {
                match e.scope_role() {
                    ScopeRole::Enter => {
                        stack.push(i);
                        if stack.len() >= MAX_DEPTH {
                            break;
                        }
                    }
                    ScopeRole::Leave => {
                        if let Some(open) = stack.pop() {
                            if let Some(slot) = ends.get_mut(open) {
                                *slot = Some(e.time);
                            }
                        }
                    }
                    _ => {}
                }
            }
            self.ends = Some(ends);
        }
        self.ends.as_deref().unwrap_or(&[])
    }
}

impl<'a> Iterator for Scopes<'a, '_> {
    type Item = Scoped<'a>;

    fn next(&mut self) -> Option<Scoped<'a>> {
        if self.stack.len() >= MAX_DEPTH {
            return None;
        }
        let index = self.pos;
        let event = *self.events.get(index)?;
        self.pos += 1;
        let depth = self.stack.len();
        let parent = self.stack.last().copied();
        let (role, end_time) = match event.scope_role() {
            ScopeRole::Instance => (Role::Instance, None),
            ScopeRole::Enter => {
                self.stack.push(index);
                let end = self.ends().get(index).copied().flatten();
                (Role::Enter, end)
            }
            ScopeRole::Leave => (
                Role::Leave {
                    closes: self.stack.pop(),
                },
                None,
            ),
            ScopeRole::Append => (Role::Append { target: parent }, None),
        };
        Some(Scoped {
            index,
            event,
            depth,
            parent,
            role,
            end_time,
        })
    }
}
