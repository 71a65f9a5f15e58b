//! `tracecap convert`: any capture to Chrome Trace Event JSON, a Perfetto trace or a pprof
//! profile, streaming.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use tracecap::export::{Target, TargetWriter};
use tracecap::push::Pumped;
use tracecap::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId, Wants,
};
use tracecap::{ConvertError, Stats};

use crate::destination::Destination;
use crate::error::CliError;
use crate::follow;
use crate::json::{JsonWriter, Text};
use crate::progress;

/// `--to`: the names of [`Target`], with a line of help each.
pub fn target_parser() -> impl clap::builder::TypedValueParser<Value = Target> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let help = |t: Target| match t {
        Target::Chrome => "Chrome Trace Event JSON (`.json`)",
        Target::Perfetto => "Perfetto protobuf (`.pftrace`, `.perfetto-trace`)",
        Target::Pprof => "pprof profile, gzip-compressed (`.pb.gz`, `.pprof`)",
    };
    let values = Target::ALL.map(|t| PossibleValue::new(t.name()).help(help(t)));
    PossibleValuesParser::new(values).try_map(|name| {
        Target::from_name(&name).ok_or_else(|| format!("unknown output format {name:?}"))
    })
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
    /// Follow the capture as it is written, and convert it once following stops.
    pub follow: bool,
    /// With `follow`: stop after this long without growth.
    pub idle: Option<std::time::Duration>,
}

/// Forwards to a sink and moves the progress line.
struct Progress<'p, S> {
    inner: S,
    bar: Option<&'p mut progress::Progress>,
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
        if let Some(bar) = self.bar.as_deref_mut() {
            bar.set(done);
        }
    }
    fn wants(&self) -> Wants {
        self.inner.wants()
    }
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), S::Error> {
        self.inner.stack(id, frames)
    }
    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), S::Error> {
        self.inner.stack_sample(sample)
    }
    fn wants_stacks(&self) -> bool {
        self.inner.wants_stacks()
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

fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// `tracecap convert FILE -o OUT [--to chrome|perfetto|pprof] [--quiet] [--json]`; the converted trace
/// goes to `stdout` when `OUT` is `-`.
pub fn run(
    args: &ConvertArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), CliError> {
    let stream = follow::is_stream(&args.file);
    if !args.follow && !stream {
        let input = tracecap::open(&args.file)?;
        refuse_same_file(args, &input)?;
        return convert(args, Source::Whole(&input), stdout, stderr).map(|_| ());
    }
    if !stream {
        refuse_same_file(args, &tracecap::open(&args.file)?)?;
    }
    let mut started = follow::start(&args.file, args.follow, args.idle)?;
    let (result, ending) = if tracecap::adapter::converts_arriving(started.format) {
        match convert(args, Source::Arriving(&mut started), stdout, stderr) {
            Ok(pumped) => (
                Ok(()),
                pumped.map(|pumped| follow::Ending {
                    pumped,
                    fault: None,
                }),
            ),
            Err(e) => {
                let ending = follow::ended_by(&started, &e);
                (Err(e), ending)
            }
        }
    } else {
        let (input, ending) = follow::follow(&args.file, started)?;
        (
            convert(args, Source::Whole(&input), stdout, stderr).map(|_| ()),
            Some(ending),
        )
    };
    if let (true, Some(ending)) = (args.follow, ending) {
        follow::report(&args.file, &ending, stderr)?;
    }
    result
}

/// What [`convert`] reads: a whole capture, or one arriving (converted as it comes).
enum Source<'a> {
    Whole(&'a [u8]),
    Arriving(&'a mut follow::Started),
}

impl Source<'_> {
    /// Converts into `sink`: the counts, the result, and for an arriving capture how its
    /// reading ended.
    fn into_sink<S: Sink<Error = std::io::Error>>(
        self,
        format: tracecap::Format,
        sink: S,
    ) -> (Stats, Result<(), CliError>, Option<Pumped>) {
        match self {
            Source::Whole(data) => {
                let (stats, result) = tracecap::adapter::convert_counted(format, data, sink);
                (stats, result.map_err(convert_err), None)
            }
            Source::Arriving(s) => {
                match tracecap::adapter::convert_arriving(
                    format,
                    &mut s.source,
                    &mut s.buffer,
                    sink,
                ) {
                    Some((stats, Ok(Ok(pumped)))) => (stats, Ok(()), Some(pumped)),
                    Some((stats, Ok(Err(e)))) => (stats, Err(convert_err(e)), None),
                    Some((stats, Err(io))) => (stats, Err(CliError::Io(io)), None),
                    None => (
                        Stats::default(),
                        Err(convert_err(ConvertError::Unsupported(format))),
                        None,
                    ),
                }
            }
        }
    }
}

/// The usage error for an output that is the input file.
fn refuse_same_file(args: &ConvertArgs, input: &tracecap::Input) -> Result<(), CliError> {
    let same = if is_stdout(&args.output) {
        input.is_same_file(Path::new("/dev/stdout"))
    } else {
        input.is_same_file(&args.output)
    };
    if same {
        return Err(CliError::Usage(format!(
            "the output {} is the input file: refusing to overwrite it",
            args.output.display()
        )));
    }
    Ok(())
}

/// Converts the capture `input` as `args` say; for an arriving capture, how its reading ended.
fn convert(
    args: &ConvertArgs,
    input: Source<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Option<Pumped>, CliError> {
    let target = match args.to.or_else(|| Target::from_path(&args.output)) {
        Some(t) => t,
        None => {
            return Err(CliError::Usage(format!(
                "cannot tell the output format from {}: name it .json, .pftrace, .perfetto-trace, .pb.gz or .pprof, or pass --to",
                if is_stdout(&args.output) { "-".into() } else { args.output.display().to_string() }
            )))
        }
    };
    let (format, total) = match &input {
        Source::Whole(data) => (crate::detect::require(data)?, Some(data.len() as u64)),
        Source::Arriving(s) => (s.format, None),
    };
    if is_stdout(&args.output) && target == Target::Perfetto && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "a Perfetto trace is binary: redirect standard output to a file or a pipe, or use --to chrome".into(),
        ));
    }
    if is_stdout(&args.output) && target == Target::Pprof && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "a pprof profile is binary: redirect standard output to a file or a pipe".into(),
        ));
    }
    let dest = if is_stdout(&args.output) {
        Destination::Stdout(stdout)
    } else {
        Destination::create(&args.output)?
    };
    let writer = BufWriter::with_capacity(1 << 20, dest);
    let mut bar = total
        .filter(|_| !args.quiet && std::io::stderr().is_terminal())
        .map(progress::Progress::new);
    let mut sink = TargetWriter::new(target, writer)?;
    let (stats, result, pumped) = input.into_sink(
        format,
        Progress {
            inner: &mut sink,
            bar: bar.as_mut(),
        },
    );
    let writer = sink.finish();
    if let Some(bar) = bar.as_mut() {
        bar.clear();
    }
    // An I/O error while converting or finishing leaves the temporary file, which is removed
    // when dropped; the old output stays. A format fault still gives what was converted
    // before it, closed and put in place (exit 1).
    if let Err(CliError::Io(_)) = result {
        return result.map(|()| None);
    }
    let dest = writer?.into_inner().map_err(|e| e.into_error())?;
    dest.commit()?;
    if !args.quiet {
        summary(args, format, target, &stats, stderr)?;
    }
    result.map(|()| pumped)
}

fn summary(
    args: &ConvertArgs,
    format: tracecap::Format,
    target: Target,
    s: &Stats,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if args.json {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("input", Text(args.file.display()))
            .field("format", format.name())
            .field("output", Text(args.output.display()))
            .field("to", target.name())
            .field("tracks", s.tracks)
            .field("processes", s.processes)
            .field("threads", s.threads)
            .field("counter_tracks", s.counter_tracks)
            .field("slices", s.slices)
            .field("instants", s.instants)
            .field("counter_samples", s.counter_samples)
            .field("flow_ends", s.flow_ends)
            .field("first_ns", s.first_ts)
            .field("last_ns", s.last_ts)
            .field("span_ns", s.span_ns());
        // Only a profile reads stacks: the other targets' summaries leave them out.
        if target == Target::Pprof {
            w.field("stacks", s.stacks)
                .field("stack_samples", s.stack_samples);
        }
        w.end_object();
        w.end_line()?;
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
    if target == Target::Pprof {
        writeln!(
            out,
            "stacks:   {} samples of {} stacks",
            s.stack_samples, s.stacks
        )?;
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
