//! The streamed fold of capture files (`Engine::fold`) against the fold of the `slices` table
//! through SQL (`flame::fold_sql` and `Folder`), on every capture of the corpus, alone and all
//! together, per track or not, on one and two threads; faults recorded alike; a dataset folded
//! through SQL beside capture files; and the memory of the stream bounded by distinct stacks.

use std::path::{Path, PathBuf};

use tracecap_arrow::dataset::{export, ExportOptions, Progress, Source};
use tracecap_query::flame::stream::StackSink;
use tracecap_query::flame::{self, Folded, Folder};
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
    for batch in engine.query(&flame::fold_sql(None, per_track)).unwrap() {
        folder.push(&batch.unwrap()).unwrap();
    }
    let faults = engine.faults().iter().map(|f| f.to_string()).collect();
    (folder.finish(), faults)
}

/// The streamed fold of `inputs` on `partitions` threads, and the faults it recorded.
fn stream_fold(inputs: &[PathBuf], per_track: bool, partitions: usize) -> (Folded, Vec<String>) {
    let engine = engine(partitions);
    let folded = engine
        .fold(&Inputs::find(inputs).unwrap(), per_track)
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
