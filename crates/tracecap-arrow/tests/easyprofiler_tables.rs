//! EasyProfiler captures written from proptest models: `easyprofiler_blocks` and
//! `easyprofiler_values` hold the model's records (depths from upstream's nesting rule, written
//! out here on the model), and the shared tables hold what Chrome JSON holds.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use proptest::prelude::*;
use serde_json::Value as Json;
use tracecap_arrow::{capture_batches, Options, Table};
use tracecap_easyprofiler::write::{
    BookmarkModel, CaptureModel, ContextSwitchModel, DescriptorModel, RecordModel, ThreadModel,
};
use tracecap_easyprofiler::{ticks_to_ns, Capture, DataType, DescriptorKind, Item, Version};

const VERSIONS: [Version; 8] = [
    Version::V0_1_0,
    Version::V1_0_0,
    Version::V1_2_0,
    Version::V1_3_0,
    Version::V2_0_0,
    Version::V2_0_1,
    Version::V2_1_0,
    Version(0x0201_0005),
];

/// Names and texts: any bytes but NUL, invalid UTF-8 included.
fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(1u8..=255, 0..10)
}

/// Times: small ones that nest and collide, and any up to `max`.
fn time(max: u64) -> BoxedStrategy<u64> {
    prop_oneof![0u64..200, 1_000_000u64..1_000_100, 0..=max].boxed()
}

/// Times of the timeline as Chrome JSON holds them exactly (microseconds in a double, to the
/// nanosecond).
const CHROME_MAX: u64 = 1 << 40;

fn record(max: u64, kinds: Vec<DescriptorKind>) -> impl Strategy<Value = RecordModel> {
    let n = kinds.len() as u32;
    (
        (time(max), time(max), 0..n + 1, text()),
        (
            any::<u64>(),
            prop::sample::select(DataType::ALL.to_vec()),
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..40),
        ),
    )
        .prop_map(
            move |((begin, end, id, name), (value_id, data_type, is_array, data))| {
                if kinds.get(id as usize) == Some(&DescriptorKind::Value) {
                    RecordModel::Value {
                        time: begin,
                        id,
                        value_id,
                        data_type,
                        is_array,
                        data,
                    }
                } else {
                    RecordModel::Block {
                        begin,
                        end,
                        id,
                        name,
                    }
                }
            },
        )
}

fn thread(max: u64, wide: bool, kinds: Vec<DescriptorKind>) -> impl Strategy<Value = ThreadModel> {
    let id_max = if wide { u64::MAX } else { u64::from(u32::MAX) };
    (
        0..=id_max,
        text(),
        prop::collection::vec(
            (time(max), time(max), 0..=id_max, text()).prop_map(
                |(begin, end, target_thread, name)| ContextSwitchModel {
                    begin,
                    end,
                    target_thread,
                    name,
                },
            ),
            0..3,
        ),
        prop::collection::vec(record(max, kinds), 0..16),
    )
        .prop_map(|(id, name, context_switches, records)| ThreadModel {
            id,
            name,
            context_switches,
            records,
        })
}

/// A capture whose times are at most `max`.
fn model(max: u64) -> impl Strategy<Value = CaptureModel> {
    (
        prop::sample::select(VERSIONS.to_vec()),
        prop::collection::vec(
            (any::<u32>(), 0u8..=2, text(), text()).prop_map(|(id, kind, name, file)| {
                DescriptorModel {
                    id,
                    line: 7,
                    color: 0xff00_ff00,
                    kind: DescriptorKind::from_u8(kind),
                    status: 1,
                    name,
                    file,
                }
            }),
            0..6,
        ),
    )
        .prop_flat_map(move |(version, descriptors)| {
            let kinds: Vec<_> = descriptors.iter().map(|d| d.kind).collect();
            let bookmarks = if version.has_end_signature() { 3 } else { 1 };
            (
                Just(version),
                prop::sample::select(vec![0i64, 1_000_000_000, 2_599_958_000, 3_000_000_001]),
                Just(descriptors),
                prop::collection::vec(thread(max, version.wide_ids(), kinds), 0..4),
                prop::collection::vec(
                    (time(max), text()).prop_map(|(position, text)| BookmarkModel {
                        position,
                        color: 1,
                        text,
                    }),
                    0..bookmarks,
                ),
            )
        })
        .prop_map(
            |(version, cpu_frequency, descriptors, threads, bookmarks)| CaptureModel {
                version,
                pid: if version.has_pid() { 4242 } else { 0 },
                cpu_frequency,
                begin_time: 0,
                end_time: 1_000_000,
                descriptors,
                threads,
                bookmarks,
            },
        )
}

/// A number of the file as the tables hold it: values past `i64::MAX` saturate.
fn int(x: u64) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

/// The depth of each of a thread's records (begin, end in ticks), by upstream's rule: a record
/// that begins before the last top-level node ends adopts it and every earlier consecutive
/// top-level node that begins no earlier than it, comparing nanoseconds.
fn depths(records: &[(u64, u64)], ns: impl Fn(u64) -> u64) -> Vec<i64> {
    let mut parent: Vec<Option<usize>> = vec![None; records.len()];
    let mut tops: Vec<usize> = Vec::new();
    for (i, &(begin, _)) in records.iter().enumerate() {
        if let Some(&last) = tops.last() {
            if ns(begin) < ns(records[last].1) {
                tops.pop();
                parent[last] = Some(i);
                while let Some(&prev) = tops.last() {
                    if ns(records[prev].0) < ns(begin) {
                        break;
                    }
                    tops.pop();
                    parent[prev] = Some(i);
                }
            }
        }
        tops.push(i);
    }
    let mut depth = vec![0i64; records.len()];
    for i in (0..records.len()).rev() {
        if let Some(p) = parent[i] {
            depth[i] = depth[p] + 1;
        }
    }
    depth
}

/// A value's data as JSON: its elements (little-endian, a partial last one ignored), or a
/// `String` value's text.
fn data_json(data_type: DataType, data: &[u8]) -> Json {
    if data_type == DataType::String {
        return Json::Array(vec![Json::from(String::from_utf8_lossy(data).into_owned())]);
    }
    let size = match data_type {
        DataType::Int16 | DataType::Uint16 => 2,
        DataType::Int32 | DataType::Uint32 | DataType::Float => 4,
        DataType::Int64 | DataType::Uint64 | DataType::Double => 8,
        _ => 1,
    };
    let items = data.chunks_exact(size).map(|c| {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        match data_type {
            DataType::Bool => Json::from(b[0] != 0),
            DataType::Char | DataType::Int8 => Json::from(b[0] as i8),
            DataType::Uint8 => Json::from(b[0]),
            DataType::Int16 => Json::from(i16::from_le_bytes([b[0], b[1]])),
            DataType::Uint16 => Json::from(u16::from_le_bytes([b[0], b[1]])),
            DataType::Int32 => Json::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DataType::Uint32 => Json::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DataType::Int64 => Json::from(i64::from_le_bytes(b)),
            DataType::Uint64 => Json::from(u64::from_le_bytes(b)),
            // `From<f64>` gives null for a value that is not finite.
            DataType::Float => Json::from(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            DataType::Double => Json::from(f64::from_le_bytes(b)),
            DataType::String => unreachable!(),
        }
    });
    Json::Array(items.collect())
}

/// One row as text cells: (column, value) pairs in the table's column order.
type Row = Vec<(String, String)>;

/// What the model says the rows of the two tables are (offsets from the crate's walk).
fn expected(m: &CaptureModel, bytes: &[u8]) -> (Vec<Row>, Vec<Row>) {
    let capture = Capture::parse(bytes).unwrap();
    let mut offsets = capture.events().filter_map(|i| match i.unwrap() {
        Item::Record(r) => Some(r.offset()),
        _ => None,
    });
    let ns = |t: u64| ticks_to_ns(t, m.cpu_frequency);
    let (mut blocks, mut values) = (Vec::new(), Vec::new());
    let cell = |k: &str, v: String| (k.to_owned(), v);
    for t in &m.threads {
        let times: Vec<(u64, u64)> = t
            .records
            .iter()
            .map(|r| match r {
                RecordModel::Block { begin, end, .. } => (*begin, *end),
                RecordModel::Value { time, .. } => (*time, *time),
            })
            .collect();
        let depth = depths(&times, ns);
        for (i, r) in t.records.iter().enumerate() {
            let offset = offsets.next().expect("a record's offset");
            match r {
                RecordModel::Block {
                    begin,
                    end,
                    id,
                    name,
                } => {
                    let event = m.descriptors.get(*id as usize).map(|d| d.kind)
                        == Some(DescriptorKind::Event);
                    blocks.push(vec![
                        cell("offset", offset.to_string()),
                        cell("kind", if event { "event" } else { "block" }.into()),
                        cell("thread", int(t.id).to_string()),
                        cell("begin", int(*begin).to_string()),
                        cell("end", int(*end).to_string()),
                        cell("begin_ns", int(ns(*begin)).to_string()),
                        cell("end_ns", int(ns(*end)).to_string()),
                        cell("id", id.to_string()),
                        cell("name", String::from_utf8_lossy(name).into_owned()),
                        cell("depth", depth[i].to_string()),
                    ]);
                }
                RecordModel::Value {
                    time,
                    id,
                    value_id,
                    data_type,
                    is_array,
                    data,
                } => values.push(vec![
                    cell("offset", offset.to_string()),
                    cell("thread", int(t.id).to_string()),
                    cell("time", int(*time).to_string()),
                    cell("time_ns", int(ns(*time)).to_string()),
                    cell("id", id.to_string()),
                    cell("value_id", int(*value_id).to_string()),
                    cell("type", data_type.name().into()),
                    cell("array", is_array.to_string()),
                    cell("data", data_json(*data_type, data).to_string()),
                ]),
            }
        }
    }
    (blocks, values)
}

/// The rows of `table` as text cells, walked `batch_rows` at a time.
fn rows(bytes: &[u8], table: Table, batch_rows: usize) -> Vec<Row> {
    let mut batches: Vec<RecordBatch> = Vec::new();
    let options = Options {
        batch_rows,
        ..Options::only(table)
    };
    let summary = capture_batches("m", bytes, &options, &mut |t: Table, b: RecordBatch| {
        assert_eq!(t, table);
        assert!(b.num_rows() <= batch_rows);
        batches.push(b);
        Ok(())
    })
    .unwrap();
    assert!(summary.fault.is_none(), "{:?}", summary.fault);
    let mut rows = Vec::new();
    for b in &batches {
        let schema = b.schema();
        for i in 0..b.num_rows() {
            let mut row = Vec::new();
            // Every column but `capture`.
            for (f, col) in schema.fields().iter().zip(b.columns()).skip(1) {
                assert!(!col.is_null(i), "{}", f.name());
                let v = match col.data_type() {
                    arrow_schema::DataType::Boolean => col.as_boolean().value(i).to_string(),
                    arrow_schema::DataType::Int64 => common::int(col, i).unwrap().to_string(),
                    _ => common::text(col, i).unwrap(),
                };
                row.push((f.name().clone(), v));
            }
            rows.push(row);
        }
    }
    rows
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_tables_hold_the_models_records(m in model(u64::MAX), batch_rows in 1usize..9) {
        let bytes = m.to_bytes().unwrap();
        let (blocks, values) = expected(&m, &bytes);
        prop_assert_eq!(rows(&bytes, Table::EasyProfilerBlocks, batch_rows), blocks);
        prop_assert_eq!(rows(&bytes, Table::EasyProfilerValues, batch_rows), values);
    }

    #[test]
    fn the_shared_tables_hold_what_chrome_json_holds(m in model(CHROME_MAX), batch_rows in 1usize..9) {
        let bytes = m.to_bytes().unwrap();
        common::check_against_chrome(&bytes, batch_rows);
    }
}
