//! The built-in events the format defines (`wtf.event#define`, `wtf.zone#set`, ...), by name.

/// The built-in events, recognised by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Builtin {
    /// `wtf.event#define`.
    EventDefine,
    /// `wtf.trace#discontinuity`.
    Discontinuity,
    /// `wtf.zone#create`.
    ZoneCreate,
    /// `wtf.zone#delete`.
    ZoneDelete,
    /// `wtf.zone#set`.
    ZoneSet,
    /// `wtf.scope#enter`.
    ScopeEnter,
    /// `wtf.scope#enterTracing`.
    ScopeEnterTracing,
    /// `wtf.scope#leave`.
    ScopeLeave,
    /// `wtf.scope#appendData`.
    ScopeAppendData,
    /// `wtf.flow#branch`.
    FlowBranch,
    /// `wtf.flow#extend`.
    FlowExtend,
    /// `wtf.flow#terminate`.
    FlowTerminate,
    /// `wtf.flow#appendData`.
    FlowAppendData,
    /// `wtf.trace#mark`.
    Mark,
    /// `wtf.trace#timeStamp`.
    TimeStamp,
    /// `wtf.timeRange#begin`.
    TimeRangeBegin,
    /// `wtf.timeRange#end`.
    TimeRangeEnd,
    /// `wtf.timing#frameStart`.
    FrameStart,
    /// `wtf.timing#frameEnd`.
    FrameEnd,
}

impl Builtin {
    /// Every built-in, in declaration order.
    pub const ALL: [Builtin; 19] = [
        Builtin::EventDefine,
        Builtin::Discontinuity,
        Builtin::ZoneCreate,
        Builtin::ZoneDelete,
        Builtin::ZoneSet,
        Builtin::ScopeEnter,
        Builtin::ScopeEnterTracing,
        Builtin::ScopeLeave,
        Builtin::ScopeAppendData,
        Builtin::FlowBranch,
        Builtin::FlowExtend,
        Builtin::FlowTerminate,
        Builtin::FlowAppendData,
        Builtin::Mark,
        Builtin::TimeStamp,
        Builtin::TimeRangeBegin,
        Builtin::TimeRangeEnd,
        Builtin::FrameStart,
        Builtin::FrameEnd,
    ];

    /// The built-in event called `name`, if any.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "wtf.event#define" => Builtin::EventDefine,
            "wtf.trace#discontinuity" => Builtin::Discontinuity,
            "wtf.zone#create" => Builtin::ZoneCreate,
            "wtf.zone#delete" => Builtin::ZoneDelete,
            "wtf.zone#set" => Builtin::ZoneSet,
            "wtf.scope#enter" => Builtin::ScopeEnter,
            "wtf.scope#enterTracing" => Builtin::ScopeEnterTracing,
            "wtf.scope#leave" => Builtin::ScopeLeave,
            "wtf.scope#appendData" => Builtin::ScopeAppendData,
            "wtf.flow#branch" => Builtin::FlowBranch,
            "wtf.flow#extend" => Builtin::FlowExtend,
            "wtf.flow#terminate" => Builtin::FlowTerminate,
            "wtf.flow#appendData" => Builtin::FlowAppendData,
            "wtf.trace#mark" => Builtin::Mark,
            "wtf.trace#timeStamp" => Builtin::TimeStamp,
            "wtf.timeRange#begin" => Builtin::TimeRangeBegin,
            "wtf.timeRange#end" => Builtin::TimeRangeEnd,
            "wtf.timing#frameStart" => Builtin::FrameStart,
            "wtf.timing#frameEnd" => Builtin::FrameEnd,
            _ => return None,
        })
    }
}
