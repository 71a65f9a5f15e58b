//! Any capture tracecap reads, as Arrow record batches and Parquet datasets.
//!
//! Every capture gives the same seven tables, whatever its format:
//!
//! | table | one row per |
//! |---|---|
//! | `captures` | capture: its id, path, format, version, size, time span and fault |
//! | `tracks` | process, thread, counter or other track of the timeline |
//! | `slices` | slice of the timeline (what `tracecap convert` writes as `B`/`E` or `X`) |
//! | `instants` | instant of the timeline |
//! | `counters` | counter sample |
//! | `stack_samples` | call stack seen on a track: a sampled stack, or a call's backtrace |
//! | `stack_frames` | frame of a call stack the samples name (depth 0 the innermost) |
//!
//! and one table per format for what the timeline cannot hold (`easyprofiler_blocks`,
//! `easyprofiler_values`, `syscall_calls`, `apitrace_calls`, `wtf_events`, `orbit_events`): every
//! field `tracecap dump --json` shows for the format's main records. [`Table`] lists them with their
//! schemas; docs/export.md in the repository describes every column.
//!
//! Batches stream: a capture is walked once for the timeline tables and once for its format's
//! table, and a batch is handed over every [`Options::batch_rows`] rows, so no table of a capture is
//! ever held whole in memory.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
//! use tracecap_arrow::{Options, Table};
//!
//! let input = tracecap::open(path)?; // memory-mapped
//! let mut slices = 0;
//! let summary = tracecap_arrow::capture_batches(
//!     "sample_small.prof",
//!     &input,
//!     &Options::only(Table::Slices),
//!     &mut |table: Table, batch: arrow_array::RecordBatch| {
//!         assert_eq!(table, Table::Slices);
//!         slices += batch.num_rows();
//!         Ok(())
//!     },
//! )?;
//! assert_eq!(slices as u64, summary.stats.slices);
//! assert!(summary.fault.is_none());
//! # Ok(())
//! # }
//! ```
//!
//! With the feature `parquet` (on by default), the module `dataset` writes many captures as a Parquet
//! dataset, one folder per table, that DuckDB, DataFusion and Spark read as one table each.
#![cfg_attr(docsrs, feature(doc_cfg))]
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

mod capture;
mod captures;
mod columns;
#[cfg(feature = "parquet")]
#[cfg_attr(docsrs, doc(cfg(feature = "parquet")))]
pub mod dataset;
mod dictionary;
mod emit;
mod error;
mod formats;
mod reader;
mod schema;
mod table;
mod timeline;

pub use arrow_array;
pub use arrow_schema;
pub use capture::{capture_batches, capture_batches_with_progress, Options};
pub use captures::CaptureSummary;
pub use emit::BatchSink;
pub use error::Error;
pub use reader::{TableReader, Worker};
pub use table::{Table, Tables};
