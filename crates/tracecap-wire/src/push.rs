//! The answer of a push parser: what every format crate's `PushParser` gives back.
//!
//! A push parser reads a capture whose bytes arrive over time (a file still being written, a
//! socket, a pipe). The caller owns the buffer: it appends the bytes it receives and calls the
//! parser's `parse(data, eof)` with the bytes not yet consumed. The parser answers with a
//! [`Pushed`]:
//!
//! - [`Pushed::Item`]: an item read from the first `consumed` bytes of `data`. The item borrows
//!   from `data` (or from the parser), so the caller uses it, then drops those bytes from the front
//!   of its buffer and calls again;
//! - [`Pushed::NeedMore`]: nothing more can be read until more bytes arrive; `hint` says how many
//!   more bytes at least, where the format knows;
//! - [`Pushed::End`]: the capture is over, at the format's own end or because `eof` was set and
//!   nothing is pending.
//!
//! The parser keeps the absolute offset of the first byte of `data`, so its items and errors name
//! positions in the capture, as the whole-file readers do. With `eof` set, bytes that cannot make
//! a whole item are an error (the same truncation the whole-file reader reports), not a request
//! for more.
//!
//! The loop every caller writes, shown with a toy parser whose items are the bytes of `data`
//! one at a time:
//!
//! ```
//! use tracecap_wire::Pushed;
//!
//! struct Bytes;
//! impl Bytes {
//!     fn parse<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<&'a u8>, ()> {
//!         Ok(match data.first() {
//!             Some(b) => Pushed::Item { consumed: 1, item: b },
//!             None if eof => Pushed::End,
//!             None => Pushed::NeedMore { hint: Some(1) },
//!         })
//!     }
//! }
//!
//! let arriving: [&[u8]; 3] = [b"ab", b"", b"c"];
//! let mut parser = Bytes;
//! let mut buffer = Vec::new();
//! let mut seen = Vec::new();
//! let mut pieces = arriving.iter();
//! loop {
//!     let eof = pieces.len() == 0;
//!     match parser.parse(&buffer, eof)? {
//!         Pushed::Item { consumed, item } => {
//!             seen.push(*item);
//!             buffer.drain(..consumed);
//!         }
//!         Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
//!         Pushed::End => break,
//!     }
//! }
//! assert_eq!(seen, b"abc");
//! # Ok::<(), ()>(())
//! ```

/// What a push parser answers to one call of its `parse(data, eof)`; see the [module](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pushed<T> {
    /// `item` was read from the first `consumed` bytes of the data given. `consumed` may be 0
    /// for an item the parser makes from what it holds (for example a gap it finished
    /// counting); the caller still calls again.
    Item {
        /// How many bytes from the front of `data` the caller may drop.
        consumed: usize,
        /// The item read.
        item: T,
    },
    /// Nothing more can be read from `data` until more bytes arrive.
    NeedMore {
        /// At least how many more bytes the next item needs, where the format says.
        hint: Option<u64>,
    },
    /// The capture ended: its format's own end mark, or `eof` with nothing pending.
    End,
}

impl<T> Pushed<T> {
    /// The item, if this answer carries one.
    pub fn item(self) -> Option<T> {
        match self {
            Pushed::Item { item, .. } => Some(item),
            _ => None,
        }
    }

    /// The same answer with its item mapped by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Pushed<U> {
        match self {
            Pushed::Item { consumed, item } => Pushed::Item {
                consumed,
                item: f(item),
            },
            Pushed::NeedMore { hint } => Pushed::NeedMore { hint },
            Pushed::End => Pushed::End,
        }
    }
}
