//! Which format a capture is: the umbrella crate's detection (magic bytes, and structure where a
//! format has none), plus the error the tool reports when a file is none of them.

use crate::error::CliError;

pub use tracecap::Format;

/// The format of `bytes`; an unknown format (an empty file too) is a format error at offset 0.
pub fn require(bytes: &[u8]) -> Result<Format, CliError> {
    tracecap::require(bytes).map_err(|why| CliError::format(why.message(), 0))
}

/// The error for a format this build of the tool does not read (only reachable if the umbrella
/// crate learns a format before the tool does).
pub fn unsupported(format: Format) -> CliError {
    CliError::format(
        format!("{format} captures are not supported by this tool"),
        0,
    )
}

/// `on_format!(format, |module| body, other => fallback)`: `body` with `module` naming the
/// format's module where the macro is used (its module under `formats/` in `formats/mod.rs`),
/// for every format of the umbrella's list ([`tracecap::each_format!`]); `fallback` for a format
/// the tool does not know. `|crate krate| body` names the format's crate instead.
macro_rules! on_format {
    ($format:expr, |$m:ident| $body:expr, $other:pat => $fallback:expr) => {
        tracecap::each_format!(crate::detect::on_format_arms!(
            $format, (module $m), ($body), $other, ($fallback)
        ))
    };
    ($format:expr, |crate $k:ident| $body:expr, $other:pat => $fallback:expr) => {
        tracecap::each_format!(crate::detect::on_format_arms!(
            $format, (crate $k), ($body), $other, ($fallback)
        ))
    };
}
pub(crate) use on_format;

/// The `match` of [`on_format!`], from the umbrella's list.
macro_rules! on_format_arms {
    (
        ($format:expr, ($what:tt $name:ident), ($body:expr), $other:pat, ($fallback:expr))
        $($v:ident $module:ident $feature:literal $krate:ident [$($report:tt)*],)*
    ) => {
        match $format {
            $(
                tracecap::Format::$v => {
                    crate::detect::on_format_arms!(@use $what $name $module $krate);
                    $body
                }
            )*
            $other => $fallback,
        }
    };
    (@use module $name:ident $module:ident $krate:ident) => {
        use $module as $name;
    };
    (@use crate $name:ident $module:ident $krate:ident) => {
        use $krate as $name;
    };
}
pub(crate) use on_format_arms;
