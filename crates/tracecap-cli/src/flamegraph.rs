//! `tracecap flamegraph INPUT... -o out.svg`: the call stacks of the inputs (sampled stacks, or
//! nested calls; never thread states, scheduling slices or counters) folded and drawn as an
//! interactive flame graph (or printed folded); and the differential flame graph of
//! `tracecap diff --flamegraph`.

use std::io::Write;
use std::path::{Path, PathBuf};

use tracecap_query::flame::{self, Folded, StacksFrom};

use crate::destination::Destination;
use crate::error::CliError;
use crate::query::{query_error, Sides};

/// The command line of `tracecap flamegraph`.
pub struct FlamegraphArgs {
    /// Capture files, directories of captures and datasets.
    pub inputs: Vec<PathBuf>,
    /// The SVG to write (`-` for standard output).
    pub output: Option<PathBuf>,
    /// Print the folded stacks instead of drawing them.
    pub folded: bool,
    /// What the stacks are made of.
    pub from: StacksFrom,
    /// Each track's name as the root frame of its stacks.
    pub per_track: bool,
    /// The graph's title.
    pub title: Option<String>,
    /// Exit 1 when an input is damaged or no capture.
    pub strict: bool,
    /// Partitions run at once.
    pub threads: Option<usize>,
}

/// Runs `tracecap flamegraph`.
pub fn run(
    args: &FlamegraphArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CliError> {
    if args.output.is_none() && !args.folded {
        return Err(CliError::Usage(
            "name the SVG with -o FILE (or - for standard output), or pass --folded".into(),
        ));
    }
    let sides = Sides::open(
        &[(None, &args.inputs)],
        (args.threads, false),
        args.output.as_deref(),
    )?;
    let folded = fold(&sides, 0, args.per_track, args.from)?;
    match &args.output {
        Some(path) if !args.folded => {
            let title = args.title.clone().unwrap_or_else(|| title(&args.inputs));
            let mut dest = destination(path, out)?;
            flame::render(&folded, &title, &mut dest)?;
            dest.commit()?;
        }
        _ => {
            let mut dest = match &args.output {
                Some(path) => destination(path, out)?,
                None => Destination::Stdout(out),
            };
            folded.write_to(&mut dest)?;
            dest.commit()?;
        }
    }
    if folded.is_empty() {
        let what = match args.from {
            StacksFrom::Samples => "no sampled call stacks (--from calls draws nested calls)",
            StacksFrom::Calls => {
                "no nested calls on a thread (--from samples draws sampled stacks)"
            }
            StacksFrom::Auto => "no call stacks: neither sampled stacks nor nested calls",
        };
        writeln!(err, "note: the inputs hold {what}; the graph is empty")?;
    }
    if folded.skipped_open() > 0 {
        writeln!(
            err,
            "note: {} slice(s) never closed are not in the graph",
            folded.skipped_open()
        )?;
    }
    sides.finish(args.strict, err)
}

/// The differential flame graph of the sides `a` and `b` (the first and second of `sides`), of
/// the stacks `from` names, written to `svg`.
pub fn diff(sides: &Sides, svg: &Path, from: StacksFrom) -> Result<(), CliError> {
    let mut a = fold(sides, 0, false, from)?;
    let mut b = fold(sides, 1, false, from)?;
    // With `Auto`, samples on one side only: both sides' calls, so that the two weigh the same
    // thing.
    if from == StacksFrom::Auto && a.of_samples() != b.of_samples() {
        a = fold(sides, 0, false, StacksFrom::Calls)?;
        b = fold(sides, 1, false, StacksFrom::Calls)?;
    }
    let mut sink = std::io::sink();
    let mut dest = destination(svg, &mut sink)?;
    flame::render_diff(
        &a,
        &b,
        "tracecap diff: red is slower in B, blue faster",
        &mut dest,
    )?;
    dest.commit()?;
    Ok(())
}

/// The stacks of the inputs of side `side` of `sides`, folded.
fn fold(sides: &Sides, side: usize, per_track: bool, from: StacksFrom) -> Result<Folded, CliError> {
    let inputs = sides
        .inputs()
        .get(side)
        .ok_or_else(|| CliError::Usage(format!("flame graph: no side {side} among the inputs")))?;
    sides
        .engine()
        .fold_from(inputs, per_track, from)
        .map_err(query_error)
}

/// `--from` of `tracecap flamegraph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FromArg {
    /// The sampled call stacks when the inputs have any, else the nested calls.
    Auto,
    /// Sampled call stacks (weights: samples).
    Samples,
    /// Nested calls (weights: self time in ns).
    Calls,
}

impl From<FromArg> for StacksFrom {
    fn from(arg: FromArg) -> StacksFrom {
        match arg {
            FromArg::Auto => StacksFrom::Auto,
            FromArg::Samples => StacksFrom::Samples,
            FromArg::Calls => StacksFrom::Calls,
        }
    }
}

fn destination<'o>(path: &Path, stdout: &'o mut dyn Write) -> Result<Destination<'o>, CliError> {
    Ok(if path == Path::new("-") {
        Destination::Stdout(stdout)
    } else {
        Destination::create(path)?
    })
}

/// The default title: the inputs' names.
fn title(inputs: &[PathBuf]) -> String {
    let names: Vec<String> = inputs
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let mut title = names.join(", ");
    if title.chars().count() > 80 {
        title = format!("{} inputs", inputs.len());
    }
    title
}
