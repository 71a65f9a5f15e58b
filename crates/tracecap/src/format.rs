//! Which format a capture is, from its first bytes.

/// The capture formats tracecap knows: the id of a format, whose description is its line in
/// [`each_format!`](crate::each_format). Only the formats whose feature is on are detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// EasyProfiler `.prof`.
    EasyProfiler,
    /// syscall_capture `.dat`.
    Syscall,
    /// apitrace `.trace`.
    Apitrace,
    /// Web Tracing Framework `.wtf-trace`.
    Wtf,
    /// Orbit `.orbit`.
    Orbit,
}

/// Every format of the workspace, one line each, in the order detection tries them: the one list
/// a format joins (with its variant of [`Format`]). Each line names the format's `Format`
/// variant, its module in every layer (`tracecap::adapter::<module>`, `tracecap::info::<module>`,
/// the tool's and `tracecap-arrow`'s `formats::<module>`), its name (also its feature), its crate,
/// and the type of its report in `tracecap::info::<module>`.
///
/// `each_format!(then!(args))` calls `then!((args) Variant module "name" crate [Report], ...)`;
/// each crate built on this one makes its dispatch from it (`match` arms, the modules' entry
/// points reached by the module name), so a format is named once for every layer
/// (docs/architecture.md, "Adding a format").
///
/// ```
/// macro_rules! names {
///     (() $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*) => {
///         [$((tracecap::Format::$v, $name)),*]
///     };
/// }
/// for (format, name) in tracecap::each_format!(names!()) {
///     assert_eq!(format.name(), name);
/// }
/// ```
#[macro_export]
macro_rules! each_format {
    ($($then:ident)::+!($($args:tt)*)) => {
        $($then)::+! {
            ($($args)*)
            // variant    module        name            crate                  report
            EasyProfiler easyprofiler  "easyprofiler"  tracecap_easyprofiler  [Info<'a>],
            Syscall      syscall       "syscall"       tracecap_syscall       [Info<'a>],
            Wtf          wtf           "wtf"           tracecap_wtf           [Info],
            Orbit        orbit         "orbit"         tracecap_orbit         [Info<'a>],
            // apitrace last: its brotli container has no magic, so detecting it decodes a little.
            Apitrace     apitrace      "apitrace"      tracecap_apitrace      [Info],
        }
    };
}

/// `on_format!(format, |module| body, other => fallback)`: `body` for a format whose feature is
/// on, with `module` naming the format's module where the macro is used (its module under
/// `adapter/` in `adapter/mod.rs`); `fallback` for the others. `|module, krate|` also names the
/// format's crate.
#[allow(unused_macros)] // without `alloc`, nothing dispatches
macro_rules! on_format {
    ($format:expr, |$m:ident| $body:expr, $other:pat => $fallback:expr) => {
        $crate::format::on_format!($format, |$m, _| $body, $other => $fallback)
    };
    ($format:expr, |$m:ident, $k:tt| $body:expr, $other:pat => $fallback:expr) => {
        $crate::each_format!(crate::format::on_format_arms!($format, $m, $k, ($body), $other, ($fallback)))
    };
}
#[allow(unused_imports)]
pub(crate) use on_format;

/// The `match` of [`on_format!`], from [`each_format!`]'s list.
#[allow(unused_macros)]
macro_rules! on_format_arms {
    (
        ($format:expr, $m:ident, $k:tt, ($body:expr), $other:pat, ($fallback:expr))
        $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*
    ) => {
        match $format {
            $(
                #[cfg(feature = $name)]
                $crate::Format::$v => {
                    #[allow(unused_imports)]
                    use {$module as $m, $krate as $k};
                    $body
                }
            )*
            #[allow(unreachable_patterns)] // with every format enabled
            $other => $fallback,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_format_arms;

/// [`Format`]'s methods and [`detect`], from [`each_format!`]'s list.
macro_rules! format_items {
    (() $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*) => {
        impl Format {
            /// Every format, in the order [`detect`] tries them.
            pub const ALL: &'static [Format] = &[$(Format::$v),*];

            /// Lower-case name (`easyprofiler`, `syscall`, `apitrace`, `wtf`, `orbit`): also the
            /// name of its feature.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Format::$v => $name,)*
                }
            }

            /// True when this build can convert the format (its feature is on).
            pub const fn is_enabled(self) -> bool {
                match self {
                    $(Format::$v => cfg!(feature = $name),)*
                }
            }

            /// The format named `name` ([`Format::name`]), if any.
            pub fn from_name(name: &str) -> Option<Format> {
                Format::ALL.iter().copied().find(|f| f.name() == name)
            }
        }

        /// The format of `bytes`, from magic bytes (and structure where a format has no magic),
        /// among the formats whose feature is enabled.
        pub fn detect(bytes: &[u8]) -> Option<Format> {
            $(
                #[cfg(feature = $name)]
                if $krate::detect(bytes) {
                    return Some(Format::$v);
                }
            )*
            let _ = bytes;
            None
        }
    };
}

crate::each_format!(format_items!());

impl core::fmt::Display for Format {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why bytes are no capture: the one "not a capture" of every tool and library of the workspace.
///
/// ```
/// use tracecap::NotACapture;
///
/// assert_eq!(tracecap::require(b""), Err(NotACapture::Empty));
/// assert_eq!(NotACapture::Empty.to_string(), "empty file: not a capture");
/// assert_eq!(NotACapture::Unknown.reason(), "unknown format");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotACapture {
    /// There are no bytes at all.
    Empty,
    /// No format this build reads recognises them.
    Unknown,
}

impl NotACapture {
    /// The short reason, as a list of skipped inputs gives it: `empty file` or `unknown format`.
    pub const fn reason(self) -> &'static str {
        match self {
            NotACapture::Empty => "empty file",
            NotACapture::Unknown => "unknown format",
        }
    }

    /// The whole message: `empty file: not a capture` or `unknown format: no known magic bytes`.
    pub const fn message(self) -> &'static str {
        match self {
            NotACapture::Empty => "empty file: not a capture",
            NotACapture::Unknown => "unknown format: no known magic bytes",
        }
    }
}

impl core::fmt::Display for NotACapture {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for NotACapture {}

/// The format of `bytes` ([`detect`]), or why they are no capture.
pub fn require(bytes: &[u8]) -> Result<Format, NotACapture> {
    detect(bytes).ok_or(if bytes.is_empty() {
        NotACapture::Empty
    } else {
        NotACapture::Unknown
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_enabled_formats_only() {
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"not a capture"), None);
        #[cfg(feature = "easyprofiler")]
        assert_eq!(
            detect(&[0x79, 0x73, 0x61, 0x45, 0, 0, 1, 2]),
            Some(Format::EasyProfiler)
        );
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(Format::ALL.len(), 5);
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(*f));
        }
        assert_eq!(Format::from_name("nope"), None);
    }
}
