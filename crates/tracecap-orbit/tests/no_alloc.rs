//! Walking every event of `orbit168_OrbitTest_capture.orbit` with the views allocates nothing.

use tracecap_testkit::{allocs, CountingAlloc};

use tracecap_orbit::views::EventView;
use tracecap_orbit::Capture;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Touches every field a consumer would: views, repeated fields, nested messages, API names.
fn walk(data: &[u8]) -> (u64, u64) {
    let capture = Capture::parse(data).expect("parse");
    let mut events = 0u64;
    let mut checksum = 0u64;
    let mut name = [0u8; 512];
    for ev in capture.events() {
        let ev = ev.expect("event");
        events += 1;
        let view = ev.view().expect("view");
        if let Some(n) = view.api_name() {
            checksum += n.copy_to(&mut name).map_or(0, |b| b.len() as u64);
        }
        if let Some((a, b)) = view.time_span() {
            checksum = checksum.wrapping_add(a ^ b);
        }
        match view {
            EventView::InternedCallstack(c) => {
                checksum += c.callstack().expect("callstack").pcs.iter().count() as u64;
            }
            EventView::FunctionCall(f) => checksum += f.registers.iter().sum::<u64>(),
            EventView::ThreadNamesSnapshot(s) => {
                for (b, o) in s.thread_names {
                    checksum += tracecap_orbit::views::ThreadName::parse(b, o)
                        .expect("name")
                        .tid as u64;
                }
            }
            EventView::MemoryUsageEvent(m) => {
                checksum += m.system().expect("system").total_kb as u64;
            }
            _ => {}
        }
    }
    if let Some(ud) = capture.user_data().expect("user data") {
        checksum += ud
            .view()
            .expect("ud")
            .frame_tracks()
            .expect("ft")
            .frame_track_function_ids
            .iter()
            .count() as u64;
    }
    (events, checksum)
}

#[test]
fn walking_every_event_allocates_nothing() {
    let Some(corpus) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    let data = std::fs::read(corpus.join("real/orbit168_OrbitTest_capture.orbit")).unwrap();
    // The counter works: an allocation on this thread is seen.
    let probe = allocs();
    drop(std::hint::black_box(vec![1u8; 16]));
    assert!(allocs() > probe, "the counting allocator is not counting");
    let before = allocs();
    let (events, checksum) = walk(&data);
    let after = allocs();
    assert_eq!(events, 38765);
    assert!(checksum > 0);
    assert_eq!(after - before, 0, "allocations while walking");

    // A length-delimited field claiming 4 GiB inside an event: an error, and still no allocation.
    let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    file.extend_from_slice(&[8, 0x32, 6, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    let before = allocs();
    let capture = Capture::parse(&file).expect("parse");
    let ev = capture
        .events()
        .next()
        .expect("one")
        .expect("framing is fine");
    assert!(ev.view().is_err());
    assert_eq!(allocs() - before, 0);
}
