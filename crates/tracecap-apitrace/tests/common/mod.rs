//! What several test files share: the traces they read, and events as text.
// Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tracecap_apitrace::{Parsed, SigTable, Stream, PARSED_DETAILS};

/// The corpus traces under `root` (`../shared/corpus/apitrace`), then the ones kept with the
/// crate (tests/data), sorted.
pub fn traces(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let own = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"));
    for dir in [
        root.join("apitrace-tests"),
        root.join("produced-apitrace-11.1"),
        own,
    ] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "trace") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Every event and its details as debug text, read in two passes (`Events::next`, then
/// `Event::details`), and the error that ended the stream, if any: what the one-pass readers
/// must give.
pub fn two_pass_text(stream: &[u8]) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let trace = match Stream::parse(stream) {
        Ok(t) => t,
        Err(e) => return (out, Some(e.to_string())),
    };
    let mut events = trace.events();
    while let Some(ev) = events.next() {
        match ev {
            Ok(ev) => {
                out.push(format!("{ev:?}"));
                for d in ev.details().iter(events.table()) {
                    out.push(format!("{d:?}"));
                }
            }
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

/// One event read in one pass as [`two_pass_text`] prints it. Its kept details, when there
/// are (never more than `PARSED_DETAILS`), must be its details.
pub fn parsed_text(p: Parsed<'_, '_, SigTable>) -> Vec<String> {
    let mut v = vec![format!("{:?}", p.event)];
    let details: Vec<_> = p.details().collect();
    if let Some(kept) = p.kept() {
        assert!(kept.len() <= PARSED_DETAILS);
        assert_eq!(
            format!("{kept:?}"),
            format!("{:?}", details.iter().flatten().collect::<Vec<_>>())
        );
    }
    v.extend(details.iter().map(|d| format!("{d:?}")));
    v
}
