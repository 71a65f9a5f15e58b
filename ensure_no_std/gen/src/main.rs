//! Writes `ensure_no_std/captures/*`: each a real capture of the corpus cut down to a few
//! records, read into the format crate's `write::CaptureModel` and written back by its writer
//! (apitrace: the uncompressed event stream, which the `no_std` core reads).
//!
//! Run from the repository root with `../shared/corpus` beside it:
//! `cargo run --manifest-path ensure_no_std/gen/Cargo.toml`.

use std::fs;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("TRACECAP_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let out = root.join("ensure_no_std/captures");
    fs::create_dir_all(&out)?;
    let write = |name: &str, bytes: Vec<u8>| -> Result<()> {
        println!("{name}: {} bytes", bytes.len());
        fs::write(out.join(name), bytes)?;
        Ok(())
    };

    // EasyProfiler 2.1: every descriptor, each thread's first records and context switches.
    {
        use tracecap_easyprofiler::write::CaptureModel;
        let bytes = fs::read(corpus.join("easyprofiler/gen_small.prof"))?;
        let mut m = CaptureModel::from_bytes(&bytes)?;
        for t in &mut m.threads {
            t.records.truncate(6);
            t.context_switches.truncate(2);
        }
        m.threads.truncate(3);
        m.bookmarks.truncate(1);
        write("easyprofiler.prof", m.to_bytes()?)?;
    }

    // syscall_capture (`ls -l`): the header with the host strings and the first records.
    {
        use tracecap_syscall::write::{CaptureModel, EntryModel};
        let bytes = fs::read(corpus.join("syscall/ls_l.dat"))?;
        let mut m = CaptureModel::from_bytes(&bytes)?;
        m.entries.retain(|e| matches!(e, EntryModel::Syscall(_)));
        m.entries.truncate(24);
        write("syscall.dat", m.to_bytes()?)?;
    }

    // apitrace (glxdemo, apitrace 11.1): the first five calls of the decompressed stream,
    // version 6 (the sixth defines GLenum, several thousand names).
    {
        use tracecap_apitrace::write::CaptureModel;
        let file = fs::read(corpus.join("apitrace/produced-apitrace-11.1/glxdemo_small.trace"))?;
        let whole = tracecap_apitrace::decompress(&file)?;
        let mut m = CaptureModel::from_bytes(&whole.data)?;
        m.events.truncate(10);
        write("apitrace.stream", m.to_bytes())?;
    }

    // WTF chunked format 10 (cff-cpp threads): every definition and the first events.
    {
        use tracecap_wtf::write::CaptureModel;
        let bytes = fs::read(corpus.join("wtf/cff-cpp/cpp-threads.wtf-trace"))?;
        let mut m = CaptureModel::from_bytes(&bytes)?;
        m.events.truncate(24);
        write("wtf.wtf-trace", m.to_bytes()?)?;
    }

    // Orbit 1.81: the first small events of a real capture (not the module and thread-name
    // lists of a few KB), then its CaptureFinished.
    {
        use tracecap_orbit::write::CaptureModel;
        let bytes = fs::read(corpus.join("orbit/real/orbit181_test_capture.orbit"))?;
        let mut m = CaptureModel::from_bytes(&bytes)?;
        let finished = m.events.pop().ok_or("no events")?;
        m.events.retain(|e| e.len() < 256);
        m.events.truncate(40);
        m.events.push(finished);
        m.user_data = None;
        write("orbit.orbit", m.to_bytes()?)?;
    }
    Ok(())
}
