//! The `tracecap` binary: the library's [`tracecap_cli::main_with`] on the process's arguments,
//! standard output and standard error.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = tracecap_cli::stdout::Stdout::new();
    let code = tracecap_cli::main_with(std::env::args_os(), &mut out, &mut std::io::stderr());
    ExitCode::from(code)
}
