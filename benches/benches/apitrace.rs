//! apitrace: snappy decompression alone vs decompression + parse of every value, the chunked
//! reader (with and without read-ahead), the push parser fed the file in 64 KiB pieces
//! (`push_walk`: the work of `chunked_reader`; `push_one_pass`: of `chunked_one_pass`), and the apitrace-identical text dump; with the memcpy
//! baseline of the file's bytes.
//!
//! The trace is the file named by `TRACECAP_BENCH_APITRACE` (a snappy trace recorded with the
//! real tracer, see docs/performance.md), or else one made by the crate's writer: about 60 MB of
//! stream shaped like glxgears-style GL traffic (immediate-mode vertices, matrix calls, enums,
//! bitmasks, arrays, some blobs and strings; `examples/common/apitrace_gl.rs`, shared with the
//! examples), wrapped in 1 MiB snappy chunks as the tracer writes them. The whole-process
//! comparisons with the crates.io `apitrace` crate and `apitrace dump` use
//! `examples/apitrace_crate.rs` and `examples/apitrace_walk.rs` under hyperfine (see
//! docs/performance.md).

#[path = "../examples/common/apitrace_gl.rs"]
mod apitrace_gl;
use apitrace_gl::{visit, visit_parsed};

use std::hint::black_box;

use apitrace_gl::gl_stream;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tracecap_apitrace::dump::dump_text;
use tracecap_apitrace::write::snappy;
use tracecap_apitrace::{
    read_ahead, ByteSource, ChunkedReader, ContainerSource, Detail, FixedSigTable, PushParser,
    Pushed, SigLookup, SigTable, SnappyChunks, Stream,
};

/// Every event, detail and (nested) value, each event read once (`Events::next_parsed`).
fn walk<T: SigLookup>(stream: &[u8], table: T) -> u64 {
    let trace = Stream::parse(stream).unwrap();
    let mut events = trace.events_with(table);
    let mut n = 0u64;
    while let Some(ev) = events.next_parsed() {
        n += visit_parsed(&ev.unwrap());
    }
    n
}

/// The same through the event iterator, whose details are read again after validation.
fn walk_two_pass<T: SigLookup>(stream: &[u8], table: T) -> u64 {
    let trace = Stream::parse(stream).unwrap();
    let mut events = trace.events_with(table);
    let mut n = 0u64;
    while let Some(ev) = events.next() {
        let ev = ev.unwrap();
        for d in ev.details().iter(events.table()) {
            match d.unwrap() {
                Detail::Arg { value, .. } | Detail::Ret(value) => {
                    n += visit(&value, events.table())
                }
                _ => n += 1,
            }
        }
    }
    n
}

/// Every event, detail and value through the bounded window, each event read once.
fn walk_chunked<S: ByteSource>(r: &mut ChunkedReader<S>) -> u64 {
    let mut n = 0u64;
    r.try_for_each_parsed(|p| {
        n += visit_parsed(&p);
        Ok(())
    })
    .unwrap();
    n
}

/// The work of `chunked_reader` (every event, its details counted) through the push parser, fed
/// as a caller fed from a socket would: the file in 64 KiB pieces appended to a buffer the
/// caller owns, parsed until the parser needs more, the consumed bytes drained from the front.
fn walk_push(file: &[u8], buffer: &mut Vec<u8>) -> u64 {
    buffer.clear();
    let mut parser = PushParser::new();
    let mut pieces = file.chunks(64 << 10);
    let mut n = 0u64;
    loop {
        match parser.parse(buffer, pieces.len() == 0).unwrap() {
            Pushed::Item {
                consumed,
                item: (ev, t),
            } => {
                n += ev.details().iter(t).count() as u64;
                if consumed > 0 {
                    buffer.drain(..consumed);
                }
            }
            Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
            Pushed::End => return n,
        }
    }
}

/// The work of `chunked_one_pass` (every event, detail and value, each event read once) through
/// the push parser's `parse_many` (every event the bytes given hold, per call), fed as
/// `walk_push` feeds it.
fn walk_push_one_pass(file: &[u8], buffer: &mut Vec<u8>) -> u64 {
    buffer.clear();
    let mut parser = PushParser::new();
    let mut pieces = file.chunks(64 << 10);
    let mut n = 0u64;
    loop {
        let eof = pieces.len() == 0;
        match parser
            .parse_many(buffer, eof, |p| n += visit_parsed(&p))
            .unwrap()
        {
            Pushed::Item { consumed, .. } => {
                if consumed > 0 {
                    buffer.drain(..consumed);
                }
            }
            Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
            Pushed::End => return n,
        }
    }
}

fn decompress_into(file: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut dec = snap::raw::Decoder::new();
    for chunk in SnappyChunks::new(file).unwrap() {
        let chunk = chunk.unwrap();
        let len = snap::raw::decompress_len(chunk.block).unwrap();
        let start = out.len();
        out.resize(start + len, 0);
        dec.decompress(chunk.block, &mut out[start..]).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    // A real trace (snappy, as the tracer writes it) when one is named, else the generated one.
    let file = match std::env::var_os("TRACECAP_BENCH_APITRACE") {
        Some(path) => std::fs::read(&path).expect("read TRACECAP_BENCH_APITRACE"),
        None => snappy(&gl_stream(60 << 20), 1 << 20),
    };
    let mut buf = Vec::new();
    decompress_into(&file, &mut buf);
    eprintln!(
        "apitrace bench: {} bytes of stream, {} bytes of snappy file",
        buf.len(),
        file.len()
    );
    let mut g = c.benchmark_group("apitrace");
    g.sample_size(10);
    tracecap_benches::memcpy_baseline(&mut g, &file);
    g.throughput(Throughput::Bytes(file.len() as u64));
    g.bench_function("snap_decompress", |b| {
        b.iter(|| {
            decompress_into(black_box(&file), &mut buf);
            black_box(buf.len())
        })
    });
    g.bench_function("decompress_parse_fixed_table", |b| {
        let mut table: Box<FixedSigTable<1024>> = Box::default();
        b.iter(|| {
            decompress_into(black_box(&file), &mut buf);
            *table = FixedSigTable::new();
            black_box(walk(&buf, &mut *table))
        })
    });
    g.bench_function("decompress_parse_sig_table", |b| {
        b.iter(|| {
            decompress_into(black_box(&file), &mut buf);
            black_box(walk(&buf, SigTable::new()))
        })
    });
    g.bench_function("decompress_parse_two_pass", |b| {
        b.iter(|| {
            decompress_into(black_box(&file), &mut buf);
            black_box(walk_two_pass(&buf, SigTable::new()))
        })
    });
    g.bench_function("chunked_reader", |b| {
        b.iter(|| {
            let mut r = ChunkedReader::new(ContainerSource::new(&file).unwrap(), SigTable::new());
            let mut n = 0u64;
            while let Some(ev) = r.next_event() {
                let (ev, t) = ev.unwrap();
                n += ev.details().iter(t).count() as u64;
            }
            black_box(n)
        })
    });
    g.bench_function("push_walk", |b| {
        let mut buffer = Vec::new();
        b.iter(|| black_box(walk_push(black_box(&file), &mut buffer)))
    });
    g.bench_function("chunked_one_pass", |b| {
        b.iter(|| {
            let mut r = ChunkedReader::new(ContainerSource::new(&file).unwrap(), SigTable::new());
            black_box(walk_chunked(&mut r))
        })
    });
    g.bench_function("push_one_pass", |b| {
        let mut buffer = Vec::new();
        b.iter(|| black_box(walk_push_one_pass(black_box(&file), &mut buffer)))
    });
    g.bench_function("chunked_one_pass_read_ahead", |b| {
        b.iter(|| {
            let src = ContainerSource::new(&file).unwrap();
            let n = read_ahead(src, |src| {
                walk_chunked(&mut ChunkedReader::new(src, SigTable::new()))
            });
            black_box(n)
        })
    });
    g.bench_function("decompress_dump_text", |b| {
        b.iter(|| {
            decompress_into(black_box(&file), &mut buf);
            let mut n = 0usize;
            dump_text(&buf, |t| n += t.len()).unwrap();
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
