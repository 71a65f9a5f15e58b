//! Orbit: a generated capture of >= 50 MB shaped like the real ones (scheduling and thread-state
//! slices, address infos, samples, Orbit API events), walked three ways against memcpy:
//! classifying every event by kind with the views, parsing every event's typed view, and
//! decoding every event with prost.

use criterion::{criterion_group, criterion_main, Criterion};
use tracecap_orbit::proto::orbit_grpc_protos as pb;
use tracecap_orbit::proto::prost::Message;
#[path = "../examples/common/orbit_synthetic.rs"]
mod orbit_synthetic;
use orbit_synthetic::generate;
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
