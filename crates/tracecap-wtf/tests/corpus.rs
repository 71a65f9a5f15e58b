//! Every corpus file against the official loader's dump: per zone, every event's time, depth,
//! scope end, flags, name (renamed as the loader renames) and arguments (with appended data
//! merged as the loader merges it).

mod common;

use serde_json::{Map, Value as J};
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::timeline::{Role, Timeline};
use tracecap_wtf::{text_lossy, Builtin, Capture, Value};

#[derive(Debug, PartialEq)]
struct Line {
    time: u64,
    depth: u64,
    end: Option<u64>,
    flags: u64,
    name: String,
    args: J,
}

fn norm(v: J) -> J {
    match v {
        J::Number(n) => J::from(n.as_f64().unwrap()),
        J::Array(a) => J::Array(a.into_iter().map(norm).collect()),
        J::Object(o) => J::Object(o.into_iter().map(|(k, v)| (k, norm(v))).collect()),
        v => v,
    }
}

fn parse_oracle(text: &str) -> Vec<(String, Vec<Line>)> {
    let mut zones: Vec<(String, Vec<Line>)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if line.starts_with("## zone ") {
            zones.push((line.to_string(), Vec::new()));
            continue;
        }
        let mut rest = line;
        fn take(rest: &mut &str, prefix: &str) -> u64 {
            let r = rest.strip_prefix(prefix).unwrap();
            let (v, tail) = r.split_once(' ').unwrap();
            *rest = tail;
            v.parse().unwrap()
        }
        let time = take(&mut rest, "t_us=");
        let depth = take(&mut rest, "depth=");
        let end = if let Some(r) = rest.strip_prefix("scope ") {
            rest = r;
            Some(take(&mut rest, "end_us="))
        } else {
            rest = rest.strip_prefix("inst ").unwrap();
            None
        };
        if let Some(r) = rest.strip_prefix("hidden ") {
            rest = r;
        }
        let flags = take(&mut rest, "flags=");
        let (name, args) = if let Some(n) = rest.strip_suffix(' ') {
            (n.to_string(), J::Object(Map::new()))
        } else {
            let mut found = None;
            for (i, _) in rest.match_indices(" {") {
                if let Ok(v) = serde_json::from_str::<J>(&rest[i + 1..]) {
                    found = Some((rest[..i].to_string(), v));
                    break;
                }
            }
            found.unwrap_or_else(|| panic!("no args in {line}"))
        };
        zones.last_mut().expect("zone header first").1.push(Line {
            time,
            depth,
            end,
            flags,
            name,
            args: norm(args),
        });
    }
    zones
}

fn text_of(s: Option<&[u8]>) -> J {
    s.map_or(J::Null, |b| J::String(text_lossy(b).into_owned()))
}

/// Our reconstruction of the loader's dump.
fn ours(bytes: &[u8]) -> Vec<(String, Vec<Line>)> {
    let trace = Capture::parse(bytes).unwrap();
    let tl = Timeline::build(&trace);
    assert_eq!(tl.fault, None);
    let mut fmt = ArgsJson::new();
    // The loader renumbers time-range ids 1, 2, ... in file order of first use.
    let mut ranges: std::collections::HashMap<u32, u32> = Default::default();
    for ev in trace.events() {
        let ev = ev.unwrap();
        if matches!(
            ev.builtin(),
            Some(Builtin::TimeRangeBegin | Builtin::TimeRangeEnd)
        ) {
            if let Some(id) = ev.arg(0).and_then(|v| v.as_u32()) {
                let next = ranges.len() as u32 + 1;
                ranges.entry(id).or_insert(next);
            }
        }
    }
    let mut out = Vec::new();
    for zone in &tl.zones {
        let header = match &zone.info {
            Some(z) => format!(
                "## zone {} type={} location={}",
                text_of(z.name),
                text_of(z.kind),
                text_of(z.location)
            ),
            None => "## zone \"Script\" type=\"script\" location=?".to_string(),
        };
        let mut lines: Vec<Line> = Vec::new();
        for s in zone.scopes() {
            let ev = s.event;
            let mut name = ev.name().to_string();
            let mut flags = u64::from(ev.flags());
            let mut args = J::Object(fmt.args(&ev).unwrap());
            match ev.builtin() {
                Some(Builtin::ScopeEnter) | Some(Builtin::TimeStamp) => {
                    if let Some(Value::Ascii(n) | Value::Utf8(n)) = ev.arg(0) {
                        name = fmt.text(&ev, n).unwrap_or_default();
                    }
                    flags = 0;
                    args = J::Object(Map::new());
                }
                Some(Builtin::TimeRangeBegin | Builtin::TimeRangeEnd) => {
                    let id = ev.arg(0).and_then(|v| v.as_u32()).unwrap();
                    args["id"] = J::from(ranges[&id]);
                }
                _ => {}
            }
            if let Role::Append { target } = s.role {
                let appended = std::mem::replace(&mut args, J::Object(Map::new()));
                if let Some(t) = target {
                    let add: Map<String, J> = if ev.builtin() == Some(Builtin::ScopeAppendData) {
                        let J::Object(m) = appended else {
                            unreachable!()
                        };
                        let k = m
                            .get("name")
                            .and_then(|n| n.as_str())
                            .unwrap_or("")
                            .to_string();
                        let v = m.get("value").cloned().unwrap_or(J::Null);
                        [(k, v)].into_iter().collect()
                    } else {
                        let J::Object(m) = appended else {
                            unreachable!()
                        };
                        m
                    };
                    if let J::Object(m) = &mut lines[t].args {
                        m.extend(add);
                    }
                }
            }
            lines.push(Line {
                time: u64::from(ev.time),
                depth: s.depth as u64,
                end: s.end_time.filter(|&e| e != 0).map(u64::from),
                flags,
                name,
                args,
            });
        }
        for l in &mut lines {
            l.args = norm(std::mem::take(&mut l.args));
        }
        out.push((header, lines));
    }
    out
}

fn check(file: &str, oracle: &str) {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let bytes = tracecap_testkit::read(&dir.join(file));
    let want = parse_oracle(
        &String::from_utf8(tracecap_testkit::read(&dir.join("oracle").join(oracle))).unwrap(),
    );
    let got = ours(&bytes);
    let got_headers: Vec<_> = got.iter().map(|z| z.0.clone()).collect();
    let want_headers: Vec<_> = want.iter().map(|z| z.0.clone()).collect();
    assert_eq!(got_headers, want_headers, "{file}: zones");
    let mut total = 0;
    for ((_, g), (h, w)) in got.iter().zip(&want) {
        assert_eq!(g.len(), w.len(), "{file} {h}: event count");
        for (i, (a, b)) in g.iter().zip(w).enumerate() {
            assert_eq!(a, b, "{file} {h}: event #{i}");
        }
        total += g.len();
    }
    eprintln!("{file}: {total} events match the oracle");
}

#[test]
fn cpp_basic() {
    check("cff-cpp/cpp-basic.wtf-trace", "cpp-basic.oracle.txt");
}

#[test]
fn cpp_threads() {
    check("cff-cpp/cpp-threads.wtf-trace", "cpp-threads.oracle.txt");
}

#[test]
fn cpp_big() {
    check("cff-cpp/cpp-big.wtf-trace", "cpp-big.oracle.txt.xz");
}

#[test]
fn js_alltypes() {
    check(
        "cff-js/js-snapshot-alltypes.wtf-trace",
        "js-snapshot-alltypes.oracle.txt",
    );
}

#[test]
fn blk_client_head() {
    check(
        "legacy-v3/blk-client-head.wtf-trace",
        "blk-client-head.oracle.txt.xz",
    );
}

#[test]
fn blk_server_head() {
    check(
        "legacy-v3/blk-server-head.wtf-trace",
        "blk-server-head.oracle.txt.xz",
    );
}

#[test]
fn blk_client_full() {
    check(
        "legacy-v3/blk-client.wtf-trace.xz",
        "blk-client-full.oracle.txt.xz",
    );
}

#[test]
fn blk_server_full() {
    check(
        "legacy-v3/blk-server.wtf-trace.xz",
        "blk-server-full.oracle.txt.xz",
    );
}

#[test]
fn builtins_decode_typed() {
    use std::collections::BTreeSet;
    use tracecap_wtf::BuiltinEvent;
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let mut kinds = BTreeSet::new();
    for f in [
        "cff-js/js-snapshot-alltypes.wtf-trace",
        "legacy-v3/blk-client-head.wtf-trace",
    ] {
        let bytes = tracecap_testkit::read(&dir.join(f));
        let trace = Capture::parse(&bytes).unwrap();
        for ev in trace.events() {
            let ev = ev.unwrap();
            let typed = ev.decode_builtin();
            if ev.builtin().is_some() {
                let t = typed.unwrap_or_else(|| panic!("{f}: {} did not decode", ev.name()));
                let kind = format!("{t:?}");
                kinds.insert(kind.split([' ', '{']).next().unwrap().to_string());
                if let BuiltinEvent::ZoneCreate { id, name, .. } = t {
                    assert_eq!(Some(id), ev.zone_create().map(|z| z.id));
                    assert!(ev.resolve(name).is_some());
                }
            } else {
                assert!(typed.is_none());
            }
        }
    }
    for k in [
        "Define",
        "ZoneCreate",
        "ZoneSet",
        "ScopeEnter",
        "ScopeEnterTracing",
        "ScopeLeave",
        "ScopeAppendData",
        "FlowBranch",
        "FlowExtend",
        "FlowTerminate",
        "FlowAppendData",
        "Mark",
        "TimeStamp",
        "TimeRangeBegin",
        "TimeRangeEnd",
        "FrameStart",
        "FrameEnd",
    ] {
        assert!(kinds.contains(k), "no {k} decoded; got {kinds:?}");
    }
}
