//! The syscall_capture adapter on the corpus: one slice per record, in order, on thread tracks.
#![cfg(all(feature = "syscall", feature = "std"))]

mod common;

use common::{Ev, Recorder};
use tracecap::export::ChromeJson;
use tracecap::timeline::TrackKind;
use tracecap::{ConvertError, Format};
use tracecap_testkit::corpus_paths;

#[test]
fn corpus_one_slice_per_syscall() {
    for path in corpus_paths("syscall", &[], "dat") {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        // What the crate itself reads: the syscalls before the first fault, and that fault.
        let (calls, fault) = match tracecap::syscall::Capture::parse(&bytes) {
            Ok(c) => {
                let mut n = 0u64;
                let mut fault = None;
                for s in c.events() {
                    match s {
                        Ok(_) => n += 1,
                        Err(e) => fault = Some(e.offset),
                    }
                }
                (n, fault)
            }
            Err(e) => (0, Some(e.offset)),
        };
        assert_eq!(
            tracecap::detect(&bytes).is_some(),
            !bytes.is_empty(),
            "{name}"
        );
        let mut rec = Recorder::default();
        let (stats, result) = tracecap::adapter::convert_counted(Format::Syscall, &bytes, &mut rec);
        match (result, fault) {
            (Ok(()), None) => {}
            (Err(ConvertError::Format(e)), Some(at)) => assert_eq!(e.offset(), at, "{name}"),
            (r, f) => panic!("{name}: convert {r:?}, crate fault {f:?}"),
        }
        assert_eq!(stats.slices, calls, "{name}");
        let completes = rec
            .events
            .iter()
            .filter(|e| matches!(e, Ev::Complete(..)))
            .count();
        assert_eq!(completes as u64, calls, "{name}");
        if calls > 0 {
            assert!(rec
                .tracks
                .values()
                .any(|t| matches!(t.0, TrackKind::Thread { .. })));
        }
        if name.ends_with("py_big_filler_zerogap.dat") {
            // Recorded without times: laid out on a synthetic clock, and the process says so.
            assert!(
                rec.tracks.values().any(|t| t.2.contains("no timestamps")),
                "{name}"
            );
        }

        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let _ = tracecap::adapter::convert_counted(Format::Syscall, &bytes, &mut json);
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let xs = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .count();
        assert_eq!(xs as u64, calls, "{name}");
    }
}
