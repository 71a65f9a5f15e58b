//! Arguments as JSON values, presented the way the official loader presents them (feature
//! `json`): numbers, strings, `null` for the null string, typed arrays as arrays, `char[]` and
//! `wchar[]` as strings, `time32` in milliseconds, `float32` as the double it widens to, `any` as
//! its parsed JSON value (an `any` text that is not JSON, which the loader would reject, comes out
//! as a JSON string).

use alloc::string::String;
use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Range;
use serde_json::{Map, Number, Value as J};

use crate::error::Error;
use crate::event::Event;
use crate::strings::{StringTable, EMPTY_ORDINAL, NULL_ORDINAL};
use crate::value::{latin1, text_lossy, Array, Elem, Str, Value};

/// Turns event arguments into JSON, caching where the strings of one string table lie (events
/// of one chunk share it), so long chunks resolve strings in constant time. The cache keeps
/// positions, not the bytes: events of any lifetime can be given (a push parser's, whose chunk
/// is gone once the next comes).
#[derive(Debug, Default)]
pub struct ArgsJson<'a> {
    /// The cached table's offset and length, and where each of its strings lies in it.
    index: Option<(u64, usize, Vec<Range<usize>>)>,
    _events: PhantomData<&'a ()>,
}

impl<'a> ArgsJson<'a> {
    /// A formatter with an empty cache.
    pub fn new() -> Self {
        ArgsJson {
            index: None,
            _events: PhantomData,
        }
    }

    fn resolve<'e>(&mut self, table: &StringTable<'e>, s: Str<'e>) -> Option<&'e [u8]> {
        match s {
            Str::Null => None,
            Str::Inline(b) => Some(b),
            Str::Ordinal(EMPTY_ORDINAL) => Some(&[]),
            Str::Ordinal(NULL_ORDINAL) => None,
            Str::Ordinal(n) => {
                let bytes = table.bytes();
                // Tables are told apart by position, not by (costly) content comparison.
                let fresh = match &self.index {
                    Some((offset, len, _)) => *offset != table.offset() || *len != bytes.len(),
                    None => true,
                };
                if fresh {
                    let mut spans = match self.index.take() {
                        Some((_, _, mut spans)) => {
                            spans.clear();
                            spans
                        }
                        None => Vec::new(),
                    };
                    let mut at = 0usize;
                    for s in table.iter() {
                        spans.push(at..at + s.len());
                        at += s.len() + 1;
                    }
                    self.index = Some((table.offset(), bytes.len(), spans));
                }
                let (_, _, spans) = self.index.as_ref()?;
                bytes.get(spans.get(usize::try_from(n).ok()?)?.clone())
            }
        }
    }

    /// A string argument as text (`None` for null).
    pub fn text<'e>(&mut self, ev: &Event<'e>, s: Str<'e>) -> Option<String> {
        self.resolve(&ev.strings, s)
            .map(|b| String::from(text_lossy(b)))
    }

    /// One value as JSON.
    pub fn value<'e>(&mut self, ev: &Event<'e>, v: Value<'e>) -> J {
        match v {
            Value::Bool(b) => J::Bool(b),
            Value::Int8(x) => J::from(x),
            Value::Uint8(x) => J::from(x),
            Value::Int16(x) => J::from(x),
            Value::Uint16(x) => J::from(x),
            Value::Int32(x) => J::from(x),
            Value::Uint32(x) | Value::FlowId(x) => J::from(x),
            Value::Float32(f) => number(f64::from(f)),
            Value::Time32(t) => number(f64::from(t) / 1000.0),
            Value::Ascii(s) | Value::Utf8(s) => self.text(ev, s).map_or(J::Null, J::String),
            Value::Any(s) => match self.text(ev, s) {
                None => J::Null,
                Some(t) => serde_json::from_str(&t).unwrap_or(J::String(t)),
            },
            Value::Char(c) => J::String(latin1(&[c])),
            Value::WChar(w) => J::String(
                core::char::decode_utf16([w])
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect(),
            ),
            Value::Array(a) => array(a),
        }
    }

    /// Every argument of `ev` as a JSON object (`{}` when it has none).
    pub fn args(&mut self, ev: &Event<'_>) -> Result<Map<String, J>, Error> {
        let mut map = Map::new();
        for a in ev.args() {
            let a = a?;
            let v = self.value(ev, a.value);
            map.insert(String::from(a.name), v);
        }
        Ok(map)
    }
}

/// A double as JSON the way JavaScript prints it: integral values as integers, non-finite as null.
pub fn number(f: f64) -> J {
    if !f.is_finite() {
        return J::Null;
    }
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if f > -SAFE && f < SAFE && (f as i64) as f64 == f {
        return J::from(f as i64);
    }
    Number::from_f64(f).map_or(J::Null, J::Number)
}

fn array(a: Array<'_>) -> J {
    use crate::signature::ArgType;
    if a.is_null() {
        return J::Null;
    }
    match a.ty {
        ArgType::CharArray => J::String(latin1(a.data.unwrap_or(&[]))),
        ArgType::WCharArray => J::String(
            core::char::decode_utf16(a.iter().map(|e| match e {
                Elem::Int(i) => i as u16,
                Elem::Float(_) => 0xFFFD,
            }))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
        ),
        _ => J::Array(
            a.iter()
                .map(|e| match e {
                    Elem::Int(i) => J::from(i),
                    Elem::Float(f) => number(f64::from(f)),
                })
                .collect(),
        ),
    }
}
