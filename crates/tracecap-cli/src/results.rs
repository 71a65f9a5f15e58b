//! A query's result written out: an aligned table for a terminal, or CSV, JSON Lines or Parquet
//! for machines.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use clap::ValueEnum;
use tracecap_query::datafusion::arrow::array::{Array, ArrayRef};
use tracecap_query::datafusion::arrow::datatypes::DataType;
use tracecap_query::datafusion::arrow::error::ArrowError;
use tracecap_query::datafusion::arrow::record_batch::{RecordBatch, RecordBatchReader};
use tracecap_query::datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use tracecap_query::datafusion::arrow::{csv, json};
use tracecap_query::datafusion::parquet::arrow::ArrowWriter;
use tracecap_query::datafusion::parquet::basic::{Compression, ZstdLevel};
use tracecap_query::datafusion::parquet::errors::ParquetError;
use tracecap_query::datafusion::parquet::file::properties::WriterProperties;
use tracecap_query::plain;

use crate::destination::Destination;
use crate::error::CliError;

/// How a result is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResultFormat {
    /// An aligned table (the first rows; long text is cut).
    Table,
    /// CSV with a header line.
    Csv,
    /// JSON Lines: one object per row.
    Json,
    /// A Parquet file (needs -o FILE).
    Parquet,
}

/// Rows an aligned table shows at most.
pub const TABLE_ROWS: usize = 10_000;
/// Characters of a table cell shown at most.
const CELL_CHARS: usize = 48;

/// Writes the result `batches` as `format` to `output` (a file, or standard output when `None`
/// or `-`); returns the rows written.
pub fn write(
    batches: &mut dyn RecordBatchReader,
    format: ResultFormat,
    output: Option<&Path>,
    stdout: &mut dyn Write,
) -> Result<u64, CliError> {
    let file = output.filter(|p| *p != Path::new("-"));
    let mut dest = match (format, file) {
        (ResultFormat::Parquet, Some(path)) => return parquet(batches, path),
        (ResultFormat::Parquet, None) => {
            return Err(CliError::Usage(
                "Parquet needs a file to write (its footer is written last): -o FILE".into(),
            ))
        }
        (_, Some(path)) => Destination::create(path)?,
        (_, None) => Destination::Stdout(stdout),
    };
    let rows = match format {
        ResultFormat::Table => table(batches, &Layout::default(), &mut dest)?,
        ResultFormat::Csv => {
            let mut w = csv::WriterBuilder::new().with_header(true).build(&mut dest);
            each(batches, |b| w.write(b))?
        }
        ResultFormat::Json | ResultFormat::Parquet => {
            let mut w = json::LineDelimitedWriter::new(&mut dest);
            let rows = each(batches, |b| w.write(b))?;
            w.finish().map_err(write_error)?;
            rows
        }
    };
    dest.commit()?;
    Ok(rows)
}

/// The result as a Parquet file (zstd), through a temporary file renamed when complete.
fn parquet(batches: &mut dyn RecordBatchReader, path: &Path) -> Result<u64, CliError> {
    let file = tracecap::output::Output::create(path)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let parquet_error = |e: ParquetError| CliError::Io(std::io::Error::other(e.to_string()));
    let schema = plain::schema(&batches.schema());
    let mut w =
        ArrowWriter::try_new(file, Arc::clone(&schema), Some(props)).map_err(parquet_error)?;
    let rows = each(batches, |b| {
        w.write(&plain::batch(&schema, b)?)
            .map_err(ArrowError::from)
    })?;
    let file = w.into_inner().map_err(parquet_error)?;
    file.commit()?;
    Ok(rows)
}

/// Hands every batch to `write`; the rows written.
fn each(
    batches: &mut dyn RecordBatchReader,
    mut write: impl FnMut(&RecordBatch) -> Result<(), ArrowError>,
) -> Result<u64, CliError> {
    let mut rows = 0;
    for batch in batches {
        let batch = batch.map_err(query_error)?;
        write(&batch).map_err(write_error)?;
        rows += batch.num_rows() as u64;
    }
    Ok(rows)
}

/// An error of the query while it runs (DataFusion's message, or the dataset file it could not
/// read).
pub fn query_error(e: ArrowError) -> CliError {
    if let Some(damaged) = tracecap_query::DamagedFile::find(&e) {
        return CliError::Usage(damaged.to_string());
    }
    match e {
        ArrowError::ExternalError(inner) => CliError::Usage(inner.to_string()),
        ArrowError::IoError(_, io) => CliError::Io(io),
        other => CliError::Usage(other.to_string()),
    }
}

fn write_error(e: ArrowError) -> CliError {
    match e {
        ArrowError::IoError(_, io) => CliError::Io(io),
        other => CliError::Io(std::io::Error::other(other.to_string())),
    }
}

/// The aligned table: a header, a rule, and at most [`TABLE_ROWS`] rows (numbers to the right);
/// says how many rows there were, or that there were more.
/// How a table is laid out beyond its defaults.
#[derive(Debug, Default)]
pub struct Layout {
    /// Columns aligned right besides the numeric ones (text that reads as a quantity).
    pub right: Vec<&'static str>,
    /// The width the lines must fit, when known: the cells of the first [`Layout::cut`] columns
    /// are cut to fit, the widest column first, to no fewer than [`CUT_MIN`] characters.
    pub width: Option<usize>,
    /// How many columns, from the first, may be cut to fit [`Layout::width`].
    pub cut: usize,
}

/// The fewest characters a column is cut to for [`Layout::width`].
const CUT_MIN: usize = 12;

/// Writes `batches` as a table laid out by `layout` to `output` (standard output when `None` or
/// `-`).
pub fn write_table(
    batches: &mut dyn RecordBatchReader,
    layout: &Layout,
    output: Option<&Path>,
    stdout: &mut dyn Write,
) -> Result<u64, CliError> {
    let mut dest = match output.filter(|p| *p != Path::new("-")) {
        Some(path) => Destination::create(path)?,
        None => Destination::Stdout(stdout),
    };
    let rows = table(batches, layout, &mut dest)?;
    dest.commit()?;
    Ok(rows)
}

/// The width of the terminal standard output is, when it is one: `COLUMNS` when set, else 80.
/// `COLUMNS` alone also sets it when standard output is no terminal.
pub fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok());
    match columns {
        Some(c) if c > 0 => Some(c),
        _ => std::io::stdout().is_terminal().then_some(80),
    }
}

fn table(
    batches: &mut dyn RecordBatchReader,
    layout: &Layout,
    out: &mut dyn Write,
) -> Result<u64, CliError> {
    let schema = batches.schema();
    let right: Vec<bool> = schema
        .fields()
        .iter()
        .map(|f| f.data_type().is_numeric() || layout.right.contains(&f.name().as_str()))
        .collect();
    let mut cells: Vec<Vec<String>> = vec![schema.fields().iter().map(|f| cut(f.name())).collect()];
    let options = FormatOptions::default().with_null("NULL");
    let mut more = false;
    for batch in batches {
        let batch = batch.map_err(query_error)?;
        let columns: Vec<ArrayRef> = batch.columns().iter().map(display_array).collect();
        let formatters = columns
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(query_error)?;
        for row in 0..batch.num_rows() {
            if cells.len() > TABLE_ROWS {
                more = true;
                break;
            }
            cells.push(
                formatters
                    .iter()
                    .map(|f| cut(&f.value(row).to_string()))
                    .collect(),
            );
        }
        if more {
            break;
        }
    }
    let column_width = |cells: &[Vec<String>], c: usize| {
        cells
            .iter()
            .filter_map(|r| r.get(c))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
    };
    let mut widths: Vec<usize> = (0..right.len()).map(|c| column_width(&cells, c)).collect();
    if let Some(width) = layout.width {
        let cut = layout.cut.min(widths.len());
        let line =
            |widths: &[usize]| widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
        let mut over = line(&widths).saturating_sub(width);
        while over > 0 {
            let widest = (0..cut).max_by_key(|&c| widths[c]);
            match widest {
                Some(c) if widths[c] > CUT_MIN => {
                    widths[c] -= 1;
                    over -= 1;
                }
                _ => break,
            }
        }
        for row in &mut cells {
            for (cell, &w) in row.iter_mut().zip(&widths).take(cut) {
                *cell = cut_to(cell, w);
            }
        }
    }
    for (i, row) in cells.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let width = widths.get(c).copied().unwrap_or(0);
            let pad = width.saturating_sub(cell.chars().count());
            if c > 0 {
                line.push_str("  ");
            }
            let last = c + 1 == row.len();
            if right.get(c).copied().unwrap_or(false) {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if !last {
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        writeln!(out, "{line}")?;
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            writeln!(out, "{}", rule.join("  "))?;
        }
    }
    let rows = cells.len() as u64 - 1;
    if more {
        writeln!(
            out,
            "(first {rows} rows shown; --format csv or json writes them all)"
        )?;
    } else {
        writeln!(out, "({rows} row{})", if rows == 1 { "" } else { "s" })?;
    }
    Ok(rows)
}

/// Dictionary columns shown by their values.
fn display_array(column: &ArrayRef) -> ArrayRef {
    match column.data_type() {
        DataType::Dictionary(_, value) => {
            tracecap_query::datafusion::arrow::compute::cast(column, value)
                .unwrap_or_else(|_| column.clone())
        }
        _ => column.clone(),
    }
}

/// A cell's text on one line, cut to [`CELL_CHARS`] characters.
fn cut(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut_to(&one_line, CELL_CHARS)
}

/// `text` cut to `chars` characters, the last of them `…` when it was longer.
fn cut_to(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}
