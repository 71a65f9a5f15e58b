//! What a conversion to Perfetto costs against its adapter alone: converts `FILE` `N` times
//! (default 20) to a Perfetto trace in memory, then drives a sink that keeps nothing (and asks
//! for everything the Perfetto writer asks for) `N` times, and prints the best time of each.
//!
//! ```text
//! convert_walk FILE [N] [perfetto|null]
//! ```
//!
//! With a third argument only that half runs, once per round (for `valgrind --tool=callgrind`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use tracecap::export::Perfetto;
use tracecap::timeline::{CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId};

/// A sink that reads every call and keeps nothing.
struct Null(u64);

impl Sink for Null {
    type Error = std::convert::Infallible;

    fn track(&mut self, t: &Track<'_>) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(t.id.0);
        Ok(())
    }
    fn begin(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(e.ts);
        Ok(())
    }
    fn end(&mut self, _: TrackId, ts: u64) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(ts);
        Ok(())
    }
    fn complete(&mut self, e: &Event<'_>, dur: u64) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(e.ts ^ dur);
        Ok(())
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(e.ts);
        Ok(())
    }
    fn counter(&mut self, _: TrackId, ts: u64, _: CounterValue) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(ts);
        Ok(())
    }
    fn wants_stacks(&self) -> bool {
        true
    }
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(id.0 ^ frames.len() as u64);
        Ok(())
    }
    fn stack_sample(&mut self, s: &StackSample<'_>) -> Result<(), Self::Error> {
        self.0 = self.0.wrapping_add(s.ts);
        Ok(())
    }
}

fn best(rounds: usize, mut f: impl FnMut() -> u64) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        out = std::hint::black_box(f());
        best = best.min(t.elapsed());
    }
    (best, out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: convert_walk FILE [N] [perfetto|null]");
        return ExitCode::from(2);
    };
    let rounds = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20);
    let only = args.get(3).map(String::as_str);
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(format) = tracecap::detect(&data) else {
        eprintln!("{path}: not a capture");
        return ExitCode::FAILURE;
    };
    if only != Some("null") {
        let (t, bytes) = best(rounds, || {
            let mut out = Vec::with_capacity(data.len() * 2);
            let mut sink = match Perfetto::new(&mut out) {
                Ok(s) => s,
                Err(_) => return 0,
            };
            let _ = tracecap::convert(format, &data, &mut sink);
            drop(sink);
            out.len() as u64
        });
        println!("perfetto {:.3} ms ({bytes} bytes)", t.as_secs_f64() * 1e3);
    }
    if only != Some("perfetto") {
        let (t, sum) = best(rounds, || {
            let mut sink = Null(0);
            let _ = tracecap::convert(format, &data, &mut sink);
            sink.0
        });
        println!("adapter alone {:.3} ms ({sum})", t.as_secs_f64() * 1e3);
    }
    ExitCode::SUCCESS
}
