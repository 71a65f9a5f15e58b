//! `tracecap`: inspect, validate and dump profiler capture files.
//!
//! Exit codes: 0 success, 1 the file is not a good capture (the error names an offset),
//! 2 usage or I/O errors.

mod convert;
mod detect;
mod error;
mod formats;
mod input;
mod json;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::detect::Format;
use crate::error::CliError;
use crate::formats::DumpOptions;

/// Inspect, check and dump capture files of Orbit, syscall_capture, apitrace, WTF and EasyProfiler.
#[derive(Parser)]
#[command(name = "tracecap", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summary of a capture: format, version, sizes, record counts, time span, threads.
    Info {
        /// The capture file.
        file: std::path::PathBuf,
        /// Print one JSON object instead of text (every list whole).
        #[arg(long)]
        json: bool,
        /// Print every item of long lists (threads, sections, ...), not only the first few.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Parse every record without printing them; exit 1 at the first fault.
    Validate {
        /// The capture file.
        file: std::path::PathBuf,
    },
    /// Print every record, in file order.
    Dump {
        /// The capture file.
        file: std::path::PathBuf,
        /// JSON Lines: a header object, then one object per record.
        #[arg(long)]
        json: bool,
        /// apitrace only: print exactly what `apitrace dump --color=never -v --thread-ids=yes` prints.
        #[arg(long)]
        apitrace: bool,
    },
    /// Convert a capture to Chrome Trace Event JSON or a Perfetto trace (open it in ui.perfetto.dev).
    Convert {
        /// The capture file.
        file: std::path::PathBuf,
        /// Output file; its extension picks the format (.json, .pftrace or .perfetto-trace).
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Output format, whatever the extension.
        #[arg(long, value_enum)]
        to: Option<convert::Target>,
        /// No progress bar and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

fn run(cli: Cli) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match cli.command {
        Command::Info {
            file,
            json,
            verbose,
        } => {
            let input = input::Input::open(&file)?;
            let format = detect::require(input.bytes())?;
            let opts = formats::InfoOptions { json, verbose };
            formats::info(format, input.bytes(), &opts, &mut out)?;
        }
        Command::Validate { file } => {
            let input = input::Input::open(&file)?;
            let format = detect::require(input.bytes())?;
            formats::validate(format, input.bytes(), &mut out)?;
        }
        Command::Dump {
            file,
            json,
            apitrace,
        } => {
            let input = input::Input::open(&file)?;
            let format = detect::require(input.bytes())?;
            if apitrace && format != Format::Apitrace {
                return Err(CliError::Usage(format!(
                    "--apitrace needs an apitrace file, this is {}",
                    format.name()
                )));
            }
            let opts = DumpOptions { json, apitrace };
            let result = formats::dump(format, input.bytes(), &opts, &mut out);
            // Records printed before a fault are kept: flush them before reporting it.
            out.flush().map_err(CliError::Io)?;
            result?;
        }
        Command::Convert {
            file,
            output,
            to,
            quiet,
            json,
        } => {
            let args = convert::ConvertArgs {
                file,
                output,
                to,
                quiet,
                json,
            };
            let result = convert::run(&args, &mut out);
            out.flush().map_err(CliError::Io)?;
            result?;
        }
    }
    out.flush().map_err(CliError::Io)?;
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`tracecap dump f | head`) is not an error worth a message.
            if let CliError::Io(io) = &e {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
