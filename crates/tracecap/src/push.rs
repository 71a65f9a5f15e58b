//! Reading a capture as its bytes arrive: the five format crates' push parsers under one trait,
//! and the loop that feeds one from an [`Arriving`] source.
//!
//! Each format crate has a `PushParser` whose `parse(data, eof)` answers with a
//! [`Pushed`]: an item read from the front of `data`, a request for more
//! bytes, or the end. [`PushParse`] is that method for any of them, and [`pump`] is the loop every
//! caller would write: read a piece, parse until the parser needs more, drop the bytes it
//! consumed, and go on until the format's end or until no more bytes come. The buffer then holds
//! at most one incomplete item and one piece ([`PIECE`](crate::open::PIECE)), whatever the size of
//! the capture.

use std::io;

use tracecap_wire::Pushed;

use crate::open::{Arrival, Arriving, Stop};

/// A format crate's push parser (see the [module docs](self)).
pub trait PushParse {
    /// What the parser yields: a borrowed view of the bytes given, or of the parser.
    type Item<'a>
    where
        Self: 'a;
    /// The crate's error (with its absolute offset).
    type Error;

    /// Reads the next item from `data`, the bytes not yet consumed; `eof` says no more will come.
    fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<Self::Item<'a>>, Self::Error>;

    /// The absolute offset of the first byte of the next `data`.
    fn offset(&self) -> u64;

    /// Reads the items `data` holds and gives them to `each`, in order, until the parser needs
    /// more bytes or `each` fails: [`Pushed::Item`] with how many items were given and the bytes
    /// they consumed, else the parser's `NeedMore` or `End` (no item given). The items, the
    /// parser's state after them and the errors are those of [`PushParse::parse`] called once
    /// per item; on an error, the items before it were given. By default one item a call; a
    /// parser that reads several in one loop for less (WTF's `parse_many_while`) overrides it.
    /// [`pump`] and [`whole`] read through this method.
    #[inline]
    fn parse_many<E>(
        &mut self,
        data: &[u8],
        eof: bool,
        mut each: impl for<'a> FnMut(Self::Item<'a>) -> Result<(), E>,
    ) -> Result<Pushed<u64>, PumpError<Self::Error, E>> {
        match self.parse(data, eof).map_err(PumpError::Parse)? {
            Pushed::Item { consumed, item } => {
                each(item).map_err(PumpError::Each)?;
                Ok(Pushed::Item { consumed, item: 1 })
            }
            Pushed::NeedMore { hint } => Ok(Pushed::NeedMore { hint }),
            Pushed::End => Ok(Pushed::End),
        }
    }
}

/// How a [`pump`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pumped {
    /// Why no more bytes were read, if the source stopped before the format's end.
    pub stop: Option<Stop>,
    /// Bytes read from the source.
    pub read: u64,
    /// The offset after the last item: bytes from here to `read` were not used (after the
    /// format's end mark, or an incomplete item when the source stopped).
    pub parsed: u64,
}

/// Why a [`pump`] failed: the source could not be read, the parser found a fault, or the
/// caller's `each` failed.
#[derive(Debug)]
pub enum PumpError<P, E> {
    /// Reading the source failed (the error names the path).
    Io(io::Error),
    /// The parser's fault, at its absolute offset.
    Parse(P),
    /// The caller's error, returned from `each`.
    Each(E),
}

/// Feeds `parser` from `source` and gives each item to `each`, until the parser reports the
/// format's end, or the source stops and the parser, told so, has nothing more. A followed file
/// that shrank or was replaced ends the loop at once, with that [`Stop`]. `buffer` is the
/// caller's (reused across calls); on return it holds the bytes not consumed.
pub fn pump<P, E>(
    source: &mut Arriving,
    parser: &mut P,
    buffer: &mut Vec<u8>,
    each: impl for<'a> FnMut(P::Item<'a>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    let mut each = each;
    pump_into(source, parser, buffer, None, |fed| match fed {
        Fed::Item(item) => each(item),
        Fed::Reading => Ok(()),
    })
}

/// What [`pump_noting`] gives its closure.
#[derive(Debug)]
pub enum Fed<T> {
    /// The next item.
    Item(T),
    /// Every item the bytes read so far make was given: more are read now, and may take a while
    /// to come (a followed file, a pipe). A caller that prints flushes its output here.
    Reading,
}

/// [`pump`] that also tells `each` when it has every item so far and reads more
/// ([`Fed::Reading`]), so that output printed as items come is seen while the source is awaited.
pub fn pump_noting<P, E>(
    source: &mut Arriving,
    parser: &mut P,
    buffer: &mut Vec<u8>,
    each: impl for<'a> FnMut(Fed<P::Item<'a>>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    pump_into(source, parser, buffer, None, each)
}

/// [`pump`] that also writes every byte read from `source` to `keep` (a
/// [`Spool`](crate::open::Spool), say), for a caller that needs the whole capture at the end (a
/// conversion of a followed stream) and learns from the parser, as the bytes come, how far whole
/// items reach and where the format ends. `buffer` holds only the bytes not consumed, as with
/// [`pump`]; bytes already in it when called are the caller's to keep.
pub fn pump_keeping<P, E>(
    source: &mut Arriving,
    parser: &mut P,
    buffer: &mut Vec<u8>,
    keep: &mut dyn io::Write,
    each: impl for<'a> FnMut(P::Item<'a>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    let mut each = each;
    pump_into(source, parser, buffer, Some(keep), |fed| match fed {
        Fed::Item(item) => each(item),
        Fed::Reading => Ok(()),
    })
}

fn pump_into<P, E>(
    source: &mut Arriving,
    parser: &mut P,
    buffer: &mut Vec<u8>,
    mut keep: Option<&mut dyn io::Write>,
    mut each: impl for<'a> FnMut(Fed<P::Item<'a>>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    let mut start = 0usize;
    let mut stop = None;
    loop {
        let step = {
            let data = buffer.get(start..).unwrap_or_default();
            let answer = parser.parse_many(data, stop.is_some(), |item| each(Fed::Item(item)))?;
            match answer {
                Pushed::Item { consumed, .. } => Step::Took(consumed),
                Pushed::NeedMore { .. } if stop.is_none() => Step::More,
                // More asked for after the parser was told nothing more comes: a parser that
                // answers so has nothing pending, which is an end.
                Pushed::NeedMore { .. } | Pushed::End => Step::End,
            }
        };
        match step {
            Step::Took(consumed) => start = start.saturating_add(consumed).min(buffer.len()),
            Step::More => {
                buffer.drain(..start);
                start = 0;
                each(Fed::Reading).map_err(PumpError::Each)?;
                let before = buffer.len();
                match source.read_more(buffer).map_err(PumpError::Io)? {
                    Arrival::More(_) => {
                        if let Some(keep) = keep.as_mut() {
                            let new = buffer.get(before..).unwrap_or_default();
                            keep.write_all(new).map_err(PumpError::Io)?;
                        }
                    }
                    // The bytes read may no longer be the file's: no end is read from them.
                    Arrival::Stopped(why) if why.is_fault() => {
                        return Ok(Pumped {
                            stop: Some(why),
                            read: source.position(),
                            parsed: parser.offset(),
                        })
                    }
                    Arrival::Stopped(why) => stop = Some(why),
                }
            }
            Step::End => {
                buffer.drain(..start);
                return Ok(Pumped {
                    stop,
                    read: source.position(),
                    parsed: parser.offset(),
                });
            }
        }
    }
}

/// What [`pump`] does after one answer of the parser.
enum Step {
    Took(usize),
    More,
    End,
}

/// What the conversion of an arriving capture gives
/// ([`adapter::convert_arriving`](crate::adapter::convert_arriving)): a failed read of the
/// source, or the conversion's result with how the reading ended.
pub type Arrived<E> = io::Result<Result<Pumped, crate::error::ConvertError<E>>>;

/// Where a [`Feed`] takes its bytes from.
#[derive(Debug)]
pub enum Feed<'s> {
    /// A whole capture in memory (a mapped file): parsed in place, with `eof` set.
    Whole(&'s [u8]),
    /// Bytes as they arrive, read into the caller's buffer (see [`pump`]).
    Arriving(&'s mut Arriving, &'s mut Vec<u8>),
}

impl Feed<'_> {
    /// Runs `parser` over the feed's bytes, giving each item to `each` (see [`pump`]). A whole
    /// capture gives the same items as the same bytes arriving in any pieces.
    pub fn run<P, E>(
        self,
        parser: &mut P,
        each: impl for<'a> FnMut(P::Item<'a>) -> Result<(), E>,
    ) -> Result<Pumped, PumpError<P::Error, E>>
    where
        P: PushParse,
    {
        match self {
            Feed::Whole(data) => whole(data, parser, each),
            Feed::Arriving(source, buffer) => pump(source, parser, buffer, each),
        }
    }
    /// [`Feed::run`] that also tells `each` when the items read so far were all given and more
    /// bytes are awaited ([`Fed::Reading`], see [`pump_noting`]); a whole capture never waits.
    pub fn run_noting<P, E>(
        self,
        parser: &mut P,
        mut each: impl for<'a> FnMut(Fed<P::Item<'a>>) -> Result<(), E>,
    ) -> Result<Pumped, PumpError<P::Error, E>>
    where
        P: PushParse,
    {
        match self {
            Feed::Whole(data) => whole(data, parser, |item| each(Fed::Item(item))),
            Feed::Arriving(source, buffer) => pump_noting(source, parser, buffer, each),
        }
    }
}

/// [`pump`] over bytes already in memory: no copy, `eof` set from the first call.
pub fn whole<P, E>(
    data: &[u8],
    parser: &mut P,
    mut each: impl for<'a> FnMut(P::Item<'a>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    let mut start = 0usize;
    loop {
        let step = {
            let rest = data.get(start..).unwrap_or_default();
            match parser.parse_many(rest, true, &mut each)? {
                Pushed::Item { consumed, .. } => Step::Took(consumed),
                Pushed::NeedMore { .. } | Pushed::End => Step::End,
            }
        };
        match step {
            Step::Took(consumed) => start = start.saturating_add(consumed).min(data.len()),
            Step::More | Step::End => {
                return Ok(Pumped {
                    stop: None,
                    read: data.len() as u64,
                    parsed: parser.offset(),
                })
            }
        }
    }
}

/// Implements [`PushParse`] for a format crate's parser whose `parse` has the shared signature.
macro_rules! push_parse {
    ($feature:literal, $krate:ident, $item:ty $(, $many:item)?) => {
        #[cfg(feature = $feature)]
        impl PushParse for $krate::PushParser {
            type Item<'a> = $item;
            type Error = $krate::Error;

            fn parse<'a>(
                &'a mut self,
                data: &'a [u8],
                eof: bool,
            ) -> Result<Pushed<Self::Item<'a>>, Self::Error> {
                $krate::PushParser::parse(self, data, eof)
            }

            fn offset(&self) -> u64 {
                $krate::PushParser::offset(self)
            }
            $($many)?
        }
    };
}

push_parse!(
    "syscall",
    tracecap_syscall,
    tracecap_syscall::push::PushItem<'a>
);
push_parse!(
    "wtf",
    tracecap_wtf,
    tracecap_wtf::push::PushItem<'a>,
    /// The items through [`tracecap_wtf::push::PushParser::parse_many_while`] (a chunk's plain
    /// events in one loop), stopped after the first item `each` fails on.
    #[inline]
    fn parse_many<E>(
        &mut self,
        data: &[u8],
        eof: bool,
        mut each: impl for<'a> FnMut(Self::Item<'a>) -> Result<(), E>,
    ) -> Result<Pushed<u64>, PumpError<Self::Error, E>> {
        let mut failed = None;
        let answer = self.parse_many_while(data, eof, |item| match each(item) {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                std::ops::ControlFlow::Break(())
            }
        });
        match (answer, failed) {
            (_, Some(e)) => Err(PumpError::Each(e)),
            (answer, None) => answer.map_err(PumpError::Parse),
        }
    }
);
push_parse!("orbit", tracecap_orbit, tracecap_orbit::push::PushItem<'a>);
push_parse!(
    "easyprofiler",
    tracecap_easyprofiler,
    tracecap_easyprofiler::push::PushItem<'a>
);
push_parse!(
    "apitrace",
    tracecap_apitrace,
    (
        tracecap_apitrace::Event<'a>,
        &'a tracecap_apitrace::SigTable
    )
);

#[cfg(all(test, feature = "wtf"))]
mod tests {
    use super::*;
    use tracecap_wtf::push::{PushItem, PushParser};

    /// The WTF captures read here: the crate's example and the corpus's chunked files (when the
    /// corpus is there).
    fn captures() -> Vec<Vec<u8>> {
        let mut out = vec![tracecap_wtf::doc_example().to_vec()];
        if let Some(dir) = tracecap_testkit::corpus("wtf") {
            for name in [
                "cff-cpp/cpp-basic.wtf-trace",
                "cff-cpp/cpp-threads.wtf-trace",
                "cff-cpp/cpp-big.wtf-trace",
                "cff-js/js-snapshot-alltypes.wtf-trace",
                "legacy-v3/blk-client-head.wtf-trace",
            ] {
                out.extend(std::fs::read(dir.join(name)).ok());
            }
        }
        out
    }

    /// Every item of `data` from `parse`, one call an item, each with the parser's offset after
    /// it, and the error that ended the walk.
    fn one_at_a_time(data: &[u8]) -> (Vec<(String, u64)>, Option<tracecap_wtf::Error>) {
        let mut parser = PushParser::new();
        let (mut out, mut start) = (Vec::new(), 0usize);
        loop {
            let answer = PushParse::parse(&mut parser, &data[start..], true);
            match answer {
                Ok(Pushed::Item { consumed, item }) => {
                    let text = format!("{item:?}");
                    out.push((text, PushParse::offset(&parser)));
                    start += consumed;
                }
                Ok(_) => return (out, None),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    #[test]
    fn the_batch_gives_the_items_of_parse_one_at_a_time() {
        let captures = captures();
        assert!(!captures.is_empty());
        for data in &captures {
            let (want, want_err) = one_at_a_time(data);
            assert!(want.len() > 3);
            let mut parser = PushParser::new();
            let mut got = Vec::new();
            let each = |item: PushItem<'_>| {
                got.push(format!("{item:?}"));
                Ok::<(), ()>(())
            };
            let pumped = whole(data, &mut parser, each);
            let texts: Vec<_> = want.iter().map(|(t, _)| t.clone()).collect();
            assert_eq!(got, texts);
            match (pumped, want_err) {
                (Ok(p), None) => assert_eq!(p.parsed, want.last().map_or(0, |w| w.1)),
                (Err(PumpError::Parse(e)), Some(w)) => assert_eq!(e, w),
                (p, w) => panic!("{p:?} against {w:?}"),
            }
        }
    }

    #[test]
    fn an_each_that_fails_stops_the_batch_after_its_item() {
        for data in &captures() {
            let (want, _) = one_at_a_time(data);
            let n = want.len();
            for k in [0, 1, 2, 3, n / 3, n / 2, n - 2, n - 1] {
                let mut parser = PushParser::new();
                let mut seen = 0usize;
                let each = |_: PushItem<'_>| {
                    seen += 1;
                    if seen > k {
                        Err(seen)
                    } else {
                        Ok(())
                    }
                };
                let pumped = whole(data, &mut parser, each);
                assert!(
                    matches!(pumped, Err(PumpError::Each(s)) if s == k + 1),
                    "{pumped:?}"
                );
                assert_eq!(seen, k + 1);
                // The parser stands where `parse` left it after that item.
                assert_eq!(PushParse::offset(&parser), want[k].1, "item {k} of {n}");
            }
        }
    }
}
