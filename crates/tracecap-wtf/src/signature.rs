//! Argument types and the `wtf.event#define` signature grammar (`TYPE NAME, TYPE NAME, ...`).

use crate::error::ErrorKind;

/// One of the 24 argument types an event signature can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArgType {
    /// `bool`.
    Bool,
    /// `int8` (alias `byte`).
    Int8,
    /// `uint8` (alias `octet`).
    Uint8,
    /// `int16` (alias `short`).
    Int16,
    /// `uint16` (alias `unsigned short`).
    Uint16,
    /// `int32` (alias `long`).
    Int32,
    /// `uint32` (alias `unsigned long`).
    Uint32,
    /// `float32` (alias `float`).
    Float32,
    /// `ascii`.
    Ascii,
    /// `utf8` (alias `DOMString`).
    Utf8,
    /// `any`: JSON text.
    Any,
    /// `char`: one 8-bit character code.
    Char,
    /// `wchar`: one UTF-16 code unit.
    WChar,
    /// `flowId`.
    FlowId,
    /// `time32`: microseconds on the wire, milliseconds to the loader.
    Time32,
    /// `int8[]`.
    Int8Array,
    /// `uint8[]`.
    Uint8Array,
    /// `int16[]`.
    Int16Array,
    /// `uint16[]`.
    Uint16Array,
    /// `int32[]`.
    Int32Array,
    /// `uint32[]`.
    Uint32Array,
    /// `float32[]`.
    Float32Array,
    /// `char[]`: 8-bit character codes, shown as a string.
    CharArray,
    /// `wchar[]`: UTF-16 code units, shown as a string.
    WCharArray,
}

impl ArgType {
    /// Every type, in the order of the facts table.
    pub const ALL: [ArgType; 24] = [
        ArgType::Bool,
        ArgType::Int8,
        ArgType::Uint8,
        ArgType::Int16,
        ArgType::Uint16,
        ArgType::Int32,
        ArgType::Uint32,
        ArgType::Float32,
        ArgType::Ascii,
        ArgType::Utf8,
        ArgType::Any,
        ArgType::Char,
        ArgType::WChar,
        ArgType::FlowId,
        ArgType::Time32,
        ArgType::Int8Array,
        ArgType::Uint8Array,
        ArgType::Int16Array,
        ArgType::Uint16Array,
        ArgType::Int32Array,
        ArgType::Uint32Array,
        ArgType::Float32Array,
        ArgType::CharArray,
        ArgType::WCharArray,
    ];

    /// The type's code in the type lists packed per definition: 1 + its position in
    /// [`ArgType::ALL`] (0 ends a list).
    #[inline(always)]
    pub(crate) const fn code(self) -> u8 {
        self as u8 + 1
    }

    /// The type with code `code` (see [`ArgType::code`]).
    #[inline(always)]
    pub(crate) const fn from_code(code: u8) -> Option<ArgType> {
        Some(match code {
            1 => ArgType::Bool,
            2 => ArgType::Int8,
            3 => ArgType::Uint8,
            4 => ArgType::Int16,
            5 => ArgType::Uint16,
            6 => ArgType::Int32,
            7 => ArgType::Uint32,
            8 => ArgType::Float32,
            9 => ArgType::Ascii,
            10 => ArgType::Utf8,
            11 => ArgType::Any,
            12 => ArgType::Char,
            13 => ArgType::WChar,
            14 => ArgType::FlowId,
            15 => ArgType::Time32,
            16 => ArgType::Int8Array,
            17 => ArgType::Uint8Array,
            18 => ArgType::Int16Array,
            19 => ArgType::Uint16Array,
            20 => ArgType::Int32Array,
            21 => ArgType::Uint32Array,
            22 => ArgType::Float32Array,
            23 => ArgType::CharArray,
            24 => ArgType::WCharArray,
            _ => return None,
        })
    }

    /// The canonical name a signature uses for this type.
    pub const fn name(self) -> &'static str {
        match self {
            ArgType::Bool => "bool",
            ArgType::Int8 => "int8",
            ArgType::Uint8 => "uint8",
            ArgType::Int16 => "int16",
            ArgType::Uint16 => "uint16",
            ArgType::Int32 => "int32",
            ArgType::Uint32 => "uint32",
            ArgType::Float32 => "float32",
            ArgType::Ascii => "ascii",
            ArgType::Utf8 => "utf8",
            ArgType::Any => "any",
            ArgType::Char => "char",
            ArgType::WChar => "wchar",
            ArgType::FlowId => "flowId",
            ArgType::Time32 => "time32",
            ArgType::Int8Array => "int8[]",
            ArgType::Uint8Array => "uint8[]",
            ArgType::Int16Array => "int16[]",
            ArgType::Uint16Array => "uint16[]",
            ArgType::Int32Array => "int32[]",
            ArgType::Uint32Array => "uint32[]",
            ArgType::Float32Array => "float32[]",
            ArgType::CharArray => "char[]",
            ArgType::WCharArray => "wchar[]",
        }
    }

    /// For array types, the width in bytes of one element; `None` for scalars.
    pub const fn element_size(self) -> Option<usize> {
        match self {
            ArgType::Int8Array | ArgType::Uint8Array | ArgType::CharArray => Some(1),
            ArgType::Int16Array | ArgType::Uint16Array | ArgType::WCharArray => Some(2),
            ArgType::Int32Array | ArgType::Uint32Array | ArgType::Float32Array => Some(4),
            _ => None,
        }
    }

    /// Parses a type name, aliases and `T[]` / `sequence<T>` included.
    pub fn parse(name: &str) -> Option<ArgType> {
        if let Some(inner) = name.strip_suffix("[]") {
            return Self::scalar(inner).and_then(Self::array_of);
        }
        if let Some(inner) = name
            .strip_prefix("sequence<")
            .and_then(|s| s.strip_suffix('>'))
        {
            return Self::scalar(inner).and_then(Self::array_of);
        }
        Self::scalar(name)
    }

    fn scalar(name: &str) -> Option<ArgType> {
        Some(match name {
            "bool" => ArgType::Bool,
            "int8" | "byte" => ArgType::Int8,
            "uint8" | "octet" => ArgType::Uint8,
            "int16" | "short" => ArgType::Int16,
            "uint16" | "unsigned short" => ArgType::Uint16,
            "int32" | "long" => ArgType::Int32,
            "uint32" | "unsigned long" => ArgType::Uint32,
            "float32" | "float" => ArgType::Float32,
            "ascii" => ArgType::Ascii,
            "utf8" | "DOMString" => ArgType::Utf8,
            "any" => ArgType::Any,
            "char" => ArgType::Char,
            "wchar" => ArgType::WChar,
            "flowId" => ArgType::FlowId,
            "time32" => ArgType::Time32,
            _ => return None,
        })
    }

    fn array_of(elem: ArgType) -> Option<ArgType> {
        Some(match elem {
            ArgType::Int8 => ArgType::Int8Array,
            ArgType::Uint8 => ArgType::Uint8Array,
            ArgType::Int16 => ArgType::Int16Array,
            ArgType::Uint16 => ArgType::Uint16Array,
            ArgType::Int32 => ArgType::Int32Array,
            ArgType::Uint32 => ArgType::Uint32Array,
            ArgType::Float32 => ArgType::Float32Array,
            ArgType::Char => ArgType::CharArray,
            ArgType::WChar => ArgType::WCharArray,
            _ => return None,
        })
    }
}

/// The types' codes (see [`ArgType::code`]), for matching directly on the codes packed per
/// definition. Arrays are the codes from `INT8_ARRAY` to `WCHAR_ARRAY`; 0 ends a list.
pub(crate) mod code {
    use super::ArgType;

    pub(crate) const BOOL: u8 = ArgType::Bool.code();
    pub(crate) const INT8: u8 = ArgType::Int8.code();
    pub(crate) const UINT8: u8 = ArgType::Uint8.code();
    pub(crate) const INT16: u8 = ArgType::Int16.code();
    pub(crate) const UINT16: u8 = ArgType::Uint16.code();
    pub(crate) const INT32: u8 = ArgType::Int32.code();
    pub(crate) const UINT32: u8 = ArgType::Uint32.code();
    pub(crate) const FLOAT32: u8 = ArgType::Float32.code();
    pub(crate) const ASCII: u8 = ArgType::Ascii.code();
    pub(crate) const UTF8: u8 = ArgType::Utf8.code();
    pub(crate) const ANY: u8 = ArgType::Any.code();
    pub(crate) const CHAR: u8 = ArgType::Char.code();
    pub(crate) const WCHAR: u8 = ArgType::WChar.code();
    pub(crate) const FLOW_ID: u8 = ArgType::FlowId.code();
    pub(crate) const TIME32: u8 = ArgType::Time32.code();
    pub(crate) const INT8_ARRAY: u8 = ArgType::Int8Array.code();
    pub(crate) const UINT8_ARRAY: u8 = ArgType::Uint8Array.code();
    pub(crate) const INT16_ARRAY: u8 = ArgType::Int16Array.code();
    pub(crate) const UINT16_ARRAY: u8 = ArgType::Uint16Array.code();
    pub(crate) const INT32_ARRAY: u8 = ArgType::Int32Array.code();
    pub(crate) const UINT32_ARRAY: u8 = ArgType::Uint32Array.code();
    pub(crate) const FLOAT32_ARRAY: u8 = ArgType::Float32Array.code();
    pub(crate) const CHAR_ARRAY: u8 = ArgType::CharArray.code();
    pub(crate) const WCHAR_ARRAY: u8 = ArgType::WCharArray.code();
    /// Not types: markers that send [`crate::Values`] to its slow path (the largest 5-bit
    /// codes). Legacy codes follow.
    pub(crate) const LEGACY: u8 = 29;
    /// Types from the signature text, chunked encoding.
    pub(crate) const TEXT: u8 = 30;
    /// Types from the signature text, legacy encoding.
    pub(crate) const TEXT_LEGACY: u8 = 31;
}

/// One declared argument: its type and name (borrowed from the signature text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgDecl<'a> {
    /// The argument's type.
    pub ty: ArgType,
    /// The argument's name.
    pub name: &'a str,
}

/// The arguments of a signature string, in order. Fused after the first error.
///
/// ```
/// use tracecap_wtf::{ArgType, Signature};
/// let mut sig = Signature::new("unsigned short a, sequence<uint8> b");
/// assert_eq!(sig.next().unwrap().unwrap().ty, ArgType::Uint16); // ok: doc example
/// assert_eq!(sig.next().unwrap().unwrap().name, "b"); // ok: doc example
/// assert!(sig.next().is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Signature<'a> {
    rest: Option<&'a str>,
}

impl<'a> Signature<'a> {
    /// The arguments of `text` (an empty text has none).
    pub const fn new(text: &'a str) -> Self {
        Signature { rest: Some(text) }
    }

    /// No arguments.
    pub const fn empty() -> Self {
        Signature { rest: None }
    }
}

impl<'a> Iterator for Signature<'a> {
    type Item = Result<ArgDecl<'a>, ErrorKind>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let rest = self.rest?;
            let (piece, tail) = match rest.find(',') {
                Some(i) => (rest.get(..i).unwrap_or(""), rest.get(i + 1..)),
                None => (rest, None),
            };
            self.rest = tail;
            if piece.trim().is_empty() {
                continue;
            }
            let r = parse_piece(piece);
            if r.is_err() {
                self.rest = None;
            }
            return Some(r);
        }
    }
}

fn is_type_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b' ' | b'[' | b']' | b'<' | b'>')
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `[ ]*(TYPE) (NAME)` where the type is the longest run of type characters that is followed by a
/// space and a name character (the loader's greedy pattern).
fn parse_piece(piece: &str) -> Result<ArgDecl<'_>, ErrorKind> {
    let s = piece.trim_start_matches(' ');
    let b = s.as_bytes();
    let type_run = b.iter().position(|&c| !is_type_byte(c)).unwrap_or(b.len());
    let mut split = None;
    for k in (1..type_run).rev() {
        if b.get(k) == Some(&b' ') && b.get(k + 1).is_some_and(|&c| is_name_byte(c)) {
            split = Some(k);
            break;
        }
    }
    let k = split.ok_or(ErrorKind::BadSignature)?;
    let ty_text = s.get(..k).ok_or(ErrorKind::BadSignature)?;
    let name_start = k + 1;
    let name_len = b
        .get(name_start..)
        .unwrap_or(&[])
        .iter()
        .position(|&c| !is_name_byte(c))
        .unwrap_or(b.len().saturating_sub(name_start));
    let name = s
        .get(name_start..name_start + name_len)
        .ok_or(ErrorKind::BadSignature)?;
    let ty = ArgType::parse(ty_text).ok_or(ErrorKind::UnknownArgType)?;
    Ok(ArgDecl { ty, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_arrays() {
        let all: Vec<_> = Signature::new(
            "byte b, octet o, short s, unsigned short us, long l, unsigned long ul, float f, DOMString d, sequence<uint8> seq, wchar[] w",
        )
        .map(|a| a.unwrap()) // ok: unit test
        .collect();
        let tys: Vec<_> = all.iter().map(|a| a.ty).collect();
        assert_eq!(
            tys,
            [
                ArgType::Int8,
                ArgType::Uint8,
                ArgType::Int16,
                ArgType::Uint16,
                ArgType::Int32,
                ArgType::Uint32,
                ArgType::Float32,
                ArgType::Utf8,
                ArgType::Uint8Array,
                ArgType::WCharArray
            ]
        );
        assert_eq!(all[3].name, "us");
    }

    #[test]
    fn every_canonical_name_round_trips() {
        for t in ArgType::ALL {
            assert_eq!(ArgType::parse(t.name()), Some(t));
        }
    }

    #[test]
    fn codes_follow_all() {
        for (i, t) in ArgType::ALL.into_iter().enumerate() {
            assert_eq!(t.code() as usize, i + 1);
            assert_eq!(ArgType::from_code(t.code()), Some(t));
        }
        assert_eq!(ArgType::from_code(0), None);
        assert_eq!(ArgType::from_code(25), None);
    }

    #[test]
    fn bad_pieces() {
        assert_eq!(
            Signature::new("nonsense").next(),
            Some(Err(ErrorKind::BadSignature))
        );
        assert_eq!(
            Signature::new("int64 x").next(),
            Some(Err(ErrorKind::UnknownArgType))
        );
        assert_eq!(Signature::new("").count(), 0);
        assert_eq!(
            Signature::new("uint8 x@3").next().unwrap().unwrap().name, // ok: unit test
            "x"
        );
    }
}
