//! Signatures: function, struct, enum, bitmask and backtrace-frame definitions, which the stream
//! defines inline at their first use and refers to by id afterwards.
//!
//! The grammar itself needs very little from a signature once it is defined: a struct's member
//! count (to know how many values follow) and, in version < 3 streams, an enum's single value.
//! The [`SigLookup`] trait is that need; [`FixedSigTable`] meets it without allocating, and
//! `SigTable` (feature `alloc`) also keeps the names for printing.

use crate::cursor::Cur;
use crate::error::{Error, ErrorKind};

/// The five id namespaces of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SigKind {
    /// Function signatures (name + argument names).
    Function,
    /// Struct signatures (name + member names).
    Struct,
    /// Enum signatures (name/value pairs; one pair in version < 3).
    Enum,
    /// Bitmask signatures (flag name/value pairs).
    Bitmask,
    /// Backtrace frames (module, function, file, line, offset).
    Frame,
}

impl SigKind {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            SigKind::Function => "function",
            SigKind::Struct => "struct",
            SigKind::Enum => "enum",
            SigKind::Bitmask => "bitmask",
            SigKind::Frame => "frame",
        }
    }

    /// The fault of a full table of these signatures, which holds `capacity` of them.
    #[cold]
    pub(crate) fn table_full(self, capacity: u64) -> ErrorKind {
        let what = match self {
            SigKind::Function => "function signature",
            SigKind::Struct => "struct signature",
            SigKind::Enum => "enum signature",
            SigKind::Bitmask => "bitmask signature",
            SigKind::Frame => "frame signature",
        };
        ErrorKind::Shared(tracecap_wire::ErrorKind::TableFull { what, capacity })
    }

    pub(crate) const fn index(self) -> usize {
        match self {
            SigKind::Function => 0,
            SigKind::Struct => 1,
            SigKind::Enum => 2,
            SigKind::Bitmask => 3,
            SigKind::Frame => 4,
        }
    }
}

/// What the grammar remembers of a defined signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigInfo {
    /// Absolute stream offset of the id that defined it (its first use). Meeting the same id at
    /// this very offset again (re-reading a value) means "definition, skip its body".
    pub offset: u64,
    /// Function: argument count. Struct: member count. Enum (version < 3): the value. Else 0.
    pub extra: i64,
}

/// A signature table: the parser asks it whether an id is defined and tells it definitions.
///
/// Implemented by [`FixedSigTable`], [`crate::SigTable`] and `&mut` of any table (a walk then fills the
/// caller's table instead of owning one).
///
/// ```
/// use tracecap_apitrace::{decompress, FixedSigTable, SigKind, SigLookup, Stream};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let whole = decompress(&file)?;
/// let stream = Stream::parse(&whole.data)?;
/// let mut table = FixedSigTable::<16>::new();
/// assert!(table.get(SigKind::Function, 6).is_none());
/// for event in stream.events_with(&mut table) {
///     event?;
/// }
/// // Defined at its first use.
/// let info = table.get(SigKind::Function, 6).unwrap(); // ok: doc example
/// assert_eq!(info.extra, 2); // two arguments
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
#[cfg_attr(not(feature = "alloc"), doc = "[`crate::SigTable`]: crate#features")]
pub trait SigLookup {
    /// The signature `id` of `kind`, if defined.
    fn get(&self, kind: SigKind, id: u64) -> Option<SigInfo>;
    /// Records a definition met at stream offset `info.offset`.
    fn define(
        &mut self,
        kind: SigKind,
        id: u64,
        info: SigInfo,
        def: &Definition<'_>,
    ) -> Result<(), ErrorKind>;
}

impl<T: SigLookup + ?Sized> SigLookup for &mut T {
    #[inline]
    fn get(&self, kind: SigKind, id: u64) -> Option<SigInfo> {
        (**self).get(kind, id)
    }
    #[inline]
    fn define(
        &mut self,
        kind: SigKind,
        id: u64,
        info: SigInfo,
        def: &Definition<'_>,
    ) -> Result<(), ErrorKind> {
        (**self).define(kind, id, info, def)
    }
}

/// A definition's body, borrowed from the stream (already validated).
#[derive(Clone, Copy, Debug)]
pub enum Definition<'a> {
    /// `string(name) uint(n) string(arg){n}`.
    Function {
        /// Function name.
        name: &'a [u8],
        /// Argument names.
        args: Strings<'a>,
    },
    /// `string(name) uint(n) string(member){n}`.
    Struct {
        /// Struct name.
        name: &'a [u8],
        /// Member names.
        members: Strings<'a>,
    },
    /// `uint(n) (string(name) sint(value)){n}` (version >= 3).
    Enum(EnumValues<'a>),
    /// `string(name) sint(value)` (version < 3: one pair).
    OldEnum {
        /// The name.
        name: &'a [u8],
        /// The value.
        value: i64,
    },
    /// `uint(n) (string(name) uint(value)){n}`.
    Bitmask(BitmaskFlags<'a>),
    /// Frame details up to the 0x00 terminator.
    Frame(FrameDef<'a>),
}

/// A validated list of `count` strings.
#[derive(Clone, Copy, Debug)]
pub struct Strings<'a> {
    count: u64,
    body: Cur<'a>,
}

impl<'a> Strings<'a> {
    fn parse(r: &mut Cur<'a>, what: &'static str) -> Result<Self, Error> {
        let count = r.uint(what)?;
        let start = r.pos();
        let mut i = 0;
        while i < count {
            r.string(what)?;
            i += 1;
        }
        Ok(Strings {
            count,
            body: r.since(start).cur(),
        })
    }

    /// Number of strings.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<'a> Iterator for Strings<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        self.body.string("").ok()
    }
}

/// Validated enum name/value pairs.
#[derive(Clone, Copy, Debug)]
pub struct EnumValues<'a> {
    count: u64,
    body: Cur<'a>,
}

impl<'a> EnumValues<'a> {
    /// Number of pairs.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<'a> Iterator for EnumValues<'a> {
    type Item = (&'a [u8], i64);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        let name = self.body.string("").ok()?;
        let value = self.body.sint("").ok()?;
        Some((name, value))
    }
}

/// Validated bitmask flag name/value pairs.
#[derive(Clone, Copy, Debug)]
pub struct BitmaskFlags<'a> {
    count: u64,
    body: Cur<'a>,
}

impl<'a> BitmaskFlags<'a> {
    /// Number of flags.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<'a> Iterator for BitmaskFlags<'a> {
    type Item = (&'a [u8], u64);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        let name = self.body.string("").ok()?;
        let value = self.body.uint("").ok()?;
        Some((name, value))
    }
}

/// A backtrace frame's details; every part is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameDef<'a> {
    /// Module (shared object or executable) path.
    pub module: Option<&'a [u8]>,
    /// Function name.
    pub function: Option<&'a [u8]>,
    /// Source file name.
    pub filename: Option<&'a [u8]>,
    /// Source line.
    pub line: Option<u64>,
    /// Offset from the module's start.
    pub offset: Option<u64>,
}

/// Parses a definition body of `kind` (the id is already read).
pub(crate) fn parse_definition<'a>(
    r: &mut Cur<'a>,
    kind: SigKind,
    version: u64,
) -> Result<Definition<'a>, Error> {
    Ok(match kind {
        SigKind::Function => {
            let name = r.string("function name")?;
            let args = Strings::parse(r, "argument name")?;
            Definition::Function { name, args }
        }
        SigKind::Struct => {
            let name = r.string("struct name")?;
            let members = Strings::parse(r, "struct member name")?;
            Definition::Struct { name, members }
        }
        SigKind::Enum if version < 3 => {
            let name = r.string("enum name")?;
            let value = r.sint("enum value")?;
            Definition::OldEnum { name, value }
        }
        SigKind::Enum => {
            let count = r.uint("enum value count")?;
            let start = r.pos();
            let mut i = 0;
            while i < count {
                r.string("enum name")?;
                r.sint("enum value")?;
                i += 1;
            }
            let body = r.since(start).cur();
            Definition::Enum(EnumValues { count, body })
        }
        SigKind::Bitmask => {
            let count = r.uint("bitmask flag count")?;
            let start = r.pos();
            let mut i = 0;
            while i < count {
                r.string("bitmask flag name")?;
                r.uint("bitmask flag value")?;
                i += 1;
            }
            let body = r.since(start).cur();
            Definition::Bitmask(BitmaskFlags { count, body })
        }
        SigKind::Frame => {
            let mut f = FrameDef::default();
            loop {
                let at = r.offset();
                match r.byte("frame detail")? {
                    0 => break,
                    1 => f.module = Some(r.string("frame module")?),
                    2 => f.function = Some(r.string("frame function")?),
                    3 => f.filename = Some(r.string("frame file name")?),
                    4 => f.line = Some(r.uint("frame line")?),
                    5 => f.offset = Some(r.uint("frame offset")?),
                    d => return Err(Error::new(ErrorKind::UnknownFrameDetail(d), at)),
                }
            }
            Definition::Frame(f)
        }
    })
}

/// The [`SigInfo::extra`] a definition carries.
pub(crate) fn extra_of(def: &Definition<'_>) -> i64 {
    match def {
        Definition::Function { args, .. } => args.len() as i64,
        Definition::Struct { members, .. } => members.len() as i64,
        Definition::OldEnum { value, .. } => *value,
        _ => 0,
    }
}

/// A signature table of fixed capacity that never allocates: up to `N` signatures of each kind,
/// kept sorted by id. It remembers what the grammar needs (see [`SigInfo`]), not the names: a
/// caller with the whole stream in memory re-reads names from [`SigInfo::offset`].
///
/// It is large (`5 * N * 24` bytes): box it or keep it in a static for big `N`.
///
/// ```
/// use tracecap_apitrace::{decompress, FixedSigTable, SharedKind, SigKind, SigLookup, Stream};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let whole = decompress(&file)?;
/// let stream = Stream::parse(&whole.data)?;
/// let mut events = stream.events_with(FixedSigTable::<2>::new());
/// assert_eq!(events.by_ref().filter(Result::is_ok).count(), 4);
/// assert!(events.table().get(SigKind::Function, 5).is_some());
/// // A table too small for the trace is an error at the definition that does not fit.
/// let mut events = stream.events_with(FixedSigTable::<1>::new());
/// let full = events.find_map(Result::err).unwrap(); // ok: doc example, two signatures
/// assert!(matches!(full.shared(), Some(SharedKind::TableFull { .. })));
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FixedSigTable<const N: usize> {
    ids: [[u64; N]; 5],
    infos: [[SigInfo; N]; 5],
    lens: [usize; 5],
}

impl<const N: usize> Default for FixedSigTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> FixedSigTable<N> {
    /// An empty table.
    pub const fn new() -> Self {
        FixedSigTable {
            ids: [[0; N]; 5],
            infos: [[SigInfo {
                offset: 0,
                extra: 0,
            }; N]; 5],
            lens: [0; 5],
        }
    }

    /// Number of signatures of `kind` defined.
    pub fn len(&self, kind: SigKind) -> usize {
        self.lens.get(kind.index()).copied().unwrap_or(0)
    }

    fn ids(&self, k: usize) -> &[u64] {
        let len = self.lens.get(k).copied().unwrap_or(0);
        self.ids.get(k).and_then(|a| a.get(..len)).unwrap_or(&[])
    }
}

impl<const N: usize> SigLookup for FixedSigTable<N> {
    #[inline]
    fn get(&self, kind: SigKind, id: u64) -> Option<SigInfo> {
        let k = kind.index();
        let i = self.ids(k).binary_search(&id).ok()?;
        self.infos.get(k)?.get(i).copied()
    }

    fn define(
        &mut self,
        kind: SigKind,
        id: u64,
        info: SigInfo,
        _def: &Definition<'_>,
    ) -> Result<(), ErrorKind> {
        let k = kind.index();
        let len = self.lens.get(k).copied().unwrap_or(0);
        let at = match self.ids(k).binary_search(&id) {
            Ok(_) => return Ok(()),
            Err(at) => at,
        };
        if len >= N {
            return Err(kind.table_full(N as u64));
        }
        let (Some(ids), Some(infos)) = (self.ids.get_mut(k), self.infos.get_mut(k)) else {
            return Err(kind.table_full(N as u64));
        };
        if let (Some(ids), Some(infos)) = (ids.get_mut(at..=len), infos.get_mut(at..=len)) {
            ids.rotate_right(1);
            infos.rotate_right(1);
            if let (Some(i), Some(f)) = (ids.first_mut(), infos.first_mut()) {
                *i = id;
                *f = info;
            }
        }
        if let Some(l) = self.lens.get_mut(k) {
            *l = len + 1;
        }
        Ok(())
    }
}
