//! SQL over captures and datasets, with Apache DataFusion embedded.
//!
//! The tables are those of `tracecap export` (`captures`, `tracks`, `slices`, `instants`,
//! `counters` and one table per format; see [`tracecap_arrow::Table`]), over any mix of capture
//! files, directories searched for captures, and exported Parquet datasets. A capture is parsed
//! when its partition of a scan runs, partitions run in parallel, and filters on the `capture`
//! column skip the captures they cannot match before any is parsed.
//!
//! A damaged capture is queried up to its fault, and the fault is in the `captures` table and in
//! [`Engine::faults`].
//!
//! [`diff`] compares two sets of inputs slice name by slice name, in SQL over the same tables;
//! [`flame`] folds slices into stacks and draws flame graphs.
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

mod cache;
mod cast;
mod dataset;
pub mod diff;
mod engine;
mod error;
mod faults;
pub mod flame;
mod inputs;
mod partition;
pub mod plain;
mod provider;
mod prune;
mod sides;
mod views;
mod walk;

pub use cache::{Cache, CacheInfo, FileIdentity, Held, HeldTableReader};
pub use datafusion;
pub use dataset::DamagedFile;
pub use engine::{Batches, Config, Engine};
pub use error::Error;
pub use faults::{Damage, Fault, FaultKind};
pub use inputs::{is_dataset, CaptureFile, Inputs};
pub use sides::{Problem, Sides};
pub use views::schema;
