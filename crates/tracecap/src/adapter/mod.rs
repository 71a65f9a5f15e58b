//! Format adapters: each walks one capture and drives a [`Sink`], streaming.
//!
//! One module per format, reached through the format's line in
//! [`each_format!`](crate::each_format): each offers `convert`, `convert_arriving` and
//! `CONVERTS_ARRIVING` with the same signatures.

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
use crate::format::on_format;
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
    let result = on_format!(
        format,
        |m| m::convert(data, &mut counting),
        other => {
            let _ = (data, &mut counting);
            Err(ConvertError::Unsupported(other))
        }
    );
    (counting.stats, result)
}

/// Whether [`convert_arriving`] converts captures of `format` as they arrive.
pub fn converts_arriving(format: Format) -> bool {
    on_format!(format, |m| m::CONVERTS_ARRIVING, _other => false)
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
    let mut counting = Counting::new(sink);
    let result = on_format!(
        format,
        |m| m::convert_arriving(source, buffer, &mut counting),
        _other => {
            let _ = (source, buffer, &mut counting);
            None
        }
    )?;
    Some((counting.stats, result))
}
