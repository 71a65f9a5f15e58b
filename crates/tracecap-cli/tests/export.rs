//! `tracecap export` as a user meets it: a fresh folder, a folder already holding a dataset
//! (refused, appended to, overwritten), directories searched for captures, damaged and foreign
//! files, exit codes, and an interrupted run. Inputs are the bundled samples or written here.

mod common;

use common::{big_capture, run, stderr, tree};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tracecap_arrow::arrow_array::cast::AsArray;
use tracecap_arrow::arrow_array::types::{Int32Type, Int64Type};
use tracecap_arrow::arrow_array::{Array, RecordBatch};
use tracecap_arrow::dataset::read_table;
use tracecap_arrow::Table;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");

fn sample(name: &str) -> PathBuf {
    Path::new(SAMPLES).join(name)
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> tracecap_testkit::TempDir {
    common::scratch("export", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(col: &dyn Array, i: usize) -> Option<String> {
    if col.is_null(i) {
        return None;
    }
    match col.as_dictionary_opt::<Int32Type>() {
        Some(d) => {
            let k = d.keys().value(i) as usize;
            Some(d.values().as_string::<i32>().value(k).to_owned())
        }
        None => Some(col.as_string::<i32>().value(i).to_owned()),
    }
}

fn int(col: &dyn Array, i: usize) -> Option<i64> {
    (!col.is_null(i)).then(|| col.as_primitive::<Int64Type>().value(i))
}

/// The `captures` rows of a dataset: (capture, format, fault, fault_offset), sorted.
fn captures(dir: &Path) -> Vec<(String, String, Option<String>, Option<i64>)> {
    let mut rows = Vec::new();
    for b in read_table(dir, Table::Captures).unwrap() {
        for i in 0..b.num_rows() {
            rows.push((
                text(b.column(0), i).unwrap(),
                text(b.column(2), i).unwrap(),
                text(b.column(7), i),
                int(b.column(8), i),
            ));
        }
    }
    rows.sort();
    rows
}

fn rows(dir: &Path, table: Table) -> usize {
    read_table(dir, table)
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum()
}

#[test]
fn a_fresh_folder_gets_every_table_and_no_temporary_file() {
    let dir = scratch("fresh");
    let out = dir.join("ds");
    let r = run(&[
        "export",
        &format!("{SAMPLES}/sample_small.prof"),
        "-o",
        s(&out),
        "--quiet",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert_eq!(stderr(&r), "", "--quiet prints nothing");
    let files = tree(&out);
    for table in Table::ALL {
        assert!(
            files
                .iter()
                .any(|f| f.starts_with(&format!("{}/part-", table.name()))
                    && f.ends_with(".parquet")),
            "{table}: {files:?}"
        );
    }
    assert!(files.iter().all(|f| !f.contains("/.")), "{files:?}");
    let caps = captures(&out);
    assert_eq!(caps.len(), 1);
    assert_eq!(caps[0].0, format!("{SAMPLES}/sample_small.prof"));
    assert_eq!(caps[0].1, "easyprofiler");
    assert_eq!((caps[0].2.clone(), caps[0].3), (None, None));
    assert!(rows(&out, Table::Slices) > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_capture_exported_twice_gives_identical_rows() {
    let dir = scratch("twice");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let r = run(&[
            "export",
            &format!("{SAMPLES}/sample_small.prof"),
            "-o",
            s(out),
            "--quiet",
        ]);
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    }
    for table in Table::ALL {
        let (x, y) = (
            read_table(&a, table).unwrap(),
            read_table(&b, table).unwrap(),
        );
        assert_eq!(x, y, "{table}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_that_holds_files_is_refused_unless_appending_or_overwriting() {
    let dir = scratch("modes");
    let out = dir.join("ds");
    let small = format!("{SAMPLES}/sample_small.prof");
    let gen = format!("{SAMPLES}/gen_small.prof");
    assert_eq!(
        run(&["export", &small, "-o", s(&out), "-q"]).status.code(),
        Some(0)
    );
    let before = tree(&out);

    // A dataset without a flag: refused, nothing changes.
    let r = run(&["export", &gen, "-o", s(&out), "-q"]);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(stderr(&r).contains("--append"), "{}", stderr(&r));
    assert_eq!(tree(&out), before);

    // --append adds the new capture and skips the one already there.
    let r = run(&["export", &small, &gen, "-o", s(&out), "--append", "--json"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let summary: serde_json::Value = serde_json::from_str(stderr(&r).trim()).unwrap();
    assert_eq!(summary["exported"], 1);
    assert_eq!(summary["already_there"], 1);
    let ids: Vec<String> = captures(&out).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, [gen.clone(), small.clone()]);

    // --overwrite replaces the whole dataset.
    let r = run(&["export", &gen, "-o", s(&out), "--overwrite", "-q"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let ids: Vec<String> = captures(&out).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, std::slice::from_ref(&gen));

    // A folder holding anything else is never written into, whatever the flag.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), b"mine").unwrap();
    for flag in ["--append", "--overwrite"] {
        let r = run(&["export", &gen, "-o", s(&other), flag, "-q"]);
        assert_eq!(r.status.code(), Some(2), "{flag}: {}", stderr(&r));
        assert!(
            stderr(&r).contains("not a tracecap dataset"),
            "{}",
            stderr(&r)
        );
        assert_eq!(tree(&other), ["notes.txt"]);
    }
    let r = run(&["export", &gen, "-o", s(&out), "--append", "--overwrite"]);
    assert_eq!(r.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directories_are_searched_and_ids_are_the_paths_as_given() {
    let dir = scratch("dirs");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub/deeper")).unwrap();
    std::fs::copy(sample("sample_small.prof"), input.join("sub/deeper/a.prof")).unwrap();
    std::fs::copy(sample("gen_small.prof"), input.join("b.bin")).unwrap();
    std::fs::write(input.join("README.md"), b"not a capture").unwrap();
    std::fs::write(input.join("sub/empty.prof"), b"").unwrap();
    // The dataset inside the searched folder is not searched.
    let out = input.join("ds");
    let r = run(&["export", s(&input), "-o", s(&out), "--json"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let summary: serde_json::Value = serde_json::from_str(stderr(&r).trim()).unwrap();
    assert_eq!(summary["exported"], 2);
    assert_eq!(summary["skipped"], 2);
    let ids: Vec<String> = captures(&out).into_iter().map(|c| c.0).collect();
    let base = s(&input);
    assert_eq!(
        ids,
        [format!("{base}/b.bin"), format!("{base}/sub/deeper/a.prof")]
    );
    // Again with --append: both are there already (the dataset's own files are not captures).
    let r = run(&["export", s(&input), "-o", s(&out), "--append", "--json"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let summary: serde_json::Value = serde_json::from_str(stderr(&r).trim()).unwrap();
    assert_eq!(
        (
            summary["exported"].clone(),
            summary["already_there"].clone()
        ),
        (0.into(), 2.into())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_and_foreign_inputs_give_clear_messages_and_exit_codes() {
    let dir = scratch("bad");
    let good = sample("sample_small.prof");
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.prof");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let empty = dir.join("empty.prof");
    std::fs::write(&empty, b"").unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, b"hello").unwrap();

    // A damaged capture: its rows before the fault, the fault in `captures` at validate's offset,
    // the next capture still exported, exit 1.
    let out = dir.join("ds1");
    let r = run(&["export", s(&cut), s(&good), "-o", s(&out), "-q"]);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    let err = stderr(&r);
    assert!(err.contains(&format!("warning: {}: ", s(&cut))), "{err}");
    let v = run(&["validate", s(&cut)]);
    let said = stderr(&v);
    let offset = said.rsplit("at offset 0x").next().unwrap().trim();
    let offset = i64::from_str_radix(offset, 16).unwrap();
    let caps = captures(&out);
    let damaged = caps.iter().find(|c| c.0 == s(&cut)).unwrap();
    assert_eq!(damaged.3, Some(offset), "{said}");
    assert!(damaged.2.is_some());
    assert!(caps.iter().any(|c| c.0 == s(&good) && c.2.is_none()));

    // An empty file and a file of no known format named on the command line: warned, exit 1.
    let out = dir.join("ds2");
    let r = run(&["export", s(&empty), s(&text), s(&good), "-o", s(&out), "-q"]);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    let err = stderr(&r);
    assert!(
        err.contains(&format!("{}: not a capture (empty file)", s(&empty))),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}: not a capture (unknown format)", s(&text))),
        "{err}"
    );
    assert_eq!(captures(&out).len(), 1);

    // Nothing to export: exit 1, and no folder made.
    let lonely = dir.join("lonely");
    std::fs::create_dir_all(&lonely).unwrap();
    std::fs::write(lonely.join("a.txt"), b"text").unwrap();
    let out = dir.join("ds3");
    let r = run(&["export", s(&lonely), "-o", s(&out)]);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert!(stderr(&r).contains("no captures in"), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("1 file(s) of no known format skipped"),
        "{}",
        stderr(&r)
    );
    assert!(!out.exists());

    // A device or a pipe is not read (it would be read up by the detection): warned, exit 1.
    let r = run(&["export", "/dev/null", "-o", s(&out)]);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("/dev/null: not a capture (not a regular file)"),
        "{}",
        stderr(&r)
    );
    assert!(!out.exists());

    // Usage and I/O: exit 2.
    let missing = dir.join("missing.prof");
    let r = run(&["export", s(&missing), "-o", s(&out)]);
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains(s(&missing)), "{}", stderr(&r));
    assert_eq!(run(&["export", "-", "-o", s(&out)]).status.code(), Some(2));
    assert_eq!(
        run(&["export", s(&good), "-o", s(&out), "--threads", "0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["export", s(&good)]).status.code(),
        Some(2),
        "-o is required"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_export_leaves_only_complete_files() {
    let dir = scratch("killed");
    // The signal goes out once a temporary file exists; on a fast machine a small export may end
    // before it lands, and a larger capture is tried. It is SIGTERM, which the export handles as
    // it handles SIGINT: a shell starts background jobs with SIGINT ignored, and the export
    // keeps a signal its parent ignores ignored, so SIGINT would not reach it under such a job.
    for records in [2_000_000, 6_000_000, 18_000_000] {
        let input = dir.join("big.dat");
        std::fs::write(&input, big_capture(records)).unwrap();
        let out = dir.join("ds");
        let _ = std::fs::remove_dir_all(&out);
        let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
            .args(["export", s(&input), "-o", s(&out), "-q"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !tree(&dir).iter().any(|n| n.ends_with(".tmp")) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        let killed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        if child.wait().unwrap().success() {
            continue; // the export ended before the signal
        }
        // No temporary file is left, and a file under its final name (a part that was complete
        // before the signal) reads whole.
        let files = tree(&out);
        assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
        for table in Table::ALL {
            read_table(&out, table).unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    panic!("every export finished before the signal reached it");
}
