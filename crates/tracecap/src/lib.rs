//! Every tracecap format behind one crate: detect a capture's format, open it memory-mapped, and
//! stream it through one [`timeline::Sink`] into Chrome Trace Event JSON or Perfetto protobuf.
//!
//! Each format is a feature (all on by default) that re-exports its crate (`tracecap::easyprofiler`,
//! ...) and adds its timeline adapter. Conversion streams: an adapter drives the sink while it
//! parses, so nothing like the whole trace is built in memory.
//!
//! ```
//! # #[cfg(all(feature = "std", feature = "easyprofiler"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
//! let input = tracecap::open(path)?;                  // memory-mapped
//! let format = tracecap::detect(&input).ok_or("unknown format")?;
//! let mut out = Vec::new();
//! let mut sink = tracecap::export::ChromeJson::new(&mut out)?;
//! let stats = tracecap::convert(format, &input, &mut sink)?;
//! sink.finish()?;
//! println!("{} tracks, {} slices", stats.tracks, stats.slices);
//! # Ok(())
//! # }
//! # #[cfg(not(all(feature = "std", feature = "easyprofiler")))]
//! # fn main() {}
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

#[cfg(feature = "alloc")]
extern crate alloc;

#[cfg(feature = "alloc")]
pub mod adapter;
mod error;
#[cfg(feature = "std")]
pub mod export;
mod format;
#[cfg(feature = "std")]
pub mod info;
#[cfg(feature = "std")]
pub mod lock;
#[cfg(feature = "std")]
pub mod open;
#[cfg(feature = "std")]
pub mod output;
#[cfg(feature = "std")]
pub mod push;
pub mod stats;
pub mod timeline;

/// Each format's crate under the format's name (`tracecap::orbit`, ...), with its feature.
macro_rules! format_crates {
    (() $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*) => {
        $(
            #[doc = concat!("The `", stringify!($krate), "` crate (feature `", $name, "`).")]
            #[cfg(feature = $name)]
            pub use $krate as $module;
        )*
    };
}

each_format!(format_crates!());

#[cfg(feature = "alloc")]
pub use adapter::convert;
pub use error::{ConvertError, FormatError, FormatKind};
pub use format::{detect, require, Format, NotACapture};
#[cfg(feature = "std")]
pub use open::{open, Input};
pub use stats::Stats;
