//! The `captures` table: one row per capture, written after its walk (it holds the time span and
//! the fault the walk found).

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use tracecap::{Format, FormatError, Stats};

use crate::columns::int;

/// What the walk of one capture found, and what its `captures` row holds.
#[derive(Clone, Debug)]
pub struct CaptureSummary {
    /// The capture's format.
    pub format: Format,
    /// The version its header declares (see the `captures` table); `None` when the header
    /// cannot be read, or when the `captures` table is not built (the version is read only for
    /// it: for a compressed apitrace trace, reading it means decompressing the start again).
    pub version: Option<String>,
    /// Its size in bytes.
    pub bytes: u64,
    /// Counts of its timeline (what `tracecap convert` reports), including what came before a
    /// fault.
    pub stats: Stats,
    /// The first fault, if the capture is damaged: every record before it is in the batches.
    pub fault: Option<FormatError>,
}

/// The columns of the `captures` row of one capture (after `capture`).
pub(crate) fn row(path: &str, summary: &CaptureSummary) -> Vec<ArrayRef> {
    let mut format = StringDictionaryBuilder::<Int32Type>::new();
    format.append_value(summary.format.name());
    let mut fault = StringBuilder::new();
    let mut fault_offset = Int64Builder::new();
    match &summary.fault {
        Some(f) => {
            fault.append_value(f.what().to_string());
            fault_offset.append_value(int(f.offset()));
        }
        None => {
            fault.append_null();
            fault_offset.append_null();
        }
    }
    let mut version = StringBuilder::new();
    version.append_option(summary.version.as_deref());
    let one = |x: Option<u64>| -> ArrayRef {
        let mut b = Int64Builder::new();
        b.append_option(x.map(int));
        Arc::new(b.finish())
    };
    let mut p = StringBuilder::new();
    p.append_value(path);
    vec![
        Arc::new(p.finish()),
        Arc::new(format.finish()),
        Arc::new(version.finish()),
        one(Some(summary.bytes)),
        one(summary.stats.first_ts),
        one(summary.stats.last_ts),
        Arc::new(fault.finish()),
        Arc::new(fault_offset.finish()),
    ]
}
