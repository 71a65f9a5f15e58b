//! What every format's report is made of: its [`Fault`], and the JSON forms of bytes, pairs and
//! lists that the reports' JSON shares.

use std::fmt;
use std::string::{String, ToString};

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

/// A fault in a capture as a report states it: what is wrong (without the offset) and the
/// absolute file offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    what: String,
    offset: u64,
}

impl Fault {
    /// The fault `what` at the absolute file offset `offset`.
    pub fn new(what: impl fmt::Display, offset: u64) -> Self {
        Fault {
            what: what.to_string(),
            offset,
        }
    }

    /// What is wrong, without the offset.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The absolute file offset of the fault.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Both parts, for a host's own error type.
    pub fn into_parts(self) -> (String, u64) {
        (self.what, self.offset)
    }
}

/// `<what> at offset 0x<hex>`.
impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {:#x}", self.what, self.offset)
    }
}

impl std::error::Error for Fault {}

/// Any format crate's error: its kind and offset.
impl<K: fmt::Display> From<tracecap_wire::Error<K>> for Fault {
    fn from(e: tracecap_wire::Error<K>) -> Self {
        Fault::new(e.kind, e.offset)
    }
}

/// `{"what": ..., "offset": ...}`.
impl Serialize for Fault {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Fault", 2)?;
        m.serialize_field("what", &self.what)?;
        m.serialize_field("offset", &self.offset)?;
        m.end()
    }
}

/// Bytes from the file as a JSON string, each invalid UTF-8 sequence as U+FFFD.
#[allow(dead_code)] // with neither EasyProfiler nor syscall_capture enabled
pub(super) struct Lossy<'b>(pub(super) &'b [u8]);

impl Serialize for Lossy<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&String::from_utf8_lossy(self.0))
    }
}

/// A JSON object of `(key, value)` pairs, in their order.
#[allow(dead_code)] // with only EasyProfiler enabled
pub(super) struct Pairs<I>(pub(super) I);

impl<K, V, I> Serialize for Pairs<I>
where
    I: Iterator<Item = (K, V)> + Clone,
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.0.clone() {
            m.serialize_entry(&k, &v)?;
        }
        m.end()
    }
}

/// A JSON array of the items, in their order, each made when it is written (a list may be long).
#[allow(dead_code)] // with only apitrace enabled
pub(super) struct Items<I>(pub(super) I);

impl<T, I> Serialize for Items<I>
where
    I: Iterator<Item = T> + Clone,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}
