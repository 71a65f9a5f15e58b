//! `FunctionCall.function_id` resolves to the instrumented function's name, with the owned map
//! and the fixed-capacity table alike: on a capture written here, and on the real captures.

use tracecap_orbit::proto::orbit_grpc_protos as pb;
use tracecap_orbit::views::EventView;
use tracecap_orbit::write::CaptureWriter;
use tracecap_orbit::{Capture, FixedFunctionTable, FunctionLookup, FunctionTable};

fn event(e: pb::client_capture_event::Event) -> pb::ClientCaptureEvent {
    pb::ClientCaptureEvent { event: Some(e) }
}

fn function(id: u64, name: &str) -> pb::InstrumentedFunction {
    pb::InstrumentedFunction {
        function_id: id,
        function_name: name.into(),
        file_path: "/bin/app".into(),
        ..Default::default()
    }
}

#[test]
fn names_of_a_written_capture() {
    use pb::client_capture_event::Event as E;
    let mut w = CaptureWriter::new();
    let options = pb::CaptureOptions {
        instrumented_functions: vec![function(7, "main"), function(3, "work"), function(7, "dup")],
        ..Default::default()
    };
    w.write_message(&event(E::CaptureStarted(pb::CaptureStarted {
        process_id: 1,
        capture_options: Some(options),
        ..Default::default()
    })))
    .unwrap();
    for id in [3, 7, 9] {
        w.write_message(&event(E::FunctionCall(pb::FunctionCall {
            function_id: id,
            ..Default::default()
        })))
        .unwrap();
    }
    w.write_message(&event(E::CaptureFinished(Default::default())))
        .unwrap();
    let file = w.finish();
    let capture = Capture::parse(&file).unwrap();

    let map = FunctionTable::from_capture(&capture).unwrap();
    let table = FixedFunctionTable::<8>::from_capture(&capture).unwrap();
    assert_eq!(map.iter().collect::<Vec<_>>(), [(3, "work"), (7, "main")]);
    assert_eq!(table.iter().collect::<Vec<_>>(), [(3, "work"), (7, "main")]);
    let mut names = Vec::new();
    for e in capture.events() {
        if let EventView::FunctionCall(c) = e.unwrap().view().unwrap() {
            names.push((map.name(c.function_id), table.name(c.function_id)));
        }
    }
    assert_eq!(
        names,
        [
            (Some("work"), Some("work")),
            (Some("main"), Some("main")),
            (None, None)
        ]
    );

    // A table too small keeps what it was given first and refuses the rest: `TableFull` at the
    // function that does not fit.
    let full = FixedFunctionTable::<1>::from_capture(&capture).unwrap_err();
    assert!(
        matches!(
            full.kind,
            tracecap_orbit::ErrorKind::Shared(tracecap_orbit::SharedKind::TableFull {
                capacity: 1,
                ..
            })
        ),
        "{full}"
    );
    assert!(full.offset > 24, "{full}");
    let mut small = FixedFunctionTable::<1>::new();
    let options = tracecap_orbit::functions::capture_options(&capture)
        .unwrap()
        .unwrap();
    assert!(small.add_options(&options).is_err());
    assert_eq!(small.iter().collect::<Vec<_>>(), [(7, "main")]);
}

#[test]
fn every_function_call_of_the_real_captures_has_a_name() {
    let files = tracecap_testkit::corpus_files("orbit", &["real"]);
    let mut resolved = 0usize;
    for (name, data) in &files {
        let Ok(capture) = Capture::parse(data) else {
            continue;
        };
        let Ok(map) = FunctionTable::from_capture(&capture) else {
            continue;
        };
        if map.is_empty() {
            continue;
        }
        let table = FixedFunctionTable::<4096>::from_capture(&capture).unwrap();
        assert!(map.iter().eq(table.iter()), "{name}");
        for e in capture.events() {
            let Ok(e) = e else { break };
            if let Ok(EventView::FunctionCall(c)) = e.view() {
                let n = map.name(c.function_id);
                assert!(
                    n.is_some_and(|n| !n.is_empty()),
                    "{name}: call at {:#x}",
                    e.offset
                );
                assert_eq!(n, table.name(c.function_id));
                resolved += 1;
            }
        }
    }
    if !files.is_empty() {
        assert!(resolved > 0, "no real capture with function calls");
        eprintln!("{resolved} function calls resolved");
    }
}
