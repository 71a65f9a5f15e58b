//! The syscall bench's synthetic capture (included with `#[path]` by `benches/syscall.rs` and
//! `examples/export_inputs.rs`). It imitates the corpus (`ls -l`, Python): timestamps and
//! durations on, mostly argument-less calls (openat, newfstatat, ...), reads and writes with data
//! of a few hundred bytes, closes, mmaps, fstats, rt_sigactions, and a filler closing each 1 MiB
//! flush unit.

use std::hint::black_box;
use tracecap_syscall::write::{
    ArgModel, CaptureWriter, HeaderModel, SigActionModel, SyscallModel, UnameModel,
};
use tracecap_syscall::Stat;

/// A capture of at least `target` bytes.
pub fn synthetic(target: usize) -> Vec<u8> {
    let mut w = CaptureWriter::new();
    w.header(&HeaderModel {
        big_endian: false,
        pid: 4242,
        epoch_seconds: 1_795_238_949,
        clock_reference_ns: Some(295_271_665_681),
        uname: Some(UnameModel {
            sysname: b"Linux".to_vec(),
            nodename: b"bench".to_vec(),
            release: b"6.18.44".to_vec(),
            version: b"#1 SMP PREEMPT_DYNAMIC".to_vec(),
            machine: b"x86_64".to_vec(),
            domainname: b"(none)".to_vec(),
        }),
    })
    .unwrap();
    let payload: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut ts = 295_271_700_000i64;
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut unit_start = 0usize;
    let mut i = 0u64;
    while w.bytes().len() < target {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        ts += 1_000 + (seed % 20_000) as i64;
        let dur = Some(500.0 + (seed % 100_000) as f32);
        let base = SyscallModel {
            timestamp_ns: Some(ts),
            duration_ns: dur,
            ..SyscallModel::default()
        };
        let len = (seed >> 20) as usize % 512;
        let rec = match seed % 16 {
            0..=5 => SyscallModel {
                number: [257, 262, 217, 72, 89, 302][(seed >> 8) as usize % 6],
                result: if seed & 0x100 != 0 { Some(-2) } else { Some(4) },
                ..base
            },
            6..=8 => SyscallModel {
                number: 0,
                result: Some(len as i64),
                args: vec![
                    ArgModel::Int(4),
                    ArgModel::Data(payload[..len].to_vec()),
                    ArgModel::Int(4096),
                ],
                ..base
            },
            9 | 10 => SyscallModel {
                number: 1,
                result: Some(len as i64),
                args: vec![
                    ArgModel::Int(1),
                    ArgModel::Data(payload[..len].to_vec()),
                    ArgModel::Int(len as i64),
                ],
                ..base
            },
            11 | 12 => SyscallModel {
                number: 3,
                result: None,
                args: vec![ArgModel::Int(4)],
                ..base
            },
            13 => SyscallModel {
                number: 9,
                result: Some(0x7f72_0c22_e000),
                args: vec![
                    ArgModel::Int(0),
                    ArgModel::Int(8192),
                    ArgModel::Int(3),
                    ArgModel::Int(34),
                    ArgModel::Int(0xffff_ffff),
                    ArgModel::Int(0),
                ],
                ..base
            },
            14 => SyscallModel {
                number: 5,
                result: Some(0),
                args: vec![
                    ArgModel::Int(3),
                    ArgModel::Stat(Stat {
                        mode: 0o100644,
                        size: len as i64,
                        ..Stat::default()
                    }),
                ],
                ..base
            },
            _ => SyscallModel {
                number: 13,
                result: Some(0),
                args: vec![
                    ArgModel::Int(13),
                    ArgModel::SigAction(Some(SigActionModel {
                        handler: 1,
                        sigaction: 1,
                        mask: vec![0, 0, 0, 0x0c, 0, 0, 0, 0],
                        stale_flags: 0,
                        stale_restorer: 0,
                    })),
                    ArgModel::SigAction(None),
                    ArgModel::Int(8),
                ],
                ..base
            },
        };
        w.syscall(&rec).unwrap();
        i += 1;
        // Close a 1 MiB flush unit with a filler, as the tracer does.
        let used = w.bytes().len() - unit_start;
        if used > (1 << 20) - 2048 {
            let fill = (1usize << 20).saturating_sub(used + 8) as u32 & !3;
            w.filler(fill).unwrap();
            unit_start = w.bytes().len();
        }
    }
    black_box(i);
    w.into_bytes()
}
