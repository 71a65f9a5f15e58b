//! Chunk string tables: `\0`-terminated strings numbered from 0, looked up by ordinal in place.

/// Ordinal meaning "null string" in chunked files.
pub const NULL_ORDINAL: u32 = 0xFFFF_FFFF;
/// Ordinal meaning "empty string" (written by the JS recorder).
pub const EMPTY_ORDINAL: u32 = 0xFFFF_FFFE;

/// A chunk's string table (part type `0x30000`), borrowed from the file.
///
/// Lookups scan the table (no allocation); build a [`StringIndex`] (feature `alloc`) when many
/// lookups are made in one table.
///
#[cfg_attr(not(feature = "alloc"), doc = "[`StringIndex`]: crate#features")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StringTable<'a> {
    data: &'a [u8],
    offset: u64,
}

impl<'a> StringTable<'a> {
    /// A table over `data`, which starts at absolute file offset `offset`.
    pub const fn new(data: &'a [u8], offset: u64) -> Self {
        StringTable { data, offset }
    }

    /// Absolute file offset of the table (also identifies it).
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The table's raw bytes.
    pub const fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The strings in ordinal order. A last string without its `\0` is still returned.
    pub fn iter(&self) -> StringIter<'a> {
        StringIter { rest: self.data }
    }

    /// The string with ordinal `ordinal`, as bytes (normally UTF-8). The null and empty ordinals
    /// and ordinals past the end give `None`; use [`StringTable::resolve`] for those.
    pub fn get(&self, ordinal: u32) -> Option<&'a [u8]> {
        self.iter().nth(usize::try_from(ordinal).ok()?)
    }

    /// Resolves an ordinal as the loader does: [`NULL_ORDINAL`] is `None`, [`EMPTY_ORDINAL`] is `""`,
    /// a missing ordinal is `None`.
    pub fn resolve(&self, ordinal: u32) -> Option<&'a [u8]> {
        match ordinal {
            EMPTY_ORDINAL => Some(&[]),
            NULL_ORDINAL => None,
            n => self.get(n),
        }
    }
}

/// Iterator over a string table's strings.
#[derive(Clone, Debug)]
pub struct StringIter<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for StringIter<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        match self.rest.iter().position(|&b| b == 0) {
            Some(i) => {
                let (s, tail) = self.rest.split_at(i);
                self.rest = tail.get(1..).unwrap_or(&[]);
                Some(s)
            }
            None => Some(core::mem::take(&mut self.rest)),
        }
    }
}

/// An ordinal -> string index over one [`StringTable`], for O(1) lookups (feature `alloc`).
/// Its size is the number of strings in the table.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct StringIndex<'a> {
    table: StringTable<'a>,
    strings: alloc::vec::Vec<&'a [u8]>,
}

#[cfg(feature = "alloc")]
impl<'a> StringIndex<'a> {
    /// Indexes every string of `table`.
    pub fn new(table: StringTable<'a>) -> Self {
        StringIndex {
            table,
            strings: table.iter().collect(),
        }
    }

    /// The indexed table.
    pub fn table(&self) -> StringTable<'a> {
        self.table
    }

    /// Like [`StringTable::resolve`], in constant time.
    pub fn resolve(&self, ordinal: u32) -> Option<&'a [u8]> {
        match ordinal {
            EMPTY_ORDINAL => Some(&[]),
            NULL_ORDINAL => None,
            n => self.strings.get(usize::try_from(n).ok()?).copied(),
        }
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// True when the table has no strings.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let t = StringTable::new(b"ab\0\0c\0", 100);
        assert_eq!(t.get(0), Some(&b"ab"[..]));
        assert_eq!(t.get(1), Some(&b""[..]));
        assert_eq!(t.get(2), Some(&b"c"[..]));
        assert_eq!(t.get(3), None);
        assert_eq!(t.resolve(NULL_ORDINAL), None);
        assert_eq!(t.resolve(EMPTY_ORDINAL), Some(&b""[..]));
        let i = StringIndex::new(t);
        assert_eq!(i.len(), 3);
        assert_eq!(i.resolve(2), Some(&b"c"[..]));
    }
}
