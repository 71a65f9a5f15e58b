//! Reading a capture as its bytes arrive: the five format crates' push parsers under one trait,
//! and the loop that feeds one from an [`Arriving`] source.
//!
//! Each format crate has a `PushParser` whose `parse(data, eof)` answers with a
//! [`Pushed`](tracecap_wire::Pushed): an item read from the front of `data`, a request for more
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
/// format's end, or the source stops and the parser, told so, has nothing more. `buffer` is the
/// caller's (reused across calls); on return it holds the bytes not consumed.
pub fn pump<P, E>(
    source: &mut Arriving,
    parser: &mut P,
    buffer: &mut Vec<u8>,
    mut each: impl for<'a> FnMut(P::Item<'a>) -> Result<(), E>,
) -> Result<Pumped, PumpError<P::Error, E>>
where
    P: PushParse,
{
    let mut start = 0usize;
    let mut stop = None;
    loop {
        let step = {
            let data = buffer.get(start..).unwrap_or_default();
            let answer = parser.parse(data, stop.is_some());
            match answer {
                Err(e) => Err(PumpError::Parse(e)),
                Ok(Pushed::Item { consumed, item }) => each(item)
                    .map(|()| Step::Took(consumed))
                    .map_err(PumpError::Each),
                Ok(Pushed::NeedMore { .. }) if stop.is_none() => Ok(Step::More),
                // More asked for after the parser was told nothing more comes: a parser that
                // answers so has nothing pending, which is an end.
                Ok(Pushed::NeedMore { .. } | Pushed::End) => Ok(Step::End),
            }
        }?;
        match step {
            Step::Took(consumed) => start = start.saturating_add(consumed).min(buffer.len()),
            Step::More => {
                buffer.drain(..start);
                start = 0;
                match source.read_more(buffer).map_err(PumpError::Io)? {
                    Arrival::More(_) => {}
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
