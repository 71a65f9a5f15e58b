//! Orbit API names: UTF-8 packed eight bytes per `fixed64`, little-endian, NUL-padded.
//!
//! The chunks are read in order (`encoded_name_1` ..= `encoded_name_8`, then
//! `encoded_name_additional`); decoding stops at the first chunk that is 0, and each chunk
//! contributes its bytes up to its first NUL. A name of exactly 8·k bytes has no zero chunk after
//! it. Decoding allocates nothing: [`ApiName`] iterates the bytes, or copies them into a buffer.

use crate::repeated::{Repeated, RepeatedIter};

/// The encoded name of an Orbit API event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApiName<'a> {
    chunks: [u64; 8],
    additional: Repeated<'a>,
}

impl<'a> ApiName<'a> {
    /// The name made of `chunks` (fields 1..=8 of the name) and the additional chunks.
    pub fn new(chunks: [u64; 8], additional: Repeated<'a>) -> Self {
        ApiName { chunks, additional }
    }

    /// The name's bytes, in order.
    pub fn bytes(&self) -> ApiNameBytes<'a> {
        ApiNameBytes {
            chunks: self.chunks,
            next_chunk: 0,
            additional: self.additional.iter(),
            current: 0,
            left_in_current: 0,
            stopped: false,
        }
    }

    /// Copies the name into `buf`, returning the bytes written; `None` when `buf` is too small.
    pub fn copy_to<'b>(&self, buf: &'b mut [u8]) -> Option<&'b [u8]> {
        let mut n = 0;
        for b in self.bytes() {
            *buf.get_mut(n)? = b;
            n += 1;
        }
        buf.get(..n)
    }

    /// True when the name's bytes equal `name`.
    pub fn eq_bytes(&self, name: &[u8]) -> bool {
        self.bytes().eq(name.iter().copied())
    }

    /// The name as a string (invalid UTF-8 replaced).
    #[cfg(feature = "alloc")]
    pub fn to_string_lossy(&self) -> alloc::string::String {
        let v: alloc::vec::Vec<u8> = self.bytes().collect();
        alloc::string::String::from_utf8_lossy(&v).into_owned()
    }
}

/// Iterator over the bytes of an [`ApiName`].
#[derive(Clone, Debug)]
pub struct ApiNameBytes<'a> {
    chunks: [u64; 8],
    next_chunk: usize,
    additional: RepeatedIter<'a>,
    current: u64,
    left_in_current: u8,
    stopped: bool,
}

impl Iterator for ApiNameBytes<'_> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        loop {
            if self.left_in_current > 0 {
                let b = (self.current & 0xff) as u8;
                self.current >>= 8;
                self.left_in_current -= 1;
                if b != 0 {
                    return Some(b);
                }
                // The rest of this chunk is padding.
                self.left_in_current = 0;
            }
            if self.stopped {
                return None;
            }
            let chunk = match self.chunks.get(self.next_chunk) {
                Some(&c) => {
                    self.next_chunk += 1;
                    c
                }
                None => self.additional.next().unwrap_or(0),
            };
            if chunk == 0 {
                self.stopped = true;
                return None;
            }
            self.current = chunk;
            self.left_in_current = 8;
        }
    }
}

impl core::iter::FusedIterator for ApiNameBytes<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(name: &str) -> ([u64; 8], Vec<u64>) {
        let mut chunks = Vec::new();
        for c in name.as_bytes().chunks(8) {
            let mut a = [0u8; 8];
            a[..c.len()].copy_from_slice(c);
            chunks.push(u64::from_le_bytes(a));
        }
        if chunks.is_empty() {
            chunks.push(0);
        }
        let mut first = [0u64; 8];
        for (i, c) in chunks.iter().take(8).enumerate() {
            first[i] = *c;
        }
        (first, chunks.iter().skip(8).copied().collect())
    }

    #[test]
    fn decodes_oracle_examples() {
        let n = ApiName::new([435626799686, 0, 0, 0, 0, 0, 0, 0], Repeated::default());
        assert_eq!(n.to_string_lossy(), "Frame");
        let n = ApiName::new(
            [5006151707938355269, 0, 0, 0, 0, 0, 0, 0],
            Repeated::default(),
        );
        assert_eq!(n.to_string_lossy(), "ExactlyE");
        let n = ApiName::new(
            [8392569318740684620, 6648437, 0, 0, 0, 0, 0, 0],
            Repeated::default(),
        );
        assert_eq!(n.to_string_lossy(), "LoadTexture");
        let (first, rest) = pack(
            "a name much longer than sixty-four bytes, so that it spills over into more chunks",
        );
        assert!(!rest.is_empty());
        let mut buf = [0u8; 128];
        let _ = first;
        let short = ApiName::new(pack("exactly16bytes!!").0, Repeated::default());
        assert_eq!(short.copy_to(&mut buf), Some(&b"exactly16bytes!!"[..]));
        assert_eq!(short.copy_to(&mut [0u8; 4]), None);
    }
}
