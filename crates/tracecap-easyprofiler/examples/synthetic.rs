//! Writes an EasyProfiler capture of about N MiB (default 64), for timing the tool: synthetic
//! (random trees), or the records of a given real capture repeated:
//! `cargo run --release -p tracecap-easyprofiler --features write --example synthetic -- out.prof 64 [real.prof]`
use tracecap_easyprofiler::write::CaptureModel;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "synthetic.prof".into());
    let mib: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(64);
    let model = match args.next() {
        Some(real) => {
            let real = std::fs::read(&real).expect("read the capture to repeat");
            CaptureModel::from_bytes(&real)
                .expect("a readable capture")
                .repeated(mib << 20)
                .expect("a writable capture")
        }
        None => CaptureModel::synthetic(mib << 20),
    };
    let bytes = model.to_bytes().expect("the model is writable");
    std::fs::write(&path, &bytes).expect("write output");
    println!("{path}: {} bytes", bytes.len());
}
