//! `tracecap query`, `tracecap diff` and `tracecap flamegraph` as a user meets them: the output
//! formats, exit codes and messages for bad SQL, empty inputs, a directory without captures, a
//! damaged capture (with and without --strict), an output that is an input, and the flame
//! graph's two outputs.

mod common;

use common::{run, scratch, stderr};
use std::path::{Path, PathBuf};
use tracecap_testkit::TempDir;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");

fn sample(name: &str) -> String {
    Path::new(SAMPLES).join(name).display().to_string()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A copy of sample_small.prof cut in the middle, in its own folder.
/// A capture cut in half, in a scratch directory (removed when the first is dropped).
fn cut_capture(tag: &str) -> (TempDir, PathBuf) {
    let dir = scratch(tag, "cut");
    let bytes = std::fs::read(sample("sample_small.prof")).unwrap();
    let path = dir.join("cut.prof");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    (dir, path)
}

const BY_NAME: &str =
    "SELECT CAST(name AS VARCHAR) AS name, count(*) AS n FROM slices GROUP BY 1 ORDER BY 2 DESC, 1";

#[test]
fn a_table_on_the_terminal_and_csv_json_parquet_for_machines() {
    let s = sample("sample_small.prof");
    let table = run(&["query", BY_NAME, &s]);
    assert_eq!(table.status.code(), Some(0), "{}", stderr(&table));
    let text = stdout(&table);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["name", "n"]
    );
    assert!(lines[1].starts_with("----"));
    assert!(lines.last().unwrap().ends_with("rows)"), "{text}");
    let rows = lines.len() - 3;

    let csv = stdout(&run(&["query", BY_NAME, &s, "--format", "csv"]));
    let csv: Vec<&str> = csv.lines().collect();
    assert_eq!(csv[0], "name,n");
    assert_eq!(csv.len() - 1, rows);

    let json = stdout(&run(&["query", BY_NAME, &s, "--format", "json"]));
    let json: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), rows);
    // The same first row in every format.
    let first = &json[0];
    let (name, n) = (
        first["name"].as_str().unwrap(),
        first["n"].as_i64().unwrap(),
    );
    assert_eq!(csv[1], format!("{name},{n}"));
    assert_eq!(lines[2].split_whitespace().last().unwrap(), n.to_string());

    let dir = scratch("query-formats", "out");
    let out = dir.join("r.parquet");
    let o = out.display().to_string();
    let p = run(&["query", BY_NAME, &s, "--format", "parquet", "-o", &o]);
    assert_eq!(p.status.code(), Some(0), "{}", stderr(&p));
    assert!(stdout(&p).is_empty());
    // A whole Parquet file: its magic at both ends (its rows are read back in .ci/run).
    let magic = std::fs::read(&out).unwrap();
    assert_eq!(&magic[..4], b"PAR1");
    assert_eq!(&magic[magic.len() - 4..], b"PAR1");

    let no_file = run(&["query", BY_NAME, &s, "--format", "parquet"]);
    assert_eq!(no_file.status.code(), Some(2));
    assert!(stderr(&no_file).contains("-o FILE"), "{}", stderr(&no_file));

    let to_file = dir.join("r.csv");
    let c = run(&[
        "query",
        BY_NAME,
        &s,
        "--format",
        "csv",
        "-o",
        &to_file.display().to_string(),
    ]);
    assert_eq!(c.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&to_file).unwrap().lines().count(),
        rows + 1
    );
}

#[test]
fn bad_sql_exits_2_with_datafusion_s_message() {
    let s = sample("sample_small.prof");
    for (sql, says) in [
        ("SELEC 1", "SQL error"),
        ("SELECT nope FROM slices", "nope"),
        ("SELECT * FROM nothing_here", "nothing_here"),
    ] {
        let out = run(&["query", sql, &s]);
        assert_eq!(out.status.code(), Some(2), "{sql}");
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{sql}: {err}"
        );
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn no_inputs_a_directory_without_captures_and_a_missing_file() {
    let none = run(&["query", "SELECT 1"]);
    assert_eq!(none.status.code(), Some(2), "inputs are required");
    let dir = scratch("query-empty", "dir");
    std::fs::write(dir.join("notes.txt"), "no capture").unwrap();
    let d = dir.display().to_string();
    let out = run(&["query", "SELECT count(*) FROM slices", &d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no capture or dataset in the inputs"),
        "{}",
        stderr(&out)
    );
    let missing = run(&["query", "SELECT 1", "/no/such/capture.prof"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("/no/such/capture.prof"));
    // A file of no known format named directly: a warning, and the rest is queried.
    let text = dir.join("notes.txt").display().to_string();
    let s = sample("sample_small.prof");
    let out = run(&[
        "query",
        "SELECT count(*) AS n FROM captures",
        &s,
        &text,
        "--format",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "n\n1\n");
    assert!(stderr(&out).contains("notes.txt: not a capture (unknown format), skipped"));
    let strict = run(&["query", "SELECT 1", &s, &text, "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn a_damaged_capture_warns_and_is_queried_up_to_its_fault() {
    let (_dir, cut) = cut_capture("query-damaged");
    let c = cut.display().to_string();
    let sql = "SELECT fault_offset FROM captures";
    let out = run(&["query", sql, &c, "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let offset: u64 = stdout(&out).lines().nth(1).unwrap().parse().unwrap();
    let err = stderr(&out);
    assert!(
        err.starts_with("warning: ") && err.contains(&format!("{offset:#x}")),
        "{err}"
    );
    assert!(err.contains("rows before it queried"), "{err}");
    let slices = run(&[
        "query",
        "SELECT count(*) AS n FROM slices",
        &c,
        "--format",
        "csv",
    ]);
    let n: u64 = stdout(&slices).lines().nth(1).unwrap().parse().unwrap();
    assert!(n > 0, "the slices before the fault");
    let strict = run(&["query", sql, &c, "--strict", "--format", "csv"]);
    assert_eq!(strict.status.code(), Some(1));
    assert_eq!(
        stdout(&strict),
        stdout(&out),
        "the result is written all the same"
    );
    assert!(stderr(&strict).contains("1 input(s) damaged"));
}

#[test]
fn the_output_is_never_an_input() {
    let dir = scratch("query-same", "in");
    let capture = dir.join("a.prof");
    std::fs::copy(sample("sample_small.prof"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let c = capture.display().to_string();
    let out = run(&["query", BY_NAME, &c, "--format", "csv", "-o", &c]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("refusing to overwrite"),
        "{}",
        stderr(&out)
    );
    let out = run(&["flamegraph", &c, "-o", &c]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&capture).unwrap(), before);
}

#[test]
fn schema_lists_every_table_and_column() {
    let out = run(&["query", "--schema"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for table in tracecap_arrow::Table::ALL {
        assert!(text.contains(&format!("\n{} (", table.name())) || text.starts_with(table.name()));
        let listed = text
            .split("\n\n")
            .find(|block| block.starts_with(&format!("{} (", table.name())))
            .unwrap_or_else(|| panic!("{table} not listed"));
        for field in tracecap_query::schema(table).fields() {
            // The type queries see: text that repeats is a view, not the export's dictionary.
            let line = listed
                .lines()
                .find(|l| l.split_whitespace().next() == Some(field.name().as_str()))
                .unwrap_or_else(|| panic!("{table}.{} not listed", field.name()));
            assert!(
                line.contains(&format!("  {}", field.data_type())),
                "{table}.{}: {line}",
                field.name()
            );
        }
    }
    assert!(text.contains("name      Utf8View not null"), "{text}");
}

#[test]
fn diff_takes_two_inputs_or_two_groups() {
    let s = sample("sample_small.prof");
    let g = sample("gen_small.prof");
    let same = run(&["diff", &s, &s, "--format", "json"]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    let rows: Vec<serde_json::Value> = stdout(&same)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r["change"] == 0 && r["status"] == "same"));

    let groups = run(&[
        "diff", "--a", &s, "--a", &g, "--b", &s, "--b", &g, "--format", "csv",
    ]);
    assert_eq!(groups.status.code(), Some(0), "{}", stderr(&groups));
    assert!(stdout(&groups).starts_with("name,a_count,b_count,a_total,b_total,"));

    for bad in [
        vec!["diff", s.as_str()],
        vec!["diff", s.as_str(), s.as_str(), "--a", s.as_str()],
        vec!["diff", "--a", s.as_str()],
        vec!["diff", s.as_str(), s.as_str(), "--by", "colour"],
    ] {
        let out = run(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
    let sql = run(&["diff", "--sql", "--by", "track,name"]);
    assert_eq!(sql.status.code(), Some(0));
    assert!(stdout(&sql).contains("a.tracks"));
}

#[test]
fn a_diff_table_reads_on_a_terminal_and_counts_are_integers() {
    let s = sample("sample_small.prof");
    let g = sample("gen_small.prof");
    let at = |width: &str, extra: &[&str]| {
        let mut args = vec!["diff", s.as_str(), g.as_str()];
        args.extend_from_slice(extra);
        let out = common::tracecap_env(&args, &[("COLUMNS", width)]);
        assert_eq!(out.0, 0, "{}", out.2);
        out.1
    };
    let narrow = at("80", &[]);
    let lines: Vec<&str> = narrow.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "name",
            "a_count",
            "b_count",
            "a_total",
            "b_total",
            "change_pct",
            "status"
        ]
    );
    for line in &lines {
        assert!(
            line.chars().count() <= 80,
            "{} wide: {line}",
            line.chars().count()
        );
    }
    // `Frame`: 20 slices in A, none in B; totals with a unit, aligned right.
    let frame = lines.iter().find(|l| l.starts_with("Frame ")).unwrap();
    let cells: Vec<&str> = frame.split_whitespace().collect();
    assert_eq!(cells[1..3], ["20", "0"], "{frame}");
    assert_eq!(cells[3..7], ["14.5", "ms", "0", "ns"], "{frame}");
    let header_end = lines[0].find("a_total").unwrap() + "a_total".len();
    assert_eq!(frame.find("ms").unwrap() + 2, header_end, "{narrow}");

    // Names longer than the room left are cut to fit, down to 12 characters.
    let tight = at("40", &[]);
    let cut = tight.lines().nth(2).unwrap();
    assert!(
        cut.split("  ").next().unwrap().chars().count() <= 12,
        "{tight}"
    );

    // Every column with --wide, durations in ns; counts are integers in every format.
    let wide = at("80", &["--wide"]);
    assert!(wide.lines().next().unwrap().contains("a_p95"), "{wide}");
    assert!(
        wide.lines()
            .any(|l| l.starts_with("Frame ") && l.contains(" 14548555 ")),
        "{wide}"
    );
    let csv = at("80", &["--format", "csv"]);
    let frame = csv.lines().find(|l| l.starts_with("Frame,")).unwrap();
    assert!(frame.starts_with("Frame,20,0,14548555,0,"), "{frame}");
}

/// A dataset of the two samples, with the files of `table` handed to `damage`.
fn damaged_dataset(tag: &str, table: &str, damage: impl Fn(&mut Vec<u8>)) -> (TempDir, PathBuf) {
    let dir = scratch(tag, "dataset");
    let ds = dir.join("ds");
    let out = run(&[
        "export",
        &sample("sample_small.prof"),
        &sample("gen_small.prof"),
        "-o",
        &ds.display().to_string(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut files: Vec<PathBuf> = std::fs::read_dir(ds.join(table))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let damaged = files.swap_remove(0);
    let mut bytes = std::fs::read(&damaged).unwrap();
    damage(&mut bytes);
    std::fs::write(&damaged, bytes).unwrap();
    (dir, damaged)
}

#[test]
fn a_damaged_file_of_a_dataset_fails_the_query_and_is_named() {
    // Cut short (no footer), its pages scrambled (the footer intact: the reader fails while
    // decoding, after the bytes were read), and overwritten with text.
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 3] = [
        ("cut", |b| b.truncate(100)),
        ("pages", |b| {
            let end = (b.len() / 2).min(1200);
            for x in &mut b[200..end] {
                *x ^= 0x5a;
            }
        }),
        ("text", |b| *b = b"not parquet at all".to_vec()),
    ];
    for (what, damage) in damages {
        let (_dir, file) = damaged_dataset(&format!("damaged-{what}"), "slices", damage);
        let ds = file
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .display()
            .to_string();
        let want = format!("damaged Parquet file {}: ", file.display());
        let mut commands = vec![vec![
            "query",
            "SELECT * FROM slices",
            ds.as_str(),
            "--format",
            "csv",
        ]];
        // Scrambled pages fail only the queries that read them; a file without its footer
        // fails every query of its table.
        if what != "pages" {
            commands.extend([
                vec![
                    "query",
                    "SELECT name, sum(dur) FROM slices GROUP BY name",
                    ds.as_str(),
                ],
                vec!["flamegraph", ds.as_str(), "--folded"],
                vec!["diff", ds.as_str(), ds.as_str()],
            ]);
        }
        for args in commands {
            let out = run(&args);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{what} {args:?}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(&want),
                "{what} {args:?}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn flamegraph_draws_an_svg_or_prints_folded_stacks() {
    let s = sample("sample_small.prof");
    let folded = run(&["flamegraph", &s, "--folded"]);
    assert_eq!(folded.status.code(), Some(0), "{}", stderr(&folded));
    let text = stdout(&folded);
    let mut total = 0u64;
    for line in text.lines() {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        assert!(!stack.is_empty());
        total += weight.parse::<u64>().unwrap();
    }
    assert!(total > 0);
    // The self times of the top-level slices' stacks add up to the top-level slices' time.
    let top = run(&[
        "query",
        "SELECT sum(dur) AS t FROM slices WHERE depth = 0 AND dur IS NOT NULL",
        &s,
        "--format",
        "csv",
    ]);
    let top: u64 = stdout(&top).lines().nth(1).unwrap().parse().unwrap();
    assert_eq!(total, top);

    let dir = scratch("flamegraph", "svg");
    let svg = dir.join("f.svg");
    let out = run(&["flamegraph", &s, "-o", &svg.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.trim_end().ends_with("</svg>"));
    assert!(text.contains("Frame"));

    let diff_svg = dir.join("d.svg");
    let g = sample("gen_small.prof");
    let out = run(&[
        "diff",
        &s,
        &g,
        "--flamegraph",
        &diff_svg.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&diff_svg).unwrap().contains("<svg"));

    let neither = run(&["flamegraph", &s]);
    assert_eq!(neither.status.code(), Some(2));

    // Sampled stacks asked of a capture that has none: an empty graph, and a note saying why.
    let none = run(&["flamegraph", &s, "--from", "samples", "--folded"]);
    assert_eq!(none.status.code(), Some(0), "{}", stderr(&none));
    assert!(stdout(&none).is_empty());
    assert!(
        stderr(&none).contains("no sampled call stacks (--from calls draws nested calls)"),
        "{}",
        stderr(&none)
    );
}

#[test]
fn standard_input_and_a_pipe_are_refused_with_why() {
    let out = run(&["query", "SELECT 1", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not standard input"),
        "{}",
        stderr(&out)
    );
    let dir = scratch("query-fifo", "dir");
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let out = run(&["query", "SELECT 1", &fifo.display().to_string()]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("pipe: not a regular file"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_differential_flame_graph_draws_the_stacks_from_names() {
    let Some(orbit) = tracecap_testkit::corpus_paths("orbit", &[], "orbit")
        .into_iter()
        .find(|p| p.ends_with("orbit168_OrbitTest_capture.orbit"))
    else {
        return;
    };
    let orbit = orbit.display().to_string();
    let dir = scratch("diff-from", "svg");
    let draw = |from: Option<&str>| {
        let svg = dir.join(format!("{}.svg", from.unwrap_or("default")));
        let svg_arg = svg.display().to_string();
        let mut args = vec!["diff", &orbit, &orbit, "--flamegraph", &svg_arg];
        if let Some(from) = from {
            args.extend(["--from", from]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        std::fs::read_to_string(&svg).unwrap()
    };
    // Orbit's sampled stacks by default and with `--from samples`: counts of samples, functions.
    for from in [None, Some("samples")] {
        let svg = draw(from);
        assert!(svg.contains("more samples in B"), "{from:?}");
        assert!(
            svg.contains(" samples,"),
            "{from:?}: the counts are samples"
        );
        assert!(
            !svg.contains("Interruptible sleep"),
            "{from:?}: no thread state"
        );
    }
    // `--from calls`: the nested calls' self time.
    let svg = draw(Some("calls"));
    assert!(svg.contains("more self time in B"));
    assert!(svg.contains(" ns,") && !svg.contains(" samples,"));
    // `--from` says what the flame graph is made of: without one it is refused.
    let out = run(&["diff", &orbit, &orbit, "--from", "calls"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
