//! Writes one generated capture of each format, of about `MiB` MiB each (default 60), into `DIR`,
//! for timing `tracecap export` against `tracecap convert` (docs/performance.md, "Export"):
//!
//! ```text
//! export_inputs DIR [MiB]
//! ```
//!
//! The captures are the benches' own inputs: EasyProfiler's synthetic trees, the syscall bench's
//! capture, the apitrace bench's GL stream in 1 MiB snappy chunks (a stream of three times the size), the WTF bench's trace and the
//! Orbit bench's capture.

// Each common module serves several examples; this one uses part of it.
#[allow(dead_code)]
#[path = "common/apitrace_gl.rs"]
mod apitrace_gl;
#[path = "common/orbit_synthetic.rs"]
mod orbit_synthetic;
#[path = "common/syscall_synthetic.rs"]
mod syscall_synthetic;
#[allow(dead_code)]
#[path = "common/wtf_synthetic.rs"]
mod wtf_synthetic;

use std::path::PathBuf;
use std::process::ExitCode;

/// Writes one capture's bytes.
type Make<'a> = Box<dyn Fn() -> Vec<u8> + 'a>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: export_inputs DIR [MiB]");
        return ExitCode::from(2);
    };
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let target = mib << 20;
    std::fs::create_dir_all(&dir).expect("create DIR");
    let captures: [(&str, Make<'_>); 5] = [
        (
            "easyprofiler.prof",
            Box::new(|| {
                tracecap_easyprofiler::write::CaptureModel::synthetic(target)
                    .to_bytes()
                    .expect("writable")
            }),
        ),
        (
            "syscall.dat",
            Box::new(|| syscall_synthetic::synthetic(target)),
        ),
        (
            "apitrace.trace",
            Box::new(|| {
                tracecap_apitrace::write::wrap(
                    // The GL stream compresses about 3:1: three times the size gives a file of the size.
                    &apitrace_gl::gl_stream(3 * target),
                    tracecap_apitrace::Container::Snappy,
                )
            }),
        ),
        (
            "wtf.wtf-trace",
            Box::new(|| wtf_synthetic::synthetic(target, wtf_synthetic::Mix::Bench).0),
        ),
        (
            "orbit.orbit",
            Box::new(|| orbit_synthetic::generate(target)),
        ),
    ];
    for (name, make) in captures {
        let bytes = make();
        let path = dir.join(name);
        std::fs::write(&path, &bytes).expect("write capture");
        println!("{}: {} bytes", path.display(), bytes.len());
    }
    ExitCode::SUCCESS
}
