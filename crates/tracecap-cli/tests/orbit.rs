//! The `tracecap` binary on the Orbit corpus: detection, info, validate, dump --json.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn run(args: &[&str], file: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .arg(file)
        .output()
        .expect("run tracecap");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn dump_json_matches_oracle() {
    let Some(c) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    for (file, oracle) in [
        (
            "generated/gen_all_events_user_data.orbit",
            "gen_all_events_user_data.orbit.json",
        ),
        (
            "real/orbit181_test_capture.orbit",
            "orbit181_test_capture.orbit.json",
        ),
        (
            "generated/gen_minimal_no_sections.orbit",
            "gen_minimal_no_sections.orbit.json",
        ),
    ] {
        let (code, stdout, stderr) = run(&["dump", "--json"], &c.join(file));
        assert_eq!(code, 0, "{file}: {stderr}");
        let oracle: Value =
            serde_json::from_slice(&std::fs::read(c.join("oracle").join(oracle)).unwrap()).unwrap();
        let lines: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let header = &lines[0];
        assert_eq!(header["format"], "orbit");
        assert_eq!(header["version"], 1);
        for k in [
            "capture_section_offset",
            "section_list_offset",
            "capture_section_end",
            "sections",
        ] {
            assert_eq!(header[k], oracle["header"][k], "{file}: {k}");
        }
        let events = oracle["events"].as_array().unwrap();
        for (i, want) in events.iter().enumerate() {
            let got = &lines[i + 1];
            for k in ["offset", "length", "event"] {
                assert_eq!(got[k], want[k], "{file}: event {i} {k}");
            }
            assert!(same(&got["message"], &want["message"]), "{file}: event {i}");
            assert_eq!(got.get("decoded_name"), want.get("decoded_name"));
        }
        let rest = &lines[events.len() + 1..];
        match oracle.get("user_data") {
            Some(ud) if !ud.is_null() => {
                assert_eq!(rest.len(), 1, "{file}: user data line");
                assert_eq!(rest[0]["kind"], "user_data");
                let ud_at = tracecap_orbit::Capture::parse(&std::fs::read(c.join(file)).unwrap())
                    .unwrap()
                    .sections()
                    .find(|s| s.section_type == 1)
                    .unwrap()
                    .offset;
                assert_eq!(rest[0]["offset"], ud_at, "{file}");
                assert!(same(&rest[0]["message"], &ud["message"]));
            }
            _ => assert!(rest.is_empty()),
        }
    }
}

#[test]
fn validate_accepts_good_files_and_rejects_bad_ones() {
    let Some(c) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    for good in [
        "real/orbit181_test_capture.orbit",
        "real/orbit168_OrbitTest_capture.orbit",
        "generated/gen_all_events_user_data.orbit",
        "generated/gen_minimal_no_sections.orbit",
        "generated/legacy_v1_orbit164_layout.orbit",
    ] {
        let (code, stdout, stderr) = run(&["validate"], &c.join(good));
        assert_eq!(code, 0, "{good}: {stderr}");
        assert!(stdout.starts_with("ok: orbit"), "{good}: {stdout}");
    }
    for (bad, says) in [
        ("generated/bad_signature.orbit", None),
        (
            "generated/bad_version_2.orbit",
            Some("incompatible version 2"),
        ),
        (
            "generated/bad_truncated_header.orbit",
            Some("section list's offset"),
        ),
        (
            "generated/bad_no_capture_finished.orbit",
            Some("reading message size at offset 0x79"),
        ),
        (
            "generated/bad_message_too_big.orbit",
            Some("1048577 is too big"),
        ),
        (
            "generated/bad_section_count.orbit",
            Some("too large: 65536"),
        ),
        ("real/legacy_pre_orbt_OrbitTest_1-64.orbit", Some("legacy")),
    ] {
        let (code, _, stderr) = run(&["validate"], &c.join(bad));
        assert_eq!(code, 1, "{bad}: {stderr}");
        assert!(stderr.starts_with("error: "), "{bad}: {stderr}");
        assert!(stderr.contains(" at offset 0x"), "{bad}: {stderr}");
        if let Some(s) = says {
            assert!(stderr.contains(s), "{bad}: {stderr}");
        }
    }
}

#[test]
fn info_reports_counts_span_and_threads() {
    let Some(c) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    let (code, stdout, stderr) = run(
        &["info", "--json"],
        &c.join("real/orbit168_OrbitTest_capture.orbit"),
    );
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["format"], "orbit");
    assert_eq!(v["event_count"], 38765);
    assert_eq!(v["event_counts"]["scheduling_slice"], 7973);
    assert!(v["time_span_ns"]["duration"].as_u64().unwrap() > 0);
    assert!(!v["threads"].as_array().unwrap().is_empty());
    let (code, stdout, _) = run(
        &["info"],
        &c.join("generated/gen_all_events_user_data.orbit"),
    );
    assert_eq!(code, 0);
    assert!(
        stdout.contains("frame track function ids: 3\n  1\n  2\n  300\n"),
        "{stdout}"
    );
}

/// Exit code and `at offset 0x..` of every command on `bytes`.
fn verdicts(name: &str, bytes: &[u8]) -> Vec<(String, i32, Option<String>)> {
    let dir = std::env::temp_dir();
    let file = dir.join(format!(
        "tracecap-orbit-{}-{name}.orbit",
        std::process::id()
    ));
    std::fs::write(&file, bytes).unwrap();
    let out = dir.join(format!("tracecap-orbit-{}-{name}.out", std::process::id()));
    let out = out.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["validate"],
        &["info"],
        &["info", "--json"],
        &["dump"],
        &["dump", "--json"],
        &["convert", "--to", "chrome", "-o", out],
        &["convert", "--to", "perfetto", "-o", out],
    ];
    let got = commands
        .iter()
        .map(|args| {
            let (code, _, stderr) = run(args, &file);
            let offset = stderr
                .rsplit_once("at offset ")
                .map(|(_, o)| o.trim().to_string());
            (args.join(" "), code, offset)
        })
        .collect();
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(out);
    got
}

#[test]
fn every_command_reports_the_same_first_fault() {
    const HEADER: &[u8] = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    const FINISHED: &[u8] = &[3, 0xda, 0x01, 0];
    let with = |events: &[&[u8]]| {
        let mut f = HEADER.to_vec();
        for e in events {
            f.extend_from_slice(e);
        }
        f.extend_from_slice(FINISHED);
        f
    };
    // Two sections behind the list that overlap each other (a layout fault only validate saw).
    let mut overlap = with(&[]);
    let list = overlap.len() as u64;
    overlap[16..24].copy_from_slice(&list.to_le_bytes());
    overlap.extend_from_slice(&2u64.to_le_bytes());
    for (ty, offset) in [(5u64, list + 56), (6, list + 60)] {
        for v in [ty, offset, 8] {
            overlap.extend_from_slice(&v.to_le_bytes());
        }
    }
    overlap.resize(overlap.len() + 16, 0);
    let cases: [(&str, Vec<u8>, u64); 5] = [
        // capture_started{process_id: 42, executable_build_id: "\xff"}: views reject it.
        (
            "utf8",
            with(&[&[8, 0xc2, 0x01, 5, 0x08, 42, 0x1a, 1, 0xff]]),
            32,
        ),
        // scheduling_slice{pid: 0 in four bytes}: Orbit's size check rejects it.
        (
            "size",
            with(&[&[7, 0x32, 5, 0x08, 0x80, 0x80, 0x80, 0x00]]),
            25,
        ),
        // scheduling_slice{pid: "x"}: a known field with a foreign wire type.
        ("wire", with(&[&[5, 0x32, 3, 0x0a, 1, b'x']]), 27),
        // An empty event before CaptureFinished.
        ("empty", with(&[&[0]]), 24),
        ("overlap", overlap, list + 60),
    ];
    for (name, bytes, at) in cases {
        let got = verdicts(name, &bytes);
        for (command, code, offset) in &got {
            assert_eq!(
                (*code, offset.as_deref()),
                (1, Some(format!("{at:#x}").as_str())),
                "{name}: {command}: {got:?}"
            );
        }
    }
}
