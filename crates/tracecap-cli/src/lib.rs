//! `tracecap`: inspect, validate, dump, convert and export profiler capture files.
//!
//! The binary (`src/main.rs`) is [`main_with`] over the process's arguments, standard output and
//! standard error; tests call [`main_with`] in the process, with buffers.
//!
//! Exit codes: 0 success, 1 the file is not a good capture (the error names an offset),
//! 2 usage or I/O errors.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod cache;
mod convert;
mod destination;
mod detect;
mod diff;
mod error;
mod export;
mod flamegraph;
mod follow;
mod formats;
mod help;
mod json;
mod progress;
mod query;
mod results;
pub mod stdout;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::detect::Format;
use crate::error::CliError;
use crate::formats::DumpOptions;
use crate::results::ResultFormat;

/// Inspect, check, dump and convert capture files of Orbit, syscall_capture, apitrace, WTF and
/// EasyProfiler.
#[derive(Parser)]
#[command(name = "tracecap", version, about, after_help = help::TOOL, max_term_width = 79)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `--follow` and `--idle`, on the commands that read one capture.
#[derive(clap::Args)]
struct FollowArgs {
    /// Read a capture that is still being written: wait for it to grow, and stop at the
    /// format's own end, after --idle, or at Ctrl-C.
    #[arg(long)]
    follow: bool,
    /// With --follow: stop after SECONDS without growth [default: never].
    #[arg(long, value_name = "SECONDS", requires = "follow", value_parser = idle_parser)]
    idle: Option<std::time::Duration>,
}

/// `--idle`: a number of seconds, fractions allowed.
fn idle_parser(s: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("{s:?} is not a number of seconds"))
}

#[derive(Subcommand)]
enum Command {
    /// Summary of a capture: format, version, sizes, counts, time span, threads.
    #[command(after_help = help::INFO)]
    Info {
        /// The capture file (`-` for standard input).
        file: PathBuf,
        /// Print one JSON object instead of text (every list whole).
        #[arg(long)]
        json: bool,
        /// Print long lists (threads, sections, ...) whole, not only their start.
        #[arg(short, long)]
        verbose: bool,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Parse every record without printing them; exit 1 at the first fault.
    #[command(after_help = help::VALIDATE)]
    Validate {
        /// The capture file (`-` for standard input).
        file: PathBuf,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Print every record, in file order.
    #[command(after_help = help::DUMP)]
    Dump {
        /// The capture file (`-` for standard input).
        file: PathBuf,
        /// JSON Lines: a header object, then one object per record.
        #[arg(long)]
        json: bool,
        /// apitrace only: the text of `apitrace dump -v --thread-ids=yes`.
        #[arg(long)]
        apitrace: bool,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Convert a capture to Chrome JSON, a Perfetto trace (for ui.perfetto.dev) or a pprof profile.
    #[command(after_help = help::CONVERT)]
    Convert {
        /// The capture file (`-` for standard input).
        file: PathBuf,
        /// Output file, or `-` for standard output. Its extension picks the
        /// format: .json, .pftrace or .perfetto-trace, .pb.gz or .pprof.
        #[arg(short, long)]
        output: PathBuf,
        /// Output format, whatever the extension.
        #[arg(long, value_parser = convert::target_parser())]
        to: Option<tracecap::export::Target>,
        /// No progress bar and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Print the summary (on standard error) as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Export captures and directories of captures to a Parquet dataset (one folder per table).
    #[command(after_help = help::EXPORT)]
    Export {
        /// Capture files, and directories searched recursively for captures.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The dataset's folder: DIR/<table>/*.parquet.
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Worker threads [default: every core].
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Add to the dataset in DIR (captures already in it are skipped).
        #[arg(long, conflicts_with = "overwrite")]
        append: bool,
        /// Replace the dataset in DIR.
        #[arg(long)]
        overwrite: bool,
        /// No progress bar and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Print the summary (on standard error) as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// SQL over captures, directories of captures and exported datasets.
    #[command(after_help = help::QUERY)]
    Query {
        /// The query (DataFusion SQL).
        #[arg(required_unless_present = "schema")]
        sql: Option<String>,
        /// Capture files, directories of captures, datasets.
        #[arg(required_unless_present = "schema")]
        inputs: Vec<PathBuf>,
        /// Print every table and column with its type, and nothing else.
        #[arg(long, conflicts_with_all = ["sql", "inputs"])]
        schema: bool,
        /// How the result is written.
        #[arg(long, value_enum, default_value = "table")]
        format: ResultFormat,
        /// Write the result to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Exit 1 if an input is damaged or no capture.
        #[arg(long)]
        strict: bool,
        /// Partitions run at once [default: every core].
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Parse every capture, neither reading nor filling the cache of parsed tables.
        #[arg(long)]
        no_cache: bool,
    },
    /// Compare the slices of two captures, or of two groups of inputs.
    #[command(after_help = help::DIFF)]
    Diff {
        /// A and B (one input each), unless --a and --b are given.
        #[arg(num_args = 0..=2, value_name = "A B")]
        pair: Vec<PathBuf>,
        /// An input of side A (repeat it for a group).
        #[arg(long = "a", value_name = "INPUT")]
        a: Vec<PathBuf>,
        /// An input of side B (repeat it for a group).
        #[arg(long = "b", value_name = "INPUT")]
        b: Vec<PathBuf>,
        /// Group slices by: name, track, category, or a list (track,name).
        #[arg(long, default_value = "name")]
        by: String,
        /// How the result is written.
        #[arg(long, value_enum, default_value = "table")]
        format: ResultFormat,
        /// Write the result to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also draw the differential flame graph (red: slower in B, blue: faster).
        #[arg(long, value_name = "SVG")]
        flamegraph: Option<PathBuf>,
        /// What the flame graph's stacks are: sampled call stacks, nested calls, or auto: the
        /// samples when both sides have any, else the calls.
        #[arg(long, value_enum, default_value = "auto", requires = "flamegraph")]
        from: flamegraph::FromArg,
        /// Show every column in the table, durations in ns (csv, json and parquet always have
        /// every column).
        #[arg(long)]
        wide: bool,
        /// Print the diff's SQL and exit.
        #[arg(long)]
        sql: bool,
        /// Exit 1 if an input is damaged or no capture.
        #[arg(long)]
        strict: bool,
        /// Partitions run at once [default: every core].
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Parse every capture, neither reading nor filling the cache of parsed tables.
        #[arg(long)]
        no_cache: bool,
    },
    /// Draw the call stacks of captures as an interactive SVG flame graph: sampled stacks, or
    /// nested calls.
    #[command(after_help = help::FLAMEGRAPH)]
    Flamegraph {
        /// Capture files, directories of captures, datasets.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The SVG to write (- for standard output).
        #[arg(short, long, value_name = "SVG")]
        output: Option<PathBuf>,
        /// Print the folded stacks ("root;frame;leaf count", root first) instead of drawing them.
        #[arg(long)]
        folded: bool,
        /// What the stacks are: sampled call stacks (counts of samples), nested calls (self time
        /// in ns), or auto: the samples when the inputs have any, else the calls.
        #[arg(long, value_enum, default_value = "auto")]
        from: flamegraph::FromArg,
        /// Each track's name as the root of its stacks.
        #[arg(long)]
        per_track: bool,
        /// The graph's title [default: the inputs' names].
        #[arg(long)]
        title: Option<String>,
        /// Exit 1 if an input is damaged or no capture.
        #[arg(long)]
        strict: bool,
        /// Partitions run at once [default: every core].
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// What the cache of parsed tables holds, or empty it.
    #[command(after_help = help::CACHE)]
    Cache {
        /// `info` (its folder, entries, bytes and limit) or `clear` (remove every entry).
        #[arg(value_enum, default_value = "info")]
        action: cache::Action,
    },
}

/// The capture at `path` and its format.
fn open(path: &std::path::Path) -> Result<(tracecap::Input, Format), CliError> {
    let input = tracecap::open(path)?;
    let format = detect::require(&input)?;
    Ok((input, format))
}

/// `tracecap dump`: a mapped file whole; a followed file or a stream record by record as it
/// arrives where the format's dump can (`formats::dump_arriving`), else once it has all arrived.
fn dump(
    file: &std::path::Path,
    opts: &DumpOptions,
    follow: &FollowArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CliError> {
    let needs_apitrace = |format: Format| {
        if opts.apitrace && format != Format::Apitrace {
            return Err(CliError::Usage(format!(
                "--apitrace needs an apitrace file, this is {}",
                format.name()
            )));
        }
        Ok(())
    };
    if !follow.follow && !follow::is_stream(file) {
        let (input, format) = open(file)?;
        needs_apitrace(format)?;
        return formats::dump(format, &input, opts, out);
    }
    let mut started = follow::start(file, follow.follow, follow.idle)?;
    let format = started.format;
    needs_apitrace(format)?;
    let (result, pumped) = match formats::dump_arriving(format, &mut started, opts, out) {
        Some(Ok(pumped)) => (
            Ok(()),
            Some(follow::Ending {
                pumped,
                fault: None,
            }),
        ),
        Some(Err(e)) => {
            let ending = follow::ended_by(&started, &e);
            (Err(e), ending)
        }
        None => {
            let (input, pumped) = follow::follow(file, started)?;
            (formats::dump(format, &input, opts, out), Some(pumped))
        }
    };
    out.flush()?;
    if let (true, Some(ending)) = (follow.follow, pumped) {
        follow::report(file, &ending, err)?;
    }
    result
}

/// Runs `command` on the capture `file`: opened as usual, or with `--follow` once following
/// stops (on the file as it then is), followed by the line that says where and why.
fn once_followed(
    file: &std::path::Path,
    follow: &FollowArgs,
    err: &mut dyn Write,
    command: impl FnOnce(Format, &[u8]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if !follow.follow {
        let (input, format) = open(file)?;
        return command(format, &input);
    }
    let started = follow::start(file, true, follow.idle)?;
    let format = started.format;
    let (input, ending) = follow::follow(file, started)?;
    let result = command(format, &input);
    follow::report(file, &ending, err)?;
    result
}

fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    match cli.command {
        Command::Info {
            file,
            json,
            verbose,
            follow,
        } => {
            let opts = formats::InfoOptions { json, verbose };
            once_followed(&file, &follow, err, |format, input| {
                formats::info(format, input, &opts, out)
            })?;
        }
        Command::Validate { file, follow } => {
            once_followed(&file, &follow, err, |format, input| {
                formats::validate(format, input, out)
            })?;
        }
        Command::Dump {
            file,
            json,
            apitrace,
            follow,
        } => {
            let opts = DumpOptions { json, apitrace };
            let result = dump(&file, &opts, &follow, out, err);
            // Records printed before a fault are kept: flush them before reporting it.
            out.flush()?;
            result?;
        }
        Command::Convert {
            file,
            output,
            to,
            quiet,
            json,
            follow,
        } => {
            let args = convert::ConvertArgs {
                file,
                output,
                to,
                quiet,
                json,
                follow: follow.follow,
                idle: follow.idle,
            };
            convert::run(&args, out, err)?;
        }
        Command::Export {
            inputs,
            output,
            threads,
            append,
            overwrite,
            quiet,
            json,
        } => {
            let args = export::ExportArgs {
                inputs,
                output,
                threads,
                append,
                overwrite,
                quiet,
                json,
            };
            export::run(&args, err)?;
        }
        Command::Query {
            sql,
            inputs,
            schema: _,
            format,
            output,
            strict,
            threads,
            no_cache,
        } => {
            let args = query::QueryArgs {
                sql,
                inputs,
                format,
                output,
                strict,
                threads,
                cache: !no_cache,
            };
            query::run(&args, out, err)?;
        }
        Command::Diff {
            pair,
            a,
            b,
            by,
            format,
            output,
            flamegraph,
            from,
            wide,
            sql,
            strict,
            threads,
            no_cache,
        } => {
            let args = diff::DiffArgs {
                pair,
                a,
                b,
                by,
                format,
                output,
                flamegraph,
                from: from.into(),
                wide,
                sql,
                strict,
                threads,
                cache: !no_cache,
            };
            diff::run(&args, out, err)?;
        }
        Command::Flamegraph {
            inputs,
            output,
            folded,
            from,
            per_track,
            title,
            strict,
            threads,
        } => {
            let args = flamegraph::FlamegraphArgs {
                inputs,
                output,
                folded,
                from: from.into(),
                per_track,
                title,
                strict,
                threads,
            };
            flamegraph::run(&args, out, err)?;
        }
        Command::Cache { action } => cache::run(action, out, err)?,
    }
    out.flush()?;
    Ok(())
}

/// Runs the tool on `args` (the first is the program's name), writing to `out` and `err` as it
/// would to standard output and standard error; returns the exit code.
pub fn main_with(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are not errors: they go to standard output.
            let text = e.render().to_string();
            let code = e.exit_code();
            let _ = if code == 0 {
                out.write_all(text.as_bytes()).and_then(|()| out.flush())
            } else {
                err.write_all(text.as_bytes())
            };
            return u8::try_from(code).unwrap_or(2);
        }
    };
    match run(cli, out, err) {
        Ok(()) => 0,
        Err(e) => {
            // A closed pipe (`tracecap dump f | head`) is not an error worth a message.
            if let CliError::Io(io) = &e {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return 0;
                }
            }
            let _ = writeln!(err, "error: {e}");
            e.exit_code()
        }
    }
}
