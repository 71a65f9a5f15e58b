//! `json`: every kind of entry and argument, written by the model writer in both byte orders and
//! read back, against the lines `tracecap dump --json` documents.

use tracecap_syscall::write::{
    ArgModel, CaptureModel, EntryModel, HeaderModel, SigActionModel, SyscallModel, UnameModel,
};
use tracecap_syscall::{json, Capture, Entry, PollFd, Stat, Timespec};

fn model(big_endian: bool) -> CaptureModel {
    let stat = Stat {
        dev: 0x803,
        ino: 1234,
        mode: 0o100644,
        nlink: 1,
        uid: 1000,
        gid: 100,
        rdev: 0,
        size: 4096,
        blksize: 4096,
        blocks: 8,
        atim: Timespec { sec: 1, nsec: 2 },
        mtim: Timespec {
            sec: 3,
            nsec: 999_999_999,
        },
        ctim: Timespec { sec: -5, nsec: 0 },
    };
    let sigaction = |mask: &[u8]| {
        ArgModel::SigAction(Some(SigActionModel {
            handler: 1,
            sigaction: 1,
            mask: mask.to_vec(),
            stale_flags: -3,
            stale_restorer: u64::MAX,
        }))
    };
    CaptureModel {
        header: HeaderModel {
            big_endian,
            pid: 4242,
            epoch_seconds: 1_700_000_000,
            clock_reference_ns: Some(5_000),
            uname: Some(UnameModel {
                sysname: b"Linux".to_vec(),
                nodename: b"h\x01\"\\\x7f\xff\n".to_vec(),
                release: "6.1-é".as_bytes().to_vec(),
                version: b"#1 SMP\t\x1f".to_vec(),
                machine: b"x86_64".to_vec(),
                domainname: b"\xe2\x82".to_vec(),
            }),
        },
        entries: vec![
            EntryModel::Syscall(SyscallModel {
                number: 0,
                result: Some(-2),
                tid: Some(7),
                timestamp_ns: Some(123),
                duration_ns: Some(2.5e-7),
                args: vec![
                    ArgModel::Int(-1),
                    ArgModel::Int(1 << 40),
                    ArgModel::Data(vec![0, 0xab, 0x0f]),
                    ArgModel::Partial {
                        original_len: 4096,
                        data: b"ab".to_vec(),
                    },
                    ArgModel::Stat(stat),
                    ArgModel::PollFds(vec![
                        PollFd {
                            fd: 3,
                            events: 1,
                            revents: -1,
                        },
                        PollFd {
                            fd: -1,
                            events: 0,
                            revents: 4,
                        },
                    ]),
                    ArgModel::PollFds(Vec::new()),
                    ArgModel::SigAction(None),
                    sigaction(&[1, 0, 0, 0, 0, 0, 0, 4]),
                    sigaction(&[0xff, 0, 0x10, 0]),
                    ArgModel::IntP {
                        pointer: 0x7ffd_0000_1000,
                        value: 9,
                    },
                ],
            }),
            EntryModel::Syscall(SyscallModel {
                number: 999,
                ..SyscallModel::default()
            }),
            EntryModel::Filler(16),
            EntryModel::Gap(8),
            EntryModel::Header(HeaderModel {
                big_endian: !big_endian,
                pid: -5,
                epoch_seconds: -9,
                clock_reference_ns: None,
                uname: None,
            }),
            EntryModel::Syscall(SyscallModel {
                number: 3,
                result: Some(0),
                timestamp_ns: Some(i64::MIN),
                duration_ns: Some(f32::NAN),
                ..SyscallModel::default()
            }),
            EntryModel::Syscall(SyscallModel {
                number: 3,
                result: Some(1 << 40),
                timestamp_ns: Some(i64::MAX),
                duration_ns: Some(f32::INFINITY),
                args: vec![ArgModel::Data(Vec::new())],
                ..SyscallModel::default()
            }),
            EntryModel::Syscall(SyscallModel {
                number: 60,
                duration_ns: Some(1e10),
                ..SyscallModel::default()
            }),
        ],
    }
}

/// The header line, then one line per entry, as the crate writes them.
fn lines(bytes: &[u8]) -> Vec<String> {
    let capture = Capture::parse(bytes).unwrap();
    let mut out = Vec::new();
    let mut line = String::new();
    json::header(capture.header(), &mut line);
    out.push(line.clone());
    for entry in capture.entries() {
        line.clear();
        json::entry(&entry.unwrap(), &mut line);
        out.push(line.clone());
    }
    out
}

fn offsets(bytes: &[u8]) -> Vec<u64> {
    Capture::parse(bytes)
        .unwrap()
        .entries()
        .map(|e| match e.unwrap() {
            Entry::Syscall(c) => c.offset,
            Entry::Filler(f) => f.offset,
            Entry::Gap(g) => g.offset,
            Entry::Header(h) => h.offset,
        })
        .collect()
}

const UNAME: &str = r#"{"sysname":"Linux","nodename":"h\u0001\"\\"#;

#[test]
fn every_entry_and_argument_kind_in_both_byte_orders() {
    for big_endian in [false, true] {
        let bytes = model(big_endian).to_bytes().unwrap();
        let got = lines(&bytes);
        let at = offsets(&bytes);
        assert_eq!(got.len(), 1 + at.len());
        // The 8-byte signal set is read as a word in the capture's byte order.
        let flags: u64 = if big_endian {
            0x0100_0000_0000_0004
        } else {
            0x0400_0000_0000_0001
        };
        let want = [
            format!(
                "{{\"format\":\"syscall\",\"version\":1,\"big_endian\":{big_endian},\"pid\":4242,\
                 \"epoch_seconds\":1700000000,\"clock_reference_ns\":5000,\"uname\":{UNAME}\u{7f}\u{fffd}\\n\",\
                 \"release\":\"6.1-é\",\"version\":\"#1 SMP\\t\\u001f\",\"machine\":\"x86_64\",\
                 \"domainname\":\"\u{fffd}\"}}}}"
            ),
            format!(
                "{{\"kind\":\"syscall\",\"offset\":{},\"number\":0,\"name\":\"read\",\"ret\":-2,\
                 \"tid\":7,\"timestamp_ns\":123,\"duration_ns\":0.00000025,\"args\":[\
                 {{\"int\":-1}},{{\"int\":1099511627776}},{{\"data\":\"00ab0f\"}},\
                 {{\"partial\":{{\"original_len\":4096,\"data\":\"6162\"}}}},\
                 {{\"stat\":{{\"dev\":2051,\"ino\":1234,\"mode\":33188,\"nlink\":1,\"uid\":1000,\
                 \"gid\":100,\"rdev\":0,\"size\":4096,\"blksize\":4096,\"blocks\":8,\
                 \"atim\":{{\"sec\":1,\"nsec\":2}},\"mtim\":{{\"sec\":3,\"nsec\":999999999}},\
                 \"ctim\":{{\"sec\":-5,\"nsec\":0}}}}}},\
                 {{\"pollfds\":[{{\"fd\":3,\"events\":1,\"revents\":-1}},\
                 {{\"fd\":-1,\"events\":0,\"revents\":4}}]}},{{\"pollfds\":[]}},\
                 {{\"sigaction\":null}},\
                 {{\"sigaction\":{{\"handler\":1,\"sigaction\":1,\"flags\":{flags},\
                 \"stale_flags\":-3,\"stale_restorer\":18446744073709551615}}}},\
                 {{\"sigaction\":{{\"handler\":1,\"sigaction\":1,\"flags\":\"ff001000\",\
                 \"stale_flags\":-3,\"stale_restorer\":18446744073709551615}}}},\
                 {{\"intp\":{{\"pointer\":140724603457536,\"value\":9}}}}]}}",
                at[0]
            ),
            format!(
                "{{\"kind\":\"syscall\",\"offset\":{},\"number\":999,\"name\":\"syscall_999\",\
                 \"ret\":0,\"tid\":null,\"timestamp_ns\":null,\"duration_ns\":null,\"args\":[]}}",
                at[1]
            ),
            format!("{{\"kind\":\"filler\",\"offset\":{},\"len\":16}}", at[2]),
            format!("{{\"kind\":\"gap\",\"offset\":{},\"len\":8}}", at[3]),
            format!(
                "{{\"kind\":\"header\",\"offset\":{},\"format\":\"syscall\",\"version\":1,\
                 \"big_endian\":{},\"pid\":-5,\"epoch_seconds\":-9,\"clock_reference_ns\":null,\
                 \"uname\":null}}",
                at[4], !big_endian
            ),
            format!(
                "{{\"kind\":\"syscall\",\"offset\":{},\"number\":3,\"name\":\"close\",\"ret\":0,\
                 \"tid\":null,\"timestamp_ns\":-9223372036854775808,\"duration_ns\":null,\"args\":[]}}",
                at[5]
            ),
            format!(
                "{{\"kind\":\"syscall\",\"offset\":{},\"number\":3,\"name\":\"close\",\
                 \"ret\":1099511627776,\"tid\":null,\"timestamp_ns\":9223372036854775807,\
                 \"duration_ns\":null,\"args\":[{{\"data\":\"\"}}]}}",
                at[6]
            ),
            format!(
                "{{\"kind\":\"syscall\",\"offset\":{},\"number\":60,\"name\":\"exit\",\"ret\":0,\
                 \"tid\":null,\"timestamp_ns\":null,\"duration_ns\":10000000000,\"args\":[]}}",
                at[7]
            ),
        ];
        assert_eq!(got.len(), want.len(), "big_endian={big_endian}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "big_endian={big_endian}");
        }
    }
}

#[test]
fn args_is_the_args_member_of_the_record_line_and_every_writer_appends() {
    let bytes = model(false).to_bytes().unwrap();
    let capture = Capture::parse(&bytes).unwrap();
    for call in capture.events() {
        let call = call.unwrap();
        let mut line = String::from("kept:");
        json::syscall(&call, &mut line);
        let mut args = String::from("kept:");
        json::args(call.args(), &mut args);
        let args = args.strip_prefix("kept:").unwrap();
        assert!(args.starts_with('[') && args.ends_with(']'));
        assert!(
            line.starts_with("kept:{\"kind\":\"syscall\"")
                && line.ends_with(&format!(",\"args\":{args}}}")),
            "{line}"
        );
        let mut one = String::new();
        let mut each = Vec::new();
        for a in call.args() {
            one.clear();
            json::arg(&a, &mut one);
            each.push(one.clone());
        }
        assert_eq!(args, format!("[{}]", each.join(",")));
        // An entry's line is the record's line.
        let mut entry = String::new();
        json::entry(&Entry::Syscall(call), &mut entry);
        assert_eq!(line.strip_prefix("kept:"), Some(entry.as_str()));
    }
    let mut uname = String::from("x");
    json::uname(None, &mut uname);
    assert_eq!(uname, "xnull");
    uname.clear();
    json::uname(capture.header().uname().as_ref(), &mut uname);
    assert!(uname.starts_with(UNAME), "{uname}");
}

#[test]
fn the_json_is_the_same_through_the_push_parser() {
    use tracecap_syscall::push::PushItem;
    use tracecap_syscall::{PushParser, Pushed};
    let bytes = model(true).to_bytes().unwrap();
    let mut parser = PushParser::new();
    let mut pushed = Vec::new();
    let mut at = 0usize;
    loop {
        match parser.parse(&bytes[at..], true).unwrap() {
            Pushed::Item { item, consumed } => {
                let mut line = String::new();
                match item {
                    PushItem::Header(h) => json::header(&h, &mut line),
                    PushItem::Entry(e) => json::entry(&e, &mut line),
                    PushItem::GapPart(_) => {}
                }
                if !line.is_empty() {
                    pushed.push(line);
                }
                at += consumed;
            }
            Pushed::End => break,
            Pushed::NeedMore { .. } => panic!("the whole file was given"),
        }
    }
    assert_eq!(pushed, lines(&bytes));
}
