//! Orbit: a generated capture of >= 50 MB shaped like the real ones (scheduling and thread-state
//! slices, address infos, samples, Orbit API events), walked three ways against memcpy:
//! classifying every event by kind with the views, parsing every event's typed view, and
//! decoding every event with prost; and the classifying walk again through the push parser,
//! fed 64 KiB pieces through a caller-owned buffer as a reader of a socket or a growing file
//! feeds it.

use criterion::{criterion_group, criterion_main, Criterion};
use tracecap_orbit::proto::orbit_grpc_protos as pb;
use tracecap_orbit::proto::prost::Message;
#[path = "../examples/common/orbit_synthetic.rs"]
mod orbit_synthetic;
use orbit_synthetic::generate;
use tracecap_orbit::push::{PushItem, PushParser, Pushed};
use tracecap_orbit::{Capture, EventKind};

fn bench(c: &mut Criterion) {
    let data = generate(52 << 20);
    let events = Capture::parse(&data).unwrap().events().count();
    eprintln!("orbit bench file: {} bytes, {events} events", data.len());
    let mut group = c.benchmark_group("orbit");
    group.sample_size(10);
    tracecap_benches::memcpy_baseline(&mut group, &data);
    group.bench_function("classify_views", |b| {
        b.iter(|| {
            let capture = Capture::parse(std::hint::black_box(&data)).unwrap();
            let mut counts = [0u64; EventKind::ALL.len()];
            for ev in capture.events() {
                counts[ev.unwrap().kind.index()] += 1;
            }
            counts
        })
    });
    // The caller's buffers, kept across runs as a reader keeps them across pieces.
    let mut buffer: Vec<u8> = Vec::with_capacity(4 << 20);
    // The reader that parses each piece where it arrived and copies only an event split across
    // two pieces (the parser's hint says how many bytes it still needs).
    group.bench_function("push_walk", |b| {
        b.iter(|| {
            let data = std::hint::black_box(&data[..]);
            let mut parser = PushParser::new();
            let mut counts = [0u64; EventKind::ALL.len()];
            let mut pieces = data.chunks(64 << 10);
            let mut piece: &[u8] = &[];
            let mut eof = false;
            buffer.clear();
            let mut used = 0;
            loop {
                let from_piece = buffer.is_empty();
                let input = if from_piece { piece } else { &buffer[used..] };
                match parser.parse(input, eof).unwrap() {
                    Pushed::Item { consumed, item } => {
                        if let PushItem::Event(ev) = item {
                            counts[ev.kind.index()] += 1;
                        }
                        if from_piece {
                            piece = &piece[consumed..];
                        } else {
                            used += consumed;
                            if used == buffer.len() {
                                buffer.clear();
                                used = 0;
                            }
                        }
                    }
                    Pushed::NeedMore { hint } => {
                        if from_piece {
                            buffer.extend_from_slice(piece);
                            piece = &[];
                        }
                        if piece.is_empty() {
                            match pieces.next() {
                                Some(next) => piece = next,
                                None => eof = true,
                            }
                        }
                        if !buffer.is_empty() {
                            buffer.drain(..used);
                            used = 0;
                            let n = hint.map_or(piece.len(), |h| piece.len().min(h as usize));
                            buffer.extend_from_slice(&piece[..n]);
                            piece = &piece[n..];
                        }
                    }
                    Pushed::End => break,
                }
            }
            counts
        })
    });
    // The plain reader: every piece appended to the buffer, consumed bytes dropped in bulk.
    group.bench_function("push_walk_copying", |b| {
        b.iter(|| {
            let data = std::hint::black_box(&data[..]);
            let mut parser = PushParser::new();
            let mut counts = [0u64; EventKind::ALL.len()];
            let mut pieces = data.chunks(64 << 10);
            buffer.clear();
            // Bytes of `buffer` already consumed: dropped in bulk when the parser needs more.
            let mut used = 0;
            let mut eof = false;
            loop {
                match parser.parse(&buffer[used..], eof).unwrap() {
                    Pushed::Item { consumed, item } => {
                        if let PushItem::Event(ev) = item {
                            counts[ev.kind.index()] += 1;
                        }
                        used += consumed;
                    }
                    Pushed::NeedMore { .. } => {
                        buffer.drain(..used);
                        used = 0;
                        match pieces.next() {
                            Some(piece) => buffer.extend_from_slice(piece),
                            None => eof = true,
                        }
                    }
                    Pushed::End => break,
                }
            }
            counts
        })
    });
    group.bench_function("typed_views", |b| {
        b.iter(|| {
            let capture = Capture::parse(std::hint::black_box(&data)).unwrap();
            let mut n = 0u64;
            for ev in capture.events() {
                let v = ev.unwrap().view().unwrap();
                n += u64::from(v.tid().unwrap_or(0));
            }
            n
        })
    });
    group.bench_function("prost_decode", |b| {
        b.iter(|| {
            let capture = Capture::parse(std::hint::black_box(&data)).unwrap();
            let mut n = 0u64;
            for ev in capture.events() {
                let e = pb::ClientCaptureEvent::decode(ev.unwrap().message).unwrap();
                n += u64::from(e.event.is_some());
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
