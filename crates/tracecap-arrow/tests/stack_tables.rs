//! `stack_samples` and `stack_frames` of every Orbit capture of the corpus (and of the captures
//! named by `TRACECAP_ORBIT_CAPTURES`) against a plain protobuf decoding: one row per
//! `CallstackSample` whose `InternedCallstack` is known, in file order, on its thread's track, its
//! frames the callstack's program counters (innermost first, depth 0) named through `AddressInfo`
//! and `InternedString` (decoded here with the Orbit crate's prost types, not through the views or
//! the adapter). Also: the adapter is asked for stacks only when a stack table is built.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use prost::Message;
use tracecap_arrow::{capture_batches, Options, Table};
use tracecap_orbit::proto::orbit_grpc_protos as orbit;

/// A frame: function, module, address.
type Frame = (String, String, u64);
/// A sample: its thread id and its frames, innermost first.
type Sampled = (i64, Vec<Frame>);

/// The samples of a whole ORBT capture with their callstack known, decoded with prost; `None`
/// for anything else. Also the number of `CallstackSample` events.
fn oracle(data: &[u8]) -> Option<(Vec<Sampled>, usize)> {
    if data.get(..4)? != b"ORBT" {
        return None;
    }
    let mut at = usize::try_from(u64::from_le_bytes(data.get(8..16)?.try_into().ok()?)).ok()?;
    let mut strings: HashMap<u64, String> = HashMap::new();
    let mut callstacks: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut infos: HashMap<u64, (u64, u64)> = HashMap::new();
    let mut raw = Vec::new();
    loop {
        let mut rest = data.get(at..)?;
        let before = rest.len();
        let len = usize::try_from(prost::encoding::decode_varint(&mut rest).ok()?).ok()?;
        let body = rest.get(..len)?;
        at += before - rest.len() + len;
        use orbit::client_capture_event::Event as E;
        match orbit::ClientCaptureEvent::decode(body).ok()?.event {
            Some(E::InternedString(s)) => {
                strings.insert(s.key, String::from_utf8_lossy(&s.intern).into_owned());
            }
            Some(E::InternedCallstack(c)) => {
                callstacks.insert(c.key, c.intern.map(|c| c.pcs).unwrap_or_default());
            }
            Some(E::AddressInfo(a)) => {
                infos
                    .entry(a.absolute_address)
                    .or_insert((a.function_name_key, a.module_name_key));
            }
            Some(E::CallstackSample(s)) => raw.push((i64::from(s.tid), s.callstack_id)),
            Some(E::CaptureFinished(_)) => break,
            _ => {}
        }
    }
    let text = |key: u64| strings.get(&key).cloned().unwrap_or_default();
    let samples = raw
        .iter()
        .filter_map(|&(tid, id)| {
            let frames = callstacks
                .get(&id)?
                .iter()
                .map(|&pc| {
                    let (function, module) = infos
                        .get(&pc)
                        .map(|&(f, m)| (text(f), text(m)))
                        .unwrap_or_default();
                    let function = if function.is_empty() {
                        format!("{pc:#x}")
                    } else {
                        function
                    };
                    (function, module, pc)
                })
                .collect();
            Some((tid, frames))
        })
        .collect();
    Some((samples, raw.len()))
}

/// Every Orbit capture: the corpus's and `TRACECAP_ORBIT_CAPTURES`'s.
fn orbit_captures() -> Vec<PathBuf> {
    let mut files = tracecap_testkit::corpus_paths("orbit", &[], "orbit");
    if let Some(more) = std::env::var_os("TRACECAP_ORBIT_CAPTURES") {
        files.extend(std::env::split_paths(&more));
    }
    files
}

fn column<'b>(b: &'b RecordBatch, name: &str) -> &'b dyn Array {
    b.column_by_name(name).expect("the column").as_ref()
}

/// The samples the tables hold, in row order, as [`oracle`] gives them.
fn from_tables(tables: &BTreeMap<Table, Vec<RecordBatch>>) -> Vec<Sampled> {
    let none = Vec::new();
    let get = |t| tables.get(&t).unwrap_or(&none);
    let mut tids = HashMap::new();
    for b in get(Table::Tracks) {
        for i in 0..b.num_rows() {
            if let Some(tid) = common::int(column(b, "tid"), i) {
                tids.insert(common::int(column(b, "track"), i).unwrap(), tid);
            }
        }
    }
    let mut stacks: HashMap<u64, Vec<Option<Frame>>> = HashMap::new();
    for b in get(Table::StackFrames) {
        let stack = column(b, "stack").as_primitive::<UInt64Type>();
        let depth = column(b, "depth").as_primitive::<Int32Type>();
        let address = column(b, "address").as_primitive::<UInt64Type>();
        for i in 0..b.num_rows() {
            assert!(column(b, "line").is_null(i), "Orbit frames have no line");
            assert_eq!(common::text(column(b, "file"), i).as_deref(), Some(""));
            let frames = stacks.entry(stack.value(i)).or_default();
            let d = depth.value(i) as usize;
            assert_eq!(d, frames.len(), "depths of a stack run from 0, in order");
            frames.push(Some((
                common::text(column(b, "function"), i).unwrap(),
                common::text(column(b, "module"), i).unwrap(),
                address.value(i),
            )));
        }
    }
    let mut out = Vec::new();
    for b in get(Table::StackSamples) {
        let stack = column(b, "stack").as_primitive::<UInt64Type>();
        let weight = column(b, "weight").as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            assert_eq!(weight.value(i), 1);
            assert_eq!(
                common::text(column(b, "kind"), i).as_deref(),
                Some("sample")
            );
            assert!(column(b, "call").is_null(i));
            let track = common::int(column(b, "track"), i).unwrap();
            let frames = stacks.get(&stack.value(i)).expect("a declared stack");
            let frames = frames.iter().map(|f| f.clone().unwrap()).collect();
            out.push((tids[&track], frames));
        }
    }
    out
}

/// The real Orbit 1.71 capture (google/orbit's `OrbitTest_1-72.orbit`): samples, distinct call
/// stacks, distinct call stacks named by function.
const ORBIT_171: (&str, (usize, usize, usize)) = ("OrbitTest_1-72.orbit", (1583, 213, 148));

#[test]
fn orbit_stack_tables_equal_a_protobuf_decoding() {
    let files = orbit_captures();
    if files.is_empty() {
        println!("SKIPPED: no Orbit capture in the corpus");
        return;
    }
    let mut compared = 0;
    for path in &files {
        let data = tracecap_testkit::read(path);
        let Some((expected, events)) = oracle(&data) else {
            println!("{}: not a whole ORBT capture, not compared", path.display());
            continue;
        };
        for batch_rows in [1 << 16, 7] {
            let (tables, summary) = common::batches("c", &data, batch_rows);
            let got = from_tables(&tables);
            assert_eq!(got.len(), expected.len(), "{}", path.display());
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                assert_eq!(g, e, "{}: sample {i}", path.display());
            }
            assert_eq!(summary.stats.stack_samples, expected.len() as u64);
            let distinct: HashSet<_> = got.iter().map(|(_, f)| f).collect();
            let frames = tables.get(&Table::StackFrames).map_or(0, |b| {
                b.iter()
                    .map(|b| {
                        let depth = column(b, "depth").as_primitive::<Int32Type>();
                        depth.iter().filter(|d| *d == Some(0)).count()
                    })
                    .sum::<usize>()
            });
            assert!(frames >= distinct.len(), "every sampled stack is declared");
            if path.file_name().is_some_and(|n| n == ORBIT_171.0) {
                let stacks: HashSet<Vec<u64>> = got
                    .iter()
                    .map(|(_, f)| f.iter().map(|x| x.2).collect())
                    .collect();
                let named: HashSet<Vec<&str>> = got
                    .iter()
                    .map(|(_, f)| f.iter().map(|x| &*x.0).collect())
                    .collect();
                assert_eq!(events, ORBIT_171.1 .0, "every sample's callstack is known");
                assert_eq!((got.len(), stacks.len(), named.len()), ORBIT_171.1);
            }
        }
        println!("{}: {} samples of {events}", path.display(), expected.len());
        compared += 1;
    }
    assert!(compared > 0, "no ORBT capture compared");
}

#[test]
fn stacks_are_resolved_only_for_the_stack_tables() {
    let Some(path) = orbit_captures().into_iter().find(|p| {
        let data = tracecap_testkit::read(p);
        oracle(&data).is_some_and(|(s, _)| !s.is_empty())
    }) else {
        println!("SKIPPED: no Orbit capture with samples");
        return;
    };
    let data = tracecap_testkit::read(&path);
    let samples = |options: &Options| {
        let mut rows = 0;
        let summary = capture_batches("c", &data, options, &mut |t: Table, b: RecordBatch| {
            if t == Table::StackSamples {
                rows += b.num_rows();
            }
            Ok(())
        })
        .unwrap();
        (summary.stats.stack_samples, rows)
    };
    let expected = oracle(&data).unwrap().0.len() as u64;
    for table in [
        Table::Slices,
        Table::Instants,
        Table::Tracks,
        Table::Captures,
    ] {
        assert_eq!(samples(&Options::only(table)), (0, 0), "{table}");
    }
    assert_eq!(samples(&Options::only(Table::StackFrames)).0, expected);
    assert_eq!(
        samples(&Options::only(Table::StackSamples)),
        (expected, expected as usize)
    );
    // A projection to some columns (as a query's scan asks): `stack` and `kind` alone.
    let projected = Options {
        columns: Some(vec![3, 5].into()),
        ..Options::only(Table::StackSamples)
    };
    let mut rows = 0;
    capture_batches("c", &data, &projected, &mut |_t: Table, b: RecordBatch| {
        assert_eq!(b.num_columns(), 2);
        assert_eq!(b.schema().field(0).name(), "stack");
        rows += b.num_rows();
        Ok(())
    })
    .unwrap();
    assert_eq!(rows as u64, expected);
}
