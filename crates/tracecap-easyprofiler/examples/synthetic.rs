//! Writes a synthetic EasyProfiler capture of about N MiB (default 64), for timing the tool:
//! `cargo run --release -p tracecap-easyprofiler --features write --example synthetic -- out.prof 64`
use tracecap_easyprofiler::write::Model;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "synthetic.prof".into());
    let mib: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(64);
    let bytes = Model::synthetic(mib << 20)
        .to_bytes()
        .expect("synthetic model is writable");
    std::fs::write(&path, &bytes).expect("write output");
    println!("{path}: {} bytes", bytes.len());
}
