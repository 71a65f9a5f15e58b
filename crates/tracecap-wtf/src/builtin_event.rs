//! Typed views of the built-in events (`wtf.zone#create`, `wtf.flow#branch`, ...).

use crate::builtin::Builtin;
use crate::event::Event;
use crate::value::{Str, Value};

/// A built-in event with its arguments decoded by position.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum BuiltinEvent<'a> {
    /// `wtf.event#define`.
    Define {
        /// Wire id being defined.
        wire_id: u16,
        /// Event class (0 instance, 1 scope).
        class: u16,
        /// Event flags.
        flags: u32,
        /// Event name.
        name: Str<'a>,
        /// Signature text.
        args: Str<'a>,
    },
    /// `wtf.trace#discontinuity`.
    Discontinuity,
    /// `wtf.zone#create`.
    ZoneCreate {
        /// Zone id.
        id: u16,
        /// Zone name.
        name: Str<'a>,
        /// Zone type.
        kind: Str<'a>,
        /// Zone location.
        location: Str<'a>,
    },
    /// `wtf.zone#delete`.
    ZoneDelete {
        /// Zone id.
        id: u16,
    },
    /// `wtf.zone#set`.
    ZoneSet {
        /// Zone id.
        id: u16,
    },
    /// `wtf.scope#enter`.
    ScopeEnter {
        /// Scope name.
        name: Str<'a>,
    },
    /// `wtf.scope#enterTracing`.
    ScopeEnterTracing,
    /// `wtf.scope#leave`.
    ScopeLeave,
    /// `wtf.scope#appendData`.
    ScopeAppendData {
        /// Key.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.flow#branch`.
    FlowBranch {
        /// Flow id.
        id: u32,
        /// Parent flow id (0 = none).
        parent: u32,
        /// Name.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.flow#extend`.
    FlowExtend {
        /// Flow id.
        id: u32,
        /// Name.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.flow#terminate`.
    FlowTerminate {
        /// Flow id.
        id: u32,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.flow#appendData`.
    FlowAppendData {
        /// Flow id.
        id: u32,
        /// Key.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.trace#mark`.
    Mark {
        /// Name.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.trace#timeStamp`.
    TimeStamp {
        /// Name.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.timeRange#begin`.
    TimeRangeBegin {
        /// Range id.
        id: u32,
        /// Name.
        name: Str<'a>,
        /// JSON value.
        value: Str<'a>,
    },
    /// `wtf.timeRange#end`.
    TimeRangeEnd {
        /// Range id.
        id: u32,
    },
    /// `wtf.timing#frameStart`.
    FrameStart {
        /// Frame number.
        number: u32,
    },
    /// `wtf.timing#frameEnd`.
    FrameEnd {
        /// Frame number.
        number: u32,
    },
}

fn s(v: Option<Value<'_>>) -> Option<Str<'_>> {
    match v? {
        Value::Ascii(s) | Value::Utf8(s) | Value::Any(s) => Some(s),
        _ => None,
    }
}

fn n(v: Option<Value<'_>>) -> Option<u32> {
    v?.as_u32()
}

impl<'a> Event<'a> {
    /// The built-in event this is (by name), with its arguments; `None` for other events and
    /// when a file defined a built-in name with other argument types. (The frame events carry
    /// only the internal flag, so the built-in flag is not required here; the walker does
    /// require it before acting on defines and zones, like the loader.)
    pub fn decode_builtin(&self) -> Option<BuiltinEvent<'a>> {
        let mut v = self.values();
        let mut next = || v.next();
        Some(match self.builtin()? {
            Builtin::EventDefine => BuiltinEvent::Define {
                wire_id: n(next())? as u16,
                class: n(next())? as u16,
                flags: n(next())?,
                name: s(next())?,
                args: s(next())?,
            },
            Builtin::Discontinuity => BuiltinEvent::Discontinuity,
            Builtin::ZoneCreate => BuiltinEvent::ZoneCreate {
                id: n(next())? as u16,
                name: s(next())?,
                kind: s(next())?,
                location: s(next())?,
            },
            Builtin::ZoneDelete => BuiltinEvent::ZoneDelete {
                id: n(next())? as u16,
            },
            Builtin::ZoneSet => BuiltinEvent::ZoneSet {
                id: n(next())? as u16,
            },
            Builtin::ScopeEnter => BuiltinEvent::ScopeEnter { name: s(next())? },
            Builtin::ScopeEnterTracing => BuiltinEvent::ScopeEnterTracing,
            Builtin::ScopeLeave => BuiltinEvent::ScopeLeave,
            Builtin::ScopeAppendData => BuiltinEvent::ScopeAppendData {
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::FlowBranch => BuiltinEvent::FlowBranch {
                id: n(next())?,
                parent: n(next())?,
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::FlowExtend => BuiltinEvent::FlowExtend {
                id: n(next())?,
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::FlowTerminate => BuiltinEvent::FlowTerminate {
                id: n(next())?,
                value: s(next())?,
            },
            Builtin::FlowAppendData => BuiltinEvent::FlowAppendData {
                id: n(next())?,
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::Mark => BuiltinEvent::Mark {
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::TimeStamp => BuiltinEvent::TimeStamp {
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::TimeRangeBegin => BuiltinEvent::TimeRangeBegin {
                id: n(next())?,
                name: s(next())?,
                value: s(next())?,
            },
            Builtin::TimeRangeEnd => BuiltinEvent::TimeRangeEnd { id: n(next())? },
            Builtin::FrameStart => BuiltinEvent::FrameStart { number: n(next())? },
            Builtin::FrameEnd => BuiltinEvent::FrameEnd { number: n(next())? },
        })
    }
}
