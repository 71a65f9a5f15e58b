//! Arguments as JSON values, presented the way the official loader presents them (feature
//! `json`): numbers, strings, `null` for the null string, typed arrays as arrays, `char[]` and
//! `wchar[]` as strings, `time32` in milliseconds, `float32` as the double it widens to, `any` as
//! its parsed JSON value (an `any` text that is not JSON, which the loader would reject, comes out
//! as a JSON string).

use alloc::string::String;
use serde_json::{Map, Number, Value as J};

use crate::error::Error;
use crate::event::Event;
use crate::strings::{StringIndex, StringTable};
use crate::value::{latin1, text_lossy, Array, Elem, Str, Value};

/// Turns event arguments into JSON, caching one string-table index at a time (events of one
/// chunk share it), so long chunks resolve strings in constant time.
#[derive(Debug, Default)]
pub struct ArgsJson<'a> {
    index: Option<StringIndex<'a>>,
}

impl<'a> ArgsJson<'a> {
    /// A formatter with an empty cache.
    pub fn new() -> Self {
        ArgsJson { index: None }
    }

    fn resolve(&mut self, table: &StringTable<'a>, s: Str<'a>) -> Option<&'a [u8]> {
        match s {
            Str::Null => None,
            Str::Inline(b) => Some(b),
            Str::Ordinal(n) => {
                // Tables are told apart by position, not by (costly) content comparison.
                let fresh = match &self.index {
                    Some(i) => {
                        i.table().offset() != table.offset()
                            || i.table().bytes().len() != table.bytes().len()
                    }
                    None => true,
                };
                if fresh {
                    self.index = Some(StringIndex::new(*table));
                }
                self.index.as_ref().and_then(|i| i.resolve(n))
            }
        }
    }

    /// A string argument as text (`None` for null).
    pub fn text(&mut self, ev: &Event<'a>, s: Str<'a>) -> Option<String> {
        self.resolve(&ev.strings, s)
            .map(|b| String::from(text_lossy(b)))
    }

    /// One value as JSON.
    pub fn value(&mut self, ev: &Event<'a>, v: Value<'a>) -> J {
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
    pub fn args(&mut self, ev: &Event<'a>) -> Result<Map<String, J>, Error> {
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
