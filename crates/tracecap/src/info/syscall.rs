//! The report of a syscall_capture: the header, then totals of a walk over every entry.

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tracecap_syscall::{Capture, Entry, Header, Uname};

use super::parts::{Fault, Items, Lossy, Pairs};

/// What `tracecap info` reports of a syscall_capture.
///
/// Its JSON object has the members `format` (`"syscall"`), `version`, `big_endian`,
/// `file_size`, `header_len`, `fixed_header_len`, `pid`, `epoch_seconds`,
/// `clock_reference_ns`, `uname` (the six host strings, or `null`), `syscalls`, `failed`,
/// `with_args`, `fillers`, `filler_bytes`, `gaps`, `gap_bytes`, `headers`, `threads` (the
/// thread ids), `first_timestamp_ns`, `last_timestamp_ns`, `by_name` (the counts by system call
/// name, most frequent first) and `error`, in that order.
#[derive(Debug)]
pub struct Info<'a> {
    /// The file header.
    pub header: Header<'a>,
    /// The file's size in bytes.
    pub file_size: u64,
    /// System call records.
    pub syscalls: u64,
    /// Records whose result is negative.
    pub failed: u64,
    /// Records that carry arguments.
    pub with_args: u64,
    /// Filler entries.
    pub fillers: u64,
    /// Bytes of the fillers.
    pub filler_bytes: u64,
    /// Runs of zero bytes.
    pub gaps: u64,
    /// Bytes of those runs.
    pub gap_bytes: u64,
    /// File headers, the first one included (a forked child writes its own).
    pub headers: u64,
    /// The earliest record timestamp (ns), if any record has one.
    pub first_ts: Option<i64>,
    /// The latest record timestamp (ns), if any record has one.
    pub last_ts: Option<i64>,
    /// Records by thread id, for the records that name a thread.
    pub threads: BTreeMap<i32, u64>,
    /// Records by system call number, most frequent first (then by number).
    pub by_number: Vec<(u16, u64)>,
    /// The fault that stopped the walk, if the capture is damaged.
    pub fault: Option<Fault>,
}

/// The report of `data`; `Err` when its header cannot be read.
pub fn info(data: &[u8]) -> Result<Info<'_>, Fault> {
    let cap = Capture::parse(data)?;
    let mut i = Info {
        header: *cap.header(),
        file_size: data.len() as u64,
        syscalls: 0,
        failed: 0,
        with_args: 0,
        fillers: 0,
        filler_bytes: 0,
        gaps: 0,
        gap_bytes: 0,
        headers: 1,
        first_ts: None,
        last_ts: None,
        threads: BTreeMap::new(),
        by_number: Vec::new(),
        fault: None,
    };
    let mut by_number: BTreeMap<u16, u64> = BTreeMap::new();
    for entry in cap.entries() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                i.fault = Some(e.into());
                break;
            }
        };
        match entry {
            Entry::Syscall(c) => {
                i.syscalls += 1;
                if c.result.is_some_and(|r| r < 0) {
                    i.failed += 1;
                }
                if c.arg_count > 0 {
                    i.with_args += 1;
                }
                if let Some(ts) = c.timestamp_ns {
                    i.first_ts = Some(i.first_ts.map_or(ts, |f| f.min(ts)));
                    i.last_ts = Some(i.last_ts.map_or(ts, |l| l.max(ts)));
                }
                if let Some(t) = c.tid {
                    *i.threads.entry(t).or_default() += 1;
                }
                *by_number.entry(c.number).or_default() += 1;
            }
            Entry::Filler(f) => {
                i.fillers += 1;
                i.filler_bytes += f.len;
            }
            Entry::Gap(g) => {
                i.gaps += 1;
                i.gap_bytes += g.len;
            }
            Entry::Header(_) => i.headers += 1,
        }
    }
    i.by_number = by_number.into_iter().collect();
    i.by_number
        .sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(i)
}

/// A system call's name: the x86-64 kernel's, `syscall_<n>` for a number it does not assign.
pub fn name_of(number: u16) -> String {
    tracecap_syscall::syscall_name(number)
        .map_or_else(|| std::format!("syscall_{number}"), ToString::to_string)
}

/// The six host strings as one JSON object.
struct UnameJson<'u>(&'u Uname<'u>);

impl Serialize for UnameJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.0;
        let mut m = s.serialize_struct("Uname", 6)?;
        m.serialize_field("sysname", &Lossy(u.sysname))?;
        m.serialize_field("nodename", &Lossy(u.nodename))?;
        m.serialize_field("release", &Lossy(u.release))?;
        m.serialize_field("version", &Lossy(u.version))?;
        m.serialize_field("machine", &Lossy(u.machine))?;
        m.serialize_field("domainname", &Lossy(u.domainname))?;
        m.end()
    }
}

impl Serialize for Info<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = &self.header;
        let uname = h.uname();
        let mut m = s.serialize_struct("Info", 23)?;
        m.serialize_field("format", "syscall")?;
        m.serialize_field("version", &h.version)?;
        m.serialize_field("big_endian", &h.is_big_endian())?;
        m.serialize_field("file_size", &self.file_size)?;
        m.serialize_field("header_len", &h.len)?;
        m.serialize_field("fixed_header_len", &h.fixed_len)?;
        m.serialize_field("pid", &h.pid)?;
        m.serialize_field("epoch_seconds", &h.epoch_seconds)?;
        m.serialize_field("clock_reference_ns", &h.clock_reference_ns)?;
        m.serialize_field("uname", &uname.as_ref().map(UnameJson))?;
        m.serialize_field("syscalls", &self.syscalls)?;
        m.serialize_field("failed", &self.failed)?;
        m.serialize_field("with_args", &self.with_args)?;
        m.serialize_field("fillers", &self.fillers)?;
        m.serialize_field("filler_bytes", &self.filler_bytes)?;
        m.serialize_field("gaps", &self.gaps)?;
        m.serialize_field("gap_bytes", &self.gap_bytes)?;
        m.serialize_field("headers", &self.headers)?;
        m.serialize_field("threads", &Items(self.threads.keys()))?;
        m.serialize_field("first_timestamp_ns", &self.first_ts)?;
        m.serialize_field("last_timestamp_ns", &self.last_ts)?;
        let by_name = self.by_number.iter().map(|&(n, c)| (name_of(n), c));
        m.serialize_field("by_name", &Pairs(by_name))?;
        m.serialize_field("error", &self.fault)?;
        m.end()
    }
}
