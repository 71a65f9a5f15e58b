//! The streamed fold of the calls of capture files (`Engine::fold_from`) against the fold of the
//! `slices` table through SQL (`flame::fold_calls_sql` and `Folder`), on every capture of the
//! corpus, alone and all together, per track or not, on one and two threads; faults recorded
//! alike; a dataset folded through SQL beside capture files; and the memory of the stream bounded
//! by distinct stacks. Sampled stacks: the stream's, a dataset's and the folding SQL of
//! docs/export.md agree on Orbit captures, and no flame graph of them holds a thread state or a
//! scheduling slice.

use std::path::{Path, PathBuf};

use tracecap_arrow::dataset::{export, ExportOptions, Progress, Source};
use tracecap_query::flame::stream::StackSink;
use tracecap_query::flame::{self, Folded, Folder, StacksFrom};
use tracecap_query::{Config, Engine, Inputs};
use tracecap_testkit::TempDir;

const FORMATS: [&str; 5] = ["apitrace", "easyprofiler", "orbit", "syscall", "wtf"];

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn engine(partitions: usize) -> Engine {
    Engine::new(&Config {
        partitions,
        batch_rows: 1000,
        ..Config::default()
    })
    .unwrap()
}

/// The fold of today's query: the sorted `slices` rows of `inputs` through [`Folder`], and the
/// faults the query recorded.
fn sql_fold(inputs: &[PathBuf], per_track: bool) -> (Folded, Vec<String>) {
    let engine = engine(2);
    engine
        .register(None, &Inputs::find(inputs).unwrap())
        .unwrap();
    let mut folder = Folder::new(per_track);
    for batch in engine
        .query(&flame::fold_calls_sql(None, per_track))
        .unwrap()
    {
        folder.push(&batch.unwrap()).unwrap();
    }
    let faults = engine.faults().iter().map(|f| f.to_string()).collect();
    (folder.finish(), faults)
}

/// The streamed fold of the calls of `inputs` on `partitions` threads, and the faults it
/// recorded.
fn stream_fold(inputs: &[PathBuf], per_track: bool, partitions: usize) -> (Folded, Vec<String>) {
    folded_from(inputs, per_track, partitions, StacksFrom::Calls)
}

/// The streamed fold of `from` of `inputs`, and the faults it recorded.
fn folded_from(
    inputs: &[PathBuf],
    per_track: bool,
    partitions: usize,
    from: StacksFrom,
) -> (Folded, Vec<String>) {
    let engine = engine(partitions);
    let folded = engine
        .fold_from(&Inputs::find(inputs).unwrap(), per_track, from)
        .unwrap();
    let faults = engine.faults().iter().map(|f| f.to_string()).collect();
    (folded, faults)
}

fn rendered(folded: &Folded) -> Vec<u8> {
    let mut svg = Vec::new();
    flame::render(folded, "t", &mut svg).unwrap();
    svg
}

#[test]
fn the_stream_folds_every_corpus_capture_as_the_query_does() {
    let mut captures = 0;
    let mut damaged = 0;
    let mut dirs = Vec::new();
    for format in FORMATS {
        let Some(dir) = tracecap_testkit::corpus(format) else {
            continue;
        };
        let found = Inputs::find(std::slice::from_ref(&dir)).unwrap();
        for capture in &found.captures {
            let path = vec![capture.source.path.clone()];
            for per_track in [false, true] {
                let (want, want_faults) = sql_fold(&path, per_track);
                let (got, got_faults) = stream_fold(&path, per_track, 1);
                let name = capture.source.path.display();
                assert_eq!(got, want, "{name} (per track: {per_track})");
                assert_eq!(got_faults, want_faults, "{name}");
                assert_eq!(rendered(&got), rendered(&want), "{name}");
                damaged += usize::from(!got_faults.is_empty() && !per_track);
            }
            captures += 1;
        }
        dirs.push(dir);
    }
    if dirs.is_empty() {
        return;
    }
    eprintln!("{captures} corpus captures folded alike, {damaged} of them damaged");
    assert!(
        captures >= 40,
        "only {captures} captures found in the corpus"
    );
    assert!(damaged > 0, "no damaged capture in the corpus");
    // Every format's folder at once: mixed inputs, on one and two threads.
    for per_track in [false, true] {
        let (want, want_faults) = sql_fold(&dirs, per_track);
        for threads in [1, 2] {
            let (got, got_faults) = stream_fold(&dirs, per_track, threads);
            assert_eq!(got, want, "the whole corpus, {threads} thread(s)");
            assert_eq!(got_faults, want_faults);
        }
    }
}

#[test]
fn samples_fold_alike_alone_and_together() {
    let samples = [sample("sample_small.prof"), sample("gen_small.prof")];
    for per_track in [false, true] {
        let (want, _) = sql_fold(&samples, per_track);
        assert!(!want.is_empty());
        assert_eq!(stream_fold(&samples, per_track, 2).0, want);
    }
}

#[test]
fn a_dataset_is_folded_through_the_query_beside_capture_files() {
    let dir = TempDir::new("flame-dataset");
    let ds = dir.join("ds");
    let source = Source {
        id: "exported".into(),
        path: sample("sample_small.prof"),
    };
    export(
        &[source],
        &ds,
        &ExportOptions::default(),
        &Progress::default(),
    )
    .unwrap();
    let capture = sample("gen_small.prof");
    let inputs = [ds.clone(), capture.clone()];
    for per_track in [false, true] {
        let (want, _) = sql_fold(&inputs, per_track);
        assert_eq!(stream_fold(&inputs, per_track, 2).0, want);
        // The dataset alone goes through the query.
        let (alone, _) = sql_fold(std::slice::from_ref(&ds), per_track);
        assert_eq!(
            stream_fold(std::slice::from_ref(&ds), per_track, 1).0,
            alone
        );
        assert!(!alone.is_empty());
    }
}

#[test]
fn the_tree_grows_with_distinct_stacks_not_with_slices() {
    let path = sample("sample_small.prof");
    let bytes = std::fs::read(&path).unwrap();
    let format = tracecap::detect(&bytes).unwrap();
    let mut sink = StackSink::new(true);
    let once = tracecap::convert(format, &bytes, &mut sink).unwrap();
    sink.end_capture();
    let nodes = sink.nodes();
    assert!(once.slices > 0 && nodes > 1);
    for _ in 0..9 {
        tracecap::convert(format, &bytes, &mut sink).unwrap();
        sink.end_capture();
    }
    // Ten times the slices, the same stacks: not a node more.
    assert_eq!(sink.nodes(), nodes);
    let ten = sink.finish();
    let (one, _) = stream_fold(&[path], true, 1);
    let tenfold: Vec<String> = one
        .stacks()
        .iter()
        .map(|(stack, weight)| format!("{stack} {}", weight * 10))
        .collect();
    assert_eq!(ten.lines().collect::<Vec<_>>(), tenfold);
}

/// The ORBT captures of the corpus's `real` folder, and those of `TRACECAP_ORBIT_CAPTURES`.
fn orbit_captures() -> Vec<PathBuf> {
    let mut files = tracecap_testkit::corpus_paths("orbit", &["real"], "orbit");
    if let Some(more) = std::env::var_os("TRACECAP_ORBIT_CAPTURES") {
        files.extend(std::env::split_paths(&more));
    }
    files.retain(|f| std::fs::read(f).is_ok_and(|d| d.starts_with(b"ORBT")));
    files
}

/// The text of the first column of every row of `sql` over `inputs`.
fn first_column(inputs: &[PathBuf], sql: &str) -> Vec<String> {
    use datafusion::arrow::array::{Array, AsArray};
    let engine = engine(2);
    engine
        .register(None, &Inputs::find(inputs).unwrap())
        .unwrap();
    let mut out = Vec::new();
    for b in engine.collect(sql).unwrap() {
        let c = datafusion::arrow::compute::cast(
            b.column(0),
            &datafusion::arrow::datatypes::DataType::Utf8,
        )
        .unwrap();
        let c = c.as_string::<i32>();
        out.extend((0..c.len()).map(|i| c.value(i).to_string()));
    }
    out
}

#[test]
fn orbit_flame_graphs_hold_no_thread_state_or_scheduling_slice() {
    let files = orbit_captures();
    if files.is_empty() {
        println!("SKIPPED: no ORBT capture in the corpus");
        return;
    }
    for path in &files {
        let inputs = std::slice::from_ref(path);
        // The names of the slices on the threads' state tracks and on the CPU tracks.
        let unwanted: std::collections::HashSet<String> = first_column(
            inputs,
            "SELECT DISTINCT s.name FROM slices s JOIN tracks t \
             ON s.capture = t.capture AND s.track = t.track \
             WHERE t.name LIKE 'CPU %' OR t.name LIKE '% state'",
        )
        .into_iter()
        .collect();
        assert!(!unwanted.is_empty(), "{}", path.display());
        // The fold of every slice holds them: the check below can fail.
        let mut every = Folder::new(false);
        let engine = engine(2);
        engine
            .register(None, &Inputs::find(inputs).unwrap())
            .unwrap();
        for batch in engine.query(&flame::fold_sql(None, false)).unwrap() {
            every.push(&batch.unwrap()).unwrap();
        }
        // With `per_track` the root of a stack is its track's name, no frame.
        let frames_past = |f: &Folded, roots: usize| -> std::collections::HashSet<String> {
            f.stacks()
                .keys()
                .flat_map(|s| s.split(';').skip(roots).map(str::to_owned))
                .collect::<std::collections::HashSet<_>>()
        };
        assert!(frames_past(&every.finish(), 0)
            .iter()
            .any(|f| unwanted.contains(f)));
        for from in [StacksFrom::Auto, StacksFrom::Calls, StacksFrom::Samples] {
            for per_track in [false, true] {
                let (folded, _) = folded_from(inputs, per_track, 1, from);
                let bad: Vec<_> = frames_past(&folded, usize::from(per_track))
                    .into_iter()
                    .filter(|f| unwanted.contains(f))
                    .collect();
                assert!(bad.is_empty(), "{} {from:?}: {bad:?}", path.display());
                assert!(
                    !folded.is_empty() || from == StacksFrom::Calls,
                    "{} {from:?}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn sampled_stacks_fold_alike_from_captures_datasets_and_sql() {
    let files = orbit_captures();
    if files.is_empty() {
        println!("SKIPPED: no ORBT capture in the corpus");
        return;
    }
    for path in &files {
        let inputs = std::slice::from_ref(path);
        let (samples, _) = folded_from(inputs, false, 2, StacksFrom::Samples);
        assert!(samples.of_samples() && !samples.is_empty());
        // Auto takes the samples of a capture that has them.
        assert_eq!(folded_from(inputs, false, 1, StacksFrom::Auto).0, samples);
        // The folding SQL of docs/export.md (Orbit's names hold no `;` and no control character).
        let lines = first_column(
            inputs,
            "WITH folded AS (SELECT capture, stack, string_agg(function, ';' ORDER BY depth DESC) AS frames \
             FROM stack_frames GROUP BY capture, stack) \
             SELECT concat(f.frames, ' ', CAST(sum(s.weight) AS VARCHAR)) FROM stack_samples s \
             JOIN folded f ON s.capture = f.capture AND s.stack = f.stack GROUP BY f.frames",
        );
        let mut lines: Vec<String> = lines;
        lines.sort();
        let mut ours: Vec<String> = samples.lines().collect();
        ours.sort();
        assert_eq!(ours, lines, "{}", path.display());
        let count: u64 = first_column(inputs, "SELECT count(*) FROM stack_samples")[0]
            .parse()
            .unwrap();
        assert_eq!(samples.total(), count);
        // The same from an exported dataset, per track or not.
        let dir = TempDir::new("flame-samples");
        let ds = dir.join("ds");
        let source = Source {
            id: "c".into(),
            path: path.clone(),
        };
        export(
            &[source],
            &ds,
            &ExportOptions::default(),
            &Progress::default(),
        )
        .unwrap();
        for per_track in [false, true] {
            let (want, _) = folded_from(inputs, per_track, 1, StacksFrom::Samples);
            let (got, _) =
                folded_from(std::slice::from_ref(&ds), per_track, 1, StacksFrom::Samples);
            assert_eq!(got, want, "{} per track {per_track}", path.display());
            let (got, _) = folded_from(std::slice::from_ref(&ds), per_track, 1, StacksFrom::Auto);
            assert_eq!(got, want);
        }
        // A capture without samples: auto is its calls, samples nothing.
        let prof = [sample("sample_small.prof")];
        let (calls, _) = folded_from(&prof, false, 1, StacksFrom::Calls);
        assert!(!calls.is_empty() && !calls.of_samples());
        assert_eq!(folded_from(&prof, false, 1, StacksFrom::Auto).0, calls);
        assert!(folded_from(&prof, false, 1, StacksFrom::Samples)
            .0
            .is_empty());
    }
}
