//! Walking every record and every argument of py_args.dat allocates nothing.

use tracecap_syscall::{Arg, Capture, Entry};
use tracecap_testkit::{allocs, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn walking_py_args_allocates_nothing() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_args.dat")).unwrap();

    // Make sure the counter works before trusting a zero.
    let probe = allocs();
    drop(std::hint::black_box(vec![1u8; 16]));
    assert_eq!(allocs() - probe, 1);

    let before = allocs();
    let mut records = 0u64;
    let mut args = 0u64;
    let mut sum = 0u64;
    let cap = Capture::parse(&data).unwrap();
    for e in cap.entries() {
        if let Entry::Syscall(s) = e.unwrap() {
            records += 1;
            sum = sum.wrapping_add(s.ret() as u64);
            for a in s.args() {
                args += 1;
                sum = sum.wrapping_add(match a {
                    Arg::Int(v) => v as u64,
                    Arg::Data(d) => d.len() as u64,
                    Arg::Partial { original_len, data } => {
                        u64::from(original_len) + data.len() as u64
                    }
                    Arg::Stat(st) => st.size as u64,
                    Arg::PollFds(p) => p.iter().map(|f| f.fd as u64).sum(),
                    Arg::SigAction(sa) => sa.map_or(0, |sa| sa.handler),
                    Arg::IntP { value, .. } => value,
                });
            }
        }
    }
    let after = allocs();
    std::hint::black_box(sum);
    assert_eq!(records, 526);
    assert!(args > 500);
    assert_eq!(after - before, 0, "allocations while walking");
}

/// The push parser over the same file, fed in 4 KiB pieces through a buffer the caller allocated
/// beforehand (the warm-up), allocates nothing either.
#[test]
fn push_parsing_py_args_allocates_nothing() {
    use tracecap_syscall::push::{PushItem, PushParser};
    use tracecap_wire::Pushed;

    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_args.dat")).unwrap();
    // The biggest record is under 64 KiB: the buffer never needs more than that and a piece.
    let mut buffer: Vec<u8> = Vec::with_capacity(256 << 10);

    let before = allocs();
    let mut parser = PushParser::new();
    let mut pieces = data.chunks(4096);
    let mut start = 0;
    let mut eof = false;
    let (mut records, mut args, mut sum) = (0u64, 0u64, 0u64);
    loop {
        match parser.parse(&buffer[start..], eof).unwrap() {
            Pushed::Item { consumed, item } => {
                if let PushItem::Entry(Entry::Syscall(s)) = item {
                    records += 1;
                    sum = sum.wrapping_add(s.ret() as u64);
                    for a in s.args() {
                        args += 1;
                        if let Arg::Data(d) = a {
                            sum = sum.wrapping_add(d.len() as u64);
                        }
                    }
                }
                start += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                match pieces.next() {
                    Some(piece) => buffer.extend_from_slice(piece),
                    None => eof = true,
                }
            }
            Pushed::End => break,
        }
    }
    let after = allocs();
    std::hint::black_box(sum);
    assert_eq!(records, 526);
    assert!(args > 500);
    assert_eq!(buffer.capacity(), 256 << 10);
    assert_eq!(after - before, 0, "allocations while push parsing");
}
