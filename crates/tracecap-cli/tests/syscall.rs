//! `tracecap` on the syscall_capture corpus: exit codes, errors and the JSON Lines of `dump`.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str], file: &PathBuf) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .arg(file)
        .output()
        .expect("run tracecap")
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn validate_and_info_on_clean_captures() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("ls_l.dat");
    let out = run(&["validate"], &f);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("139 syscall records"));
    let out = run(&["info", "--json"], &f);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "syscall");
    assert_eq!(v["syscalls"], 139);
    assert_eq!(v["pid"], 15159);
    assert_eq!(v["by_name"]["openat"], 39);
    let out = run(&["info"], &f);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("syscalls:      139"));
    for name in [
        "py_args.dat",
        "py_big_filler_zerogap.dat",
        "py_sigkill_after_flush.dat",
    ] {
        let out = run(&["validate"], &dir.join(name));
        assert_eq!(out.status.code(), Some(0), "{name}: {out:?}");
    }
}

#[test]
fn dump_json_objects() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("py_args.dat");
    let out = run(&["dump", "--json"], &f);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out);
    let head = &lines[0];
    let mut keys: Vec<&str> = head
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "big_endian",
            "clock_reference_ns",
            "epoch_seconds",
            "format",
            "pid",
            "uname",
            "version"
        ]
    );
    assert_eq!(head["format"], "syscall");
    assert_eq!(head["version"], 1);
    assert_eq!(head["big_endian"], false);
    assert_eq!(head["uname"]["sysname"], "Linux");
    assert_eq!(head["uname"]["domainname"], "(none)");
    let calls: Vec<&Value> = lines[1..]
        .iter()
        .filter(|l| l["kind"] == "syscall")
        .collect();
    assert_eq!(calls.len(), 526);
    assert_eq!(lines.len(), 527);
    for c in &calls {
        for k in [
            "offset",
            "number",
            "name",
            "ret",
            "tid",
            "timestamp_ns",
            "duration_ns",
            "args",
        ] {
            assert!(c.get(k).is_some(), "{k} missing in {c}");
        }
        assert!(c["tid"].is_null());
        assert!(c["timestamp_ns"].is_i64() && c["duration_ns"].is_number());
    }
    let first = calls[0];
    assert_eq!(first["offset"], 108);
    let find = |name: &str| calls.iter().find(|c| c["name"] == name).copied().unwrap();
    // stat("...") = 0 with st_mode 0100755 and st_size 3 (strace agrees).
    let stat = find("stat");
    assert_eq!(stat["ret"], 0);
    assert_eq!(stat["args"][1]["stat"]["mode"], 0o100755);
    assert_eq!(stat["args"][1]["stat"]["size"], 3);
    assert!(stat["args"][1]["stat"]["atim"]["nsec"].is_i64());
    assert!(stat["args"][0]["data"].is_string());
    let poll = find("poll");
    assert_eq!(poll["args"][0]["pollfds"].as_array().unwrap().len(), 2);
    assert!(poll["args"][0]["pollfds"][0]["revents"].is_i64());
    assert!(calls
        .iter()
        .any(|c| c["name"] == "rt_sigaction" && c["args"][1]["sigaction"].is_null()));
    assert!(calls
        .iter()
        .any(|c| c["name"] == "rt_sigaction" && c["args"][1]["sigaction"]["handler"].is_u64()));
    let partials: Vec<&Value> = calls
        .iter()
        .flat_map(|c| c["args"].as_array().unwrap())
        .filter_map(|a| a.get("partial"))
        .collect();
    assert!(partials
        .iter()
        .any(|p| p["original_len"] == 70_000 && p["data"].as_str().unwrap().len() == 2 * 65_531));
    // A failed read: partial with original length 0 and no data.
    assert!(partials
        .iter()
        .any(|p| p["original_len"] == 0 && p["data"] == ""));
}

#[test]
fn dump_json_filler_and_gap() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("py_big_filler_zerogap.dat");
    let out = run(&["dump", "--json"], &f);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out);
    let other: Vec<&Value> = lines[1..]
        .iter()
        .filter(|l| l["kind"] != "syscall")
        .collect();
    assert_eq!(other.len(), 2);
    assert_eq!(other[0]["kind"], "filler");
    assert_eq!(other[0]["offset"], 1_048_560);
    assert_eq!(other[0]["len"], 8);
    assert_eq!(other[1]["kind"], "gap");
    assert_eq!(other[1]["offset"], 1_048_632);
    assert_eq!(other[1]["len"], 131_040);
    let after_gap = lines
        .iter()
        .position(|l| l["kind"] == "gap")
        .map(|i| &lines[i + 1])
        .unwrap();
    assert_eq!(after_gap["offset"], 1_179_672);
    assert!(after_gap["timestamp_ns"].is_null() && after_gap["duration_ns"].is_null());
}

#[test]
fn stale_tail_prints_records_then_fails_at_its_offset() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("stale_tail_no_otrunc.dat");
    for args in [
        &["validate"][..],
        &["dump"][..],
        &["dump", "--json"][..],
        &["info"][..],
    ] {
        let out = run(args, &f);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("at offset 0x197c"), "{args:?}: stderr {err}");
    }
    let out = run(&["dump", "--json"], &f);
    let lines = json_lines(&out);
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "syscall");
    assert_eq!(last["offset"], 6_492);
    assert_eq!(lines.len(), 1 + 86);
}

#[test]
fn empty_file_fails_at_zero() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("py_thread_crash_empty.dat");
    for cmd in ["validate", "dump", "info"] {
        let out = run(&[cmd], &f);
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("at offset 0x0"));
    }
}

#[test]
fn forked_capture_prints_a_header_object() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let f = dir.join("ls_l.dat");
    let one = std::fs::read(&f).unwrap();
    let mut two = one.clone();
    two.extend_from_slice(&one);
    let path =
        std::env::temp_dir().join(format!("tracecap-syscall-fork-{}.dat", std::process::id()));
    std::fs::write(&path, &two).unwrap();
    let out = run(&["dump", "--json"], &path);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out);
    let headers: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "header").collect();
    assert_eq!(headers.len(), 1);
    let h = headers[0];
    assert_eq!(h["offset"], one.len() as u64);
    for k in [
        "format",
        "version",
        "big_endian",
        "pid",
        "epoch_seconds",
        "clock_reference_ns",
        "uname",
    ] {
        assert_eq!(h[k], lines[0][k], "{k}");
    }
    assert_eq!(lines.iter().filter(|l| l["kind"] == "syscall").count(), 278);
}

/// `info` in this process on `bytes` (written to a temporary file): exit code and standard output.
fn info_of(bytes: &[u8], args: &[&str], tag: &str) -> (u8, String) {
    let path =
        std::env::temp_dir().join(format!("tracecap-syscall-{tag}-{}.dat", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let mut argv = vec!["tracecap", "info", path.to_str().unwrap()];
    argv.extend_from_slice(args);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = tracecap_cli::main_with(argv.iter().map(Into::into), &mut out, &mut err);
    let _ = std::fs::remove_file(&path);
    (code, String::from_utf8(out).unwrap())
}

#[test]
fn info_text_shortens_the_thread_and_syscall_lists() {
    use tracecap_syscall::write::{CaptureModel, EntryModel, HeaderModel, SyscallModel};
    // 20 threads other than the header's, and 30 different syscall numbers.
    let entries = (0..30u16)
        .map(|i| {
            EntryModel::Syscall(SyscallModel {
                number: 300 + i,
                tid: (i < 20).then_some(1000 + i32::from(i)),
                ..SyscallModel::default()
            })
        })
        .collect();
    let bytes = CaptureModel {
        header: HeaderModel {
            pid: 7,
            ..HeaderModel::default()
        },
        entries,
    }
    .to_bytes()
    .unwrap();

    let (code, text) = info_of(&bytes, &[], "lists");
    assert_eq!(code, 0, "{text}");
    let threads = text.split("other threads: 20\n").nth(1).expect(&text);
    let threads: Vec<&str> = threads.lines().take(9).collect();
    assert!(threads[0].ends_with("1000  1 records"), "{threads:?}");
    assert_eq!(
        threads[8],
        "  ... and 12 more (--verbose or --json for all)"
    );
    assert!(text.contains("syscalls by count: 30\n"), "{text}");
    assert!(text.contains("  ... and 22 more (--verbose or --json for all)"));
    assert_eq!(text.lines().count(), 11 + 10 + 10);

    let (code, text) = info_of(&bytes, &["--verbose"], "lists-verbose");
    assert_eq!(code, 0);
    assert!(!text.contains("more (--verbose"), "{text}");
    assert!(text.contains("      1019  1 records"));
    assert_eq!(text.lines().count(), 11 + 21 + 31);

    let (code, text) = info_of(&bytes, &["--json"], "lists-json");
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["threads"].as_array().unwrap().len(), 20);
    assert_eq!(v["by_name"].as_object().unwrap().len(), 30);
}
