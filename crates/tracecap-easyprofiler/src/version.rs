//! Versions and the layout switches that depend on them.

use core::fmt;

/// A file version: `major << 24 | minor << 16 | patch` (patch is 16 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32);

impl Version {
    /// 0.1.0, the oldest version any reader accepts.
    pub const V0_1_0: Version = Version(0x0001_0000);
    /// 1.0.0: no pid in the header.
    pub const V1_0_0: Version = Version(0x0100_0000);
    /// 1.0.1: a u32 pid.
    pub const V1_0_1: Version = Version(0x0100_0001);
    /// 1.2.0.
    pub const V1_2_0: Version = Version(0x0102_0000);
    /// 1.3.0: u64 pid and thread ids, 24-byte context-switch prefix.
    pub const V1_3_0: Version = Version(0x0103_0000);
    /// 2.0.0: new header order; value records.
    pub const V2_0_0: Version = Version(0x0200_0000);
    /// 2.0.1.
    pub const V2_0_1: Version = Version(0x0200_0001);
    /// 2.1.0: thread and bookmark counts, end signature, bookmarks.
    pub const V2_1_0: Version = Version(0x0201_0000);

    /// The major number.
    pub const fn major(self) -> u32 {
        self.0 >> 24
    }
    /// The minor number.
    pub const fn minor(self) -> u32 {
        (self.0 >> 16) & 0xff
    }
    /// The patch number.
    pub const fn patch(self) -> u32 {
        self.0 & 0xffff
    }
    /// True when the header carries a pid (versions after 1.0.0).
    pub fn has_pid(self) -> bool {
        self > Version::V1_0_0
    }
    /// True when pids and thread ids are 64-bit (1.3.0 and later).
    pub fn wide_ids(self) -> bool {
        self >= Version::V1_3_0
    }
    /// True for the 2.0+ header field order.
    pub fn new_header_order(self) -> bool {
        self >= Version::V2_0_0
    }
    /// True when the header counts threads and bookmarks and the file ends with signatures (2.1+).
    pub fn has_end_signature(self) -> bool {
        self >= Version::V2_1_0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major(), self.minor(), self.patch())
    }
}
