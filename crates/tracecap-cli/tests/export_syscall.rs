//! The syscall_capture table of the export (`syscall_calls`) holds, row for row and field for
//! field, the `syscall` lines of `tracecap dump --json` (its `args` the same JSON text): on every
//! corpus capture and the capture of the `no_std` check, whole, cut short and with a byte
//! changed: see `export_check`.

mod export_check;

use std::path::Path;

use export_check::{check_files, line_as_row, Check, Expect};
use serde_json::Value;
use tracecap_arrow::Table;

/// The row a `syscall` line should give: every member but `kind`, in the table's order.
fn expected(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| line_as_row(Table::SyscallCalls, line, &[("kind", "syscall")]))
}

#[test]
fn the_table_holds_the_syscall_lines_of_dump() {
    // The corpus captures (SKIPPED when the corpus is missing) and the capture of the `no_std`
    // check.
    let mut files = tracecap_testkit::corpus_paths("syscall", &[], "dat");
    files.push(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ensure_no_std/captures/syscall.dat"
        ))
        .to_path_buf(),
    );
    let check = Check {
        table: Table::SyscallCalls,
        is_record: |v| v["kind"] == "syscall",
        nested: &["args"],
        expected,
    };
    check_files(&[check], &files, "export-sc");
}
