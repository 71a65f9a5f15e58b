//! The tables: their names, which format each belongs to, and sets of them. Their columns are
//! [`Table::schema`]'s (`schema.rs`).

use tracecap::Format;

/// [`Table`], [`Table::ALL`], [`Table::name`] and [`Table::format`] from the one list below.
macro_rules! tables {
    ($($(#[$doc:meta])* $table:ident = $name:literal, $format:expr;)*) => {
        /// A table of the export.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Table {
            $($(#[$doc])* $table,)*
        }

        impl Table {
            /// Every table, the seven shared ones first.
            pub const ALL: [Table; COUNT] = [$(Table::$table),*];

            /// Its name: the folder of a dataset, the table name in SQL.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Table::$table => $name,)*
                }
            }

            /// The format whose captures fill it; `None` for the seven shared tables.
            pub const fn format(self) -> Option<Format> {
                match self {
                    $(Table::$table => $format,)*
                }
            }
        }

        /// How many tables there are: a [`Tables`] holds at most 32.
        const COUNT: usize = [$($name),*].len();
        const _: () = assert!(COUNT <= 32);
    };
}

// Every table, one line each: its variant, its name and the format whose captures fill it. A
// per-format table is one line here, and its columns and rows in its format's module
// (`formats/<format>.rs`).
tables! {
    /// One row per capture.
    Captures = "captures", None;
    /// One row per track of the timeline.
    Tracks = "tracks", None;
    /// One row per slice of the timeline.
    Slices = "slices", None;
    /// One row per instant of the timeline.
    Instants = "instants", None;
    /// One row per counter sample of the timeline.
    Counters = "counters", None;
    /// One row per call stack seen: a sampled stack or a call's backtrace.
    StackSamples = "stack_samples", None;
    /// One row per frame of each call stack the samples name.
    StackFrames = "stack_frames", None;
    /// EasyProfiler: one row per block.
    EasyProfilerBlocks = "easyprofiler_blocks", Some(Format::EasyProfiler);
    /// EasyProfiler: one row per value (arbitrary value) record.
    EasyProfilerValues = "easyprofiler_values", Some(Format::EasyProfiler);
    /// syscall_capture: one row per system call.
    SyscallCalls = "syscall_calls", Some(Format::Syscall);
    /// apitrace: one row per call.
    ApitraceCalls = "apitrace_calls", Some(Format::Apitrace);
    /// Web Tracing Framework: one row per event.
    WtfEvents = "wtf_events", Some(Format::Wtf);
    /// Orbit: one row per client capture event.
    OrbitEvents = "orbit_events", Some(Format::Orbit);
}

impl Table {
    /// The table named `name`, if any.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether a capture of `format` has rows in it.
    pub fn holds(self, format: Format) -> bool {
        self.format().is_none_or(|f| f == format)
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of tables: which ones a walk builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tables(u32);

impl Tables {
    /// Every table.
    pub const fn all() -> Tables {
        Tables((1 << Table::ALL.len()) - 1)
    }

    /// No table.
    pub const fn none() -> Tables {
        Tables(0)
    }

    /// `table` alone.
    pub const fn only(table: Table) -> Tables {
        Tables(1 << table as u32)
    }

    /// This set and `table`.
    #[must_use]
    pub const fn with(self, table: Table) -> Tables {
        Tables(self.0 | 1 << table as u32)
    }

    /// Whether `table` is in the set.
    pub const fn contains(self, table: Table) -> bool {
        self.0 & (1 << table as u32) != 0
    }

    /// The tables of the set, in [`Table::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Table> {
        Table::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

impl Default for Tables {
    fn default() -> Self {
        Tables::all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Table::ALL {
            assert_eq!(Table::from_name(t.name()), Some(t));
        }
        assert_eq!(Table::from_name("nope"), None);
    }

    #[test]
    fn sets() {
        let s = Tables::only(Table::Slices).with(Table::Captures);
        assert!(s.contains(Table::Slices) && s.contains(Table::Captures));
        assert!(!s.contains(Table::Tracks));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [Table::Captures, Table::Slices]
        );
        assert_eq!(Tables::all().iter().count(), Table::ALL.len());
        assert_eq!(Tables::none().iter().count(), 0);
    }
}
