//! Arbitrary bytes through detection, a format's timeline adapter and both exporters: no panic,
//! and a format error always points inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::ConvertError;

fn check<E: std::fmt::Debug>(result: Result<tracecap::Stats, ConvertError<E>>, len: usize) {
    if let Err(ConvertError::Format(e)) = result {
        assert!(
            e.offset() <= len as u64,
            "error offset {:#x} past {len}",
            e.offset()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(format) = tracecap::detect(data) else {
        return;
    };
    let mut perfetto = Perfetto::new(std::io::sink()).unwrap();
    check(tracecap::convert(format, data, &mut perfetto), data.len());
    let _ = perfetto.finish();
    // JSON for every other input: the two exporters share the adapters, not the writing.
    if data.len() % 2 == 1 {
        let mut chrome = ChromeJson::new(std::io::sink()).unwrap();
        check(tracecap::convert(format, data, &mut chrome), data.len());
        let _ = chrome.finish();
    }
});
