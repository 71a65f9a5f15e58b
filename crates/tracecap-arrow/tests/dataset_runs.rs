//! Exports that add to one dataset, one after the other in the same process, each keep their
//! files: no run's file names are another run's.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use tracecap_arrow::dataset::{export, read_table, ExportOptions, Mode, Progress, Source};
use tracecap_arrow::Table;

fn sample(name: &str) -> Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    Source {
        id: name.into(),
        path,
    }
}

fn ids(dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = read_table(dir, Table::Captures)
        .expect("captures table")
        .iter()
        .flat_map(|b| strings(b.column_by_name("capture").expect("capture column")))
        .collect();
    ids.sort();
    ids
}

/// The strings of a `capture` column (dictionary-encoded or plain).
fn strings(column: &arrow_array::ArrayRef) -> Vec<String> {
    if let Some(dict) = column.as_any_dictionary_opt() {
        let values = dict.values().as_string::<i32>();
        return dict
            .normalized_keys()
            .into_iter()
            .map(|k| values.value(k).to_owned())
            .collect();
    }
    let strings = column.as_string::<i32>();
    strings.iter().flatten().map(str::to_owned).collect()
}

#[test]
fn appends_in_the_same_second_keep_every_capture() {
    let scratch = tracecap_testkit::TempDir::new("arrow-runs");
    let dir: PathBuf = scratch.join("dataset");
    let options = |mode| ExportOptions {
        mode,
        threads: 1,
        ..ExportOptions::default()
    };
    let first = export(
        &[sample("sample_small.prof")],
        &dir,
        &options(Mode::New),
        &Progress::default(),
    )
    .expect("first export");
    let second = export(
        &[sample("gen_small.prof")],
        &dir,
        &options(Mode::Append),
        &Progress::default(),
    )
    .expect("second export");
    assert_eq!((first.exported, second.exported), (1, 1));
    assert_eq!(ids(&dir), ["gen_small.prof", "sample_small.prof"]);
    std::fs::remove_dir_all(&dir).expect("remove the dataset");
}
