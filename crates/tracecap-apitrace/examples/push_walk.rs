//! The push parser against the whole-file walk, in every container, in one process: the same
//! stream in snappy chunks of 1 MiB, gzip, brotli and zstd frames of 2 MiB (raw blocks: the
//! writer does not compress zstd), each walked whole (`ChunkedReader` over `ContainerSource`,
//! `try_for_each_parsed`) and pushed in 64 KiB pieces through a buffer the caller owns
//! (`PushParser::parse_many`), every event, detail and value read once in both; the best of
//! `N` runs of each, interleaved.
//!
//! ```text
//! cargo run --release -p tracecap-apitrace --example push_walk -- [MB] [N] [FILE]
//! ```
//!
//! `MB` megabytes of generated stream (default 64), or the stream of `FILE` (any container);
//! `N` runs (default 7); `PUSH_WALK_ONLY=gzip` (or another container's name) walks that one,
//! `PUSH_WALK_ZSTD_FRAME=BYTES` sets the zstd frames' size.

#[cfg(feature = "write")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use std::time::{Duration, Instant};
    use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
    use tracecap_apitrace::{
        decompress, ChunkedReader, ContainerSource, Detail, Parsed, PushParser, Pushed, SigTable,
        Value,
    };

    fn visit(v: &Value<'_>, t: &SigTable) -> u64 {
        let mut n = 1;
        if let Value::Array(a) = v {
            for item in a.iter(t).flatten() {
                n += visit(&item, t);
            }
        }
        n
    }
    fn count(p: &Parsed<'_, '_, SigTable>) -> u64 {
        let mut n = 1;
        for d in p.details() {
            match d {
                Ok(Detail::Arg { value, .. }) | Ok(Detail::Ret(value)) => {
                    n += visit(&value, p.table())
                }
                _ => n += 1,
            }
        }
        n
    }

    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(64);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let stream = match args.get(2) {
        Some(path) => decompress(&std::fs::read(path)?)?.data,
        None => {
            // GL-like calls: a clear, a buffer upload with a blob, a uniform with floats, a
            // draw with an array of ints, a swap; two threads.
            let mut w = Writer::new(6, 6, &[(b"process.name", b"push_walk")]);
            w.function(0, b"glClear", &[b"mask"]);
            w.function(1, b"glBufferData", &[b"target", b"size", b"data", b"usage"]);
            w.function(
                2,
                b"glUniform4f",
                &[b"location", b"v0", b"v1", b"v2", b"v3"],
            );
            w.function(
                3,
                b"glDrawElements",
                &[b"mode", b"count", b"type", b"indices"],
            );
            w.function(4, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
            let mut i = 0u64;
            while w.stream_len() < mb << 20 {
                let t = i % 2;
                let (sig, details) = match i % 5 {
                    0 => (0, vec![WDetail::Arg(0, WValue::UInt(0x4100))]),
                    1 => (
                        1,
                        vec![
                            WDetail::Arg(0, WValue::UInt(0x8892)),
                            WDetail::Arg(1, WValue::UInt(256)),
                            WDetail::Arg(
                                2,
                                WValue::Blob((0..256).map(|b| (b * i) as u8).collect()),
                            ),
                            WDetail::Arg(3, WValue::UInt(0x88e4)),
                        ],
                    ),
                    2 => (
                        2,
                        (0..5)
                            .map(|a| WDetail::Arg(a, WValue::Float(i as f32 * 0.5 + a as f32)))
                            .collect(),
                    ),
                    3 => (
                        3,
                        vec![
                            WDetail::Arg(0, WValue::UInt(4)),
                            WDetail::Arg(1, WValue::UInt(36)),
                            WDetail::Arg(2, WValue::UInt(0x1403)),
                            WDetail::Arg(
                                3,
                                WValue::Array((0..12).map(|k| WValue::UInt(i % 97 + k)).collect()),
                            ),
                        ],
                    ),
                    _ => (
                        4,
                        vec![
                            WDetail::Arg(0, WValue::Pointer(0x5555_0000)),
                            WDetail::Arg(1, WValue::UInt(0x40_0002)),
                        ],
                    ),
                };
                let no = w.enter(t, sig, &details);
                w.leave(no, &[]);
                i += 1;
            }
            w.finish()
        }
    };

    let whole = |file: &[u8]| -> Result<(u64, u64), tracecap_apitrace::Error> {
        let mut r = ChunkedReader::new(ContainerSource::new(file)?, SigTable::new());
        let (mut events, mut values) = (0u64, 0u64);
        r.try_for_each_parsed(|p| {
            events += 1;
            values += count(&p);
            Ok(())
        })?;
        Ok((events, values))
    };
    let pushed =
        |file: &[u8], buffer: &mut Vec<u8>| -> Result<(u64, u64), tracecap_apitrace::Error> {
            buffer.clear();
            let mut parser = PushParser::new();
            let mut pieces = file.chunks(64 << 10);
            let (mut events, mut values) = (0u64, 0u64);
            loop {
                let answer = parser.parse_many(buffer, pieces.len() == 0, |p| {
                    events += 1;
                    values += count(&p);
                })?;
                match answer {
                    Pushed::Item { consumed, .. } => {
                        buffer.drain(..consumed);
                    }
                    Pushed::NeedMore { .. } => match pieces.next() {
                        Some(piece) => buffer.extend_from_slice(piece),
                        None => break,
                    },
                    Pushed::End => break,
                }
            }
            Ok((events, values))
        };

    println!(
        "{} MB of stream, best of {runs} (interleaved); push: 64 KiB pieces, parse_many",
        stream.len() >> 20
    );
    println!("| container | file | whole-file walk | push walk | push / whole |");
    println!("|---|---|---|---|---|");
    let mut buffer = Vec::new();
    // `PUSH_WALK_ONLY=gzip`: that container only.
    let only = std::env::var("PUSH_WALK_ONLY").ok();
    // `PUSH_WALK_ZSTD_FRAME=262144`: zstd frames of that many stream bytes (default 2 MiB).
    let frame = std::env::var("PUSH_WALK_ZSTD_FRAME")
        .ok()
        .and_then(|f| f.parse().ok())
        .unwrap_or(2 << 20);
    for name in ["snappy", "gzip", "brotli", "zstd (raw blocks)"] {
        if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        let file = match name {
            "snappy" => write::snappy(&stream, 1 << 20),
            "gzip" => write::gzip(&stream),
            "brotli" => write::brotli(&stream),
            _ => write::zstd(&stream, frame, true),
        };
        let (mut best_whole, mut best_push) = (Duration::MAX, Duration::MAX);
        let expect = whole(&file)?;
        for _ in 0..runs {
            let t = Instant::now();
            let w = whole(&file)?;
            best_whole = best_whole.min(t.elapsed());
            let t = Instant::now();
            let p = pushed(&file, &mut buffer)?;
            best_push = best_push.min(t.elapsed());
            assert_eq!((w, p), (expect, expect), "{name}: the walks differ");
        }
        println!(
            "| {name} | {:.1} MB | {:.1} ms | {:.1} ms | {:.2} |",
            file.len() as f64 / 1e6,
            best_whole.as_secs_f64() * 1e3,
            best_push.as_secs_f64() * 1e3,
            best_push.as_secs_f64() / best_whole.as_secs_f64()
        );
    }
    Ok(())
}

#[cfg(not(feature = "write"))]
fn main() {
    eprintln!(
        "push_walk needs the `write` feature (the writer wraps the stream in each container)"
    );
}
