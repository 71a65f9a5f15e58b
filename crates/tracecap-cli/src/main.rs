//! The `tracecap` binary: the library's [`tracecap_cli::main_with`] on the process's arguments,
//! standard output and standard error.

use std::io::{LineWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = tracecap_cli::stdout::Stdout::new();
    // A message is written to standard error whole, in one system call, not piece by piece.
    let mut err = LineWriter::new(std::io::stderr());
    let code = tracecap_cli::main_with(std::env::args_os(), &mut out, &mut err);
    let _ = err.flush();
    ExitCode::from(code)
}
