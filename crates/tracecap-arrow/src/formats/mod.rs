//! The per-format tables: what the timeline cannot hold, one module per format.
//!
//! Each module is reached through its format's line in the umbrella's list
//! ([`tracecap::each_format!`]) and has the same three functions: `fields(table)`, the columns of
//! its tables after `capture`; `walk(data, out)`, which reads the capture's main records once and
//! hands their rows to `out` in batches; and `version(data)`, the version its `captures` row
//! holds. A fault stops the walk with [`ConvertError::Format`] after every
//! record before it was handed over; a failing consumer stops it with [`ConvertError::Sink`].

use arrow_schema::{ArrowError, Field};
use tracecap::{ConvertError, Format};

use crate::emit::Emit;
use crate::table::Table;

mod apitrace;
mod easyprofiler;
mod orbit;
mod syscall;
mod wtf;

/// `on_format!(format, |module| body, other => fallback)`: `body` with `module` naming the
/// format's module here, for every format of the umbrella's list ([`tracecap::each_format!`]);
/// `fallback` for a format this crate does not know.
macro_rules! on_format {
    ($format:expr, |$m:ident| $body:expr, $other:pat => $fallback:expr) => {
        tracecap::each_format!(on_format_arms!($format, $m, ($body), $other, ($fallback)))
    };
}

/// The `match` of [`on_format!`], from the umbrella's list.
macro_rules! on_format_arms {
    (
        ($format:expr, $m:ident, ($body:expr), $other:pat, ($fallback:expr))
        $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*
    ) => {
        match $format {
            $(
                Format::$v => {
                    use $module as $m;
                    $body
                }
            )*
            $other => $fallback,
        }
    };
}

/// The columns of a per-format table after `capture`.
pub(crate) fn fields(table: Table) -> Vec<Field> {
    match table.format() {
        Some(format) => on_format!(format, |m| m::fields(table), _ => Vec::new()),
        None => Vec::new(),
    }
}

/// Walks the per-format tables of a capture of `format`.
pub(crate) fn walk(
    format: Format,
    data: &[u8],
    out: &mut Emit<'_>,
) -> Result<(), ConvertError<ArrowError>> {
    on_format!(
        format,
        |m| m::walk(data, out),
        other => Err(ConvertError::Unsupported(other))
    )
}

/// The version a capture of `format` declares, as its format writes it (see each module's
/// `version`); `None` when the header itself cannot be read.
pub(crate) fn version(format: Format, data: &[u8]) -> Option<String> {
    on_format!(format, |m| m::version(data), _ => None)
}
