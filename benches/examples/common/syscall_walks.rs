//! The syscall walk the bench and the `syscall_walk` example share: every entry and every field
//! of every syscall, folded into a number so that nothing is optimised away.

use tracecap_syscall::{Arg, Capture, Entry};

/// Walks every entry of `bytes` (a capture that reads whole) and folds what it reads.
pub fn full_walk(bytes: &[u8]) -> u64 {
    let cap = Capture::parse(bytes).unwrap();
    let mut acc = 0u64;
    for e in cap.entries() {
        acc = fold(acc, &e.unwrap());
    }
    acc
}

/// Folds every field of `e` (every argument of a syscall) into `acc`.
#[inline]
pub fn fold(mut acc: u64, e: &Entry<'_>) -> u64 {
    match e {
        Entry::Syscall(s) => {
            acc = acc.wrapping_add(
                u64::from(s.number)
                    ^ s.ret() as u64
                    ^ s.timestamp_ns.unwrap_or(0) as u64
                    ^ u64::from(s.duration_ns.unwrap_or(0.0).to_bits())
                    ^ s.tid.unwrap_or(0) as u64,
            );
            for a in s.args() {
                acc = acc.wrapping_add(match a {
                    Arg::Int(v) => v as u64,
                    Arg::Data(d) => d.len() as u64,
                    Arg::Partial { original_len, data } => {
                        u64::from(original_len) ^ data.len() as u64
                    }
                    Arg::Stat(st) => st.size as u64 ^ u64::from(st.mode),
                    Arg::PollFds(p) => p.iter().map(|f| f.fd as u64).sum(),
                    Arg::SigAction(sa) => sa.map_or(7, |sa| sa.handler ^ sa.flags().unwrap_or(0)),
                    Arg::IntP { value, .. } => value,
                });
            }
        }
        Entry::Filler(f) => acc = acc.wrapping_add(f.len),
        Entry::Gap(g) => acc = acc.wrapping_add(g.len),
        Entry::Header(h) => acc = acc.wrapping_add(h.len),
    }
    acc
}
