//! Writes `ensure_no_std/captures/*`: one small synthetic capture per format, every record made
//! up here and written by the format crate's own writer (apitrace: the uncompressed event stream,
//! which the `no_std` core reads). Nothing is read from disk, so the output depends only on this
//! file and the writers.
//!
//! Run from anywhere: `cargo run --manifest-path ensure_no_std/gen/Cargo.toml`.

use std::fs;
use std::path::Path;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures");
    fs::create_dir_all(&out)?;
    let captures = [
        ("easyprofiler.prof", easyprofiler()?),
        ("syscall.dat", syscall()?),
        ("apitrace.stream", apitrace()),
        ("wtf.wtf-trace", wtf()?),
        ("orbit.orbit", orbit()?),
    ];
    for (name, bytes) in captures {
        println!("{name}: {} bytes", bytes.len());
        fs::write(out.join(name), bytes)?;
    }
    Ok(())
}

/// EasyProfiler 2.1: six descriptors of the three kinds, two threads of nested blocks, events and
/// values (scalar, array and string), a context switch per thread and one bookmark.
fn easyprofiler() -> Result<Vec<u8>> {
    use tracecap_easyprofiler::write::{
        BookmarkModel, CaptureModel, ContextSwitchModel, DescriptorModel, RecordModel, ThreadModel,
    };
    use tracecap_easyprofiler::{DataType, DescriptorKind, Version};

    let kinds = [
        (DescriptorKind::Block, "Frame"),
        (DescriptorKind::Block, "update"),
        (DescriptorKind::Event, "checkpoint"),
        (DescriptorKind::Value, "entities"),
        (DescriptorKind::Value, "label"),
        (DescriptorKind::Block, "job"),
    ];
    let descriptors = kinds
        .iter()
        .enumerate()
        .map(|(i, (kind, name))| DescriptorModel {
            id: i as u32,
            line: 20 + 7 * i as i32,
            color: 0xff40_8000 | i as u32,
            kind: *kind,
            status: 1,
            name: name.as_bytes().to_vec(),
            file: b"src/demo.cpp".to_vec(),
        })
        .collect();
    let block = |begin, end, id, name: &[u8]| RecordModel::Block {
        begin,
        end,
        id,
        name: name.to_vec(),
    };
    let value = |time, id, data_type, is_array, data: Vec<u8>| RecordModel::Value {
        time,
        id,
        value_id: 0x1000 + u64::from(id),
        data_type,
        is_array,
        data,
    };
    // Each thread's records in completion order: children before the block that holds them.
    let main = vec![
        block(1_020, 1_020, 2, b""),
        value(
            1_030,
            3,
            DataType::Int32,
            false,
            42i32.to_le_bytes().to_vec(),
        ),
        block(1_010, 1_040, 1, b""),
        value(1_060, 4, DataType::String, true, b"level 1\0".to_vec()),
        block(1_050, 1_080, 5, b"draw"),
        block(1_000, 1_100, 0, b""),
    ];
    let worker = vec![
        value(
            1_015,
            3,
            DataType::Double,
            true,
            [0.5f64, 2.0].iter().flat_map(|f| f.to_le_bytes()).collect(),
        ),
        block(1_010, 1_030, 5, b"decode"),
        block(1_040, 1_070, 5, b"upload"),
    ];
    let switch = |begin, end, target| ContextSwitchModel {
        begin,
        end,
        target_thread: target,
        name: b"demo".to_vec(),
    };
    let model = CaptureModel {
        version: Version::V2_1_0,
        pid: 4321,
        cpu_frequency: 1_000_000_000,
        begin_time: 1_000,
        end_time: 1_100,
        descriptors,
        threads: vec![
            ThreadModel {
                id: 4321,
                name: b"Main".to_vec(),
                context_switches: vec![switch(1_000, 1_045, 4321)],
                records: main,
            },
            ThreadModel {
                id: 4322,
                name: b"Worker".to_vec(),
                context_switches: vec![switch(1_005, 1_075, 4322)],
                records: worker,
            },
        ],
        bookmarks: vec![BookmarkModel {
            position: 1_050,
            color: 0xffff_0000,
            text: b"first frame".to_vec(),
        }],
    };
    Ok(model.to_bytes()?)
}

/// syscall_capture, little-endian: a header with host strings, then ten syscalls with every kind
/// of argument element (int, data, partial data, stat, pollfds, sigaction, int pointer).
fn syscall() -> Result<Vec<u8>> {
    use tracecap_syscall::write::{
        ArgModel, CaptureWriter, HeaderModel, SigActionModel, SyscallModel, UnameModel,
    };
    use tracecap_syscall::{PollFd, Stat, Timespec};

    let mut w = CaptureWriter::new();
    w.header(&HeaderModel {
        big_endian: false,
        pid: 700,
        epoch_seconds: 1_700_000_000,
        clock_reference_ns: Some(5_000_000),
        uname: Some(UnameModel {
            sysname: b"Linux".to_vec(),
            nodename: b"example".to_vec(),
            release: b"6.1.0".to_vec(),
            version: b"#1 SMP".to_vec(),
            machine: b"x86_64".to_vec(),
            domainname: b"(none)".to_vec(),
        }),
    })?;
    let mtime = Timespec {
        sec: 1_690_000_000,
        nsec: 250,
    };
    let calls = [
        // brk(0)
        (12, 0x5000, vec![ArgModel::Int(0)]),
        // openat(AT_FDCWD, "/etc/hosts", O_RDONLY)
        (
            257,
            3,
            vec![
                ArgModel::Int(-100),
                ArgModel::Data(b"/etc/hosts\0".to_vec()),
                ArgModel::Int(0),
            ],
        ),
        // fstat(3, &st)
        (
            5,
            0,
            vec![
                ArgModel::Int(3),
                ArgModel::Stat(Stat {
                    ino: 1234,
                    mode: 0o100644,
                    nlink: 1,
                    size: 180,
                    blksize: 4096,
                    blocks: 8,
                    atim: mtime,
                    mtim: mtime,
                    ctim: mtime,
                    ..Stat::default()
                }),
            ],
        ),
        // read(3, buf, 4096): only the first bytes kept
        (
            0,
            180,
            vec![
                ArgModel::Int(3),
                ArgModel::Partial {
                    original_len: 180,
                    data: b"127.0.0.1 localhost\n".to_vec(),
                },
                ArgModel::Int(4096),
            ],
        ),
        // close(3)
        (3, 0, vec![ArgModel::Int(3)]),
        // poll([{0, POLLIN}, {1, POLLOUT}], 2, 100)
        (
            7,
            1,
            vec![
                ArgModel::PollFds(vec![
                    PollFd {
                        fd: 0,
                        events: 1,
                        revents: 0,
                    },
                    PollFd {
                        fd: 1,
                        events: 4,
                        revents: 4,
                    },
                ]),
                ArgModel::Int(2),
                ArgModel::Int(100),
            ],
        ),
        // rt_sigaction(SIGPIPE, &act, NULL, 8)
        (
            13,
            0,
            vec![
                ArgModel::Int(13),
                ArgModel::SigAction(Some(SigActionModel {
                    handler: 1,
                    sigaction: 1,
                    mask: vec![0; 8],
                    stale_flags: 0,
                    stale_restorer: 0,
                })),
                ArgModel::SigAction(None),
                ArgModel::Int(8),
            ],
        ),
        // wait4(-1, &status, 0, NULL)
        (
            61,
            701,
            vec![
                ArgModel::Int(-1),
                ArgModel::IntP {
                    pointer: 0x7ffd_0000,
                    value: 0,
                },
                ArgModel::Int(0),
                ArgModel::Int(0),
            ],
        ),
        // write(1, "hello\n", 6)
        (
            1,
            6,
            vec![
                ArgModel::Int(1),
                ArgModel::Data(b"hello\n".to_vec()),
                ArgModel::Int(6),
            ],
        ),
        // exit_group(0), with no result
        (231, -1, vec![ArgModel::Int(0)]),
    ];
    for (i, (number, result, args)) in calls.into_iter().enumerate() {
        let i = i as i64;
        w.syscall(&SyscallModel {
            number,
            result: (number != 231).then_some(result),
            tid: Some(700 + (i % 2) as i32),
            timestamp_ns: Some(5_000_000 + 1_000 * i),
            duration_ns: Some(250.0 + i as f32),
            args,
        })?;
    }
    Ok(w.into_bytes())
}

/// apitrace version 6 event stream: header properties, eight calls on two threads whose
/// signatures cover functions, an enum, a bitmask, a struct and two backtrace frames.
fn apitrace() -> Vec<u8> {
    use tracecap_apitrace::write::{WDetail, WFrame, WValue, Writer};

    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/demo")]);
    w.function(0, b"glXChooseVisual", &[b"dpy", b"screen", b"attribList"]);
    w.function(1, b"glXMakeCurrent", &[b"dpy", b"drawable", b"ctx"]);
    w.function(2, b"glGetString", &[b"name"]);
    w.function(3, b"glClearColor", &[b"red", b"green", b"blue", b"alpha"]);
    w.function(4, b"glClear", &[b"mask"]);
    w.function(5, b"glViewport", &[b"x", b"y", b"width", b"height"]);
    w.function(6, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    w.struct_sig(0, b"XVisualInfo", &[b"visualid", b"screen", b"depth"]);
    w.enum_sig(0, &[(b"GL_VENDOR", 0x1F00), (b"GL_RENDERER", 0x1F01)]);
    w.bitmask_sig(
        0,
        &[
            (b"GL_DEPTH_BUFFER_BIT", 0x100),
            (b"GL_COLOR_BUFFER_BIT", 0x4000),
        ],
    );
    w.frame(
        0,
        WFrame {
            module: Some(b"demo".to_vec()),
            function: Some(b"main".to_vec()),
            filename: Some(b"demo.c".to_vec()),
            line: Some(42),
            offset: Some(0x40),
        },
    );
    w.frame(
        1,
        WFrame {
            function: Some(b"draw".to_vec()),
            offset: Some(0x80),
            ..WFrame::default()
        },
    );
    let dpy = || WValue::Pointer(0x55_0000);
    let call = |w: &mut Writer, thread, sig, args: Vec<WValue>, ret: Option<WValue>| {
        let details: Vec<WDetail> = args
            .into_iter()
            .enumerate()
            .map(|(i, v)| WDetail::Arg(i as u64, v))
            .collect();
        let no = w.enter(thread, sig, &details);
        w.leave(no, &ret.map(WDetail::Ret).into_iter().collect::<Vec<_>>());
    };
    call(
        &mut w,
        0,
        0,
        vec![
            dpy(),
            WValue::SInt(0),
            WValue::Array(vec![WValue::SInt(4), WValue::SInt(0)]),
        ],
        Some(WValue::Array(vec![WValue::Struct {
            sig: 0,
            members: vec![WValue::UInt(33), WValue::SInt(0), WValue::SInt(24)],
        }])),
    );
    call(
        &mut w,
        0,
        1,
        vec![dpy(), WValue::UInt(0x0400_0002), WValue::Pointer(0x66_0000)],
        Some(WValue::Bool(true)),
    );
    call(
        &mut w,
        0,
        2,
        vec![WValue::Enum {
            sig: 0,
            value: 0x1F01,
        }],
        Some(WValue::String(b"Example Renderer".to_vec())),
    );
    call(
        &mut w,
        1,
        5,
        vec![
            WValue::SInt(0),
            WValue::SInt(0),
            WValue::SInt(300),
            WValue::SInt(300),
        ],
        None,
    );
    call(
        &mut w,
        1,
        3,
        vec![
            WValue::Float(0.0),
            WValue::Float(0.25),
            WValue::Float(0.5),
            WValue::Float(1.0),
        ],
        None,
    );
    // glClear with a backtrace through both frames.
    let no = w.enter(
        1,
        4,
        &[
            WDetail::Arg(
                0,
                WValue::Bitmask {
                    sig: 0,
                    value: 0x4100,
                },
            ),
            WDetail::Backtrace(vec![1, 0]),
        ],
    );
    w.leave(no, &[]);
    call(&mut w, 1, 6, vec![dpy(), WValue::UInt(0x0400_0002)], None);
    call(
        &mut w,
        0,
        2,
        vec![WValue::Enum {
            sig: 0,
            value: 0x1F00,
        }],
        Some(WValue::String(b"Example Vendor".to_vec())),
    );
    w.finish()
}

/// Web Tracing Framework, chunked format 10: definitions of four built-in events and four of
/// the application's (instances and scopes, arguments of several types), then zones, nested
/// scopes and instance events.
fn wtf() -> Result<Vec<u8>> {
    use tracecap_wtf::write::{CaptureModel, DefinitionModel, EventModel, WValue};
    use tracecap_wtf::{
        ArgType, Container, CLASS_INSTANCE, CLASS_SCOPE, FLAG_BUILTIN, FLAG_INTERNAL,
    };

    let def = |wire_id, class, flags, name: &str, signature: &str| DefinitionModel {
        wire_id,
        class,
        flags,
        name: name.into(),
        signature: signature.into(),
    };
    let builtin = FLAG_BUILTIN | FLAG_INTERNAL;
    let definitions = vec![
        def(
            2,
            CLASS_INSTANCE,
            builtin,
            "wtf.zone#create",
            "uint16 zoneId, ascii name, ascii type, ascii location",
        ),
        def(3, CLASS_INSTANCE, builtin, "wtf.zone#set", "uint16 zoneId"),
        def(4, CLASS_INSTANCE, builtin, "wtf.scope#leave", ""),
        def(
            5,
            CLASS_INSTANCE,
            builtin,
            "wtf.trace#mark",
            "ascii name, any value",
        ),
        def(6, CLASS_SCOPE, 0, "Demo#frame", "uint32 number"),
        def(7, CLASS_SCOPE, 0, "Demo#load", "ascii path, int32 bytes"),
        def(
            8,
            CLASS_INSTANCE,
            0,
            "Demo#spawn",
            "int16 x, int16 y, float32 speed, uint8[] tags",
        ),
        def(9, CLASS_INSTANCE, 0, "Demo#note", "utf8 text, bool urgent"),
    ];
    let ev = |wire_id, time, args| EventModel {
        wire_id,
        time,
        args,
    };
    let ascii = |s: &str| WValue::Ascii(Some(s.into()));
    let mut events = vec![
        ev(
            2,
            0,
            vec![
                WValue::Uint16(1),
                ascii("main"),
                ascii("script"),
                ascii("demo.js"),
            ],
        ),
        ev(3, 0, vec![WValue::Uint16(1)]),
        ev(
            5,
            1,
            vec![ascii("start"), WValue::Any(Some("{\"ok\":true}".into()))],
        ),
    ];
    for frame in 0..2u32 {
        let t = 10 + 100 * frame;
        events.push(ev(6, t, vec![WValue::Uint32(frame)]));
        events.push(ev(
            7,
            t + 5,
            vec![ascii("assets/level.json"), WValue::Int32(2_048)],
        ));
        events.push(ev(4, t + 30, vec![]));
        events.push(ev(
            8,
            t + 40,
            vec![
                WValue::Int16(-3),
                WValue::Int16(7),
                WValue::Float32(1.5),
                WValue::Ints(ArgType::Uint8Array, Some(vec![1, 2, 3])),
            ],
        ));
        events.push(ev(4, t + 80, vec![]));
    }
    events.push(ev(
        9,
        250,
        vec![WValue::Utf8(Some("done ✓".into())), WValue::Bool(false)],
    ));
    let model = CaptureModel {
        definitions,
        events,
        ..CaptureModel::new(Container::Chunked)
    };
    Ok(model.to_bytes()?)
}

/// Orbit: CaptureStarted with two instrumented functions, thread names, interned strings and a
/// callstack with the address infos that name its frames, samples, scheduling slices, function
/// calls, then CaptureFinished. Each event a prost `ClientCaptureEvent`.
fn orbit() -> Result<Vec<u8>> {
    use tracecap_orbit::proto::orbit_grpc_protos::{self as pb, client_capture_event::Event as E};
    use tracecap_orbit::proto::prost::Message;
    use tracecap_orbit::write::CaptureModel;

    const PID: u32 = 900;
    const T0: u64 = 1_000_000;
    let function = |id: u64, name: &str, offset: u64| pb::InstrumentedFunction {
        file_path: "/usr/bin/demo".into(),
        file_offset: offset,
        function_id: id,
        function_name: name.into(),
        file_build_id: "00112233".into(),
        function_size: 64,
        function_virtual_address: 0x40_0000 + offset,
        ..Default::default()
    };
    let mut events = vec![E::CaptureStarted(pb::CaptureStarted {
        process_id: PID,
        executable_path: "/usr/bin/demo".into(),
        executable_build_id: "00112233".into(),
        capture_start_timestamp_ns: T0,
        capture_options: Some(pb::CaptureOptions {
            pid: PID,
            samples_per_second: 1000.0,
            trace_context_switches: true,
            instrumented_functions: vec![function(1, "main", 0x1000), function(2, "draw", 0x1100)],
            ..Default::default()
        }),
        orbit_version_major: 1,
        orbit_version_minor: 81,
        capture_start_unix_time_ns: 1_700_000_000_000_000_000,
    })];
    for (tid, name) in [(PID, "demo"), (PID + 1, "render")] {
        events.push(E::ThreadName(pb::ThreadName {
            pid: PID,
            tid,
            name: name.as_bytes().to_vec(),
            timestamp_ns: T0,
        }));
    }
    for (key, text) in [(1, "main"), (2, "draw"), (3, "/usr/bin/demo")] {
        events.push(E::InternedString(pb::InternedString {
            key,
            intern: text.as_bytes().to_vec(),
        }));
    }
    for (address, name_key) in [(0x40_1010, 1), (0x40_1120, 2)] {
        events.push(E::AddressInfo(pb::AddressInfo {
            absolute_address: address,
            offset_in_function: address & 0xff,
            function_name_key: name_key,
            module_name_key: 3,
        }));
    }
    events.push(E::InternedCallstack(pb::InternedCallstack {
        key: 1,
        intern: Some(pb::Callstack {
            pcs: vec![0x40_1120, 0x40_1010],
            r#type: 0,
        }),
    }));
    for i in 0..2u64 {
        events.push(E::CallstackSample(pb::CallstackSample {
            pid: PID,
            tid: PID + 1,
            callstack_id: 1,
            timestamp_ns: T0 + 1_000 * (i + 1),
        }));
        events.push(E::SchedulingSlice(pb::SchedulingSlice {
            pid: PID,
            tid: PID + i as u32,
            core: i as i32,
            out_timestamp_ns: T0 + 2_500 * (i + 1),
            duration_ns: 2_000,
        }));
    }
    // draw (depth 1) runs inside main (depth 0).
    for (id, depth, end, duration) in [(2, 1, 3_000, 1_000), (1, 0, 4_000, 3_500)] {
        events.push(E::FunctionCall(pb::FunctionCall {
            pid: PID,
            tid: PID,
            function_id: id,
            end_timestamp_ns: T0 + end,
            depth,
            duration_ns: duration,
            ..Default::default()
        }));
    }
    events.push(E::CaptureFinished(pb::CaptureFinished::default()));
    let model = CaptureModel {
        events: events
            .into_iter()
            .map(|e| pb::ClientCaptureEvent { event: Some(e) }.encode_to_vec())
            .collect(),
        user_data: None,
    };
    Ok(model.to_bytes()?)
}
