//! `tracecap export`: captures and directories of captures to a Parquet dataset, in parallel.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use tracecap::open::Found;
use tracecap_arrow::dataset::{self, ExportOptions, Mode, Progress, Report};
use tracecap_arrow::Table;

use crate::error::CliError;
use crate::json::{JsonWriter, Text};
use crate::progress;

/// The command line of `tracecap export`.
pub struct ExportArgs {
    /// Capture files and directories.
    pub inputs: Vec<PathBuf>,
    /// The dataset's folder.
    pub output: PathBuf,
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    /// Add to the dataset in the folder.
    pub append: bool,
    /// Replace the dataset in the folder.
    pub overwrite: bool,
    /// No progress bar, no summary.
    pub quiet: bool,
    /// The summary as one JSON object.
    pub json: bool,
}

/// How long the progress line waits between draws.
const DRAW_EVERY: Duration = Duration::from_millis(100);

/// Runs `tracecap export`; exit 1 (a [`CliError::Format`]-like verdict) when any capture was
/// damaged or not a capture, after every capture was exported.
pub fn run(args: &ExportArgs, stderr: &mut dyn Write) -> Result<(), CliError> {
    if args.inputs.iter().any(|p| p == Path::new("-")) {
        return Err(CliError::Usage(
            "export reads files and directories, not standard input: save the capture to a file first".into(),
        ));
    }
    if args.threads == Some(0) {
        return Err(CliError::Usage("--threads must be at least 1".into()));
    }
    let mode = match (args.append, args.overwrite) {
        (true, true) => {
            return Err(CliError::Usage(
                "--append and --overwrite exclude each other".into(),
            ))
        }
        (true, false) => Mode::Append,
        (false, true) => Mode::Overwrite,
        (false, false) => Mode::New,
    };
    let found = tracecap::open::find_sources(&args.inputs, Some(&args.output))?;
    for skipped in dataset::skipped_inputs(&found) {
        writeln!(stderr, "warning: {skipped}")?;
    }
    for e in &found.unreadable {
        writeln!(stderr, "warning: {e}, skipped")?;
    }
    if found.captures.is_empty() {
        return Err(CliError::Verdict(format!(
            "no captures in {}{}",
            inputs_text(&args.inputs),
            skipped_text(&found)
        )));
    }
    let options = ExportOptions {
        mode,
        threads: args
            .threads
            .unwrap_or_else(|| ExportOptions::default().threads),
        ..ExportOptions::default()
    };
    let progress = Progress::default();
    let mut bar = (!args.quiet && std::io::stderr().is_terminal())
        .then(|| progress::Progress::new(found.bytes()));
    let total = found.captures.len();
    let sources = found.sources();
    let report = std::thread::scope(|scope| {
        let job = scope.spawn(|| dataset::export(&sources, &args.output, &options, &progress));
        let mut told_waiting = false;
        while !job.is_finished() {
            if !told_waiting && progress.waiting.load(Ordering::Relaxed) {
                told_waiting = true;
                if let Some(bar) = bar.as_mut() {
                    bar.clear();
                }
                // ok: a message that cannot be written does not stop the export
                let _ = writeln!(
                    stderr,
                    "waiting for another export into {} to finish",
                    args.output.display()
                );
            }
            if let Some(bar) = bar.as_mut() {
                let done = progress.captures.load(Ordering::Relaxed);
                bar.set_label(format!("exporting {done}/{total}"));
                bar.set(progress.bytes.load(Ordering::Relaxed));
            }
            std::thread::sleep(DRAW_EVERY);
        }
        job.join()
    });
    if let Some(bar) = bar.as_mut() {
        bar.clear();
    }
    let report = report
        .map_err(|_| CliError::Usage("the export stopped unexpectedly".into()))?
        .map_err(arrow_err)?;
    for skipped in report.skipped() {
        writeln!(stderr, "warning: {skipped}")?;
    }
    if !args.quiet {
        summary(args, &found, &report, stderr)?;
    }
    let bad = report.faults.len() + report.not_captures.len() + found.not_captures.len();
    if !found.unreadable.is_empty() {
        return Err(CliError::Io(std::io::Error::other(format!(
            "{} file(s) could not be read (see the warnings)",
            found.unreadable.len()
        ))));
    }
    if bad > 0 {
        return Err(CliError::Verdict(format!(
            "{bad} input(s) damaged or not captures (see the warnings); everything readable was exported"
        )));
    }
    Ok(())
}

fn arrow_err(e: tracecap_arrow::Error) -> CliError {
    match e {
        tracecap_arrow::Error::Io(io) => CliError::Io(io),
        other => CliError::Io(std::io::Error::other(other.to_string())),
    }
}

fn inputs_text(inputs: &[PathBuf]) -> String {
    let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

fn skipped_text(found: &Found) -> String {
    match found.skipped {
        0 => String::new(),
        n => format!(" ({n} file(s) of no known format skipped)"),
    }
}

fn summary(
    args: &ExportArgs,
    found: &Found,
    r: &Report,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if args.json {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("output", Text(args.output.display()))
            .field("exported", r.exported)
            .field("already_there", r.already_there)
            .field("faults", r.faults.len())
            .field(
                "skipped",
                found.skipped + found.not_captures.len() + r.not_captures.len(),
            )
            .field("bytes", r.bytes)
            .object("rows");
        for (table, rows) in Table::ALL.iter().zip(r.rows) {
            w.field(table.name(), rows);
        }
        w.end_object().end_object();
        w.end_line()?;
        return Ok(());
    }
    writeln!(
        out,
        "{} capture(s), {} bytes -> {}",
        r.exported,
        r.bytes,
        args.output.display()
    )?;
    if r.already_there > 0 {
        writeln!(
            out,
            "already in the dataset: {} capture(s), skipped",
            r.already_there
        )?;
    }
    if !r.faults.is_empty() {
        writeln!(
            out,
            "damaged:  {} capture(s), rows before the fault exported",
            r.faults.len()
        )?;
    }
    let skipped = found.skipped + found.not_captures.len() + r.not_captures.len();
    if skipped > 0 {
        writeln!(out, "skipped:  {skipped} file(s) of no known format")?;
    }
    for (table, rows) in Table::ALL.iter().zip(r.rows) {
        if rows > 0 {
            writeln!(out, "  {:<20} {rows} rows", table.name())?;
        }
    }
    Ok(())
}
