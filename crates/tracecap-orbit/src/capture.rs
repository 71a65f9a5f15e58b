//! The whole file: header, section list, the capture section's bound and its events, USER_DATA.

use crate::error::{what, Error, ErrorKind, Overlap};
use crate::event::Event;
use crate::fast;
use crate::header::{Header, HEADER_LEN};
use crate::kind::EventKind;
use crate::section::{Layout, Section, Sections, ENTRY_LEN, MAX_SECTIONS, SECTION_USER_DATA};
use crate::wire::{malformed_varint, varint};

/// Orbit refuses messages longer than this (1 MiB).
pub const MAX_MESSAGE_LEN: u64 = 1 << 20;

/// A parsed `.orbit` file: the header, the section list and the capture section's bound.
///
/// Parsing reads only the header and the section list; [`Capture::events`] walks the events
/// lazily and [`Capture::user_data`] reads USER_DATA on demand. Nothing is allocated.
///
/// ```
/// use tracecap_orbit::Capture;
///
/// # // The crate example's file: the header, CaptureStarted{process_id: 42}, CaptureFinished{}.
/// # let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
/// # file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
/// let capture = Capture::parse(&file)?;
/// assert_eq!(capture.header().capture_section_offset, 24);
/// assert_eq!(capture.events().count(), 2);
/// # Ok::<(), tracecap_orbit::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Capture<'a> {
    data: &'a [u8],
    header: Header,
    layout: Layout,
    sections: Sections<'a>,
    list_len: u64,
    bound: u64,
    list_fault: Option<Error>,
}

impl<'a> Capture<'a> {
    /// Reads the header and the section list and computes the capture section's bound, applying
    /// Orbit's header checks (signature, version, a capture section inside the file). A section
    /// list that is cut or malformed (Orbit's checks: at most 65535 sections, a complete list)
    /// does not fail here: see [`Capture::section_list_fault`].
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        let header = Header::parse(data)?;
        let file_len = data.len() as u64;
        let list = header.section_list_offset;
        let (layout, sections, list_len, list_fault) = match read_list(data, list) {
            Ok((layout, sections, list_len)) => (layout, sections, list_len, None),
            Err(e) => (Layout::Current, Sections::EMPTY, 0, Some(e)),
        };
        let start = header.capture_section_offset;
        // Without a readable list, the capture section ends at the list or the end of the file.
        let mut bound = if list == 0 || list_fault.is_some() {
            file_len
        } else {
            u64::MAX
        };
        for s in sections {
            bound = bound.min(s.offset);
        }
        if list > start {
            bound = bound.min(list);
        }
        bound = bound.min(file_len);
        if start < HEADER_LEN || start > bound {
            return Err(Error::new(
                ErrorKind::CaptureSectionOutOfBounds { start, bound },
                8,
            ));
        }
        Ok(Capture {
            data,
            header,
            layout,
            sections,
            list_len,
            bound,
            list_fault,
        })
    }

    /// What is wrong with the section list (cut by the end of the file, or malformed), if
    /// anything. The events do not need the list: the capture section then ends at the list or
    /// at the end of the file, [`Capture::sections`] is empty, and [`Capture::user_data`] and
    /// [`Capture::check_layout`] return this error.
    pub fn section_list_fault(&self) -> Option<Error> {
        self.list_fault
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Which version-1 layout the file uses.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Every section list entry in file order, unknown types included.
    pub fn sections(&self) -> Sections<'a> {
        self.sections
    }

    /// Size of the section list in bytes (count plus entries), 0 without a list.
    pub fn section_list_len(&self) -> u64 {
        self.list_len
    }

    /// The end bound of the capture section (exclusive): the end of the file, or the first
    /// section or list that follows it. Up to 7 zero bytes of padding may sit between the last
    /// event and this bound.
    pub fn capture_section_bound(&self) -> u64 {
        self.bound
    }

    /// The events of the capture section, up to and including `CaptureFinished`.
    pub fn events(&self) -> Events<'a> {
        Events {
            section: self.section(),
            base: self.header.capture_section_offset,
            pos: 0,
            done: false,
            finished: false,
        }
    }

    /// The event whose length prefix is at absolute `offset` (the [`Event::offset`] of an event
    /// of this capture): random access for a reader that keeps offsets rather than views. An
    /// offset outside the capture section reads as a message size cut off there.
    ///
    /// ```
    /// use tracecap_orbit::{Capture, EventKind};
    ///
    /// // Header, CaptureStarted{process_id: 42}, CaptureFinished{}.
    /// let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    /// file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
    /// let capture = Capture::parse(&file)?;
    /// let last = capture.events().last().unwrap()?; // ok: the example file has three events
    /// assert_eq!(capture.event_at(last.offset)?, last);
    /// assert_eq!(capture.event_at(30)?.kind, EventKind::CaptureFinished);
    /// assert!(capture.event_at(34).is_err());
    /// # Ok::<(), tracecap_orbit::Error>(())
    /// ```
    pub fn event_at(&self, offset: u64) -> Result<Event<'a>, Error> {
        let base = self.header.capture_section_offset;
        let section = self.section();
        let pos = offset
            .checked_sub(base)
            .and_then(|p| usize::try_from(p).ok())
            .filter(|&p| p < section.len());
        match pos {
            Some(pos) => general_step(section, base, pos).0,
            None => Err(Error::new(ErrorKind::TruncatedMessageSize, offset)),
        }
    }

    /// The capture section's bytes: from its offset to the bound.
    fn section(&self) -> &'a [u8] {
        usize::try_from(self.header.capture_section_offset)
            .ok()
            .zip(usize::try_from(self.bound).ok())
            .and_then(|(s, e)| self.data.get(s..e))
            .unwrap_or(&[])
    }

    /// The first USER_DATA section (type 1), read the way Orbit reads it; `None` when there is none.
    pub fn user_data(&self) -> Result<Option<UserData<'a>>, Error> {
        if let Some(e) = self.list_fault {
            return Err(e);
        }
        let Some(s) = self
            .sections
            .clone()
            .find(|s| s.section_type == SECTION_USER_DATA)
        else {
            return Ok(None);
        };
        let file_len = self.data.len() as u64;
        if s.end() > file_len || s.offset < HEADER_LEN {
            return Err(out_of_bounds(&s, file_len));
        }
        let bytes = usize::try_from(s.offset)
            .ok()
            .zip(usize::try_from(s.size).ok())
            .and_then(|(o, n)| self.data.get(o..)?.get(..n))
            .ok_or(out_of_bounds(&s, file_len))?;
        if self.layout == Layout::Orbit164 {
            return Ok(Some(UserData {
                section: s,
                message: bytes,
                message_offset: s.offset,
                unused: 0,
            }));
        }
        let (message, prefix) = read_message(bytes, 0, s.offset)?;
        let used = prefix.saturating_add(message.len());
        Ok(Some(UserData {
            section: s,
            message,
            message_offset: s.offset.saturating_add(prefix as u64),
            unused: s.size.saturating_sub(used as u64),
        }))
    }

    /// Checks what Orbit does not: every section lies inside the file, after the header, and
    /// overlaps neither the list, the events (up to `capture_end`) nor another section.
    ///
    /// `capture_end` is where `CaptureFinished` ends (see [`Events::position`]). Sections are
    /// compared pairwise when there are few, so this is meant for validation, not the hot path.
    pub fn check_layout(&self, capture_end: u64) -> Result<(), Error> {
        if let Some(e) = self.list_fault {
            return Err(e);
        }
        let file_len = self.data.len() as u64;
        let list = self.header.section_list_offset;
        let list_end = list.saturating_add(self.list_len);
        let start = self.header.capture_section_offset;
        let overlaps = |a: u64, b: u64, c: u64, d: u64| a < d && c < b;
        for s in self.sections {
            let err = |other| {
                Err(Error::new(
                    ErrorKind::SectionOverlap {
                        index: s.index,
                        other,
                    },
                    s.offset,
                ))
            };
            if s.end() > file_len || s.offset.checked_add(s.size).is_none() {
                return Err(out_of_bounds(&s, file_len));
            }
            if s.size == 0 {
                continue;
            }
            if s.offset < HEADER_LEN {
                return err(Overlap::Header);
            }
            if overlaps(s.offset, s.end(), start, capture_end) {
                return err(Overlap::CaptureSection);
            }
            if list != 0 && overlaps(s.offset, s.end(), list, list_end) {
                return err(Overlap::SectionList);
            }
        }
        // Pairwise overlaps: quadratic, bounded to keep validation linear-ish on huge lists.
        if self.sections.len() <= 4096 {
            for a in self.sections {
                for b in self.sections.skip(a.index as usize + 1) {
                    if a.size != 0 && b.size != 0 && overlaps(a.offset, a.end(), b.offset, b.end())
                    {
                        return Err(Error::new(
                            ErrorKind::SectionOverlap {
                                index: b.index,
                                other: Overlap::Section(a.index),
                            },
                            b.offset,
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Reads the section list at `list` (0: none): the layout, the entries and the list's size.
fn read_list(data: &[u8], list: u64) -> Result<(Layout, Sections<'_>, u64), Error> {
    let file_len = data.len() as u64;
    let mut layout = Layout::Current;
    let mut sections = Sections::EMPTY;
    let mut list_len = 0u64;
    if list != 0 {
        let count_bytes = usize::try_from(list)
            .ok()
            .and_then(|l| data.get(l..)?.get(..8))
            .ok_or(Error::truncated(
                what::SECTION_LIST,
                list.min(file_len),
                8,
                file_len.saturating_sub(list),
            ))?;
        let mut c = [0u8; 8];
        c.copy_from_slice(count_bytes);
        let count = u64::from_le_bytes(c);
        let (entries_at, n) = if count > MAX_SECTIONS {
            // Orbit 1.64 wrote a u16 count with the entries right behind it, at the file's end.
            let n16 = count & 0xffff;
            let end = list
                .saturating_add(2)
                .saturating_add(n16.saturating_mul(ENTRY_LEN as u64));
            if n16 == 0 || end != file_len {
                return Err(Error::new(ErrorKind::SectionListTooLarge(count), list));
            }
            layout = Layout::Orbit164;
            (list.saturating_add(2), n16)
        } else {
            (list.saturating_add(8), count)
        };
        if n == 0 {
            return Err(Error::new(ErrorKind::EmptySectionList, list));
        }
        let needed = n.saturating_mul(ENTRY_LEN as u64);
        let available = file_len.saturating_sub(entries_at);
        let entries = usize::try_from(entries_at)
            .ok()
            .zip(usize::try_from(needed).ok())
            .and_then(|(at, len)| data.get(at..)?.get(..len))
            .ok_or(Error::truncated(
                what::SECTION_LIST,
                entries_at.min(file_len),
                needed,
                available,
            ))?;
        sections = Sections { entries, index: 0 };
        list_len = entries_at.saturating_sub(list).saturating_add(needed);
        if layout == Layout::Orbit164
            && !sections
                .clone()
                .all(|s| s.end() <= list && s.offset >= HEADER_LEN)
        {
            return Err(Error::new(ErrorKind::SectionListTooLarge(count), list));
        }
    }
    Ok((layout, sections, list_len))
}

#[cold]
fn out_of_bounds(s: &Section, file_len: u64) -> Error {
    Error::new(
        ErrorKind::SectionOutOfBounds {
            index: s.index,
            start: s.offset,
            size: s.size,
            file_len,
        },
        s.offset.min(file_len),
    )
}

/// Reads one varint-length-prefixed message at `section[pos..]` the way Orbit does (1 MiB
/// limit); returns the message and the prefix's length. `base` is the section's absolute offset.
#[inline]
pub(crate) fn read_message(section: &[u8], pos: usize, base: u64) -> Result<(&[u8], usize), Error> {
    let at = |p: usize| base.saturating_add(p as u64);
    let mut p = pos;
    let len = match varint(section, &mut p) {
        Ok(v) => v,
        Err(true) => return Err(Error::new(ErrorKind::TruncatedMessageSize, at(pos))),
        Err(false) => return Err(malformed_varint(section, pos, what::MESSAGE_SIZE, at(pos))),
    };
    if len > MAX_MESSAGE_LEN {
        return Err(Error::new(ErrorKind::MessageTooBig(len), at(pos)));
    }
    let available = section.len().saturating_sub(p);
    match section.get(p..p.saturating_add(len as usize)) {
        Some(m) if len as usize <= available => Ok((m, p - pos)),
        _ => Err(Error::truncated(
            what::MESSAGE,
            at(p),
            len,
            available as u64,
        )),
    }
}

/// One length-prefixed message of a section, not yet classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framed<'a> {
    /// Absolute offset of the varint length prefix.
    pub offset: u64,
    /// Absolute offset of the message's first byte.
    pub message_offset: u64,
    /// The message.
    pub message: &'a [u8],
}

/// The events of the capture section; fused after `CaptureFinished` or the first error.
///
/// ```
/// use tracecap_orbit::{Capture, EventKind};
///
/// # // The crate example's file: the header, CaptureStarted{process_id: 42}, CaptureFinished{}.
/// # let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
/// # file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
/// let capture = Capture::parse(&file)?;
/// let kinds = capture.events().map(|e| e.map(|e| e.kind)).collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(kinds, [EventKind::CaptureStarted, EventKind::CaptureFinished]);
/// # Ok::<(), tracecap_orbit::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Events<'a> {
    section: &'a [u8],
    base: u64,
    pos: usize,
    done: bool,
    finished: bool,
}

impl<'a> Events<'a> {
    /// Absolute offset of the next event (after the end: of the byte after `CaptureFinished`).
    pub fn position(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// True once `CaptureFinished` has been returned.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Bytes between the end of `CaptureFinished` and the capture section's bound.
    pub fn trailing(&self) -> &'a [u8] {
        self.section.get(self.pos..).unwrap_or(&[])
    }

    /// The next message without classifying it. Does not stop at `CaptureFinished` (it cannot
    /// see it); for tools that only frame messages.
    #[inline]
    pub fn next_raw(&mut self) -> Option<Result<Framed<'a>, Error>> {
        if self.done {
            return None;
        }
        let at = self.pos;
        fast::touch_ahead(self.section, at);
        match read_message(self.section, at, self.base) {
            Ok((m, prefix)) => {
                self.pos = at + prefix + m.len();
                let off = self.base.saturating_add(at as u64);
                Some(Ok(Framed {
                    offset: off,
                    message_offset: off.saturating_add(prefix as u64),
                    message: m,
                }))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    /// Gives every remaining event to `f` in order, up to and including `CaptureFinished`; stops
    /// at the first error, the file's or `f`'s, and returns it. The same events as iterating.
    ///
    /// ```
    /// use tracecap_orbit::{Capture, EventKind};
    ///
    /// // Header, CaptureStarted{process_id: 42}, CaptureFinished{}.
    /// let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    /// file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
    /// let capture = Capture::parse(&file)?;
    /// let mut kinds = Vec::new();
    /// capture.events().try_for_each_event::<tracecap_orbit::Error, _>(|event| {
    ///     kinds.push(event.kind);
    ///     Ok(())
    /// })?;
    /// assert_eq!(kinds, [EventKind::CaptureStarted, EventKind::CaptureFinished]);
    /// # Ok::<(), tracecap_orbit::Error>(())
    /// ```
    #[inline]
    pub fn try_for_each_event<E, F>(&mut self, mut f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Event<'a>) -> Result<(), E>,
    {
        for event in self.by_ref() {
            if let Err(e) = event.map_err(E::from).and_then(&mut f) {
                self.done = true;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Stops after `CaptureFinished`.
    #[inline(always)]
    fn stop_after(&mut self, ev: &Event<'a>) {
        if ev.kind == EventKind::CaptureFinished {
            self.done = true;
            self.finished = true;
        }
    }
}

/// Any event [`fast::common_shape`] leaves: framed by [`read_message`] and classified by
/// [`Event::classify`]. Returns the event and where the next one starts (after the message even
/// when classifying fails; unchanged when framing fails).
///
/// Out of line, so the fast path stays small enough to inline into the caller's loop, and with
/// plain values in and out, so the iterator's state can stay in registers there.
#[inline(never)]
fn general_step(section: &[u8], base: u64, pos: usize) -> (Result<Event<'_>, Error>, usize) {
    match read_message(section, pos, base) {
        Ok((message, prefix)) => {
            let offset = base.saturating_add(pos as u64);
            let message_offset = offset.saturating_add(prefix as u64);
            let ev = Event::classify(message, offset, message_offset);
            (ev, pos + prefix + message.len())
        }
        Err(e) => (Err(e), pos),
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<Event<'a>, Error>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let offset = self.base.saturating_add(self.pos as u64);
        if let Some(ev) = self
            .section
            .get(self.pos..)
            .and_then(|rest| fast::common_shape(rest, offset))
        {
            self.pos += 1 + ev.message.len();
            self.stop_after(&ev);
            return Some(Ok(ev));
        }
        let (ev, next) = general_step(self.section, self.base, self.pos);
        self.pos = next;
        match ev {
            Ok(ev) => {
                self.stop_after(&ev);
                Some(Ok(ev))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Events<'_> {}

/// The USER_DATA section's message (`orbit_client_protos.UserDefinedCaptureInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserData<'a> {
    /// The section list entry it was read from.
    pub section: Section,
    /// The serialized message.
    pub message: &'a [u8],
    /// Absolute offset of the message's first byte.
    pub message_offset: u64,
    /// Bytes of the section after the message (left over from an earlier, longer message).
    pub unused: u64,
}

impl<'a> UserData<'a> {
    /// The typed view of the message.
    pub fn view(&self) -> Result<crate::views::UserDefinedCaptureInfo<'a>, Error> {
        crate::views::UserDefinedCaptureInfo::parse(self.message, self.message_offset)
    }
}
