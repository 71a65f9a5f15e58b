//! The same jobs done with the crates.io `apitrace` crate (0.4, stream versions 5 and 6 only),
//! for the comparison in docs/performance.md:
//!
//! ```text
//! apitrace_crate FILE               # every call as text (the crate's Display) to stdout
//! apitrace_crate --parse-only FILE  # every call parsed, nothing printed but a count
//! ```
//!
//! Output goes through one `BufWriter` (the crate's own `apitrace-rs dump` prints through the
//! line-buffered stdout, which is slower): this favours the crate.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use apitrace::TraceReader;

fn run(path: &str, print: bool) -> Result<u64, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = TraceReader::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if print {
        writeln!(out, "{}", reader.header()).map_err(|e| e.to_string())?;
    }
    let mut n = 0u64;
    for call in reader.calls() {
        let call = call.map_err(|e| e.to_string())?;
        if print {
            write!(out, "{call}").map_err(|e| e.to_string())?;
        } else {
            std::hint::black_box(&call);
        }
        n += 1;
    }
    if !print {
        writeln!(out, "{n} calls").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(n)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, print) = match args.as_slice() {
        [flag, path] if flag == "--parse-only" => (path, false),
        [path] => (path, true),
        _ => {
            eprintln!("usage: apitrace_crate [--parse-only] FILE");
            return ExitCode::FAILURE;
        }
    };
    match run(path, print) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}
