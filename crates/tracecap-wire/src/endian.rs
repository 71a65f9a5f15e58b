//! Byte order chosen at run time, for formats whose header announces it.

/// A byte order known only when the file is read (for example from a header flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Least significant byte first.
    #[default]
    Little,
    /// Most significant byte first.
    Big,
}

macro_rules! endian_fn {
    ($name:ident, $t:ty, $n:expr) => {
        #[doc = concat!("Decodes a `", stringify!($t), "` from bytes in this byte order.")]
        #[inline]
        pub fn $name(self, b: [u8; $n]) -> $t {
            match self {
                Endian::Little => <$t>::from_le_bytes(b),
                Endian::Big => <$t>::from_be_bytes(b),
            }
        }
    };
}

impl Endian {
    endian_fn!(u16, u16, 2);
    endian_fn!(u32, u32, 4);
    endian_fn!(u64, u64, 8);
    endian_fn!(i16, i16, 2);
    endian_fn!(i32, i32, 4);
    endian_fn!(i64, i64, 8);
    endian_fn!(f32, f32, 4);
    endian_fn!(f64, f64, 8);

    /// True for [`Endian::Big`].
    pub const fn is_big(self) -> bool {
        matches!(self, Endian::Big)
    }
}
