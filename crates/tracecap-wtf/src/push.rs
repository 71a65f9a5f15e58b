//! Reading a capture as its bytes arrive (feature `alloc`): [`PushParser`], fed the bytes of a
//! file still being written, a socket or a pipe, gives the chunks and events the whole-file walk
//! gives, in the same order, with the same offsets and the same errors.
//!
//! The caller owns the buffer. It appends the bytes it receives and calls
//! [`PushParser::parse`] with the bytes it has not yet dropped; the answer is a
//! [`Pushed`]:
//!
//! - `Item { consumed, item }`: a [`PushItem`], read from `data`. The caller uses it, then drops
//!   `consumed` bytes from the front of its buffer;
//! - `NeedMore { hint }`: the next chunk (or legacy event) is not whole yet; `hint` is how many
//!   more bytes it needs at least, where the chunk header says;
//! - `End`: `eof` was set and every byte was read.
//!
//! The first item is [`PushItem::Header`], once the header is whole; after each
//! `wtf.event#define` event comes [`PushItem::Defined`], the definition it put in force (what a
//! dump prints, and what the walk's table then holds). Neither consumes bytes.
//!
//! # What is held, and for how long
//!
//! A chunked file is read a chunk at a time: a chunk's events need its string table, which may
//! come after them, so the parser waits until the whole chunk is in `data` (`NeedMore` until
//! then), yields [`PushItem::Chunk`], then each event of the chunk as [`PushItem::Event`]. The
//! chunk's bytes stay in the caller's buffer while its events are read (their items consume
//! nothing) and go with its last event (a chunk without events goes with the next chunk's item;
//! the first chunk's item also consumes the 12-byte prologue). So the caller's buffer holds the
//! chunk being read and the bytes that arrived after it; a chunk is as long as its header says
//! (a `u32`; recorders write a few MiB at most).
//!
//! A legacy file (format 3) has no chunks: each event is yielded once it is whole, and consumes
//! its own bytes (the first one also the header's).
//!
//! Between calls the parser itself holds the event definitions read so far (definitions persist
//! across chunks, so their names and signatures are copied out of the chunk that defined them;
//! this grows with the definitions, as [`DefinitionTable`] does, never
//! with events), the current zone, the number of chunks read, where the walk stands in the
//! current chunk, and a copy of the header's bytes for [`PushParser::header`] (the prologue, and
//! the first chunk when it is the file-header chunk; the legacy header).
//!
//! Neither container has an end mark: `End` comes with `eof` once every byte was read (the bytes
//! of a last chunk without events are never consumed; the caller drops them with its buffer),
//! and there are no bytes "after the end" to treat. At `eof`,
//! a chunk or event cut short gives what the whole-file walk gives on the same bytes: the events
//! wholly before the cut, then the truncation at its offset. Compressed captures are not read
//! here (nor by [`Capture::parse`](crate::Capture::parse)): decompress before feeding.
//! After an error, every later call returns the same error.
//!
//! # Example
//!
//! A capture that arrives in pieces (here from memory; a growing file or a socket reads the
//! same way):
//!
//! ```
//! use tracecap_wtf::push::{PushItem, PushParser, Pushed};
//!
//! # fn main() -> Result<(), tracecap_wtf::Error> {
//! let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
//! let mut pieces = bytes.chunks(7);
//! let mut parser = PushParser::new();
//! let mut buffer: Vec<u8> = Vec::new();
//! let mut names = Vec::new();
//! loop {
//!     let eof = pieces.len() == 0;
//!     match parser.parse(&buffer, eof)? {
//!         Pushed::Item { consumed, item } => {
//!             if let PushItem::Event(event) = item {
//!                 names.push(event.name().to_string());
//!             }
//!             buffer.drain(..consumed);
//!         }
//!         Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap_or(&[])),
//!         Pushed::End => break,
//!     }
//! }
//! assert_eq!(names, ["wtf.event#define", "App#tick"]);
//! # Ok(()) }
//! ```
//!
//! From a socket, reading until the peer closes it:
//!
//! ```no_run
//! use std::io::Read;
//! use tracecap_wtf::push::{PushItem, PushParser, Pushed};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut socket = std::net::TcpStream::connect("127.0.0.1:9023")?;
//! let mut parser = PushParser::new();
//! let (mut buffer, mut piece, mut eof) = (Vec::new(), vec![0u8; 64 << 10], false);
//! loop {
//!     match parser.parse(&buffer, eof)? {
//!         Pushed::Item { consumed, item } => {
//!             if let PushItem::Event(event) = item {
//!                 println!("{:>10} {}", event.time, event.name());
//!             }
//!             buffer.drain(..consumed);
//!         }
//!         Pushed::NeedMore { .. } => {
//!             let n = socket.read(&mut piece)?;
//!             eof = n == 0;
//!             buffer.extend_from_slice(&piece[..n]);
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! # Ok(()) }
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ops::ControlFlow;

/// The answer of [`PushParser::parse`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::Pushed;

use crate::builtin::Builtin;
use crate::chunk::{Chunk, Chunks, CHUNK_FILE_HEADER, PROLOGUE_LEN};
use crate::defs::FLAG_BUILTIN;
use crate::defs::{Definition, DefinitionLookup, DefinitionTable};
use crate::error::Error;
use crate::event::{Event, EventHead};
use crate::header::{Container, Header};
use crate::signature::ArgType;
use crate::strings::StringTable;
use crate::value::Encoding;
use crate::walk::{plain_event_by, ChunkPlace, Events, Suspended, NO_ZONE};

/// What [`PushParser::parse`] yields: the header, then the items of the whole-file walks,
/// [`Capture::chunks`] and [`Capture::events`], in file order (a chunk, then its events), each
/// definition after the event that made it.
///
/// [`Capture::chunks`]: crate::Capture::chunks
/// [`Capture::events`]: crate::Capture::events
#[derive(Clone, Copy, Debug)]
pub enum PushItem<'a> {
    /// The file header, yielded once before anything else (consuming nothing), when the
    /// prologue and the first chunk (chunked) or the legacy header are whole: what
    /// [`Capture::header`](crate::Capture::header) gives.
    Header(Header<'a>),
    /// After a `wtf.event#define` event, the definition in force for the wire id its first
    /// argument names (as [`Events::table`](crate::Events::table) then looks it up), with its
    /// name and signature; consumes nothing. Not yielded when that wire id has no definition.
    Defined(Definition<'a>),
    /// A chunk, yielded once it is whole (or cut by `eof`), before its events; only the chunks
    /// the events walk reaches (a file whose events fail in a chunk yields no later chunk).
    Chunk(Chunk<'a>),
    /// An event, as the events walk yields it.
    Event(Event<'a>),
}

/// The definitions read so far: a growable table whose entries keep their names and signatures
/// in `names` (the chunk that defined them is gone once the caller drops it). The table's entries
/// carry empty names; [`Defs::name`] puts them back.
#[derive(Debug)]
struct Defs {
    table: DefinitionTable<'static>,
    /// Per wire id defined in the file: its name and signature, copied (boxed strings give them
    /// without the bounds and boundary checks of slicing one text).
    names: Vec<Option<Names>>,
    /// Per wire id below [`DIRECT`] (up to the largest defined): its definition as the table
    /// holds it with its name and signature, read on every event of the plain path (one bounds
    /// check and one entry, where the table and `names` take two of each); for the wire ids
    /// nothing defines, a definition whose shape the plain path declines.
    direct: Vec<Named>,
    /// The wire id the last insertion redefined and its former names: the event that defined it
    /// was read with the former definition.
    replaced: Replaced,
}

/// Wire ids below this have an entry in [`Defs::direct`] (recorders number their events from 1
/// up; the others are looked up in the table and in `names`).
const DIRECT: usize = 4096;

/// A definition with its name and signature (see [`Defs::direct`]).
#[derive(Clone, Debug)]
struct Named {
    def: Definition<'static>,
    name: Box<str>,
    signature: Box<str>,
}

/// A definition's name and signature.
type Names = (Box<str>, Box<str>);

/// A wire id an insertion redefined, and its former name and signature.
type Replaced = Option<(u16, Option<Names>)>;

impl Defs {
    fn new() -> Self {
        let mut defs = Defs {
            table: DefinitionTable::new(),
            names: Vec::new(),
            direct: Vec::new(),
            replaced: None,
        };
        // The implicit `wtf.event#define`.
        defs.set_direct(1);
        defs
    }

    /// Puts on `def`, the definition of `wire_id` as the table holds it, its name and signature.
    #[inline(always)]
    fn name<'a>(&'a self, def: &mut Definition<'a>, wire_id: u32, replaced: &'a Replaced) {
        let names = match replaced {
            Some((id, names)) if u32::from(*id) == wire_id => names.as_ref(),
            _ => self.names.get(wire_id as usize).and_then(Option::as_ref),
        };
        if let Some((name, signature)) = names {
            def.name = name;
            def.signature = signature;
        }
    }

    /// The definition of `wire_id` for the plain path (which declines the placeholders of wire
    /// ids nothing defines), and its name and signature.
    #[inline(always)]
    fn plain(&self, wire_id: u32) -> Option<(&Definition<'static>, (&str, &str))> {
        match self.direct.get(wire_id as usize) {
            Some(e) => Some((&e.def, (&e.name, &e.signature))),
            None => self.far(wire_id),
        }
    }

    /// The name and signature of `wire_id`, whose definition the plain path read.
    #[inline(always)]
    fn plain_names(&self, wire_id: u32) -> (&str, &str) {
        match self.direct.get(wire_id as usize) {
            Some(e) => (&e.name, &e.signature),
            None => self.far(wire_id).map_or(("", ""), |(_, names)| names),
        }
    }

    /// [`Defs::plain`] past [`Defs::direct`].
    #[inline(never)]
    fn far(&self, wire_id: u32) -> Option<(&Definition<'static>, (&str, &str))> {
        let def = self.table.get_for_walk(wire_id)?;
        let names = match self.names.get(wire_id as usize) {
            Some(Some((name, signature))) => (&**name, &**signature),
            _ => (def.name, def.signature),
        };
        Some((def, names))
    }

    /// Makes the entry of `id` in [`Defs::direct`] what the table and `names` hold.
    fn set_direct(&mut self, id: usize) {
        let Some(def) = u32::try_from(id)
            .ok()
            .and_then(|w| self.table.get(w))
            .copied()
        else {
            return;
        };
        if id >= DIRECT {
            return;
        }
        let (name, signature) = match self.names.get(id) {
            Some(Some((name, signature))) => (name.clone(), signature.clone()),
            _ => (Box::from(def.name), Box::from(def.signature)),
        };
        let named = Named {
            def,
            name,
            signature,
        };
        if self.direct.len() <= id {
            let placeholder = Named {
                def: Definition::placeholder(),
                name: Box::default(),
                signature: Box::default(),
            };
            self.direct.resize(id + 1, placeholder);
        }
        if let Some(slot) = self.direct.get_mut(id) {
            *slot = named;
        }
    }
}

impl<'a> DefinitionLookup<'a> for Defs {
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), crate::ErrorKind> {
        let id = usize::from(def.wire_id);
        if self.names.len() <= id {
            self.names.resize(id + 1, None);
        }
        if let Some(slot) = self.names.get_mut(id) {
            let names = (Box::from(def.name), Box::from(def.signature));
            self.replaced = Some((def.wire_id, slot.replace(names)));
        }
        let bare = Definition {
            name: "",
            signature: "",
            shape: def.shape,
            flags: def.flags,
            wire_id: def.wire_id,
            class: def.class,
        };
        self.table.insert(bare, types)?;
        self.set_direct(id);
        Ok(())
    }

    #[inline]
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])> {
        self.table.lookup(wire_id)
    }

    #[inline(always)]
    fn get(&self, wire_id: u32) -> Option<&Definition<'a>> {
        self.table.get(wire_id)
    }

    #[inline(always)]
    fn get_for_walk(&self, wire_id: u32) -> Option<&Definition<'a>> {
        self.table.get_for_walk(wire_id)
    }

    fn len(&self) -> usize {
        DefinitionLookup::len(&self.table)
    }
}

/// Where the parser stands.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Before the header: nothing consumed yet.
    Header,
    /// At the start of a chunk (`skip` bytes into `data`).
    Chunk,
    /// In the events of the chunk that ends `end` bytes into `data`: `walk` is where the walk
    /// stands, `None` before its first event.
    Events { end: usize, walk: Option<Suspended> },
    /// In a legacy file's events (`skip` bytes into `data`).
    Legacy,
    /// Just after a `wtf.event#define` event that named `wire`: the definition item comes
    /// next, then the walk goes on from `PushParser::after_define`.
    Defined(u32),
    /// Past the end.
    End,
    /// After an error.
    Failed(Error),
}

/// A parser fed a capture's bytes as they arrive; see the [module](self) for the protocol and
/// what it holds.
#[derive(Debug)]
pub struct PushParser {
    /// Absolute offset of the first byte of the next `data`.
    offset: u64,
    /// Bytes at the front of `data` already read, which the next item consumes.
    skip: usize,
    phase: Phase,
    /// The header's bytes (see [`PushParser::header`]), once read.
    head: Option<Vec<u8>>,
    defs: Defs,
    /// Chunks read so far.
    chunks: u32,
    /// The zone in force (the walker's zone id).
    zone: u32,
    /// What the last event's definition replaced (see [`Defs::name`]).
    replaced: Replaced,
    /// Where the walk goes on after a [`Phase::Defined`].
    after_define: Phase,
}

impl Default for PushParser {
    fn default() -> Self {
        Self::new()
    }
}

impl PushParser {
    /// A parser at the start of a capture.
    pub fn new() -> Self {
        PushParser {
            offset: 0,
            skip: 0,
            phase: Phase::Header,
            head: None,
            defs: Defs::new(),
            chunks: 0,
            zone: NO_ZONE,
            replaced: None,
            after_define: Phase::End,
        }
    }

    /// Absolute file offset of the first byte of the next `data`.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The file header (container, versions, header JSON or legacy header), once read: from the
    /// first call that had the prologue and the first chunk whole (chunked) or the legacy header.
    pub fn header(&self) -> Option<Header<'_>> {
        self.head.as_deref().and_then(|b| Header::parse(b).ok())
    }

    /// The definition in force for `wire_id` after the items yielded so far, with its name and
    /// signature.
    pub fn definition(&self, wire_id: u32) -> Option<Definition<'_>> {
        let mut def = *self.defs.table.get(wire_id)?;
        self.defs.name(&mut def, wire_id, &None);
        Some(def)
    }

    /// Reads the next item from `data`, the bytes after those consumed so far; `eof` says that
    /// no more bytes will come. See the [module](self).
    #[inline(always)]
    pub fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        // The plain path (most events) here, inlined into the caller's loop; the rest out of line.
        match self.plain(data) {
            Some((head, mut def, args, strings, consumed)) => {
                let this: &'a Self = self;
                (def.name, def.signature) = this.defs.plain_names(head.wire_id);
                Ok(Pushed::Item {
                    consumed,
                    item: PushItem::Event(Event::new(head, def, strings, args, Encoding::Chunked)),
                })
            }
            None => self.parse_general(data, eof),
        }
    }

    /// Hands every item that can be read now to `f`, and answers with how many there were:
    /// [`Pushed::Item`] with `item` items (at least one) and `consumed` the bytes they took, else
    /// `NeedMore` or `End` as [`PushParser::parse`] answers. The same items, in the same order,
    /// as `parse` called until it asks for more; faster: the events of a chunk that the plain
    /// path takes are read in one loop, with the chunk's position and string table made once.
    /// On an error, the items before it have been handed to `f`.
    #[inline]
    pub fn parse_many(
        &mut self,
        data: &[u8],
        eof: bool,
        mut f: impl FnMut(PushItem<'_>),
    ) -> Result<Pushed<u64>, Error> {
        self.parse_many_while(data, eof, |item| {
            f(item);
            ControlFlow::Continue(())
        })
    }

    /// [`PushParser::parse_many`] that stops after an item for which `f` answers
    /// [`ControlFlow::Break`]: the answer then counts the items handed to `f`, that one included,
    /// and the bytes they took, and the parser stands where `parse` would after that item.
    pub fn parse_many_while(
        &mut self,
        data: &[u8],
        eof: bool,
        mut f: impl FnMut(PushItem<'_>) -> ControlFlow<()>,
    ) -> Result<Pushed<u64>, Error> {
        let mut n = 0u64;
        let mut consumed = 0usize;
        // The plain events of the current chunk are read with one cursor, `buf`, over the rest
        // of its event buffer: a local, as the whole-file walk keeps it, so that the position is
        // not stored and loaded again between events. `place` is what they get besides. Nothing
        // else changes from one plain event to the next but the count: between runs `buf` is
        // empty, so the plain path declines at once, and what a run needs when it ends or
        // starts is kept for that path (`active`: a run is under way, `before` the length of
        // its `buf` when it started; `restart`: try to start one).
        let (mut buf, mut place): (&[u8], ChunkPlace<'_>) = (&[], no_place());
        let (mut before, mut active, mut restart) = (0usize, false, true);
        loop {
            // One call of `f` for both paths, so that it is inlined once.
            let item = match plain_event_by(|id| self.defs.plain(id), &mut buf, &place) {
                Some((found, (name, signature))) => {
                    let mut def = *found.def;
                    (def.name, def.signature) = (name, signature);
                    let (head, args, strings) = (found.head, found.args, found.strings);
                    PushItem::Event(Event::new(head, def, strings, args, Encoding::Chunked))
                }
                None => {
                    if active {
                        active = false;
                        let read = buf.len() != before;
                        consumed = consumed.saturating_add(self.end_run(buf.len(), read));
                    }
                    if restart {
                        restart = false;
                        if let Some(run) = self.start_run(data.get(consumed..).unwrap_or(&[])) {
                            (buf, place) = run;
                            (before, active) = (buf.len(), true);
                            continue;
                        }
                    }
                    let rest = data.get(consumed..).unwrap_or(&[]);
                    let item = match self.parse_general(rest, eof)? {
                        Pushed::Item { consumed: c, item } => {
                            consumed = consumed.saturating_add(c);
                            item
                        }
                        other if n == 0 => return Ok(other.map(|_| 0)),
                        _ => return Ok(Pushed::Item { consumed, item: n }),
                    };
                    restart = true;
                    item
                }
            };
            n += 1;
            if f(item).is_break() {
                if active {
                    let read = buf.len() != before;
                    consumed = consumed.saturating_add(self.end_run(buf.len(), read));
                }
                return Ok(Pushed::Item { consumed, item: n });
            }
        }
    }

    /// The rest of the current chunk's event buffer and what its events get besides, when the
    /// walk stands in a chunk.
    #[inline(always)]
    fn start_run<'d>(&self, data: &'d [u8]) -> Option<(&'d [u8], ChunkPlace<'d>)> {
        let Phase::Events { walk: Some(at), .. } = &self.phase else {
            return None;
        };
        let rel = |o: u64| usize::try_from(o.wrapping_sub(self.offset)).ok();
        let buf = data.get(rel(at.buf_start)?..rel(at.buf_end)?)?;
        let place = ChunkPlace {
            buf_end: at.buf_end,
            chunk: at.chunk,
            zone: at.zone,
            strings: strings_of(data, self.offset, at),
        };
        Some((buf, place))
    }

    /// Puts the walk where a run stopped, `left` bytes before the end of the chunk's event
    /// buffer, having `read` events or none: the bytes consumed (the chunk's, when the run read
    /// its last event).
    fn end_run(&mut self, left: usize, read: bool) -> usize {
        let Phase::Events {
            walk: Some(at),
            end,
        } = &mut self.phase
        else {
            return 0;
        };
        at.buf_start = at.buf_end.saturating_sub(left as u64);
        let end = *end;
        if read && left == 0 && at.cut.is_none() {
            return self.end_chunk(end);
        }
        0
    }

    /// [`PushParser::parse`] past the plain path.
    #[inline(never)]
    fn parse_general<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        match self.phase {
            Phase::Header => {
                let header = match self.read_header(data, eof)? {
                    Ok(header) => header,
                    Err(wait) => return Ok(wait),
                };
                return Ok(Pushed::Item {
                    consumed: 0,
                    item: PushItem::Header(header),
                });
            }
            Phase::Defined(wire) => {
                self.phase = self.after_define;
                if self.defs.table.get(wire).is_some() {
                    let this: &'a Self = self;
                    let def = this
                        .definition(wire)
                        .unwrap_or_else(Definition::event_define);
                    return Ok(Pushed::Item {
                        consumed: 0,
                        item: PushItem::Defined(def),
                    });
                }
            }
            _ => {}
        }
        let next = self.advance(data, eof)?;
        let defined = match &next {
            Pushed::Item {
                item: PushItem::Event(event),
                ..
            } if event.def.flags & FLAG_BUILTIN != 0
                && event.def.builtin() == Some(Builtin::EventDefine) =>
            {
                Some(*event)
            }
            _ => None,
        };
        if let Some(mut event) = defined {
            // The wire id the dump looks up: the event's first argument, read with the
            // definition's names and signature.
            self.defs
                .name(&mut event.def, event.wire_id, &self.replaced);
            if let Some(wire) = event.arg(0).and_then(|v| v.as_u32()) {
                self.after_define = self.phase;
                self.phase = Phase::Defined(wire);
            }
        }
        let this: &'a Self = self;
        Ok(match next {
            Pushed::Item {
                consumed,
                item: PushItem::Event(mut event),
            } => {
                this.defs
                    .name(&mut event.def, event.wire_id, &this.replaced);
                Pushed::Item {
                    consumed,
                    item: PushItem::Event(event),
                }
            }
            other => other,
        })
    }

    /// Reads the next item; its event (if any) still without the names of its definition.
    fn advance<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<PushItem<'a>>, Error> {
        loop {
            match self.phase {
                Phase::Failed(e) => return Err(e),
                Phase::End => return Ok(Pushed::End),
                // Handled by `parse_general` before it comes here.
                Phase::Header | Phase::Defined(_) => return Ok(Pushed::NeedMore { hint: None }),
                Phase::Chunk => return self.chunk(data, eof),
                Phase::Events { end, walk } => {
                    if let Some(event) = self.walk_chunk(data, end, walk)? {
                        return Ok(event);
                    }
                }
                Phase::Legacy => return self.legacy(data, eof),
            }
        }
    }

    /// The next event of the current chunk when the plain path can take it (the walk's own
    /// plain path, see `walk.rs`): its header, definition (without its names, which
    /// [`Defs::plain_names`] gives), arguments and string table, and the bytes its item consumes.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn plain<'a>(
        &mut self,
        data: &'a [u8],
    ) -> Option<(EventHead, Definition<'a>, &'a [u8], StringTable<'a>, usize)> {
        let Phase::Events {
            walk: Some(at),
            end,
        } = &mut self.phase
        else {
            return None;
        };
        let rel = |o: u64| usize::try_from(o.wrapping_sub(self.offset)).ok();
        let mut buf = data.get(rel(at.buf_start)?..rel(at.buf_end)?)?;
        let place = ChunkPlace {
            buf_end: at.buf_end,
            chunk: at.chunk,
            zone: at.zone,
            strings: strings_of(data, self.offset, at),
        };
        let defs = &self.defs;
        let lookup = |id| Some((defs.plain(id)?.0, ()));
        let (found, ()) = plain_event_by(lookup, &mut buf, &place)?;
        let (head, def, args, strings) = (found.head, *found.def, found.args, found.strings);
        at.buf_start = at.buf_end.saturating_sub(buf.len() as u64);
        let (last, end) = (buf.is_empty() && at.cut.is_none(), *end);
        let consumed = if last { self.end_chunk(end) } else { 0 };
        Some((head, def, args, strings, consumed))
    }

    /// Leaves the chunk that ends `end` bytes into `data`, whose last event was just read:
    /// the bytes the item of that event consumes.
    fn end_chunk(&mut self, end: usize) -> usize {
        self.chunks = self.chunks.saturating_add(1);
        self.offset = self.offset.saturating_add(end as u64);
        self.skip = 0;
        self.phase = Phase::Chunk;
        end
    }

    /// Reads the header once it is whole; the answer while waiting for bytes.
    #[allow(clippy::type_complexity)]
    fn read_header<'a, 'b>(
        &mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Result<Header<'a>, Pushed<PushItem<'b>>>, Error> {
        let need_more = |n: usize| Pushed::NeedMore {
            hint: Some(n.saturating_sub(data.len()) as u64),
        };
        if data.len() < PROLOGUE_LEN && !eof {
            return Ok(Err(need_more(PROLOGUE_LEN)));
        }
        let chunked = data.first() == Some(&0xEF);
        if chunked && !eof {
            // The header reads the first chunk: wait for all of it.
            let rest = data.get(PROLOGUE_LEN..).unwrap_or(&[]);
            match Chunks::at(rest, PROLOGUE_LEN as u64).next() {
                None => return Ok(Err(need_more(PROLOGUE_LEN + 24))),
                Some(Err(e)) if e.is_truncation() => return Ok(Err(need_more(data.len() + 1))),
                Some(Ok(c)) if c.is_cut() => return Ok(Err(wanting(&c))),
                _ => {}
            }
        }
        let header = match Header::parse(data) {
            Ok(h) => h,
            Err(e) if e.is_truncation() && !eof => return Ok(Err(need_more(data.len() + 1))),
            Err(e) => return Err(self.fail(e)),
        };
        let keep = match header.container {
            Container::Chunked => {
                let first = Chunks::at(data.get(PROLOGUE_LEN..).unwrap_or(&[]), 12).next();
                match first {
                    Some(Ok(c)) if c.kind == CHUNK_FILE_HEADER && header.header_json.is_some() => {
                        usize::try_from(c.end_of_data()).unwrap_or(usize::MAX)
                    }
                    _ => PROLOGUE_LEN,
                }
            }
            Container::Legacy => usize::try_from(header.body_offset).unwrap_or(usize::MAX),
        };
        self.head = Some(data.get(..keep).unwrap_or(data).to_vec());
        self.skip = match header.container {
            Container::Chunked => PROLOGUE_LEN,
            Container::Legacy => keep,
        };
        self.phase = match header.container {
            Container::Chunked => Phase::Chunk,
            Container::Legacy => Phase::Legacy,
        };
        Ok(Ok(header))
    }

    /// At the start of a chunk: yields it once it is whole.
    fn chunk<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<PushItem<'a>>, Error> {
        let rest = data.get(self.skip..).unwrap_or(&[]);
        let at = self.offset.saturating_add(self.skip as u64);
        let chunk = match Chunks::at(rest, at).next() {
            None if eof => {
                self.phase = Phase::End;
                return Ok(Pushed::End);
            }
            None => return Ok(Pushed::NeedMore { hint: Some(24) }),
            Some(Err(e)) if e.is_truncation() && !eof => {
                return Ok(Pushed::NeedMore {
                    hint: Some(24u64.saturating_sub(rest.len() as u64).max(1)),
                })
            }
            Some(Err(e)) => return Err(self.fail(e)),
            Some(Ok(c)) if c.is_cut() && !eof => return Ok(wanting(&c)),
            Some(Ok(c)) => c,
        };
        let consumed = self.skip;
        let len = usize::try_from(chunk.end_of_data().saturating_sub(at)).unwrap_or(usize::MAX);
        self.offset = at;
        self.skip = 0;
        self.phase = Phase::Events {
            end: len,
            walk: None,
        };
        Ok(Pushed::Item {
            consumed,
            item: PushItem::Chunk(chunk),
        })
    }

    /// The next event of the current chunk by the walker; `None` at the end of the chunk (the
    /// parser then stands at the next one).
    fn walk_chunk<'a>(
        &mut self,
        data: &'a [u8],
        end: usize,
        at: Option<Suspended>,
    ) -> Result<Option<Pushed<PushItem<'a>>>, Error> {
        let bytes = data.get(..end).unwrap_or(data);
        let mut walk = match at {
            None => Events::in_chunk(bytes, self.offset, self.chunks, self.zone, &mut self.defs),
            Some(at) => Events::resume(bytes, self.offset, &at, &mut self.defs),
        };
        let next = walk.next();
        let state = walk.suspend();
        self.zone = state.zone;
        match next {
            Some(Ok(event)) => {
                self.replaced = self.defs.replaced.take();
                // The chunk's bytes go with its last event (unless the file is cut in it: the
                // truncation comes next).
                let consumed = if state.buf_start >= state.buf_end && state.cut.is_none() {
                    self.end_chunk(end)
                } else {
                    self.phase = Phase::Events {
                        end,
                        walk: Some(state),
                    };
                    0
                };
                Ok(Some(Pushed::Item {
                    consumed,
                    item: PushItem::Event(event),
                }))
            }
            Some(Err(e)) => Err(self.fail(e)),
            None => {
                self.chunks = self.chunks.saturating_add(1);
                self.skip = end;
                self.phase = Phase::Chunk;
                Ok(None)
            }
        }
    }

    /// The next legacy event, once it is whole.
    fn legacy<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<PushItem<'a>>, Error> {
        let rest = data.get(self.skip..).unwrap_or(&[]);
        if rest.is_empty() {
            if eof {
                self.phase = Phase::End;
                return Ok(Pushed::End);
            }
            return Ok(Pushed::NeedMore { hint: Some(6) });
        }
        let at = self.offset.saturating_add(self.skip as u64);
        let mut walk = Events::legacy_at(rest, at, self.zone, &mut self.defs);
        let next = walk.next();
        let (zone, after) = (walk.zone_id(), walk.legacy_offset());
        match next {
            Some(Ok(event)) => {
                let consumed = usize::try_from(after.saturating_sub(self.offset))
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                self.offset = self.offset.saturating_add(consumed as u64);
                self.skip = 0;
                self.zone = zone;
                self.replaced = self.defs.replaced.take();
                Ok(Pushed::Item {
                    consumed,
                    item: PushItem::Event(event),
                })
            }
            Some(Err(e)) if e.is_truncation() && !eof => Ok(Pushed::NeedMore { hint: None }),
            Some(Err(e)) => Err(self.fail(e)),
            None => {
                self.phase = Phase::End;
                Ok(Pushed::End)
            }
        }
    }

    /// Ends the walk with `e`.
    fn fail(&mut self, e: Error) -> Error {
        self.phase = Phase::Failed(e);
        e
    }
}

/// What the plain path is given between runs (with an empty buffer).
#[inline(always)]
fn no_place<'a>() -> ChunkPlace<'a> {
    ChunkPlace {
        buf_end: 0,
        chunk: 0,
        zone: NO_ZONE,
        strings: StringTable::default(),
    }
}

/// What a chunk cut short by the end of `data` still needs.
fn wanting<'a>(c: &Chunk<'_>) -> Pushed<PushItem<'a>> {
    Pushed::NeedMore {
        hint: Some(c.declared_end().saturating_sub(c.end_of_data()).max(1)),
    }
}

/// The string table of the chunk walk `at`, over `data` (absolute offset `base`).
#[inline(always)]
fn strings_of<'a>(data: &'a [u8], base: u64, at: &Suspended) -> StringTable<'a> {
    let start = usize::try_from(at.strings_offset.wrapping_sub(base)).unwrap_or(usize::MAX);
    let bytes = match at.strings_len {
        0 => &[][..],
        n => data.get(start..start.saturating_add(n)).unwrap_or(&[]),
    };
    StringTable::new(bytes, at.strings_offset)
}
