//! The file header: five layouts, chosen by the version that follows the magic.

use tracecap_wire::zerocopy::byteorder::little_endian::{I64, U16, U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind};
use crate::time::{scale, ticks_to_ns, Clock};
use crate::version::Version;
use tracecap_wire::Context;

/// The 4 bytes every `.prof` file starts with (the u32 0x45617379 stored little-endian).
pub const MAGIC: [u8; 4] = [0x79, 0x73, 0x61, 0x45];
/// The u32 value of [`MAGIC`]; also the end signature of 2.1+ files.
pub const SIGNATURE: u32 = 0x4561_7379;

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Prefix {
    magic: U32,
    version: U32,
}

/// After the (optional) pid, up to 1.3.x: times then counts.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BodyV1 {
    cpu_frequency: I64,
    begin_time: U64,
    end_time: U64,
    blocks_count: U32,
    memory_size: U64,
    descriptors_count: U32,
    descriptors_memory_size: U64,
}

/// 2.0.x: pid is u64, sizes come before counts.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BodyV2 {
    pid: U64,
    cpu_frequency: I64,
    begin_time: U64,
    end_time: U64,
    memory_size: U64,
    descriptors_memory_size: U64,
    blocks_count: U32,
    descriptors_count: U32,
}

/// What 2.1+ adds after the 2.0 body.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct TailV21 {
    threads_count: U32,
    bookmarks_count: U16,
    padding: U16,
}

/// The decoded header of a `.prof` file (every version mapped onto one shape).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// File version.
    pub version: Version,
    /// Process id; `None` for 1.0.0 and older, which store none.
    pub pid: Option<u64>,
    /// Ticks per second of the timestamps, or 0 when they are already nanoseconds.
    pub cpu_frequency: i64,
    /// Capture start, in the records' unit (see [`Header::begin_ns`]).
    pub begin_time: u64,
    /// Capture end, in the records' unit.
    pub end_time: u64,
    /// Records of all kinds in the thread section, as the writer counted them.
    pub blocks_count: u32,
    /// Sum of the records' size fields, as the writer counted it.
    pub memory_size: u64,
    /// Number of descriptors.
    pub descriptors_count: u32,
    /// Descriptor bytes as the writer counted them (only a hint: the GUI writer inflates it).
    pub descriptors_memory_size: u64,
    /// Number of threads (2.1+); older files run to the end of the file.
    pub threads_count: Option<u32>,
    /// Number of bookmarks (2.1+).
    pub bookmarks_count: u16,
    /// Size of the header in bytes (56, 60, 64 or 72).
    pub size: u64,
    /// `1e9 / cpu_frequency`, computed once as upstream does (unused when the frequency is 0).
    ns_per_tick: f64,
}

impl Header {
    /// Reads the header at the start of `r`.
    pub fn read(r: &mut Reader<'_>) -> Result<Header, Error> {
        let start = r.offset();
        let prefix: &Prefix = r.view().what("header")?;
        if prefix.magic.get() != SIGNATURE {
            return Err(Error::new(ErrorKind::BadMagic, start));
        }
        let version = Version(prefix.version.get());
        if version < Version::V0_1_0 {
            return Err(Error::unsupported_version(
                u64::from(version.0),
                "0x00010000 (0.1.0) or newer",
                start + 4,
            ));
        }
        let mut h = if version.new_header_order() {
            let b: &BodyV2 = r.view().what("header")?;
            Header {
                version,
                pid: Some(b.pid.get()),
                cpu_frequency: b.cpu_frequency.get(),
                begin_time: b.begin_time.get(),
                end_time: b.end_time.get(),
                blocks_count: b.blocks_count.get(),
                memory_size: b.memory_size.get(),
                descriptors_count: b.descriptors_count.get(),
                descriptors_memory_size: b.descriptors_memory_size.get(),
                threads_count: None,
                bookmarks_count: 0,
                size: 0,
                ns_per_tick: 0.0,
            }
        } else {
            let pid = if version.wide_ids() {
                Some(r.u64_le().what("header")?)
            } else if version.has_pid() {
                Some(u64::from(r.u32_le().what("header")?))
            } else {
                None
            };
            let b: &BodyV1 = r.view().what("header")?;
            Header {
                version,
                pid,
                cpu_frequency: b.cpu_frequency.get(),
                begin_time: b.begin_time.get(),
                end_time: b.end_time.get(),
                blocks_count: b.blocks_count.get(),
                memory_size: b.memory_size.get(),
                descriptors_count: b.descriptors_count.get(),
                descriptors_memory_size: b.descriptors_memory_size.get(),
                threads_count: None,
                bookmarks_count: 0,
                size: 0,
                ns_per_tick: 0.0,
            }
        };
        if version.has_end_signature() {
            let at = r.offset();
            let t: &TailV21 = r.view().what("header")?;
            if t.padding.get() != 0 {
                let kind = tracecap_wire::ErrorKind::NonZeroPadding {
                    what: "bookmark count",
                };
                return Err(Error::new(kind.into(), at + 6));
            }
            h.threads_count = Some(t.threads_count.get());
            h.bookmarks_count = t.bookmarks_count.get();
        }
        h.size = r.offset() - start;
        if h.cpu_frequency != 0 {
            h.ns_per_tick = 1e9 / h.cpu_frequency as f64;
        }
        Ok(h)
    }

    /// A header of `version` with these times and zero counts (unit tests of other modules).
    #[cfg(test)]
    pub(crate) fn with_times(
        version: Version,
        pid: Option<u64>,
        cpu_frequency: i64,
        begin_time: u64,
        end_time: u64,
    ) -> Header {
        Header {
            version,
            pid,
            cpu_frequency,
            begin_time,
            end_time,
            blocks_count: 0,
            memory_size: 0,
            descriptors_count: 0,
            descriptors_memory_size: 0,
            threads_count: None,
            bookmarks_count: 0,
            size: 0,
            ns_per_tick: if cpu_frequency == 0 {
                0.0
            } else {
                1e9 / cpu_frequency as f64
            },
        }
    }

    /// The file's clock: converts and compares its timestamps as upstream does.
    pub fn clock(&self) -> Clock {
        Clock::new(self.cpu_frequency)
    }

    /// [`Header::begin_time`] in nanoseconds.
    pub fn begin_ns(&self) -> u64 {
        ticks_to_ns(self.begin_time, self.cpu_frequency)
    }

    /// [`Header::end_time`] in nanoseconds.
    pub fn end_ns(&self) -> u64 {
        ticks_to_ns(self.end_time, self.cpu_frequency)
    }

    /// Converts a record timestamp of this file to nanoseconds (same result as [`ticks_to_ns`],
    /// with the factor computed once).
    #[inline]
    pub fn to_ns(&self, t: u64) -> u64 {
        if self.cpu_frequency == 0 {
            t
        } else {
            scale(t, self.ns_per_tick)
        }
    }
}
