#![cfg(all(feature = "orbit", feature = "std"))]
//! The Orbit adapter's index of address infos: callstack frames get the symbol of the first
//! `AddressInfo` of their address, and the index is small: a capture can hold millions of
//! addresses, and every one is kept for the whole conversion. The index holds 16 bytes per
//! address and sorts in place: the peak stays under 24 bytes per address (a map of the views
//! takes about 120).

mod common;

use common::orbit::{capture, len_field, msg, varint};
use tracecap::timeline::{CounterValue, Event, Sink, Track, TrackId, Value};
use tracecap::Format;
use tracecap_testkit::{peak_of, serial, PeakAlloc};

#[global_allocator]
static PEAK: PeakAlloc = PeakAlloc;

/// Addresses in the big capture: just under a power of two, so that the index's array is not
/// caught right after doubling.
const ADDRESSES: u64 = (1 << 17) - 64;

const FIRST_FN: u64 = 1;
const SECOND_FN: u64 = 2;
const MODULE: u64 = 3;
const STACK: u64 = 7;

/// Keeps the frames of each callstack sample, and nothing else.
#[derive(Default)]
struct Frames(Vec<Vec<String>>);

impl Sink for Frames {
    type Error = std::convert::Infallible;
    fn track(&mut self, _: &Track<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn begin(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn end(&mut self, _: TrackId, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn complete(&mut self, _: &Event<'_>, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        if e.name == "callstack sample" {
            let frames = e.args.iter().filter(|a| a.name.starts_with("frame "));
            self.0.push(
                frames
                    .map(|a| match a.value {
                        Value::Str(s) => s.to_string(),
                        other => panic!("frame {other:?}"),
                    })
                    .collect(),
            );
        }
        Ok(())
    }
    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn interned_string(key: u64, text: &str) -> (u32, Vec<u8>) {
    let mut m = msg(&[(1, key)]);
    len_field(&mut m, 2, text.as_bytes());
    (18, m)
}

/// AddressInfo { absolute_address, offset_in_function, function_name_key, module_name_key }.
fn address_info(address: u64, offset: u64, function: u64) -> (u32, Vec<u8>) {
    (
        16,
        msg(&[(1, address), (2, offset), (3, function), (4, MODULE)]),
    )
}

/// A capture with `addresses` address infos (at 0x1000, 0x1010, ...), then a second info for
/// 0x1000 naming another function, and one sample whose stack is 0x1000, 0x1010 and 0xdead0
/// (which has no info).
fn sampled(addresses: u64) -> Vec<u8> {
    let mut events = vec![
        interned_string(FIRST_FN, "first_fn"),
        interned_string(SECOND_FN, "second_fn"),
        interned_string(MODULE, "libgame.so"),
    ];
    events.extend((0..addresses).map(|i| address_info(0x1000 + i * 16, i * 4, FIRST_FN)));
    events.push(address_info(0x1000, 0x99, SECOND_FN));
    let mut pcs = Vec::new();
    for pc in [0x1000, 0x1010, 0xdead0] {
        varint(&mut pcs, pc);
    }
    let mut callstack = Vec::new();
    len_field(&mut callstack, 1, &pcs);
    let mut interned = msg(&[(1, STACK)]);
    len_field(&mut interned, 2, &callstack);
    events.push((5, interned));
    events.push((1, msg(&[(1, 42), (2, 43), (3, STACK), (4, 5_000)])));
    capture(&events)
}

#[test]
fn frames_take_the_first_address_info_of_their_address() {
    let _one = serial();
    let file = sampled(2);
    let mut frames = Frames::default();
    tracecap::convert(Format::Orbit, &file, &mut frames).unwrap();
    assert_eq!(
        frames.0,
        [[
            "first_fn+0x0 [libgame.so]",
            "first_fn+0x4 [libgame.so]",
            "0xdead0"
        ]]
    );
}

#[test]
fn the_address_index_peaks_under_24_bytes_per_address() {
    let _one = serial();
    let file = sampled(ADDRESSES);
    let mut frames = Frames::default();
    let (result, peak) = peak_of(|| tracecap::convert(Format::Orbit, &file, &mut frames));
    result.unwrap();
    assert_eq!(frames.0.len(), 1);
    assert_eq!(frames.0[0][0], "first_fn+0x0 [libgame.so]");
    let per_address = peak as u64 / ADDRESSES;
    eprintln!("{ADDRESSES} address infos: peak heap {peak} bytes, {per_address} per address");
    assert!(
        per_address < 24,
        "{per_address} bytes of heap per address info (peak {peak})"
    );
}
