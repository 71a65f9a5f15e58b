//! A writer that makes captures from a model (feature `write`), in either byte order, and the
//! reverse conversion used by round-trip tests.
//!
//! ```
//! use tracecap_syscall::write::{ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel};
//!
//! let model = CaptureModel {
//!     header: HeaderModel { big_endian: true, ..HeaderModel::default() },
//!     entries: vec![EntryModel::Syscall(SyscallModel {
//!         number: 1,
//!         result: Some(5),
//!         args: vec![ArgModel::Int(1), ArgModel::Data(b"hello".to_vec()), ArgModel::Int(5)],
//!         ..SyscallModel::default()
//!     })],
//! };
//! let bytes = model.to_bytes()?;
//! assert_eq!(CaptureModel::from_bytes(&bytes)?, model);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io;
use std::vec::Vec;

use tracecap_wire::{padding_to, Endian};

use crate::arg::{
    Arg, PollFd, Stat, ARG_FULL, ARG_INT, ARG_INTP, ARG_PARTIAL, ARG_POLLFDS, ARG_SIGACTION,
    ARG_STAT,
};
use crate::capture::{Capture, Entry, SEGMENT_FILLER};
use crate::error::Error;
use crate::header::{Header, FLAG_BIG_ENDIAN, IE_HOST_UNAME, MAGIC, SEGMENT_HOST_INFO, VERSION};
use crate::record::SEGMENT_SYSCALL;
use crate::record::{Syscall, FLAG_DURATION, FLAG_RESULT, FLAG_TID, FLAG_TIMESTAMP};

/// The six uname strings, without NULs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct UnameModel {
    /// Kernel name.
    pub sysname: Vec<u8>,
    /// Host name.
    pub nodename: Vec<u8>,
    /// Kernel release.
    pub release: Vec<u8>,
    /// Kernel version.
    pub version: Vec<u8>,
    /// Hardware name.
    pub machine: Vec<u8>,
    /// Domain name.
    pub domainname: Vec<u8>,
}

/// A file header.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct HeaderModel {
    /// Write every multi-byte field big-endian (and set header flag bit 0).
    pub big_endian: bool,
    /// Process id.
    pub pid: i32,
    /// CLOCK_REALTIME seconds.
    pub epoch_seconds: i64,
    /// Clock reference; `None` writes the older 20-byte header.
    pub clock_reference_ns: Option<i64>,
    /// Host strings; `None` writes an empty VariableHeaderPart (uname failed).
    pub uname: Option<UnameModel>,
}

/// A sigaction element's fields.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SigActionModel {
    /// Handler.
    pub handler: u64,
    /// Handler again.
    pub sigaction: u64,
    /// Signal-set bytes (8 in real files).
    pub mask: Vec<u8>,
    /// Garbage i32.
    pub stale_flags: i32,
    /// Garbage u64.
    pub stale_restorer: u64,
}

/// An argument element.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgModel {
    /// Tag 1, written in 4 bytes when it fits in i32.
    Int(i64),
    /// Tag 2.
    Data(Vec<u8>),
    /// Tag 3.
    Partial {
        /// Original length.
        original_len: u32,
        /// Captured bytes.
        data: Vec<u8>,
    },
    /// Tag 4.
    Stat(Stat),
    /// Tag 5.
    PollFds(Vec<PollFd>),
    /// Tag 6.
    SigAction(Option<SigActionModel>),
    /// Tag 7.
    IntP {
        /// Pointer.
        pointer: u64,
        /// Pointee.
        value: u64,
    },
}

/// A syscall record; its flags follow from which options are `Some`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SyscallModel {
    /// Syscall number.
    pub number: u16,
    /// Return value (flag RESULT).
    pub result: Option<i64>,
    /// Thread id (flag TID).
    pub tid: Option<i32>,
    /// Timestamp (flag TS).
    pub timestamp_ns: Option<i64>,
    /// Duration (flag DUR).
    pub duration_ns: Option<f32>,
    /// Argument elements.
    pub args: Vec<ArgModel>,
}

/// One entry after the first header.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryModel {
    /// A syscall record.
    Syscall(SyscallModel),
    /// A filler segment with this many zero payload bytes.
    Filler(u32),
    /// A run of this many zero bytes (a positive multiple of 4; two gaps in a row read as one).
    Gap(u32),
    /// Another capture's header (a forked child's); the entries after it use its byte order.
    Header(HeaderModel),
}

/// A whole capture.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CaptureModel {
    /// The first header.
    pub header: HeaderModel,
    /// Everything after it.
    pub entries: Vec<EntryModel>,
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Appends captures to a byte buffer, one piece at a time (for files too big to model whole).
#[derive(Debug, Default)]
pub struct CaptureWriter {
    buf: Vec<u8>,
    endian: Endian,
    scratch: Vec<u8>,
}

macro_rules! put {
    ($name:ident, $t:ty) => {
        fn $name(buf: &mut Vec<u8>, e: Endian, v: $t) {
            match e {
                Endian::Little => buf.extend_from_slice(&v.to_le_bytes()),
                Endian::Big => buf.extend_from_slice(&v.to_be_bytes()),
            }
        }
    };
}
put!(put_u16, u16);
put!(put_u32, u32);
put!(put_i32, i32);
put!(put_i16, i16);
put!(put_u64, u64);
put!(put_i64, i64);
put!(put_f32, f32);

fn pad4(buf: &mut Vec<u8>) {
    let pad = padding_to(buf.len() as u64, 4) as usize;
    buf.resize(buf.len() + pad, 0);
}

/// Appends an element (tag, u16 length, value, padding) to a segment payload that starts at a
/// multiple of 4.
fn element(
    buf: &mut Vec<u8>,
    e: Endian,
    tag: u16,
    value: impl FnOnce(&mut Vec<u8>),
) -> io::Result<()> {
    let at = buf.len();
    put_u16(buf, e, tag);
    put_u16(buf, e, 0);
    value(buf);
    let len = buf.len() - at - 4;
    let len =
        u16::try_from(len).map_err(|_| invalid("argument element longer than 65,535 bytes"))?;
    let bytes = match e {
        Endian::Little => len.to_le_bytes(),
        Endian::Big => len.to_be_bytes(),
    };
    if let Some(slot) = buf.get_mut(at + 2..at + 4) {
        slot.copy_from_slice(&bytes);
    }
    let pad = padding_to((buf.len() - at) as u64, 4) as usize;
    buf.resize(buf.len() + pad, 0);
    Ok(())
}

impl CaptureWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Finishes and returns the bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    fn segment(&mut self, tag: u32, payload_len: usize) -> io::Result<()> {
        let len = u32::try_from(payload_len).map_err(|_| invalid("segment too long"))?;
        put_u32(&mut self.buf, self.endian, tag);
        put_u32(&mut self.buf, self.endian, len);
        Ok(())
    }

    /// Writes a header (the first one, or a forked child's); later entries use its byte order.
    pub fn header(&mut self, h: &HeaderModel) -> io::Result<()> {
        pad4(&mut self.buf);
        let e = if h.big_endian {
            Endian::Big
        } else {
            Endian::Little
        };
        self.endian = e;
        self.buf.extend_from_slice(&MAGIC);
        self.buf.push(VERSION);
        self.buf
            .push(if h.big_endian { FLAG_BIG_ENDIAN } else { 0 });
        self.buf.extend_from_slice(&[0, 0]);
        put_i32(&mut self.buf, e, h.pid);
        put_i64(&mut self.buf, e, h.epoch_seconds);
        if let Some(c) = h.clock_reference_ns {
            put_i64(&mut self.buf, e, c);
        }
        let mut payload = Vec::new();
        if let Some(u) = &h.uname {
            let strings = [
                &u.sysname,
                &u.nodename,
                &u.release,
                &u.version,
                &u.machine,
                &u.domainname,
            ];
            if strings.iter().any(|s| s.contains(&0)) {
                return Err(invalid("uname string with a NUL"));
            }
            element(&mut payload, e, IE_HOST_UNAME, |b| {
                for s in strings {
                    b.extend_from_slice(s);
                    b.push(0);
                }
            })?;
        }
        self.segment(SEGMENT_HOST_INFO, payload.len())?;
        self.buf.extend_from_slice(&payload);
        Ok(())
    }

    /// Writes a syscall record.
    pub fn syscall(&mut self, s: &SyscallModel) -> io::Result<()> {
        let e = self.endian;
        let mut p = std::mem::take(&mut self.scratch);
        p.clear();
        let mut flags = 0u8;
        for (on, bit) in [
            (s.result.is_some(), FLAG_RESULT),
            (s.tid.is_some(), FLAG_TID),
            (s.timestamp_ns.is_some(), FLAG_TIMESTAMP),
            (s.duration_ns.is_some(), FLAG_DURATION),
        ] {
            if on {
                flags |= bit;
            }
        }
        put_u16(&mut p, e, s.number);
        p.push(flags);
        p.push(0);
        if let Some(r) = s.result {
            put_i64(&mut p, e, r);
        }
        if let Some(t) = s.tid {
            put_i32(&mut p, e, t);
        }
        if let Some(t) = s.timestamp_ns {
            put_i64(&mut p, e, t);
        }
        if let Some(d) = s.duration_ns {
            put_f32(&mut p, e, d);
        }
        let result = s.args.iter().try_for_each(|a| write_arg(&mut p, e, a));
        let result = result.and_then(|()| self.segment(SEGMENT_SYSCALL, p.len()));
        if result.is_ok() {
            self.buf.extend_from_slice(&p);
        }
        self.scratch = p;
        result
    }

    /// Writes a filler segment of `len` zero payload bytes.
    pub fn filler(&mut self, len: u32) -> io::Result<()> {
        self.segment(SEGMENT_FILLER, len as usize)?;
        self.buf.resize(self.buf.len() + len as usize, 0);
        pad4(&mut self.buf);
        Ok(())
    }

    /// Writes `len` zero bytes (a multiple of 4), like the writer's mid-run flush bug. A run of
    /// more than [`MAX_GAP_LEN`](crate::MAX_GAP_LEN) zero bytes makes a file the reader rejects.
    pub fn gap(&mut self, len: u32) -> io::Result<()> {
        if len % 4 != 0 {
            return Err(invalid("gap length must be a multiple of 4"));
        }
        self.buf.resize(self.buf.len() + len as usize, 0);
        Ok(())
    }

    /// Writes one entry.
    pub fn entry(&mut self, entry: &EntryModel) -> io::Result<()> {
        match entry {
            EntryModel::Syscall(s) => self.syscall(s),
            EntryModel::Filler(n) => self.filler(*n),
            EntryModel::Gap(n) => self.gap(*n),
            EntryModel::Header(h) => self.header(h),
        }
    }
}

fn write_arg(p: &mut Vec<u8>, e: Endian, a: &ArgModel) -> io::Result<()> {
    match a {
        ArgModel::Int(v) => element(p, e, ARG_INT, |b| match i32::try_from(*v) {
            Ok(small) => put_i32(b, e, small),
            Err(_) => put_i64(b, e, *v),
        }),
        ArgModel::Data(d) => element(p, e, ARG_FULL, |b| b.extend_from_slice(d)),
        ArgModel::Partial { original_len, data } => element(p, e, ARG_PARTIAL, |b| {
            put_u32(b, e, *original_len);
            b.extend_from_slice(data);
        }),
        ArgModel::Stat(st) => element(p, e, ARG_STAT, |b| {
            put_u64(b, e, st.dev);
            put_u64(b, e, st.ino);
            put_u32(b, e, st.mode);
            put_u64(b, e, st.nlink);
            put_u32(b, e, st.uid);
            put_u32(b, e, st.gid);
            put_u64(b, e, st.rdev);
            put_i64(b, e, st.size);
            put_i64(b, e, st.blksize);
            put_i64(b, e, st.blocks);
            for t in [st.atim, st.mtim, st.ctim] {
                put_i64(b, e, t.sec);
                put_i64(b, e, t.nsec);
            }
        }),
        ArgModel::PollFds(fds) => element(p, e, ARG_POLLFDS, |b| {
            for fd in fds {
                put_i32(b, e, fd.fd);
                put_i16(b, e, fd.events);
                put_i16(b, e, fd.revents);
            }
        }),
        ArgModel::SigAction(None) => element(p, e, ARG_SIGACTION, |_| {}),
        ArgModel::SigAction(Some(sa)) => element(p, e, ARG_SIGACTION, |b| {
            put_u64(b, e, sa.handler);
            put_u64(b, e, sa.sigaction);
            b.extend_from_slice(&sa.mask);
            put_i32(b, e, sa.stale_flags);
            put_u64(b, e, sa.stale_restorer);
        }),
        ArgModel::IntP { pointer, value } => element(p, e, ARG_INTP, |b| {
            put_u64(b, e, *pointer);
            put_u64(b, e, *value);
        }),
    }
}

impl HeaderModel {
    /// The model of a parsed header.
    pub fn from_header(h: &Header<'_>) -> Self {
        HeaderModel {
            big_endian: h.is_big_endian(),
            pid: h.pid,
            epoch_seconds: h.epoch_seconds,
            clock_reference_ns: h.clock_reference_ns,
            uname: h.uname().map(|u| UnameModel {
                sysname: u.sysname.to_vec(),
                nodename: u.nodename.to_vec(),
                release: u.release.to_vec(),
                version: u.version.to_vec(),
                machine: u.machine.to_vec(),
                domainname: u.domainname.to_vec(),
            }),
        }
    }
}

impl ArgModel {
    /// The model of a parsed argument.
    pub fn from_arg(a: &Arg<'_>) -> Self {
        match *a {
            Arg::Int(v) => ArgModel::Int(v),
            Arg::Data(d) => ArgModel::Data(d.to_vec()),
            Arg::Partial { original_len, data } => ArgModel::Partial {
                original_len,
                data: data.to_vec(),
            },
            Arg::Stat(s) => ArgModel::Stat(s),
            Arg::PollFds(p) => ArgModel::PollFds(p.iter().collect()),
            Arg::SigAction(sa) => ArgModel::SigAction(sa.map(|sa| SigActionModel {
                handler: sa.handler,
                sigaction: sa.sigaction,
                mask: sa.mask.to_vec(),
                stale_flags: sa.stale_flags,
                stale_restorer: sa.stale_restorer,
            })),
            Arg::IntP { pointer, value } => ArgModel::IntP { pointer, value },
        }
    }
}

impl SyscallModel {
    /// The model of a parsed record.
    pub fn from_syscall(s: &Syscall<'_>) -> Self {
        SyscallModel {
            number: s.number,
            result: s.result,
            tid: s.tid,
            timestamp_ns: s.timestamp_ns,
            duration_ns: s.duration_ns,
            args: s.args().map(|a| ArgModel::from_arg(&a)).collect(),
        }
    }
}

impl CaptureModel {
    /// Writes the capture.
    pub fn to_bytes(&self) -> io::Result<Vec<u8>> {
        let mut w = CaptureWriter::new();
        w.header(&self.header)?;
        for e in &self.entries {
            w.entry(e)?;
        }
        Ok(w.into_bytes())
    }

    /// Reads a capture back into a model (the first error ends it).
    pub fn from_bytes(data: &[u8]) -> Result<Self, Error> {
        let cap = Capture::parse(data)?;
        let mut entries = Vec::new();
        for e in cap.entries() {
            entries.push(match e? {
                Entry::Syscall(s) => EntryModel::Syscall(SyscallModel::from_syscall(&s)),
                Entry::Filler(f) => EntryModel::Filler(f.len as u32),
                Entry::Gap(g) => EntryModel::Gap(g.len as u32),
                Entry::Header(h) => EntryModel::Header(HeaderModel::from_header(&h)),
            });
        }
        Ok(CaptureModel {
            header: HeaderModel::from_header(cap.header()),
            entries,
        })
    }
}
