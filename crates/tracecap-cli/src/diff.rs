//! `tracecap diff A B`: slices of two captures (or two groups of inputs) compared by name, in
//! SQL over the same tables as `tracecap query`.

use std::io::Write;
use std::path::PathBuf;

use tracecap_query::diff;

use crate::error::CliError;
use crate::query::{query_error, Sides};
use crate::results::{self, ResultFormat};

/// The command line of `tracecap diff`.
pub struct DiffArgs {
    /// `A B`, when the sides are one input each.
    pub pair: Vec<PathBuf>,
    /// The inputs of side A (`--a`, repeated).
    pub a: Vec<PathBuf>,
    /// The inputs of side B (`--b`, repeated).
    pub b: Vec<PathBuf>,
    /// What slices are grouped by: `name`, `track,name`, `category`, ...
    pub by: String,
    /// How the result is written.
    pub format: ResultFormat,
    /// Where (standard output when `None`).
    pub output: Option<PathBuf>,
    /// A differential flame graph to write as well.
    pub flamegraph: Option<PathBuf>,
    /// Print the SQL instead of running it.
    pub sql: bool,
    /// Exit 1 when an input is damaged or no capture.
    pub strict: bool,
    /// Partitions run at once.
    pub threads: Option<usize>,
}

/// Runs `tracecap diff`.
pub fn run(args: &DiffArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let keys = diff::keys(&args.by).ok_or_else(|| {
        CliError::Usage(format!(
            "--by {}: name one or more of name, track, category, separated by commas, each once",
            args.by
        ))
    })?;
    let query = diff::sql(&keys);
    if args.sql {
        writeln!(out, "{query};")?;
        return Ok(());
    }
    let (a, b) = match (args.pair.as_slice(), args.a.is_empty(), args.b.is_empty()) {
        ([a, b], true, true) => (vec![a.clone()], vec![b.clone()]),
        ([], false, false) => (args.a.clone(), args.b.clone()),
        _ => return Err(CliError::Usage(
            "give two inputs (tracecap diff A B), or groups with --a and --b (each at least once)"
                .into(),
        )),
    };
    let sides = Sides::open(
        &[(Some("a"), &a), (Some("b"), &b)],
        args.threads,
        args.output.as_deref(),
    )?;
    let mut batches = sides.engine.query(&query).map_err(query_error)?;
    results::write(&mut batches, args.format, args.output.as_deref(), out)?;
    drop(batches);
    if let Some(svg) = &args.flamegraph {
        crate::flamegraph::diff(&sides, svg)?;
    }
    sides.finish(args.strict, err)
}
