//! Format adapters: each walks one capture and drives a [`Sink`], streaming.
//!
//! Adding a format takes one feature line in Cargo.toml, one re-export in lib.rs, its detection
//! line in `format.rs`, one module here and its arm in [`convert`].

#[cfg(feature = "apitrace")]
pub mod apitrace;
#[cfg(feature = "easyprofiler")]
pub mod easyprofiler;
#[cfg(feature = "orbit")]
pub mod orbit;
// Each format's adapter writes through it; with only some formats on, some methods go unused.
#[allow(dead_code)]
mod out;
#[cfg(feature = "wtf")]
mod reorder;
#[cfg(feature = "easyprofiler")]
pub mod scratch;
#[cfg(feature = "syscall")]
pub mod syscall;
mod text;
#[cfg(feature = "wtf")]
pub mod wtf;

use crate::error::ConvertError;
use crate::stats::{Counting, Stats};
use crate::timeline::Sink;
use crate::Format;

/// Converts `data` (a capture of `format`) into `sink`, and returns what went through it.
///
/// On a damaged capture, everything before the damage reaches the sink, then the error is
/// returned; the sink is left open either way (finish it yourself).
pub fn convert<S: Sink>(
    format: Format,
    data: &[u8],
    sink: S,
) -> Result<Stats, ConvertError<S::Error>> {
    let (stats, result) = convert_counted(format, data, sink);
    result.map(|()| stats)
}

/// Like [`convert`], but also returns the counts on failure (what reached the sink before it).
pub fn convert_counted<S: Sink>(
    format: Format,
    data: &[u8],
    sink: S,
) -> (Stats, Result<(), ConvertError<S::Error>>) {
    let mut counting = Counting::new(sink);
    let result = match format {
        #[cfg(feature = "easyprofiler")]
        Format::EasyProfiler => easyprofiler::convert(data, &mut counting),
        #[cfg(feature = "syscall")]
        Format::Syscall => syscall::convert(data, &mut counting),
        #[cfg(feature = "wtf")]
        Format::Wtf => wtf::convert(data, &mut counting),
        #[cfg(feature = "apitrace")]
        Format::Apitrace => apitrace::convert(data, &mut counting),
        #[cfg(feature = "orbit")]
        Format::Orbit => orbit::convert(data, &mut counting),
        // Unreachable once every format has its adapter.
        #[allow(unreachable_patterns)]
        other => {
            let _ = (data, &mut counting);
            Err(ConvertError::Unsupported(other))
        }
    };
    (counting.stats, result)
}

/// Whether [`convert_arriving`] converts captures of `format` as they arrive.
pub fn converts_arriving(format: Format) -> bool {
    match format {
        #[cfg(feature = "syscall")]
        Format::Syscall => syscall::CONVERTS_ARRIVING,
        #[cfg(feature = "wtf")]
        Format::Wtf => wtf::CONVERTS_ARRIVING,
        #[cfg(feature = "orbit")]
        Format::Orbit => orbit::CONVERTS_ARRIVING,
        #[cfg(feature = "easyprofiler")]
        Format::EasyProfiler => easyprofiler::CONVERTS_ARRIVING,
        #[cfg(feature = "apitrace")]
        Format::Apitrace => apitrace::CONVERTS_ARRIVING,
        #[allow(unreachable_patterns)]
        _ => false,
    }
}

/// Converts a capture whose bytes arrive from `source` (a pipe, standard input, a followed
/// file) into `sink` as they come, holding what the format needs (see each adapter's
/// `convert_arriving`) in `buffer` rather than the whole capture; `None` for a format whose
/// conversion needs more of the capture at once (convert those from their whole bytes).
/// `buffer` holds the bytes already read from `source` (those read to detect the format).
///
/// The outer error is a failed read of the source; the inner result is the conversion's, as
/// [`convert_counted`] gives it, with how the reading ended.
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    format: Format,
    source: &mut crate::open::Arriving,
    buffer: &mut alloc::vec::Vec<u8>,
    sink: S,
) -> Option<(Stats, crate::push::Arrived<S::Error>)> {
    let _ = (&source, &buffer);
    let mut counting = Counting::new(sink);
    let result = match format {
        #[cfg(feature = "syscall")]
        Format::Syscall => syscall::convert_arriving(source, buffer, &mut counting),
        #[cfg(feature = "wtf")]
        Format::Wtf => wtf::convert_arriving(source, buffer, &mut counting),
        #[cfg(feature = "orbit")]
        Format::Orbit => orbit::convert_arriving(source, buffer, &mut counting),
        #[cfg(feature = "easyprofiler")]
        Format::EasyProfiler => easyprofiler::convert_arriving(source, buffer, &mut counting),
        #[cfg(feature = "apitrace")]
        Format::Apitrace => apitrace::convert_arriving(source, buffer, &mut counting),
        #[allow(unreachable_patterns)]
        _ => None,
    }?;
    Some((counting.stats, result))
}
