//! syscall_capture: arbitrary bytes through the header, the entry walk and every argument. No
//! panic, every offset inside the input and increasing, and a clean file survives
//! parse -> model -> writer -> parse unchanged (the writer's output is a fixed point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_syscall::write::CaptureModel;
use tracecap_syscall::{Arg, Capture, Entry};

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let cap = match Capture::parse(data) {
        Ok(c) => c,
        Err(e) => {
            assert!(e.offset <= len, "{e}");
            return;
        }
    };
    assert!(cap.header().len <= len);
    let mut last = cap.header().end();
    let mut clean = true;
    let mut syscalls = 0usize;
    for e in cap.entries() {
        match e {
            Ok(e) => {
                assert!(e.offset() >= last && e.offset() < len, "{:?}", e);
                last = e.offset();
                if let Entry::Syscall(s) = e {
                    syscalls += 1;
                    assert!(s.args().offset() <= len);
                    let mut n = 0u16;
                    for a in s.args() {
                        n += 1;
                        match a {
                            Arg::Data(d) | Arg::Partial { data: d, .. } => {
                                assert!(d.len() as u64 <= len)
                            }
                            Arg::PollFds(p) => assert_eq!(p.iter().count(), p.len()),
                            _ => {}
                        }
                    }
                    assert_eq!(n, s.arg_count);
                }
            }
            Err(e) => {
                assert!(e.offset <= len && e.offset >= last, "{e}");
                clean = false;
            }
        }
    }
    let only_syscalls = cap.syscalls().filter(|s| s.is_ok()).count();
    assert_eq!(only_syscalls, syscalls);
    if clean {
        let model = CaptureModel::from_bytes(data).expect("clean walk, clean model");
        let once = model.to_bytes().expect("a parsed model can be written");
        let again = CaptureModel::from_bytes(&once)
            .expect("written capture parses")
            .to_bytes()
            .unwrap();
        assert_eq!(once, again);
    }
});
