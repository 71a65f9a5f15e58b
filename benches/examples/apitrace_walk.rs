//! Parse-only walk of an apitrace file with tracecap-apitrace: decompress the whole stream, pair
//! every ENTER/LEAVE into calls and visit every (nested) value, printing nothing but a count.
//! The counterpart of `apitrace_crate --parse-only` for the comparison in docs/performance.md,
//! and a small program to run under callgrind.
//!
//! ```text
//! apitrace_walk FILE            # walk FILE
//! apitrace_walk --events FILE   # walk events and their values only (no pairing into calls)
//! apitrace_walk --events-two-pass FILE  # the same, validating each event before its details
//! apitrace_walk --chunked FILE  # --events through the bounded-window reader
//! apitrace_walk --read-ahead FILE  # the same, decompressing on a second thread
//! apitrace_walk --decompress FILE  # decompress only (the baseline of the two above)
//! apitrace_walk --gen MB OUT    # write the bench's generated trace (MB of stream, snappy) to OUT
//! ```

#[path = "common/apitrace_gl.rs"]
mod apitrace_gl;
use apitrace_gl::{visit, visit_parsed};

use std::process::ExitCode;

use tracecap_apitrace::{
    decompress, read_ahead, ByteSource, Calls, ChunkedReader, ContainerSource, Detail, SigTable,
    Stream,
};

fn walk(file: &[u8]) -> Result<(u64, u64), tracecap_apitrace::Error> {
    let stream = decompress(file)?;
    let trace = Stream::parse(&stream.data)?;
    let mut events = trace.events();
    let mut calls = Calls::new();
    let (mut n_calls, mut n_values) = (0u64, 0u64);
    while let Some(ev) = events.next() {
        let ev = ev?;
        if let Some(call) = calls.feed(&ev, events.table())? {
            for v in call.args.iter().flatten().chain(call.ret.iter()) {
                n_values += visit(v, events.table());
            }
            n_calls += 1;
        }
    }
    n_calls += calls.finish().count() as u64;
    if let Some(e) = stream.fault {
        return Err(e);
    }
    Ok((n_calls, n_values))
}

/// What the criterion bench walks: every event, detail and (nested) value, each event read
/// once (`next_parsed`), or validated first and its details read again (`two_pass`).
fn walk_events(file: &[u8], two_pass: bool) -> Result<(u64, u64), tracecap_apitrace::Error> {
    if two_pass {
        return walk_events_two_pass(file);
    }
    let stream = decompress(file)?;
    let trace = Stream::parse(&stream.data)?;
    let mut events = trace.events();
    let (mut n_events, mut n_values) = (0u64, 0u64);
    while let Some(ev) = events.next_parsed() {
        n_values += visit_parsed(&ev?);
        n_events += 1;
    }
    Ok((n_events, n_values))
}

/// [`walk_events`] through the bounded-window reader, decompressing on this thread or (with
/// `ahead`) on a second one.
fn walk_chunked(file: &[u8], ahead: bool) -> Result<(u64, u64), tracecap_apitrace::Error> {
    fn run<S: ByteSource>(src: S) -> Result<(u64, u64), tracecap_apitrace::Error> {
        let mut r = ChunkedReader::new(src, SigTable::new());
        let (mut n_events, mut n_values) = (0u64, 0u64);
        r.try_for_each_parsed(|p| {
            n_values += visit_parsed(&p);
            n_events += 1;
            Ok(())
        })?;
        Ok((n_events, n_values))
    }
    let src = ContainerSource::new(file)?;
    if ahead {
        read_ahead(src, run)
    } else {
        run(src)
    }
}

fn walk_events_two_pass(file: &[u8]) -> Result<(u64, u64), tracecap_apitrace::Error> {
    let stream = decompress(file)?;
    let trace = Stream::parse(&stream.data)?;
    let mut events = trace.events();
    let (mut n_events, mut n_values) = (0u64, 0u64);
    while let Some(ev) = events.next() {
        let ev = ev?;
        for d in ev.details().iter(events.table()) {
            match d? {
                Detail::Arg { value, .. } | Detail::Ret(value) => {
                    n_values += visit(&value, events.table())
                }
                _ => n_values += 1,
            }
        }
        n_events += 1;
    }
    Ok((n_events, n_values))
}

fn read(path: &str) -> Option<Vec<u8>> {
    std::fs::read(path)
        .inspect_err(|e| eprintln!("{path}: {e}"))
        .ok()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [gen, mb, out] if gen == "--gen" => {
            let mb: usize = mb.parse().unwrap_or(8);
            let stream = apitrace_gl::gl_stream(mb << 20);
            let file = tracecap_apitrace::write::snappy(&stream, 1 << 20);
            if let Err(e) = std::fs::write(out, file) {
                eprintln!("{out}: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        [flag, path] if flag == "--decompress" => {
            let Some(file) = read(path) else {
                return ExitCode::FAILURE;
            };
            match decompress(&file) {
                Ok(d) => {
                    println!("{} stream bytes", d.data.len());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{path}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        [flag, path]
            if ["--events", "--events-two-pass", "--chunked", "--read-ahead"]
                .contains(&flag.as_str()) =>
        {
            let Some(file) = read(path) else {
                return ExitCode::FAILURE;
            };
            let walked = match flag.as_str() {
                "--chunked" => walk_chunked(&file, false),
                "--read-ahead" => walk_chunked(&file, true),
                f => walk_events(&file, f == "--events-two-pass"),
            };
            match walked {
                Ok((events, values)) => {
                    println!("{events} events, {values} values");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{path}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        [path] => {
            let Some(file) = read(path) else {
                return ExitCode::FAILURE;
            };
            match walk(&file) {
                Ok((calls, values)) => {
                    println!("{calls} calls, {values} values");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{path}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: apitrace_walk [--events | --events-two-pass | --chunked | --read-ahead | --decompress] FILE | apitrace_walk --gen MB OUT"
            );
            ExitCode::FAILURE
        }
    }
}
