//! Captures read as their bytes arrive: `--follow` on `dump`, `validate`, `info` and `convert`
//! (a file still being written), and any command reading a stream (`-`, a pipe).
//!
//! The format's push parser says, as the bytes come, how far whole records reach and where the
//! format ends (Orbit's `CaptureFinished`, EasyProfiler's end signature); following stops there,
//! after `--idle` seconds without growth, at Ctrl-C, or when the file shrinks or is replaced.
//!
//! - `dump` and `convert` print or convert records as they complete wherever the format
//!   allows (`formats::dump_arriving`, `tracecap::adapter::convert_arriving`): syscall_capture
//!   record by record, WTF event by event (holding its reorder queues), an apitrace trace call
//!   by call in any container (holding open calls), EasyProfiler a thread at a time (its depths
//!   need the thread's records). What is printed is flushed whenever more bytes are awaited.
//! - Every other case runs once following stops, on the capture as it then is, so the output is
//!   the same command's without `--follow`: `validate` and `info`, and Orbit (its dump opens
//!   with the section list written after the events; its conversion names each thread by the
//!   last name the capture gives it), and `dump --json` of a zstd apitrace trace (its first
//!   line names the container, seekable or not as the file's last bytes tell). A followed file
//!   is opened again; a stream is kept in a [`Spool`] on disk meanwhile, not in memory.
//!
//! Each followed run ends with a line on standard error saying how many bytes were read and why
//! following stopped.

use std::convert::Infallible;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use tracecap::open::{guard, Arrival, Arriving, Spool, Stop};
use tracecap::push::{pump, pump_keeping, PumpError, Pumped, PushParse};

use crate::detect::{self, Format};
use crate::error::CliError;

/// How much of an arriving capture is read, at most, to learn its format.
const HEAD: usize = 1 << 20;

/// An arriving capture whose format is known: the source, and the bytes read to learn it.
pub struct Started {
    /// Where the bytes come from.
    pub source: Arriving,
    /// The bytes read so far (not yet parsed).
    pub buffer: Vec<u8>,
    /// The format of those bytes.
    pub format: Format,
}

/// Opens `path` to be read as it arrives: followed (waiting for growth, stopping after `idle`
/// without it) when `follow`, else read once to its end (standard input, a pipe). Reads until
/// the format is known; a source that stops first, or whose first MiB is no capture, is the
/// tool's usual "not a capture" error.
pub fn start(path: &Path, follow: bool, idle: Option<Duration>) -> Result<Started, CliError> {
    if follow {
        guard::interrupt_requests_stop();
    }
    let mut source = if follow {
        Arriving::follow(path, idle)?
    } else {
        Arriving::open(path)?
    };
    let mut buffer = Vec::new();
    loop {
        if let Some(format) = tracecap::detect(&buffer) {
            return Ok(Started {
                source,
                buffer,
                format,
            });
        }
        if buffer.len() >= HEAD {
            return Err(detect::require(&buffer)
                .err()
                .unwrap_or_else(|| CliError::format(tracecap::NotACapture::Unknown.message(), 0)));
        }
        if let Arrival::Stopped(_) = source.read_more(&mut buffer)? {
            return detect::require(&buffer).map(|format| Started {
                source,
                buffer,
                format,
            });
        }
    }
}

/// Whether `path` is read as a stream rather than mapped: `-` and anything that is not a
/// regular file (a pipe, a FIFO, `/dev/stdin` on a pipe).
pub fn is_stream(path: &Path) -> bool {
    path == Path::new("-") || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// Follows the capture `s` until it ends, stops growing or is interrupted (or a fault in it),
/// then gives its bytes for a whole-capture command, with how the following ended: a regular
/// file opened again as it now is, a stream's bytes as they came, kept in a
/// [`Spool`](tracecap::open::Spool) on disk rather than in memory.
pub fn follow(path: &Path, mut s: Started) -> Result<(tracecap::Input, Ending), CliError> {
    let mut spool = if is_stream(path) {
        let mut spool = Spool::new(&shown(path))?;
        spool.write_all(&s.buffer)?;
        Some(spool)
    } else {
        None
    };
    let keep = spool.as_mut().map(|k| k as &mut dyn Write);
    let ending = detect::on_format!(
        s.format,
        |crate k| until_end(&mut s, keep, k::PushParser::new()),
        other => return Err(detect::unsupported(other))
    )?;
    let bytes = match spool {
        Some(spool) => spool.into_input()?,
        None => tracecap::open(path)?,
    };
    Ok((bytes, ending))
}

/// Reads `s` with `parser` to the format's end or until the source stops, writing every byte
/// read to `keep` when there is one. After a fault in the bytes, the source is still read until
/// it stops, so that the whole-capture command that follows sees the capture as its writer left
/// it and reports the fault itself.
fn until_end<P: PushParse>(
    s: &mut Started,
    mut keep: Option<&mut dyn Write>,
    mut parser: P,
) -> Result<Ending, CliError>
where
    CliError: From<P::Error>,
{
    let each = |_: P::Item<'_>| Ok::<(), Infallible>(());
    let result = match keep.as_mut() {
        Some(keep) => pump_keeping(&mut s.source, &mut parser, &mut s.buffer, *keep, each),
        None => pump(&mut s.source, &mut parser, &mut s.buffer, each),
    };
    match result {
        Ok(pumped) => Ok(Ending {
            pumped,
            fault: None,
        }),
        Err(PumpError::Io(e)) => Err(CliError::Io(e)),
        Err(PumpError::Each(never)) => match never {},
        Err(PumpError::Parse(e)) => {
            let fault = Some(CliError::from(e).to_string());
            let stop = loop {
                s.buffer.clear();
                let arrival = s.source.read_more(&mut s.buffer)?;
                if let Some(keep) = keep.as_mut() {
                    keep.write_all(&s.buffer)?;
                }
                if let Arrival::Stopped(why) = arrival {
                    break why;
                }
            };
            Ok(Ending {
                pumped: Pumped {
                    stop: Some(stop),
                    read: s.source.position(),
                    parsed: parser.offset(),
                },
                fault,
            })
        }
    }
}

/// How reading an arriving capture ended.
#[derive(Clone, Debug)]
pub struct Ending {
    /// Where the reading stopped and why.
    pub pumped: Pumped,
    /// The fault the push parser found, if any (the command reports it itself, at its offset).
    pub fault: Option<String>,
}

/// How reading an arriving capture converted or dumped as it came ended when `error` stopped
/// it: at the capture's fault (with what was read by then), or `None` for any other error (a
/// read error or a changed file says where it happened itself).
pub fn ended_by(started: &Started, error: &CliError) -> Option<Ending> {
    let CliError::Format { .. } = error else {
        return None;
    };
    let read = started.source.position();
    Some(Ending {
        pumped: Pumped {
            stop: None,
            read,
            parsed: read,
        },
        fault: Some(error.to_string()),
    })
}

/// A pump's result as the tool's: the parser's fault with its offset, a read error, or the
/// caller's error.
pub fn finish<P>(r: Result<Pumped, PumpError<P, CliError>>) -> Result<Pumped, CliError>
where
    CliError: From<P>,
{
    r.map_err(|e| match e {
        PumpError::Io(e) => CliError::Io(e),
        PumpError::Parse(e) => CliError::from(e),
        PumpError::Each(e) => e,
    })
}

/// The line on standard error after a followed or streamed capture: how much was read, and why
/// the reading stopped. A file that shrank or was replaced is an I/O error (exit 2): what was
/// read before may not be one capture.
pub fn report(path: &Path, ending: &Ending, err: &mut dyn Write) -> Result<(), CliError> {
    let pumped = &ending.pumped;
    let name = shown(path).display().to_string();
    let why = match (pumped.stop, &ending.fault) {
        (None, Some(fault)) => format!("at its fault: {fault}"),
        (None, None) => "at the end of the capture".to_string(),
        (Some(Stop::Closed), _) => "at the end of the input".to_string(),
        (Some(stop), _) => stop.to_string(),
    };
    let unused = pumped.read.saturating_sub(pumped.parsed);
    let tail = if let (Some(fault), Some(_)) = (&ending.fault, pumped.stop) {
        format!("; read as it came up to {fault}")
    } else if unused > 0 && pumped.stop.is_some() {
        format!("; the last {unused} bytes are not a whole record")
    } else {
        String::new()
    };
    writeln!(
        err,
        "tracecap: {name}: stopped after {} bytes, {why}{tail}",
        pumped.read
    )?;
    match pumped.stop {
        Some(stop) if stop.is_fault() => Err(CliError::Io(std::io::Error::other(format!(
            "{name}: {stop}"
        )))),
        _ => Ok(()),
    }
}

/// How `path` is named in messages: `-` is standard input.
fn shown(path: &Path) -> std::path::PathBuf {
    if path == Path::new("-") {
        "standard input".into()
    } else {
        path.to_path_buf()
    }
}
