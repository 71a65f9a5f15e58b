//! Writing captures the way Orbit's `CaptureFileOutputStream` and `WriteUserData` do
//! (feature `write`).
//!
//! [`CaptureModel`] is an owned model of a whole capture (its events as serialized
//! `ClientCaptureEvent` messages, and USER_DATA): [`CaptureModel::to_bytes`] writes it and
//! [`CaptureModel::from_bytes`] reads back everything it writes.
//!
//! ```
//! use tracecap_orbit::write::CaptureModel;
//!
//! let model = CaptureModel {
//!     // CaptureStarted{process_id: 42}, CaptureFinished{}.
//!     events: vec![vec![0xc2, 0x01, 2, 0x08, 42], vec![0xda, 0x01, 0]],
//!     // UserDefinedCaptureInfo{frame_tracks_info{frame_track_function_ids: [1]}}.
//!     user_data: Some(vec![0x0a, 3, 0x0a, 1, 1]),
//! };
//! let file = model.to_bytes()?;
//! assert_eq!(CaptureModel::from_bytes(&file)?, model);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Underneath, for tests that need byte-level oddities (a capture cut before `CaptureFinished`,
//! USER_DATA rewritten in place): [`CaptureWriter`] appends varint-length-prefixed events after the 24-byte header and refuses
//! events after `CaptureFinished`; [`CaptureWriter::finish`] lays out the optional section list
//! and USER_DATA at 8-aligned offsets with zero padding, and patches the header.
//! [`write_user_data`] rewrites USER_DATA of an existing file in place: a smaller message keeps
//! the section's size (the stale tail stays, as in Orbit), a larger one grows the section.

use std::io;
use std::string::ToString;
use std::vec::Vec;

use crate::capture::{Capture, MAX_MESSAGE_LEN};
use crate::error::Error;
use crate::event::Event;
use crate::header::{HEADER_LEN, MAGIC, VERSION};
use crate::kind::EventKind;
use crate::section::{Layout, ENTRY_LEN, SECTION_USER_DATA};

/// Appends `v` as a protobuf varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Why [`CaptureModel::to_bytes`] cannot write a model.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// An event follows `CaptureFinished`.
    #[error("event {index} follows CaptureFinished")]
    AfterFinished {
        /// The event's index.
        index: usize,
    },
    /// An event is longer than Orbit's 1 MiB limit.
    #[error("event {index} is {len} bytes, over the 1 MiB limit")]
    TooBig {
        /// The event's index.
        index: usize,
        /// Its length.
        len: usize,
    },
    /// An event is not a `ClientCaptureEvent` with one known member.
    #[error("event {index} is not a capture event: {error}")]
    NotAnEvent {
        /// The event's index.
        index: usize,
        /// What reading it says.
        error: Error,
    },
    /// USER_DATA without `CaptureFinished` as the last event: Orbit writes it only after a
    /// finished capture, and a reader could not tell the section's padding from an event.
    #[error("user data needs CaptureFinished as the last event")]
    UnfinishedUserData,
    /// The USER_DATA section could not be laid out.
    #[error("user data: {0}")]
    UserData(#[source] io::Error),
}

/// An owned model of a whole capture, laid out by [`CaptureModel::to_bytes`] the way Orbit lays
/// it out: the header, the capture section at 24, and when there is USER_DATA a section list of
/// one entry and the section, each at the next 8-aligned offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureModel {
    /// The serialized `ClientCaptureEvent` messages, in order (normally ending at
    /// `CaptureFinished`).
    pub events: Vec<Vec<u8>>,
    /// The serialized `orbit_client_protos.UserDefinedCaptureInfo` of the USER_DATA section.
    pub user_data: Option<Vec<u8>>,
}

impl CaptureModel {
    /// The file. Every event must be a `ClientCaptureEvent` of one known member, of at most
    /// 1 MiB, with none after `CaptureFinished`.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let size: usize = self.events.iter().map(|e| e.len() + 10).sum();
        let mut w = CaptureWriter::with_capacity(size + HEADER_LEN as usize);
        for (index, message) in self.events.iter().enumerate() {
            if w.finished {
                return Err(WriteError::AfterFinished { index });
            }
            if message.len() as u64 > MAX_MESSAGE_LEN {
                return Err(WriteError::TooBig {
                    index,
                    len: message.len(),
                });
            }
            if let Err(error) = Event::classify(message, 0, 0) {
                return Err(WriteError::NotAnEvent { index, error });
            }
            w.write_event(message).map_err(WriteError::UserData)?;
        }
        match &self.user_data {
            None => Ok(w.finish()),
            Some(_) if !w.finished => Err(WriteError::UnfinishedUserData),
            Some(user_data) => w
                .finish_with_user_data(user_data)
                .map_err(WriteError::UserData),
        }
    }

    /// Reads a capture back: every event of the capture section (up to `CaptureFinished`, or to
    /// the section's end without one) and the USER_DATA message. The first fault is returned.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let capture = Capture::parse(bytes)?;
        let mut events = capture.events();
        let mut model = CaptureModel::default();
        // Without CaptureFinished the events end where the capture section does.
        while !events.trailing().is_empty() {
            match events.next() {
                Some(event) => model.events.push(event?.message.to_vec()),
                None => break,
            }
        }
        model.user_data = capture.user_data()?.map(|u| u.message.to_vec());
        Ok(model)
    }
}

fn align8(v: u64) -> u64 {
    v.saturating_add(7) & !7
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Builds a capture file in memory, one event at a time: the low-level writer under
/// [`CaptureModel`], for tests that write what a model cannot (a capture cut before
/// `CaptureFinished` with USER_DATA after it, events checked only by [`Event::classify`]).
#[derive(Debug, Clone)]
pub struct CaptureWriter {
    buf: Vec<u8>,
    finished: bool,
    events: u64,
}

impl Default for CaptureWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl CaptureWriter {
    /// A file with the header written (capture section at 24, no section list yet).
    pub fn new() -> Self {
        Self::with_capacity(1 << 12)
    }

    /// Like [`CaptureWriter::new`], reserving `bytes` up front.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut buf = Vec::with_capacity(bytes.max(HEADER_LEN as usize));
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&HEADER_LEN.to_le_bytes());
        buf.extend_from_slice(&0u64.to_le_bytes());
        CaptureWriter {
            buf,
            finished: false,
            events: 0,
        }
    }

    /// Appends one serialized `ClientCaptureEvent`. Errors after `CaptureFinished`, for messages
    /// over Orbit's 1 MiB limit, and for bytes that are not a protobuf message.
    pub fn write_event(&mut self, message: &[u8]) -> io::Result<()> {
        if self.finished {
            return Err(invalid("no event may follow CaptureFinished"));
        }
        if message.len() as u64 > MAX_MESSAGE_LEN {
            return Err(invalid("message over 1 MiB"));
        }
        let ev = Event::classify(message, 0, 0).map_err(|e| invalid(&e.to_string()))?;
        put_varint(&mut self.buf, message.len() as u64);
        self.buf.extend_from_slice(message);
        self.finished = ev.kind == EventKind::CaptureFinished;
        self.events += 1;
        Ok(())
    }

    /// Encodes and appends a prost event.
    #[cfg(feature = "prost")]
    pub fn write_message(
        &mut self,
        event: &crate::proto::orbit_grpc_protos::ClientCaptureEvent,
    ) -> io::Result<()> {
        use prost::Message;
        self.write_event(&event.encode_to_vec())
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when only the header was written.
    pub fn is_empty(&self) -> bool {
        self.events == 0
    }

    /// The file without sections. Orbit's reader needs the last event to be `CaptureFinished`;
    /// this does not enforce it, so tests can write truncated captures.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    /// The file with a section list holding one USER_DATA section with the serialized
    /// `UserDefinedCaptureInfo` `user_data`, laid out as `WriteUserData` does.
    pub fn finish_with_user_data(self, user_data: &[u8]) -> io::Result<Vec<u8>> {
        let mut file = self.buf;
        write_user_data(&mut file, user_data)?;
        Ok(file)
    }
}

fn put_u64(file: &mut [u8], at: u64, v: u64) -> io::Result<()> {
    let at = usize::try_from(at).map_err(|_| invalid("offset"))?;
    let slot = file
        .get_mut(at..at.saturating_add(8))
        .ok_or_else(|| invalid("offset beyond the file"))?;
    slot.copy_from_slice(&v.to_le_bytes());
    Ok(())
}

fn resize_to(file: &mut Vec<u8>, len: u64) -> io::Result<()> {
    let len = usize::try_from(len).map_err(|_| invalid("file too large"))?;
    file.resize(len, 0);
    Ok(())
}

/// Writes (or rewrites) the USER_DATA section of the capture in `file`, in place.
///
/// Without a section list, a list with one entry is added at the 8-aligned end of the file and
/// the section after it. With one, the USER_DATA section must be the last entry and lie after
/// the list (as Orbit requires): the message is written at its start; the section grows when the
/// message is larger and never shrinks (the old tail stays, as in Orbit).
pub fn write_user_data(file: &mut Vec<u8>, user_data: &[u8]) -> io::Result<()> {
    let capture = Capture::parse(file).map_err(|e: Error| invalid(&e.to_string()))?;
    if capture.layout() != Layout::Current {
        return Err(invalid("the Orbit 1.64 layout cannot be rewritten"));
    }
    let mut record = Vec::with_capacity(user_data.len() + 5);
    put_varint(&mut record, user_data.len() as u64);
    record.extend_from_slice(user_data);
    let list = capture.header().section_list_offset;
    let sections: Vec<_> = capture.sections().collect();
    let user: Vec<_> = sections
        .iter()
        .filter(|s| s.section_type == SECTION_USER_DATA)
        .collect();
    if list == 0 {
        let list = align8(file.len() as u64);
        let section = align8(list + 8 + ENTRY_LEN as u64);
        let size = record.len() as u64;
        resize_to(file, section + size)?;
        put_u64(file, list, 1)?;
        put_u64(file, list + 8, SECTION_USER_DATA)?;
        put_u64(file, list + 16, section)?;
        put_u64(file, list + 24, size)?;
        let at = section as usize;
        file.get_mut(at..)
            .ok_or_else(|| invalid("offset"))?
            .copy_from_slice(&record);
        put_u64(file, 16, list)?;
        return Ok(());
    }
    match user.as_slice() {
        [] => Err(invalid(
            "adding USER_DATA to an existing section list is not supported",
        )),
        [s] if s.index as usize + 1 == sections.len() && s.offset > list => {
            if s.offset
                .checked_add(s.size)
                .is_none_or(|end| end > file.len() as u64)
            {
                return Err(invalid("the user data section lies outside the file"));
            }
            let entry = list + 8 + u64::from(s.index) * ENTRY_LEN as u64;
            let size = s.size.max(record.len() as u64);
            if size > s.size {
                resize_to(file, s.offset + size)?;
                put_u64(file, entry + 16, size)?;
            }
            let at = usize::try_from(s.offset).map_err(|_| invalid("offset"))?;
            file.get_mut(at..at + record.len())
                .ok_or_else(|| invalid("offset"))?
                .copy_from_slice(&record);
            Ok(())
        }
        [_] => Err(invalid("the user data section is not the last section")),
        _ => Err(invalid("the file contains more than 1 user data section")),
    }
}
