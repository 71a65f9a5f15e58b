//! `tracecap` on the WTF corpus: exit codes, `info`, `validate`, and the `dump --json` objects.

use std::process::{Command, Output};

use serde_json::{json, Value};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .output()
        .expect("run tracecap")
}

fn dump_json(path: &str) -> Vec<Value> {
    let out = run(&["dump", "--json", path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const FILES: [&str; 6] = [
    "cff-cpp/cpp-basic.wtf-trace",
    "cff-cpp/cpp-threads.wtf-trace",
    "cff-cpp/cpp-big.wtf-trace",
    "cff-js/js-snapshot-alltypes.wtf-trace",
    "legacy-v3/blk-client-head.wtf-trace",
    "legacy-v3/blk-server-head.wtf-trace",
];

#[test]
fn info_validate_dump_every_file() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    for f in FILES {
        let p = dir.join(f);
        let p = p.to_str().unwrap();
        let info = run(&["info", "--json", p]);
        assert!(info.status.success(), "{f}");
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        assert_eq!(info["format"], "wtf");
        assert!(info["error"].is_null());
        let v = run(&["validate", p]);
        assert!(v.status.success(), "{f}");
        assert!(String::from_utf8_lossy(&v.stdout).starts_with("ok: "));
        let lines = dump_json(p);
        let head = &lines[0];
        assert_eq!(head["format"], "wtf");
        let version = if f.starts_with("legacy") { 3 } else { 10 };
        assert_eq!(head["format_version"], version);
        assert!(head["header"].is_object());
        let events = lines.iter().filter(|l| l["kind"] == "event").count();
        assert_eq!(json!(events), info["events"], "{f}");
        let mut last_event = None;
        for l in &lines[1..] {
            assert!(l["kind"] == "event" || l["kind"] == "define" || l["kind"] == "zone");
            let offset = l["offset"].as_u64().unwrap();
            if l["kind"] == "event" {
                assert!(l["args"].is_object());
                assert!(offset < std::fs::metadata(p).unwrap().len());
                last_event = Some(offset);
            } else {
                // A definition or zone line carries the offset of the event that declared it.
                assert_eq!(Some(offset), last_event, "{f}");
            }
        }
    }
}

#[test]
fn cpp_basic_values() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let lines = dump_json(dir.join("cff-cpp/cpp-basic.wtf-trace").to_str().unwrap());
    let types = lines
        .iter()
        .find(|l| l["kind"] == "event" && l["name"] == "App#types")
        .unwrap();
    assert_eq!(
        types["args"],
        json!({"u8":200,"i8":-5,"u16":60000,"i16":-300,"u32":4000000000u32,"i32":-123456,"f":3.25,"b":true})
    );
    assert_eq!(types["zone"], 1);
    let strings = lines
        .iter()
        .find(|l| l["kind"] == "event" && l["name"] == "App#strings")
        .unwrap();
    assert_eq!(
        strings["args"],
        json!({"s1":"hello","s2":null,"s3":"héllo €","s4":"hello"})
    );
    let zone = lines.iter().find(|l| l["kind"] == "zone").unwrap();
    let at = zone["offset"].clone();
    assert_eq!(
        zone,
        &json!({"kind":"zone","id":1,"name":"0:Main","type":null,"location":"cppgen.cc","offset":at})
    );
    let def = lines
        .iter()
        .find(|l| l["kind"] == "define" && l["name"] == "App#outer")
        .unwrap();
    let at = def["offset"].clone();
    assert!(at.is_u64());
    assert_eq!(
        def,
        &json!({"kind":"define","wire_id":6,"name":"App#outer","class":"scope","flags":0,"signature":"uint32 a, uint16 b","offset":at})
    );
}

#[test]
fn js_every_wire_type() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let lines = dump_json(
        dir.join("cff-js/js-snapshot-alltypes.wtf-trace")
            .to_str()
            .unwrap(),
    );
    let get = |n: &str| {
        lines
            .iter()
            .find(|l| l["kind"] == "event" && l["name"] == n)
            .unwrap()["args"]
            .clone()
    };
    assert_eq!(
        get("test#allTypes"),
        json!({"b":true,"i8":-5,"u8":200,"i16":-300,"u16":60000,"i32":-123456,"u32":4000000000u32,
               "f32":3.25,"a":"ascii text","u":"héllo € 😀","c":"Z","w":"é","x":{"k":[1,2,"x"]},"t":12.345})
    );
    assert_eq!(
        get("test#arrays"),
        json!({"a8":[-1,2,-3],"u8":[1,2,3,4,5],"a16":[-1000,1000,7],"u16":[65535,1],
               "a32":[-1,2147483647,-2147483648i64],"b32":[4294967295u32,0],"f32":[1.5,-2.25],"ca":"abcde","wa":"wé"})
    );
    assert_eq!(
        get("test#nulls"),
        json!({"a":null,"u":"","x":null,"arr":null,"ca":null})
    );
    // Raw built-ins: scope#enter keeps its name argument.
    assert!(lines
        .iter()
        .any(|l| l["name"] == "wtf.scope#enter" && l["args"]["name"] == "outerScope"));
}

#[test]
fn damaged_files_exit_1_with_offset() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let bytes = std::fs::read(dir.join("cff-cpp/cpp-basic.wtf-trace")).unwrap();
    let tmp =
        std::env::temp_dir().join(format!("tracecap-wtf-cut-{}.wtf-trace", std::process::id()));
    std::fs::write(&tmp, &bytes[..1000]).unwrap();
    let p = tmp.to_str().unwrap();
    let v = run(&["validate", p]);
    assert_eq!(v.status.code(), Some(1));
    let err = String::from_utf8_lossy(&v.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("at offset 0x"),
        "{err}"
    );
    let d = run(&["dump", "--json", p]);
    assert_eq!(d.status.code(), Some(1));
    // The header chunk and the definitions before the cut are still printed.
    assert!(String::from_utf8_lossy(&d.stdout).lines().count() > 10);
    std::fs::write(&tmp, [0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0, 9, 0, 0, 0]).unwrap();
    assert_eq!(run(&["info", p]).status.code(), Some(1));
    let _ = std::fs::remove_file(&tmp);
}

#[test]
fn every_command_reports_the_same_first_fault() {
    // A chunked file whose header part is `{"a":1,}` (not JSON), and a legacy file that defines
    // wire id 0 (zeros after it would each read as an event).
    let mut chunked = Vec::new();
    let json = br#"{"a":1,}"#;
    for w in [
        0xDEAD_BEEFu32,
        0,
        10,
        1,
        1,
        24 + 12 + 8,
        0,
        0,
        1,
        0x10000,
        0,
        8,
    ] {
        chunked.extend_from_slice(&w.to_le_bytes());
    }
    chunked.extend_from_slice(json);
    let mut legacy = Vec::new();
    for w in [0xDEAD_BEEFu32, 0, 3] {
        legacy.extend_from_slice(&w.to_be_bytes());
    }
    // Null context info, flags 1, timebase 0, null metadata.
    legacy.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    legacy.extend_from_slice(&[0, 1, 0, 0, 0, 0]); // wtf.event#define at t=0 ...
    legacy.extend_from_slice(&[0; 12]); // ... of wire id 0, without name or arguments
    legacy.extend_from_slice(&[0; 60]);
    let dir = std::env::temp_dir();
    for (name, bytes, at) in [("json", chunked, 0x30), ("wire0", legacy, 0x1c)] {
        let file = dir.join(format!(
            "tracecap-wtf-{}-{name}.wtf-trace",
            std::process::id()
        ));
        std::fs::write(&file, bytes).unwrap();
        let file = file.to_str().unwrap();
        let out = format!("{file}.out");
        let commands: [&[&str]; 7] = [
            &["validate", file],
            &["info", file],
            &["info", "--json", file],
            &["dump", file],
            &["dump", "--json", file],
            &["convert", file, "--to", "chrome", "-o", &out],
            &["convert", file, "--to", "perfetto", "-o", &out],
        ];
        for args in commands {
            let o = run(args);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name}: {args:?}: {stderr}");
            assert!(
                stderr.trim_end().ends_with(&format!("at offset {at:#x}")),
                "{name}: {args:?}: {stderr}"
            );
        }
        let _ = std::fs::remove_file(file);
        let _ = std::fs::remove_file(out);
    }
}
