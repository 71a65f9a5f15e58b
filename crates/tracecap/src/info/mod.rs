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

use std::fmt;
use std::string::{String, ToString};

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

use crate::Format;

/// A fault in a capture as a report states it: what is wrong (without the offset) and the
/// absolute file offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    what: String,
    offset: u64,
}

impl Fault {
    /// The fault `what` at the absolute file offset `offset`.
    pub fn new(what: impl fmt::Display, offset: u64) -> Self {
        Fault {
            what: what.to_string(),
            offset,
        }
    }

    /// What is wrong, without the offset.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The absolute file offset of the fault.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Both parts, for a host's own error type.
    pub fn into_parts(self) -> (String, u64) {
        (self.what, self.offset)
    }
}

/// `<what> at offset 0x<hex>`.
impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {:#x}", self.what, self.offset)
    }
}

impl std::error::Error for Fault {}

/// Any format crate's error: its kind and offset.
impl<K: fmt::Display> From<tracecap_wire::Error<K>> for Fault {
    fn from(e: tracecap_wire::Error<K>) -> Self {
        Fault::new(e.kind, e.offset)
    }
}

/// `{"what": ..., "offset": ...}`.
impl Serialize for Fault {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Fault", 2)?;
        m.serialize_field("what", &self.what)?;
        m.serialize_field("offset", &self.offset)?;
        m.end()
    }
}

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

/// Bytes from the file as a JSON string, each invalid UTF-8 sequence as U+FFFD.
#[allow(dead_code)] // with neither EasyProfiler nor syscall_capture enabled
struct Lossy<'b>(&'b [u8]);

impl Serialize for Lossy<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&String::from_utf8_lossy(self.0))
    }
}

/// A JSON object of `(key, value)` pairs, in their order.
#[allow(dead_code)] // with only EasyProfiler enabled
struct Pairs<I>(I);

impl<K, V, I> Serialize for Pairs<I>
where
    I: Iterator<Item = (K, V)> + Clone,
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.0.clone() {
            m.serialize_entry(&k, &v)?;
        }
        m.end()
    }
}

/// A JSON array of the items, in their order, each made when it is written (a list may be long).
#[allow(dead_code)] // with only apitrace enabled
struct Items<I>(I);

impl<T, I> Serialize for Items<I>
where
    I: Iterator<Item = T> + Clone,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}
