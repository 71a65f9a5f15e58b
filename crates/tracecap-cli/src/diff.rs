//! `tracecap diff A B`: slices of two captures (or two groups of inputs) compared by name, in
//! SQL over the same tables as `tracecap query`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use tracecap_query::datafusion::arrow::array::{ArrayRef, AsArray, StringArray};
use tracecap_query::datafusion::arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef};
use tracecap_query::datafusion::arrow::error::ArrowError;
use tracecap_query::datafusion::arrow::record_batch::{
    RecordBatch, RecordBatchIterator, RecordBatchReader,
};
use tracecap_query::diff;

use crate::error::CliError;
use crate::query::{query_error, Sides};
use crate::results::{self, Layout, ResultFormat};

/// The columns a table of `diff` shows after the keys, unless `--wide`: what changed, narrow
/// enough for a terminal. CSV, JSON and Parquet have every column.
const TABLE_COLUMNS: [&str; 6] = [
    "a_count",
    "b_count",
    "a_total",
    "b_total",
    "change_pct",
    "status",
];

/// The columns of [`TABLE_COLUMNS`] that are durations in ns, shown with a unit.
const DURATIONS: [&str; 2] = ["a_total", "b_total"];

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
    /// What the flame graph's stacks are made of.
    pub from: tracecap_query::flame::StacksFrom,
    /// Every column in a table too, durations in ns.
    pub wide: bool,
    /// Print the SQL instead of running it.
    pub sql: bool,
    /// Exit 1 when an input is damaged or no capture.
    pub strict: bool,
    /// Partitions run at once.
    pub threads: Option<usize>,
    /// Read and fill the cache of parsed tables.
    pub cache: bool,
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
        (args.threads, args.cache),
        args.output.as_deref(),
    )?;
    let mut batches = sides.engine().query(&query).map_err(query_error)?;
    if args.format == ResultFormat::Table && !args.wide {
        let mut narrow = narrow(&mut batches, keys.len())?;
        let layout = Layout {
            right: DURATIONS.to_vec(),
            width: args
                .output
                .is_none()
                .then(results::terminal_width)
                .flatten(),
            cut: keys.len(),
        };
        results::write_table(&mut narrow, &layout, args.output.as_deref(), out)?;
    } else {
        results::write(&mut batches, args.format, args.output.as_deref(), out)?;
    }
    drop(batches);
    if let Some(svg) = &args.flamegraph {
        crate::flamegraph::diff(&sides, svg, args.from)?;
    }
    sides.finish(args.strict, err)
}

/// The diff's rows with the keys and [`TABLE_COLUMNS`] only, durations as text with a unit.
fn narrow(
    batches: &mut dyn RecordBatchReader,
    keys: usize,
) -> Result<impl RecordBatchReader, CliError> {
    let schema = batches.schema();
    let names = TABLE_COLUMNS.iter().map(|name| schema.index_of(name));
    let columns: Vec<usize> = (0..keys)
        .map(Ok)
        .chain(names)
        .collect::<Result<_, ArrowError>>()
        .map_err(results::query_error)?;
    let fields: Vec<Field> = columns
        .iter()
        .map(|&c| {
            let field = schema.field(c);
            if DURATIONS.contains(&field.name().as_str()) {
                Field::new(field.name(), DataType::Utf8, true)
            } else {
                field.clone()
            }
        })
        .collect();
    let narrow: SchemaRef = Arc::new(Schema::new(fields));
    let mut out = Vec::new();
    for batch in batches {
        let batch = batch.map_err(results::query_error)?;
        let arrays: Vec<ArrayRef> = columns
            .iter()
            .map(|&c| {
                let column = batch.column(c);
                match column.as_primitive_opt::<Int64Type>() {
                    Some(ns) if DURATIONS.contains(&schema.field(c).name().as_str()) => {
                        let text: StringArray = ns.iter().map(|v| v.map(with_unit)).collect();
                        Arc::new(text) as ArrayRef
                    }
                    _ => Arc::clone(column),
                }
            })
            .collect();
        let batch =
            RecordBatch::try_new(Arc::clone(&narrow), arrays).map_err(results::query_error)?;
        out.push(Ok(batch));
    }
    Ok(RecordBatchIterator::new(out, narrow))
}

/// `ns` nanoseconds with the unit that keeps three significant digits or fewer before it:
/// `812 ns`, `5.43 µs`, `61.9 ms`, `14.5 s`.
fn with_unit(ns: i64) -> String {
    let size = ns.unsigned_abs();
    if size < 1_000 {
        return format!("{ns} ns");
    }
    let sign = if ns < 0 { "-" } else { "" };
    let (value, unit) = match size {
        ..1_000_000 => (size as f64 / 1e3, "µs"),
        1_000_000..1_000_000_000 => (size as f64 / 1e6, "ms"),
        _ => (size as f64 / 1e9, "s"),
    };
    let decimals = match value {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{sign}{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::with_unit;

    #[test]
    fn durations_keep_three_digits_and_a_unit() {
        assert_eq!(with_unit(0), "0 ns");
        assert_eq!(with_unit(812), "812 ns");
        assert_eq!(with_unit(-999), "-999 ns");
        assert_eq!(with_unit(5_432), "5.43 µs");
        assert_eq!(with_unit(61_860_000), "61.9 ms");
        assert_eq!(with_unit(805_629), "806 µs");
        assert_eq!(with_unit(-14_548_555_000), "-14.5 s");
        assert_eq!(with_unit(3_600_000_000_000), "3600 s");
        assert_eq!(with_unit(i64::MIN), "-9223372037 s");
    }
}
