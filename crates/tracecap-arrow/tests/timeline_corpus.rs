//! The shared tables of every corpus capture hold what `tracecap convert --to chrome` writes.

mod common;

#[test]
fn every_corpus_capture_matches_chrome_json() {
    let files = common::corpus_files();
    if files.is_empty() {
        return;
    }
    let mut slices = 0;
    for path in &files {
        let data = tracecap_testkit::read(path);
        if tracecap::detect(&data).is_none() {
            continue;
        }
        for batch_rows in [1000, 7] {
            slices += common::check_against_chrome(&data, batch_rows);
        }
    }
    assert!(slices > 0, "the corpus has slices");
}
