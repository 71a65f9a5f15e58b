//! `tracecap.convert` (one capture to a Perfetto trace, Chrome JSON or a pprof profile) and `tracecap.export`
//! (captures to a Parquet dataset): files written under a temporary name and put in place when
//! complete, with the interpreter released while they are written.

use std::io::BufWriter;
use std::path::Path;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tracecap::export::{Target, TargetWriter};
use tracecap::{ConvertError, Format, FormatError, Stats};
use tracecap_arrow::dataset::{self, ExportOptions, Mode, Progress};
use tracecap_arrow::Table;

use crate::errors::{arrow_error, capture_error, shrunk, warn_or_raise};
use crate::inputs::{paths, FsPath};

/// The format `convert` writes: `to`, or else the output's extension.
fn target(to: Option<&str>, out: &Path) -> PyResult<Target> {
    match to {
        Some(name) => Target::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "to={name:?}: expected \"perfetto\", \"chrome\" or \"pprof\""
            ))
        }),
        None => Target::from_path(out).ok_or_else(|| {
            PyValueError::new_err(format!(
                "cannot tell the output format from {}: name it .json, .pftrace, \
                 .perfetto-trace, .pb.gz or .pprof, or pass to=\"perfetto\", to=\"chrome\" or \
                 to=\"pprof\"",
                out.display()
            ))
        }),
    }
}

/// Why a conversion failed (the interpreter is attached again to raise it).
enum Failure {
    Io(std::io::Error),
    NotACapture(tracecap::NotACapture),
    SameFile,
    Unsupported(Format),
    Shrunk,
}

/// Converts the capture at `path` to a Perfetto trace (`to="perfetto"`), Chrome Trace Event
/// JSON (`to="chrome"`) or a gzip-compressed pprof profile (`to="pprof"`: its call stacks, or
/// its calls' self time without them) at `out`; without `to`, the format follows `out`'s
/// extension (`.pftrace`, `.perfetto-trace`, `.json`, `.pb.gz` or `.pprof`). Returns the counts
/// `tracecap convert --json` prints.
///
/// The output is written under a temporary name and renamed when complete, so a failed
/// conversion leaves any older `out` untouched; `out` may not be the input. A damaged capture
/// is converted up to its fault, the result is put in place, and then `CaptureError` is raised.
#[pyfunction]
#[pyo3(signature = (path, out, *, to = None))]
pub fn convert<'py>(
    py: Python<'py>,
    path: FsPath,
    out: FsPath,
    to: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let (FsPath(path), FsPath(out)) = (path, out);
    let target = target(to, &out)?;
    let result = py.detach(|| convert_file(&path, &out, target));
    let id = path.display().to_string();
    let (format, stats, fault) = match result {
        Ok(done) => done,
        Err(Failure::Io(e)) => return Err(e.into()),
        Err(Failure::NotACapture(why)) => {
            return Err(capture_error(py, &id, None, why.message(), 0))
        }
        Err(Failure::SameFile) => {
            return Err(PyValueError::new_err(format!(
                "the output {} is the input file: refusing to overwrite it",
                out.display()
            )))
        }
        Err(Failure::Unsupported(f)) => {
            return Err(PyValueError::new_err(format!(
                "converting {f} captures is not supported"
            )))
        }
        Err(Failure::Shrunk) => return Err(shrunk(&id)),
    };
    if let Some(f) = fault {
        let what = format!("{}; {} holds everything before it", f.what(), out.display());
        return Err(capture_error(py, &id, Some(format), what, f.offset()));
    }
    let d = PyDict::new(py);
    d.set_item("input", &id)?;
    d.set_item("format", format.name())?;
    d.set_item("output", out.display().to_string())?;
    d.set_item("to", target.name())?;
    stats_items(&d, &stats)?;
    if target == Target::Pprof {
        stack_items(&d, &stats)?;
    }
    Ok(d)
}

fn stats_items(d: &Bound<'_, PyDict>, s: &Stats) -> PyResult<()> {
    d.set_item("tracks", s.tracks)?;
    d.set_item("processes", s.processes)?;
    d.set_item("threads", s.threads)?;
    d.set_item("counter_tracks", s.counter_tracks)?;
    d.set_item("slices", s.slices)?;
    d.set_item("instants", s.instants)?;
    d.set_item("counter_samples", s.counter_samples)?;
    d.set_item("flow_ends", s.flow_ends)?;
    d.set_item("first_ns", s.first_ts)?;
    d.set_item("last_ns", s.last_ts)?;
    d.set_item("span_ns", s.span_ns())?;
    Ok(())
}

/// The counts of the call stacks, which only a profile reads (as `tracecap convert --json`
/// gives them).
fn stack_items(d: &Bound<'_, PyDict>, s: &Stats) -> PyResult<()> {
    d.set_item("stacks", s.stacks)?;
    d.set_item("stack_samples", s.stack_samples)?;
    Ok(())
}

/// The conversion itself: the format, the counts and the fault (if the capture is damaged).
fn convert_file(
    path: &Path,
    out: &Path,
    target: Target,
) -> Result<(Format, Stats, Option<FormatError>), Failure> {
    let input = tracecap::open(path).map_err(Failure::Io)?;
    if input.is_same_file(out) {
        return Err(Failure::SameFile);
    }
    let format = tracecap::require(&input).map_err(Failure::NotACapture)?;
    let output = tracecap::output::Output::create(out).map_err(Failure::Io)?;
    let writer = BufWriter::with_capacity(1 << 20, output);
    let mut sink = TargetWriter::new(target, writer).map_err(Failure::Io)?;
    let (stats, result) = tracecap::adapter::convert_counted(format, &input, &mut sink);
    let writer = sink.finish();
    // An I/O error leaves the temporary file, removed when dropped; the older output stays.
    let fault = match result {
        Ok(()) => None,
        Err(ConvertError::Format(f)) => Some(f),
        Err(ConvertError::Sink(e)) => return Err(Failure::Io(e)),
        Err(ConvertError::Unsupported(f)) => return Err(Failure::Unsupported(f)),
    };
    let output = writer
        .map_err(Failure::Io)?
        .into_inner()
        .map_err(|e| Failure::Io(e.into_error()))?;
    if input.shrunk() {
        return Err(Failure::Shrunk);
    }
    output.commit().map_err(Failure::Io)?;
    Ok((format, stats, fault))
}

/// Exports the captures in `inputs` (a path or a list of paths: capture files and directories
/// searched for captures) to a Parquet dataset in the folder `out_dir`, one folder per table,
/// on `threads` threads (default: every core). `mode` is `"new"` (the folder must be new or
/// empty), `"append"` (captures already in the dataset are skipped) or `"overwrite"`.
///
/// Returns a report: captures exported and already there, bytes, rows per table, and the
/// damaged captures (exported up to their fault). Inputs that are no capture and damaged
/// captures are reported as `RuntimeWarning`s; with `strict=True` the first of them raises
/// `CaptureError` once everything readable was exported.
#[pyfunction]
#[pyo3(signature = (inputs, out_dir, *, mode = "new", threads = None, strict = false))]
pub fn export<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    out_dir: FsPath,
    mode: &str,
    threads: Option<usize>,
    strict: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let FsPath(out_dir) = out_dir;
    let mode = match mode {
        "new" => Mode::New,
        "append" => Mode::Append,
        "overwrite" => Mode::Overwrite,
        other => {
            return Err(PyValueError::new_err(format!(
                "mode={other:?}: expected \"new\", \"append\" or \"overwrite\""
            )))
        }
    };
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let inputs = paths(inputs)?;
    let options = ExportOptions {
        mode,
        threads: threads.unwrap_or_else(|| ExportOptions::default().threads),
        ..ExportOptions::default()
    };
    let (found, report) = py
        .detach(|| {
            let found = tracecap::open::find_sources(&inputs, Some(&out_dir))?;
            if found.captures.is_empty() {
                return Ok((found, None));
            }
            let report =
                dataset::export(&found.sources(), &out_dir, &options, &Progress::default())?;
            Ok((found, Some(report)))
        })
        .map_err(arrow_error)?;
    let mut problems: Vec<(String, PyErr)> = Vec::new();
    let problem = |s: dataset::Skipped<'_>| {
        let error = capture_error(py, &s.id(), None, s.what(), s.offset());
        (s.to_string(), error)
    };
    problems.extend(dataset::skipped_inputs(&found).map(problem));
    let Some(report) = report else {
        let named: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        return Err(PyValueError::new_err(format!(
            "no captures in {}",
            named.join(", ")
        )));
    };
    problems.extend(report.skipped().map(problem));
    warn_or_raise(py, problems, strict)?;
    let d = PyDict::new(py);
    d.set_item("exported", report.exported)?;
    d.set_item("already_there", report.already_there)?;
    d.set_item("bytes", report.bytes)?;
    let rows = PyDict::new(py);
    for (table, n) in Table::ALL.iter().zip(report.rows) {
        rows.set_item(table.name(), n)?;
    }
    d.set_item("rows", rows)?;
    let faults: Vec<(String, String, u64)> = report
        .faults
        .iter()
        .map(|(s, f)| (s.id.clone(), f.what().to_string(), f.offset()))
        .collect();
    d.set_item("faults", faults)?;
    Ok(d)
}
