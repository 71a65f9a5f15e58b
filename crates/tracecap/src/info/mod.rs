//! What a capture holds, as data: the report of `tracecap info`, one module per format.
//!
//! [`info`] reads a capture's header and walks every record once, and returns the format's
//! report: its version and header fields, sizes, counts, time span, threads, sections and, for a
//! damaged capture, everything read before the fault with the fault itself ([`Fault`]). Only a
//! capture whose header cannot be read gives no report (`Err`).
//!
//! A report is data that each host renders: the command-line tool prints it as text or, through
//! its [`serde::Serialize`] implementation, as the one JSON object of `tracecap info --json`;
//! the Python module hands the same object to Python as a dict. The JSON members, their names
//! and their order are each format's, written once in its module here.
//!
//! ```
//! # #[cfg(feature = "easyprofiler")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
//! let input = tracecap::open(path)?;
//! let format = tracecap::detect(&input).ok_or("unknown format")?;
//! let report = tracecap::info::info(format, &input)?;
//! assert!(report.fault().is_none());
//! let json = serde_json::to_string(&report)?;
//! assert!(json.starts_with(r#"{"format":"easyprofiler","#));
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "easyprofiler"))]
//! # fn main() {}
//! ```

#[cfg(feature = "apitrace")]
pub mod apitrace;
#[cfg(feature = "easyprofiler")]
pub mod easyprofiler;
#[cfg(feature = "orbit")]
pub mod orbit;
#[cfg(feature = "syscall")]
pub mod syscall;
#[cfg(feature = "wtf")]
pub mod wtf;

mod parts;

pub use parts::Fault;

use serde::ser::{Serialize, Serializer};

use crate::Format;

/// The report of one capture, of its format.
#[derive(Debug)]
#[non_exhaustive]
pub enum Info<'a> {
    /// An EasyProfiler capture (feature `easyprofiler`).
    #[cfg(feature = "easyprofiler")]
    EasyProfiler(easyprofiler::Info<'a>),
    /// A syscall_capture (feature `syscall`).
    #[cfg(feature = "syscall")]
    Syscall(syscall::Info<'a>),
    /// An apitrace trace (feature `apitrace`).
    #[cfg(feature = "apitrace")]
    Apitrace(apitrace::Info),
    /// A Web Tracing Framework trace (feature `wtf`).
    #[cfg(feature = "wtf")]
    Wtf(wtf::Info),
    /// An Orbit capture (feature `orbit`).
    #[cfg(feature = "orbit")]
    Orbit(orbit::Info<'a>),
    /// No format is enabled (never constructed).
    #[doc(hidden)]
    None(core::convert::Infallible, core::marker::PhantomData<&'a ()>),
}

impl Info<'_> {
    /// The fault that stopped the walk of a damaged capture (the report holds what came before
    /// it).
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            #[cfg(feature = "easyprofiler")]
            Info::EasyProfiler(i) => i.fault.as_ref(),
            #[cfg(feature = "syscall")]
            Info::Syscall(i) => i.fault.as_ref(),
            #[cfg(feature = "apitrace")]
            Info::Apitrace(i) => i.fault.as_ref(),
            #[cfg(feature = "wtf")]
            Info::Wtf(i) => i.fault.as_ref(),
            #[cfg(feature = "orbit")]
            Info::Orbit(i) => i.fault.as_ref(),
            Info::None(n, _) => match *n {},
        }
    }
}

/// The format's own JSON object (see each format's `Info`).
impl Serialize for Info<'_> {
    #[allow(unused_variables)] // with no format enabled, Info has no value
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            #[cfg(feature = "easyprofiler")]
            Info::EasyProfiler(i) => i.serialize(s),
            #[cfg(feature = "syscall")]
            Info::Syscall(i) => i.serialize(s),
            #[cfg(feature = "apitrace")]
            Info::Apitrace(i) => i.serialize(s),
            #[cfg(feature = "wtf")]
            Info::Wtf(i) => i.serialize(s),
            #[cfg(feature = "orbit")]
            Info::Orbit(i) => i.serialize(s),
            Info::None(n, _) => match *n {},
        }
    }
}

/// The report of `data`, a capture of `format`. `Err` when not even its header can be read (or
/// the format's feature is off); a fault further on is in the report ([`Info::fault`]).
#[allow(unused_variables)] // with no format enabled
pub fn info(format: Format, data: &[u8]) -> Result<Info<'_>, Fault> {
    match format {
        #[cfg(feature = "easyprofiler")]
        Format::EasyProfiler => easyprofiler::info(data).map(Info::EasyProfiler),
        #[cfg(feature = "syscall")]
        Format::Syscall => syscall::info(data).map(Info::Syscall),
        #[cfg(feature = "apitrace")]
        Format::Apitrace => apitrace::info(data).map(Info::Apitrace),
        #[cfg(feature = "wtf")]
        Format::Wtf => wtf::info(data).map(Info::Wtf),
        #[cfg(feature = "orbit")]
        Format::Orbit => orbit::info(data).map(Info::Orbit),
        #[allow(unreachable_patterns)] // with every format enabled
        other => Err(Fault::new(
            format_args!("{} captures are not supported by this build", other.name()),
            0,
        )),
    }
}
