//! [`SigTable`]: the growable signature table that keeps every name (feature `alloc`).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::error::ErrorKind;
use crate::sig::{Definition, SigInfo, SigKind, SigLookup};

/// Ids below this are kept in a direct-indexed vector; larger (unusual) ids in a map. The vector
/// grows to the largest small id seen, so hostile ids cost at most this many slots.
const DENSE_LIMIT: u64 = 1 << 16;

#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: usize,
    len: usize,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    info: SigInfo,
    /// Function/struct name.
    name: Span,
    /// Range into `strs` (arg/member names), `enums` or `flags`.
    first: usize,
    count: usize,
    frame: FrameEntry,
}

#[derive(Clone, Copy, Debug, Default)]
struct FrameEntry {
    module: Option<Span>,
    function: Option<Span>,
    filename: Option<Span>,
    line: Option<u64>,
    offset: Option<u64>,
}

#[derive(Clone, Debug, Default)]
struct Kind {
    dense: Vec<u32>,
    sparse: BTreeMap<u64, u32>,
}

impl Kind {
    #[inline]
    fn find(&self, id: u64) -> Option<usize> {
        if id < DENSE_LIMIT {
            match self.dense.get(id as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            }
        } else {
            self.sparse.get(&id).map(|&i| i as usize)
        }
    }

    fn insert(&mut self, id: u64, index: u32) {
        if id < DENSE_LIMIT {
            let id = id as usize;
            if self.dense.len() <= id {
                self.dense.resize(id + 1, u32::MAX);
            }
            if let Some(slot) = self.dense.get_mut(id) {
                *slot = index;
            }
        } else {
            self.sparse.insert(id, index);
        }
    }
}

/// A signature table that keeps names, enum values, bitmask flags and frames: what printing a
/// call needs. It allocates per signature (amortised into a few growing buffers), never per call.
///
/// ```
/// use tracecap_apitrace::{decompress, SigTable, Stream};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let whole = decompress(&file)?;
/// let stream = Stream::parse(&whole.data)?;
/// let mut table = SigTable::new();
/// for event in stream.events_with(&mut table) {
///     event?;
/// }
/// let swap = table.function(6).unwrap(); // ok: doc example, glXSwapBuffers is defined
/// assert_eq!(swap.name(), b"glXSwapBuffers");
/// assert_eq!(swap.arg_names().collect::<Vec<_>>(), [&b"dpy"[..], b"drawable"]);
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SigTable {
    kinds: [Kind; 5],
    entries: Vec<Entry>,
    bytes: Vec<u8>,
    strs: Vec<Span>,
    enums: Vec<(Span, i64)>,
    flags: Vec<(Span, u64)>,
}

/// A function signature.
#[derive(Clone, Copy, Debug)]
pub struct FunctionSig<'t> {
    table: &'t SigTable,
    entry: &'t Entry,
}

/// A struct signature.
#[derive(Clone, Copy, Debug)]
pub struct StructSig<'t> {
    table: &'t SigTable,
    entry: &'t Entry,
}

/// An enum signature.
#[derive(Clone, Copy, Debug)]
pub struct EnumSig<'t> {
    table: &'t SigTable,
    entry: &'t Entry,
}

/// A bitmask signature.
#[derive(Clone, Copy, Debug)]
pub struct BitmaskSig<'t> {
    table: &'t SigTable,
    entry: &'t Entry,
}

/// A backtrace frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame<'t> {
    /// Module path.
    pub module: Option<&'t [u8]>,
    /// Function name.
    pub function: Option<&'t [u8]>,
    /// Source file.
    pub filename: Option<&'t [u8]>,
    /// Source line.
    pub line: Option<u64>,
    /// Offset from the module start.
    pub offset: Option<u64>,
}

impl SigTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of signatures of all kinds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is defined.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline]
    fn entry(&self, kind: SigKind, id: u64) -> Option<&Entry> {
        let i = self.kinds.get(kind.index())?.find(id)?;
        self.entries.get(i)
    }

    #[inline]
    fn str(&self, s: Span) -> &[u8] {
        self.bytes
            .get(s.start..s.start.saturating_add(s.len))
            .unwrap_or(&[])
    }

    fn push_str(&mut self, s: &[u8]) -> Span {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(s);
        Span {
            start,
            len: s.len(),
        }
    }

    /// The function signature `id`.
    pub fn function(&self, id: u64) -> Option<FunctionSig<'_>> {
        Some(FunctionSig {
            table: self,
            entry: self.entry(SigKind::Function, id)?,
        })
    }

    /// The struct signature `id`.
    pub fn struct_sig(&self, id: u64) -> Option<StructSig<'_>> {
        Some(StructSig {
            table: self,
            entry: self.entry(SigKind::Struct, id)?,
        })
    }

    /// The enum signature `id`.
    pub fn enum_sig(&self, id: u64) -> Option<EnumSig<'_>> {
        Some(EnumSig {
            table: self,
            entry: self.entry(SigKind::Enum, id)?,
        })
    }

    /// The bitmask signature `id`.
    pub fn bitmask_sig(&self, id: u64) -> Option<BitmaskSig<'_>> {
        Some(BitmaskSig {
            table: self,
            entry: self.entry(SigKind::Bitmask, id)?,
        })
    }

    /// The backtrace frame `id`.
    pub fn frame(&self, id: u64) -> Option<Frame<'_>> {
        let f = self.entry(SigKind::Frame, id)?.frame;
        Some(Frame {
            module: f.module.map(|s| self.str(s)),
            function: f.function.map(|s| self.str(s)),
            filename: f.filename.map(|s| self.str(s)),
            line: f.line,
            offset: f.offset,
        })
    }

    fn names(&self, e: &Entry) -> impl Iterator<Item = &[u8]> + '_ {
        self.strs
            .get(e.first..e.first.saturating_add(e.count))
            .unwrap_or(&[])
            .iter()
            .map(move |&s| self.str(s))
    }
}

impl<'t> FunctionSig<'t> {
    /// Function name.
    pub fn name(&self) -> &'t [u8] {
        self.table.str(self.entry.name)
    }
    /// Number of arguments.
    pub fn num_args(&self) -> usize {
        self.entry.count
    }
    /// Name of argument `i`.
    pub fn arg_name(&self, i: usize) -> Option<&'t [u8]> {
        if i >= self.entry.count {
            return None;
        }
        let s = self.table.strs.get(self.entry.first.checked_add(i)?)?;
        Some(self.table.str(*s))
    }
    /// Argument names.
    pub fn arg_names(&self) -> impl Iterator<Item = &'t [u8]> + 't {
        self.table.names(self.entry)
    }
    /// Where it was defined.
    pub fn info(&self) -> SigInfo {
        self.entry.info
    }
}

impl<'t> StructSig<'t> {
    /// Struct name.
    pub fn name(&self) -> &'t [u8] {
        self.table.str(self.entry.name)
    }
    /// Number of members.
    pub fn num_members(&self) -> usize {
        self.entry.count
    }
    /// Name of member `i`.
    pub fn member_name(&self, i: usize) -> Option<&'t [u8]> {
        if i >= self.entry.count {
            return None;
        }
        let s = self.table.strs.get(self.entry.first.checked_add(i)?)?;
        Some(self.table.str(*s))
    }
    /// Member names.
    pub fn member_names(&self) -> impl Iterator<Item = &'t [u8]> + 't {
        self.table.names(self.entry)
    }
}

impl<'t> EnumSig<'t> {
    /// The (name, value) pairs.
    pub fn values(&self) -> impl Iterator<Item = (&'t [u8], i64)> + 't {
        let t = self.table;
        t.enums
            .get(self.entry.first..self.entry.first.saturating_add(self.entry.count))
            .unwrap_or(&[])
            .iter()
            .map(move |&(s, v)| (t.str(s), v))
    }
    /// The first name whose value is `value` (what `apitrace dump` prints).
    pub fn lookup(&self, value: i64) -> Option<&'t [u8]> {
        self.values().find(|&(_, v)| v == value).map(|(n, _)| n)
    }
}

impl<'t> BitmaskSig<'t> {
    /// The (name, value) flags.
    pub fn flags(&self) -> impl Iterator<Item = (&'t [u8], u64)> + 't {
        let t = self.table;
        t.flags
            .get(self.entry.first..self.entry.first.saturating_add(self.entry.count))
            .unwrap_or(&[])
            .iter()
            .map(move |&(s, v)| (t.str(s), v))
    }
}

impl SigLookup for SigTable {
    #[inline]
    fn get(&self, kind: SigKind, id: u64) -> Option<SigInfo> {
        self.entry(kind, id).map(|e| e.info)
    }

    fn define(
        &mut self,
        kind: SigKind,
        id: u64,
        info: SigInfo,
        def: &Definition<'_>,
    ) -> Result<(), ErrorKind> {
        if self.entry(kind, id).is_some() {
            return Ok(());
        }
        let index = u32::try_from(self.entries.len()).map_err(|_| kind.table_full(1 << 32))?;
        let mut e = Entry {
            info,
            name: Span::default(),
            first: 0,
            count: 0,
            frame: FrameEntry::default(),
        };
        match *def {
            Definition::Function { name, args } => {
                e.name = self.push_str(name);
                e.first = self.strs.len();
                for a in args {
                    let s = self.push_str(a);
                    self.strs.push(s);
                }
                e.count = self.strs.len() - e.first;
            }
            Definition::Struct { name, members } => {
                e.name = self.push_str(name);
                e.first = self.strs.len();
                for a in members {
                    let s = self.push_str(a);
                    self.strs.push(s);
                }
                e.count = self.strs.len() - e.first;
            }
            Definition::Enum(values) => {
                e.first = self.enums.len();
                for (n, v) in values {
                    let s = self.push_str(n);
                    self.enums.push((s, v));
                }
                e.count = self.enums.len() - e.first;
            }
            Definition::OldEnum { name, value } => {
                e.first = self.enums.len();
                let s = self.push_str(name);
                self.enums.push((s, value));
                e.count = 1;
            }
            Definition::Bitmask(flags) => {
                e.first = self.flags.len();
                for (n, v) in flags {
                    let s = self.push_str(n);
                    self.flags.push((s, v));
                }
                e.count = self.flags.len() - e.first;
            }
            Definition::Frame(f) => {
                e.frame = FrameEntry {
                    module: f.module.map(|s| self.push_str(s)),
                    function: f.function.map(|s| self.push_str(s)),
                    filename: f.filename.map(|s| self.push_str(s)),
                    line: f.line,
                    offset: f.offset,
                };
            }
        }
        self.entries.push(e);
        if let Some(k) = self.kinds.get_mut(kind.index()) {
            k.insert(id, index);
        }
        Ok(())
    }
}
