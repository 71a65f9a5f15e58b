//! syscall_capture files written from proptest models: `syscall_calls` holds the model's calls
//! (their `args` the JSON text `dump` prints, built here from the model), and the shared tables
//! hold what Chrome JSON holds.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use arrow_array::RecordBatch;
use proptest::prelude::*;
use serde_json::{json, Value as Json};
use tracecap_arrow::{capture_batches, Options, Table};
use tracecap_syscall::write::{
    ArgModel, CaptureModel, EntryModel, HeaderModel, SigActionModel, SyscallModel, UnameModel,
};
use tracecap_syscall::{Capture, Entry, PollFd, Stat, Timespec};

fn no_nul(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(1u8..=255, 0..max)
}

fn header() -> impl Strategy<Value = HeaderModel> {
    (
        any::<bool>(),
        any::<i32>(),
        any::<i64>(),
        prop::option::of(0i64..1 << 40),
        prop::option::of(
            (no_nul(8), no_nul(8)).prop_map(|(sysname, nodename)| UnameModel {
                sysname,
                nodename,
                ..UnameModel::default()
            }),
        ),
    )
        .prop_map(
            |(big_endian, pid, epoch_seconds, clock_reference_ns, uname)| HeaderModel {
                big_endian,
                pid,
                epoch_seconds,
                clock_reference_ns,
                uname,
            },
        )
}

fn stat() -> impl Strategy<Value = Stat> {
    (
        (any::<u64>(), any::<u64>(), any::<u32>(), any::<u64>()),
        (any::<u32>(), any::<u32>(), any::<u64>(), any::<i64>()),
        (
            any::<i64>(),
            any::<i64>(),
            prop::array::uniform6(any::<i64>()),
        ),
    )
        .prop_map(
            |((dev, ino, mode, nlink), (uid, gid, rdev, size), (blksize, blocks, t))| Stat {
                dev,
                ino,
                mode,
                nlink,
                uid,
                gid,
                rdev,
                size,
                blksize,
                blocks,
                atim: Timespec {
                    sec: t[0],
                    nsec: t[1],
                },
                mtim: Timespec {
                    sec: t[2],
                    nsec: t[3],
                },
                ctim: Timespec {
                    sec: t[4],
                    nsec: t[5],
                },
            },
        )
}

fn arg() -> impl Strategy<Value = ArgModel> {
    prop_oneof![
        prop_oneof![any::<i64>(), any::<i32>().prop_map(i64::from)].prop_map(ArgModel::Int),
        prop::collection::vec(any::<u8>(), 0..24).prop_map(ArgModel::Data),
        (any::<u32>(), prop::collection::vec(any::<u8>(), 0..24))
            .prop_map(|(original_len, data)| ArgModel::Partial { original_len, data }),
        stat().prop_map(ArgModel::Stat),
        prop::collection::vec(
            (any::<i32>(), any::<i16>(), any::<i16>()).prop_map(|(fd, events, revents)| PollFd {
                fd,
                events,
                revents
            }),
            0..4
        )
        .prop_map(ArgModel::PollFds),
        prop::option::of(
            (
                any::<u64>(),
                any::<u64>(),
                prop_oneof![
                    prop::collection::vec(any::<u8>(), 8..=8),
                    prop::collection::vec(any::<u8>(), 0..16)
                ],
                any::<i32>(),
                any::<u64>()
            )
                .prop_map(|(handler, sigaction, mask, stale_flags, stale_restorer)| {
                    SigActionModel {
                        handler,
                        sigaction,
                        mask,
                        stale_flags,
                        stale_restorer,
                    }
                })
        )
        .prop_map(ArgModel::SigAction),
        (any::<u64>(), any::<u64>()).prop_map(|(pointer, value)| ArgModel::IntP { pointer, value }),
    ]
}

/// Times from `min` to `max` ns (and durations that keep them there, unless `max` is
/// `i64::MAX`).
fn syscall(min: i64, max: i64) -> impl Strategy<Value = SyscallModel> {
    use proptest::num::f32::{INFINITE, NEGATIVE, NORMAL, POSITIVE, QUIET_NAN, SUBNORMAL, ZERO};
    // Durations that end within `max` when it bounds times; any float when it does not.
    let special = if max == i64::MAX {
        POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE | QUIET_NAN
    } else {
        NEGATIVE | SUBNORMAL | ZERO | INFINITE | QUIET_NAN
    };
    let duration = prop_oneof![4 => 0f32..1e6, 1 => special];
    (
        // Assigned numbers and some no kernel assigns.
        prop_oneof![0u16..460, any::<u16>()],
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i32>()),
        prop::option::of(min..=max),
        prop::option::of(duration),
        prop::collection::vec(arg(), 0..5),
    )
        .prop_map(
            |(number, result, tid, timestamp_ns, duration_ns, args)| SyscallModel {
                number,
                result,
                tid,
                timestamp_ns,
                duration_ns,
                args,
            },
        )
}

/// A capture whose times are from `min` to `max` ns.
fn capture(min: i64, max: i64) -> impl Strategy<Value = CaptureModel> {
    let entry = prop_oneof![
        8 => syscall(min, max).prop_map(EntryModel::Syscall),
        1 => (0u32..64).prop_map(EntryModel::Filler),
        1 => (1u32..40).prop_map(|n| EntryModel::Gap(n * 4)),
        1 => header().prop_map(EntryModel::Header),
    ];
    (header(), prop::collection::vec(entry, 0..24)).prop_map(|(header, entries)| {
        // Two gaps in a row are one run of zero bytes: the reader reports them as one.
        let mut merged: Vec<EntryModel> = Vec::new();
        for e in entries {
            match (merged.last_mut(), &e) {
                (Some(EntryModel::Gap(a)), EntryModel::Gap(b)) => *a += b,
                _ => merged.push(e),
            }
        }
        CaptureModel {
            header,
            entries: merged,
        }
    })
}

/// Times of the timeline as Chrome JSON holds them exactly (microseconds in a double, to the
/// nanosecond).
const CHROME_MAX: i64 = 1 << 40;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn time(t: &Timespec) -> Json {
    json!({ "sec": t.sec, "nsec": t.nsec })
}

/// An argument as `dump` prints it; `big_endian` is the byte order of the capture it is in.
fn arg_json(a: &ArgModel, big_endian: bool) -> Json {
    match a {
        ArgModel::Int(v) => json!({ "int": v }),
        ArgModel::Data(d) => json!({ "data": hex(d) }),
        ArgModel::Partial { original_len, data } => {
            json!({ "partial": { "original_len": original_len, "data": hex(data) } })
        }
        ArgModel::Stat(s) => json!({ "stat": {
            "dev": s.dev, "ino": s.ino, "mode": s.mode, "nlink": s.nlink, "uid": s.uid,
            "gid": s.gid, "rdev": s.rdev, "size": s.size, "blksize": s.blksize,
            "blocks": s.blocks, "atim": time(&s.atim), "mtim": time(&s.mtim),
            "ctim": time(&s.ctim),
        } }),
        ArgModel::PollFds(p) => json!({ "pollfds": p
            .iter()
            .map(|f| json!({ "fd": f.fd, "events": f.events, "revents": f.revents }))
            .collect::<Vec<_>>() }),
        ArgModel::SigAction(None) => json!({ "sigaction": null }),
        ArgModel::SigAction(Some(sa)) => {
            let flags = match <[u8; 8]>::try_from(sa.mask.as_slice()) {
                Ok(b) if big_endian => json!(u64::from_be_bytes(b)),
                Ok(b) => json!(u64::from_le_bytes(b)),
                Err(_) => json!(hex(&sa.mask)),
            };
            json!({ "sigaction": {
                "handler": sa.handler, "sigaction": sa.sigaction, "flags": flags,
                "stale_flags": sa.stale_flags, "stale_restorer": sa.stale_restorer,
            } })
        }
        ArgModel::IntP { pointer, value } => {
            json!({ "intp": { "pointer": pointer, "value": value } })
        }
    }
}

/// One row: offset, number, name, ret, tid, timestamp_ns, duration_ns (its bits) and args.
type Row = (
    i64,
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<u32>,
    String,
);

/// What the model says the rows are (offsets from the crate's walk).
fn expected(m: &CaptureModel, bytes: &[u8]) -> Vec<Row> {
    let capture = Capture::parse(bytes).unwrap();
    let mut offsets = capture.entries().filter_map(|e| match e.unwrap() {
        Entry::Syscall(c) => Some(c.offset),
        _ => None,
    });
    let mut big_endian = m.header.big_endian;
    let mut rows = Vec::new();
    for e in &m.entries {
        match e {
            EntryModel::Header(h) => big_endian = h.big_endian,
            EntryModel::Syscall(c) => {
                let name = tracecap_syscall::syscall_name(c.number)
                    .map_or_else(|| format!("syscall_{}", c.number), str::to_owned);
                let args: Vec<Json> = c.args.iter().map(|a| arg_json(a, big_endian)).collect();
                rows.push((
                    offsets.next().expect("a call's offset") as i64,
                    i64::from(c.number),
                    name,
                    c.result.unwrap_or(0),
                    c.tid.map(i64::from),
                    c.timestamp_ns,
                    c.duration_ns.filter(|d| d.is_finite()).map(f32::to_bits),
                    Json::Array(args).to_string(),
                ));
            }
            EntryModel::Filler(_) | EntryModel::Gap(_) => {}
        }
    }
    rows
}

/// The rows of `syscall_calls`, walked `batch_rows` at a time.
fn rows(bytes: &[u8], batch_rows: usize) -> Vec<Row> {
    let mut batches: Vec<RecordBatch> = Vec::new();
    let options = Options {
        batch_rows,
        ..Options::only(Table::SyscallCalls)
    };
    let summary = capture_batches("m", bytes, &options, &mut |t: Table, b: RecordBatch| {
        assert_eq!(t, Table::SyscallCalls);
        assert!(b.num_rows() <= batch_rows);
        batches.push(b);
        Ok(())
    })
    .unwrap();
    assert!(summary.fault.is_none(), "{:?}", summary.fault);
    let mut rows = Vec::new();
    for b in &batches {
        let col = |name: &str| b.column_by_name(name).unwrap().as_ref();
        let duration = col("duration_ns");
        for i in 0..b.num_rows() {
            rows.push((
                common::int(col("offset"), i).unwrap(),
                common::int(col("number"), i).unwrap(),
                common::text(col("name"), i).unwrap(),
                common::int(col("ret"), i).unwrap(),
                common::int(col("tid"), i),
                common::int(col("timestamp_ns"), i),
                (!duration.is_null(i))
                    .then(|| duration.as_primitive::<Float32Type>().value(i).to_bits()),
                common::text(col("args"), i).unwrap(),
            ));
        }
    }
    rows
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_table_holds_the_models_calls(m in capture(i64::MIN, i64::MAX), batch_rows in 1usize..9) {
        let bytes = m.to_bytes().unwrap();
        prop_assert_eq!(rows(&bytes, batch_rows), expected(&m, &bytes));
    }

    #[test]
    fn the_shared_tables_hold_what_chrome_json_holds(m in capture(0, CHROME_MAX), batch_rows in 1usize..9) {
        let bytes = m.to_bytes().unwrap();
        common::check_against_chrome(&bytes, batch_rows);
    }
}
