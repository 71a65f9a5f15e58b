//! syscall_capture: arbitrary bytes through the header, the entry walk and every argument. No
//! panic, every offset inside the input and increasing, a prefix of the input gives the input's
//! entries up to where it stops (every entry before the cut among them), and a clean file survives
//! parse -> model -> writer -> parse unchanged (the writer's output is a fixed point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_syscall::write::CaptureModel;
use tracecap_syscall::{Arg, Capture, Entry};

/// What tells entries apart: offset, and the call number of a syscall.
fn print(e: &Entry<'_>) -> (u64, Option<u16>) {
    match e {
        Entry::Syscall(s) => (e.offset(), Some(s.number)),
        _ => (e.offset(), None),
    }
}

/// A prefix of the input (cut where its last two bytes say) gives the input's entries in order,
/// at least every entry whose next entry starts at or before the cut, and a fault inside it.
fn check_prefix(data: &[u8], whole: &[(u64, Option<u16>)]) {
    let Some(&[a, b]) = data.last_chunk::<2>() else {
        return;
    };
    let cut = usize::from(u16::from_le_bytes([a, b])) % (data.len() + 1);
    let part = data.get(..cut).unwrap_or(&[]);
    let Ok(cap) = Capture::parse(part) else {
        return;
    };
    let mut n = 0;
    for e in cap.entries() {
        match e {
            Ok(e) => {
                assert_eq!(Some(&print(&e)), whole.get(n), "cut at {cut}: entry {n}");
                n += 1;
            }
            Err(e) => assert!(e.offset <= cut as u64, "cut at {cut}: {e}"),
        }
    }
    let must = whole
        .iter()
        .skip(1)
        .take_while(|(next, _)| *next <= cut as u64)
        .count();
    assert!(
        n >= must,
        "cut at {cut}: {n} entries, expected at least {must}"
    );
}

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
    let mut whole = Vec::new();
    for e in cap.entries() {
        match e {
            Ok(e) => {
                whole.push(print(&e));
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
    check_prefix(data, &whole);
    let only_syscalls = cap.events().filter(|s| s.is_ok()).count();
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
