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

use crate::format::on_format;
use crate::Format;

/// [`Info`] and its conversions, from [`each_format!`](crate::each_format)'s list.
macro_rules! info_items {
    (() $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*) => {
        /// The report of one capture, of its format: the `Info` of the format's module.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum Info<'a> {
            $(
                #[doc = concat!("A capture of the ", $name, " format (feature `", $name, "`).")]
                #[cfg(feature = $name)]
                $v($module::$($report)*),
            )*
            /// No format is enabled (never constructed).
            #[doc(hidden)]
            None(core::convert::Infallible, core::marker::PhantomData<&'a ()>),
        }

        impl Info<'_> {
            /// The fault that stopped the walk of a damaged capture (the report holds what came
            /// before it).
            pub fn fault(&self) -> Option<&Fault> {
                match self {
                    $(
                        #[cfg(feature = $name)]
                        Info::$v(i) => i.fault.as_ref(),
                    )*
                    Info::None(n, _) => match *n {},
                }
            }
        }

        /// The format's own JSON object (see each format's `Info`).
        impl Serialize for Info<'_> {
            #[allow(unused_variables)] // with no format enabled, Info has no value
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(
                        #[cfg(feature = $name)]
                        Info::$v(i) => i.serialize(s),
                    )*
                    Info::None(n, _) => match *n {},
                }
            }
        }

        $(
            #[cfg(feature = $name)]
            impl<'a> From<$module::$($report)*> for Info<'a> {
                fn from(report: $module::$($report)*) -> Self {
                    Info::$v(report)
                }
            }

            /// The report of this format, from the report of any: `Err` with the report of
            /// another format.
            #[cfg(feature = $name)]
            impl<'r, 'a> TryFrom<&'r Info<'a>> for &'r $module::$($report)* {
                type Error = &'r Info<'a>;

                fn try_from(report: &'r Info<'a>) -> Result<Self, Self::Error> {
                    match report {
                        Info::$v(i) => Ok(i),
                        #[allow(unreachable_patterns)] // with one format enabled
                        other => Err(other),
                    }
                }
            }
        )*
    };
}

crate::each_format!(info_items!());

/// The report of `data`, a capture of `format`. `Err` when not even its header can be read (or
/// the format's feature is off); a fault further on is in the report ([`Info::fault`]).
#[allow(unused_variables)] // with no format enabled
pub fn info(format: Format, data: &[u8]) -> Result<Info<'_>, Fault> {
    on_format!(
        format,
        |m| m::info(data).map(Into::into),
        other => Err(Fault::new(
            format_args!("{} captures are not supported by this build", other.name()),
            0,
        ))
    )
}
