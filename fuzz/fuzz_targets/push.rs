//! The five push parsers on arbitrary bytes: no panic, and the bytes fed in pieces (sizes drawn
//! from the input's first byte, through the umbrella's `pump` over a stream that hands out a few
//! bytes at a time) give the items and the final error the same parser gives on the whole input
//! at once. Orbit is only run for panics: its whole-input answer may take a section list at the
//! file's end into account, which bytes that arrive cannot (documented in its crate).
#![no_main]

use std::fmt::Debug;
use std::io::Read;

use libfuzzer_sys::fuzz_target;
use tracecap::open::Arriving;
use tracecap::push::{pump, whole, PumpError, PushParse};

/// A stream that returns `data` in pieces of 0 to 37 bytes, from a xorshift seeded by `seed`.
struct Pieces {
    data: Vec<u8>,
    at: usize,
    state: u64,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let want = (self.state % 38) as usize;
        let rest = self.data.get(self.at..).unwrap_or_default();
        // A stream says 0 only at its end: a piece of 0 bytes becomes 1.
        let n = want.max(1).min(rest.len()).min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The items (as `show` renders them; `None` skips one) and the final error.
type Seen = (Vec<String>, Option<String>);

fn fed_whole<P: PushParse>(
    data: &[u8],
    mut parser: P,
    show: impl for<'a> Fn(&P::Item<'a>) -> Option<String>,
) -> Seen
where
    P::Error: Debug,
{
    let mut items = Vec::new();
    let result = whole(data, &mut parser, |item| {
        items.extend(show(&item));
        Ok::<(), ()>(())
    });
    (items, error(result))
}

fn fed_in_pieces<P: PushParse>(
    data: &[u8],
    mut parser: P,
    show: impl for<'a> Fn(&P::Item<'a>) -> Option<String>,
) -> Seen
where
    P::Error: Debug,
{
    let seed = u64::from(data.first().copied().unwrap_or(0)) | 0x100;
    let stream = Pieces {
        data: data.to_vec(),
        at: 0,
        state: seed,
    };
    let mut source = Arriving::stream(Box::new(stream), "fuzz input".as_ref());
    let mut items = Vec::new();
    let result = pump(&mut source, &mut parser, &mut Vec::new(), |item| {
        items.extend(show(&item));
        Ok::<(), ()>(())
    });
    (items, error(result))
}

fn error<T, E: Debug>(result: Result<T, PumpError<E, ()>>) -> Option<String> {
    match result {
        Ok(_) => None,
        Err(PumpError::Parse(e)) => Some(format!("{e:?}")),
        Err(e) => panic!("no I/O and no caller error here: {e:?}"),
    }
}

fn same<P: PushParse>(
    data: &[u8],
    make: impl Fn() -> P,
    show: impl for<'a> Fn(&P::Item<'a>) -> Option<String> + Copy,
) where
    P::Error: Debug,
{
    let at_once = fed_whole(data, make(), show);
    let in_pieces = fed_in_pieces(data, make(), show);
    assert_eq!(at_once, in_pieces);
}

fuzz_target!(|data: &[u8]| {
    same(data, tracecap_syscall::PushParser::new, |item| match item {
        tracecap_syscall::PushItem::GapPart(_) => None,
        other => Some(format!("{other:?}")),
    });
    same(data, tracecap_easyprofiler::PushParser::new, |item| {
        Some(format!("{item:?}"))
    });
    same(data, tracecap_wtf::PushParser::new, |item| Some(format!("{item:?}")));
    same(data, tracecap_apitrace::PushParser::new, |(event, _)| {
        Some(format!("{event:?}"))
    });
    let _ = fed_in_pieces(data, tracecap_orbit::PushParser::new(), |item| {
        Some(format!("{item:?}"))
    });
});
