//! The EasyProfiler tables of the export (`easyprofiler_blocks`, `easyprofiler_values`) hold, row
//! for row and field for field, the `block`/`event` and `value` lines of `tracecap dump --json`:
//! on every corpus capture and bundled sample, whole and cut short at a stride (where the rows are
//! the lines dump prints before its error, and the walk's fault is at the offset the error names).

mod export_common;

use std::path::{Path, PathBuf};

use export_common::{check_capture, cuts, on_two_threads, scratch, Spec};
use tracecap_arrow::Table;

const SPECS: [Spec; 2] = [
    Spec {
        table: Table::EasyProfilerBlocks,
        kinds: &["block", "event"],
        keeps_kind: true,
    },
    Spec {
        table: Table::EasyProfilerValues,
        kinds: &["value"],
        keeps_kind: false,
    },
];

/// The corpus captures (SKIPPED when the corpus is missing) and the bundled samples.
fn files() -> Vec<PathBuf> {
    let mut files = tracecap_testkit::corpus_paths("easyprofiler", &[], "prof");
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    files.extend(["sample_small.prof", "gen_small.prof"].map(|n| samples.join(n)));
    files
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn the_tables_hold_the_record_lines_of_dump() {
    let mut rows = 0;
    for path in files() {
        let bytes = tracecap_testkit::read(&path);
        let tmp = scratch("export-ep", &name(&path));
        let at = path.display().to_string();
        rows += check_capture(&tmp, &bytes, &SPECS, &[1 << 16, 7], &at);
        let _ = std::fs::remove_file(&tmp);
    }
    assert!(rows > 0, "no rows checked");
}

#[test]
fn a_cut_capture_gives_the_rows_before_dumps_error_and_its_fault() {
    let cut = on_two_threads(&files(), |path| {
        let bytes = tracecap_testkit::read(path);
        let tmp = scratch("export-ep-cut", &name(path));
        let cuts = cuts(bytes.len());
        for &cut in &cuts {
            let at = format!("{} cut at {cut:#x}", path.display());
            check_capture(&tmp, &bytes[..cut], &SPECS, &[1000], &at);
        }
        let _ = std::fs::remove_file(&tmp);
        cuts.len()
    });
    assert!(cut.iter().sum::<usize>() > 0, "no cuts checked");
}
