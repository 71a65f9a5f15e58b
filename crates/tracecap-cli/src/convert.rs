//! `tracecap convert`: any capture to Chrome Trace Event JSON or a Perfetto trace, streaming.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::json;
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::timeline::{CounterValue, Event, Sink, Track, TrackId};
use tracecap::{ConvertError, Stats};

use crate::error::CliError;

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// Chrome Trace Event JSON (`.json`).
    Chrome,
    /// Perfetto protobuf (`.pftrace`, `.perfetto-trace`).
    Perfetto,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Chrome => "chrome",
            Target::Perfetto => "perfetto",
        }
    }

    fn from_path(path: &Path) -> Option<Target> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".json") {
            Some(Target::Chrome)
        } else if name.ends_with(".pftrace") || name.ends_with(".perfetto-trace") {
            Some(Target::Perfetto)
        } else {
            None
        }
    }
}

/// The command line of `tracecap convert`.
pub struct ConvertArgs {
    /// The capture.
    pub file: PathBuf,
    /// Where to write.
    pub output: PathBuf,
    /// The exporter (default: from the output's extension).
    pub to: Option<Target>,
    /// No progress bar, no summary.
    pub quiet: bool,
    /// The summary as one JSON object.
    pub json: bool,
}

/// Forwards to a sink and moves a progress bar.
struct Progress<'p, S> {
    inner: S,
    bar: Option<&'p indicatif::ProgressBar>,
}

impl<S: Sink> Sink for Progress<'_, S> {
    type Error = S::Error;

    fn track(&mut self, track: &Track<'_>) -> Result<(), S::Error> {
        self.inner.track(track)
    }
    fn begin(&mut self, event: &Event<'_>) -> Result<(), S::Error> {
        self.inner.begin(event)
    }
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), S::Error> {
        self.inner.end(track, ts)
    }
    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), S::Error> {
        self.inner.complete(event, dur)
    }
    fn instant(&mut self, event: &Event<'_>) -> Result<(), S::Error> {
        self.inner.instant(event)
    }
    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), S::Error> {
        self.inner.counter(track, ts, value)
    }
    fn progress(&mut self, done: u64, _total: u64) {
        if let Some(bar) = self.bar {
            bar.set_position(done);
        }
    }
}

fn convert_err(e: ConvertError<std::io::Error>) -> CliError {
    match e {
        ConvertError::Format(f) => CliError::format(f.what(), f.offset()),
        ConvertError::Sink(io) => CliError::Io(io),
        ConvertError::Unsupported(f) => {
            CliError::Usage(format!("converting {f} captures is not supported yet"))
        }
    }
}

/// `tracecap convert FILE -o OUT [--to chrome|perfetto] [--quiet] [--json]`.
pub fn run(args: &ConvertArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let target = match args.to.or_else(|| Target::from_path(&args.output)) {
        Some(t) => t,
        None => {
            return Err(CliError::Usage(format!(
                "cannot tell the output format from {}: name it .json, .pftrace or .perfetto-trace, or pass --to",
                args.output.display()
            )))
        }
    };
    let input = tracecap::open(&args.file)?;
    let format = crate::detect::require(&input)?;
    let file = File::create(&args.output).map_err(|e| {
        CliError::Io(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", args.output.display()),
        ))
    })?;
    let writer = BufWriter::with_capacity(1 << 20, file);
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(input.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} converting [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let (stats, result) = match target {
        Target::Chrome => {
            let mut sink = ChromeJson::new(writer)?;
            let (stats, result) = tracecap::adapter::convert_counted(
                format,
                &input,
                Progress {
                    inner: &mut sink,
                    bar: bar.as_ref(),
                },
            );
            // Close the document even after a format fault: what was converted stays usable.
            sink.finish()?;
            (stats, result)
        }
        Target::Perfetto => {
            let mut sink = Perfetto::new(writer)?;
            let (stats, result) = tracecap::adapter::convert_counted(
                format,
                &input,
                Progress {
                    inner: &mut sink,
                    bar: bar.as_ref(),
                },
            );
            sink.finish()?;
            (stats, result)
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if !args.quiet {
        summary(args, format, target, &stats, out)?;
    }
    result.map_err(convert_err)
}

fn summary(
    args: &ConvertArgs,
    format: tracecap::Format,
    target: Target,
    s: &Stats,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if args.json {
        let v = json!({
            "input": args.file.display().to_string(),
            "format": format.name(),
            "output": args.output.display().to_string(),
            "to": target.name(),
            "tracks": s.tracks,
            "processes": s.processes,
            "threads": s.threads,
            "counter_tracks": s.counter_tracks,
            "slices": s.slices,
            "instants": s.instants,
            "counter_samples": s.counter_samples,
            "flow_ends": s.flow_ends,
            "first_ns": s.first_ts,
            "last_ns": s.last_ts,
            "span_ns": s.span_ns(),
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    writeln!(
        out,
        "{} ({}) -> {} ({})",
        args.file.display(),
        format.name(),
        args.output.display(),
        target.name()
    )?;
    writeln!(
        out,
        "tracks:   {} ({} processes, {} threads, {} counters, {} other)",
        s.tracks,
        s.processes,
        s.threads,
        s.counter_tracks,
        s.tracks - s.processes - s.threads - s.counter_tracks
    )?;
    writeln!(out, "slices:   {}", s.slices)?;
    writeln!(out, "instants: {}", s.instants)?;
    writeln!(out, "counters: {} samples", s.counter_samples)?;
    if s.flow_ends > 0 {
        writeln!(out, "flows:    {} flow ends", s.flow_ends)?;
    }
    match (s.first_ts, s.last_ts) {
        (Some(a), Some(b)) => writeln!(
            out,
            "span:     {a} .. {b} ns ({:.3} ms)",
            b.saturating_sub(a) as f64 / 1e6
        )?,
        _ => writeln!(out, "span:     (no events)")?,
    }
    Ok(())
}
