//! Exports into one dataset at the same time, and writers that die: several `tracecap export
//! --append` processes of overlapping captures leave each capture in the dataset once with all
//! its rows; a writer killed with `SIGKILL` (during its walk, or between the renames of a part)
//! leaves nothing that tracecap reads as data, and the next writer removes what it left.

mod common;

use common::{big_capture, run, stderr, tree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use tracecap_arrow::arrow_array::cast::AsArray;
use tracecap_arrow::arrow_array::types::Int32Type;
use tracecap_arrow::arrow_array::Array;
use tracecap_arrow::dataset::read_table;
use tracecap_arrow::Table;

fn scratch(name: &str) -> tracecap_testkit::TempDir {
    common::scratch("export-concurrent", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(col: &dyn Array, i: usize) -> String {
    match col.as_dictionary_opt::<Int32Type>() {
        Some(d) => {
            let k = d.keys().value(i) as usize;
            d.values().as_string::<i32>().value(k).to_owned()
        }
        None => col.as_string::<i32>().value(i).to_owned(),
    }
}

/// Rows of `table` per capture (its first column), as tracecap reads the dataset.
fn rows_per_capture(dir: &Path, table: Table) -> BTreeMap<String, usize> {
    let mut rows = BTreeMap::new();
    for b in read_table(dir, table).unwrap() {
        for i in 0..b.num_rows() {
            *rows.entry(text(b.column(0), i)).or_default() += 1;
        }
    }
    rows
}

/// Syscall captures of different sizes (big enough that the exports overlap in time).
fn inputs(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let path = dir.join(format!("c{i}.dat"));
            std::fs::write(&path, big_capture(100_000 + 20_000 * i as u32)).unwrap();
            path
        })
        .collect()
}

/// What a dataset of `captures` exported one by one holds: rows per capture of the tables
/// checked.
fn expected(dir: &Path, captures: &[PathBuf]) -> [BTreeMap<String, usize>; 3] {
    let out = dir.join("reference");
    let mut args = vec!["export", "-o", s(&out), "-q", "--threads", "1"];
    args.extend(captures.iter().map(|c| s(c)));
    let r = run(&args);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    checked_tables(&out)
}

fn checked_tables(ds: &Path) -> [BTreeMap<String, usize>; 3] {
    [Table::Captures, Table::Slices, Table::SyscallCalls].map(|t| rows_per_capture(ds, t))
}

#[test]
fn four_appends_of_overlapping_captures_at_once_leave_each_capture_once() {
    let dir = scratch("four");
    let captures = inputs(&dir, 6);
    let want = expected(&dir, &captures);
    assert_eq!(want[0].len(), 6);
    assert!(want[0].values().all(|&n| n == 1));
    for round in 0..2 {
        let out = dir.join(format!("ds{round}"));
        // Writer w exports captures w, w+1, w+2 and w+3 (mod 6): every capture is asked for by
        // two to four writers at once.
        let children: Vec<_> = (0..4)
            .map(|w| {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracecap"));
                cmd.args(["export", "-o", s(&out), "--append", "-q"]);
                for k in 0..4 {
                    cmd.arg(&captures[(w + k) % captures.len()]);
                }
                cmd.stderr(Stdio::piped()).spawn().unwrap()
            })
            .collect();
        for child in children {
            let done = child.wait_with_output().unwrap();
            assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        }
        assert_eq!(checked_tables(&out), want, "round {round}");
        let files = tree(&out);
        assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_export_waits_for_the_one_in_progress_and_says_so() {
    let dir = scratch("wait");
    let out = dir.join("ds");
    std::fs::create_dir_all(&out).unwrap();
    // Another writer holds the lock: the export waits, says so, and goes on once it is free.
    let held =
        tracecap::lock::FileLock::acquire(&out.join(tracecap_arrow::dataset::LOCK_FILE), |_| {})
            .unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    );
    let child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(["export", sample, "-o", s(&out), "--append", "-q"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !out.join("captures").exists() || rows_per_capture(&out, Table::Captures).is_empty(),
        "exported while another writer held the lock"
    );
    drop(held);
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert!(
        stderr(&done).contains(&format!(
            "waiting for another export into {} to finish",
            out.display()
        )),
        "{}",
        stderr(&done)
    );
    assert_eq!(rows_per_capture(&out, Table::Captures).len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_part_cut_off_between_its_renames_is_not_read_and_the_next_writer_removes_it() {
    let dir = scratch("cut-commit");
    let captures = inputs(&dir, 2);
    let want = expected(&dir, &captures);
    let out = dir.join("ds");
    let r = run(&["export", s(&captures[0]), "-o", s(&out), "-q"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let first = checked_tables(&out);

    // What a writer killed between the renames of its part leaves: some tables' files under
    // their final names, no `captures` file; and temporary files.
    let part = tree(&out)
        .into_iter()
        .find(|f| f.starts_with("slices/part-"))
        .unwrap();
    let name = part.trim_start_matches("slices/");
    for table in ["slices", "tracks", "syscall_calls"] {
        std::fs::copy(
            out.join(table).join(name),
            out.join(table).join("part-killed-00-0000.parquet"),
        )
        .unwrap();
    }
    std::fs::write(out.join("tracks/.part-x.parquet.999999-0.tmp"), b"half").unwrap();

    // tracecap's readers leave the cut part out: no rows without their `captures` row.
    assert_eq!(checked_tables(&out), first);
    let q = run(&[
        "query",
        "SELECT count(*) AS n FROM slices",
        s(&out),
        "--format",
        "csv",
    ]);
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    let n: usize = String::from_utf8(q.stdout)
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(n, first[1].values().sum::<usize>());

    // The next writer removes what was left, then adds its capture.
    let r = run(&["export", s(&captures[1]), "-o", s(&out), "--append", "-q"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let files = tree(&out);
    assert!(
        files
            .iter()
            .all(|f| !f.contains("killed") && !f.ends_with(".tmp")),
        "{files:?}"
    );
    assert_eq!(checked_tables(&out), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_append_killed_at_any_moment_leaves_no_partial_capture() {
    let dir = scratch("sigkill");
    let captures = inputs(&dir, 2);
    let big = dir.join("big.dat");
    std::fs::write(&big, big_capture(1_500_000)).unwrap();
    let mut all = captures.clone();
    all.push(big.clone());
    let want = expected(&dir, &all);
    let out = dir.join("ds");
    let r = run(&["export", s(&captures[0]), "-o", s(&out), "-q"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let mut rng = tracecap_testkit::Rng(0x5eed);
    let append = [
        "export",
        s(&captures[1]),
        s(&big),
        "-o",
        s(&out),
        "--append",
        "-q",
    ];
    for attempt in 0..6 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
            .args(append)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.below(400) as u64));
        child.kill().unwrap(); // SIGKILL
        let _ = child.wait();
        // Whatever was in place: every capture tracecap reads has all its rows, and no rows
        // are read without their capture.
        let seen = checked_tables(&out);
        for (id, n) in &seen[0] {
            assert_eq!(*n, 1, "attempt {attempt}: {id} twice");
            for t in 1..3 {
                assert_eq!(seen[t].get(id), want[t].get(id), "attempt {attempt}: {id}");
            }
        }
        for t in 1..3 {
            assert!(
                seen[t].keys().all(|id| seen[0].contains_key(id)),
                "attempt {attempt}: rows without their capture: {:?}",
                seen[t].keys().collect::<Vec<_>>()
            );
        }
    }
    // The next append completes the dataset and leaves no temporary file.
    let r = run(&append);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert_eq!(checked_tables(&out), want);
    let files = tree(&out);
    assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
