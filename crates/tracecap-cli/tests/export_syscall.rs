//! The syscall_capture table of the export (`syscall_calls`) holds, row for row and field for
//! field, the `syscall` lines of `tracecap dump --json` (its `args` the same JSON text): on every
//! corpus capture, whole and cut short at a stride (where the rows are the lines dump prints
//! before its error, and the walk's fault is at the offset the error names).

mod export_common;

use std::path::{Path, PathBuf};

use export_common::{check_capture, cuts, on_two_threads, scratch, Spec};
use tracecap_arrow::Table;

const SPECS: [Spec; 1] = [Spec {
    table: Table::SyscallCalls,
    kinds: &["syscall"],
    keeps_kind: false,
}];

/// The corpus captures (SKIPPED when the corpus is missing) and the capture of the `no_std`
/// check.
fn files() -> Vec<PathBuf> {
    let mut files = tracecap_testkit::corpus_paths("syscall", &[], "dat");
    files.push(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ensure_no_std/captures/syscall.dat"
        ))
        .to_path_buf(),
    );
    files
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn the_table_holds_the_syscall_lines_of_dump() {
    let mut rows = 0;
    for path in files() {
        let bytes = tracecap_testkit::read(&path);
        let tmp = scratch("export-sc", &name(&path));
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
        let tmp = scratch("export-sc-cut", &name(path));
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
