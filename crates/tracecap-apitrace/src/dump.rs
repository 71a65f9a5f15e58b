//! Text exactly as `apitrace dump --color=never -v --thread-ids=yes` prints it.
//!
//! The quirks reproduced on purpose: strings stop at their first NUL byte; bytes outside
//! printable ASCII are printed as a backslash and octal digits computed the way upstream does
//! (its middle and high digit are both bits 3-5); carriage returns vanish; one-element arrays
//! print as `&elem`; floats use C's `%g` with 7 (float) or 16 (double) significant digits.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::calls::Call;
use crate::error::Error;
use crate::flags::{call_flags, END_FRAME};
use crate::table::SigTable;
use crate::value::Value;

/// Prints calls; keeps a scratch buffer and the text of each function signature between calls
/// (use one `Dumper` per trace: the cache is keyed by signature id).
#[derive(Debug, Default)]
pub struct Dumper {
    scratch: String,
    /// The fixed text of each function signature's calls, by signature id (ids below 2^16).
    texts: Vec<SigText>,
}

/// What every call of one function signature prints around its values, rendered once.
#[derive(Debug, Default)]
struct SigText {
    ready: bool,
    /// `name(`.
    head: Vec<u8>,
    /// `arg = ` for the first argument, `, arg = ` for the others, end to end.
    labels: Vec<u8>,
    /// Where each argument's label ends in `labels`.
    ends: Vec<usize>,
    /// The call ends a frame (a blank line follows it).
    end_frame: bool,
}

impl SigText {
    fn new(table: &SigTable, sig: u64) -> Self {
        let mut t = SigText {
            ready: true,
            ..SigText::default()
        };
        let f = table.function(sig);
        let name = f.map_or(&b""[..], |f| f.name());
        t.head.extend_from_slice(name);
        t.head.push(b'(');
        if let Some(f) = f {
            for (i, arg) in f.arg_names().enumerate() {
                if i > 0 {
                    t.labels.extend_from_slice(b", ");
                }
                t.labels.extend_from_slice(arg);
                t.labels.extend_from_slice(b" = ");
                t.ends.push(t.labels.len());
            }
        }
        t.end_frame = call_flags(name) & END_FRAME != 0;
        t
    }

    /// The label of argument `i`, which follows argument `i - 1`'s.
    #[inline]
    fn label(&self, i: usize) -> Option<&[u8]> {
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)?,
        };
        self.labels.get(start..*self.ends.get(i)?)
    }
}

/// Appends the decimal form of `v`.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(b) = buf.get_mut(i) {
            *b = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    out.extend_from_slice(buf.get(i..).unwrap_or(&[]));
}

/// Appends the decimal form of `v`.
#[inline]
pub fn push_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(out, v.unsigned_abs());
}

/// Appends `v` in lower-case hex without prefix.
#[inline]
pub fn push_hex(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 16];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        if let Some(b) = buf.get_mut(i) {
            let d = (v & 15) as u8;
            *b = if d < 10 { b'0' + d } else { b'a' + d - 10 };
        }
        v >>= 4;
        if v == 0 || i == 0 {
            break;
        }
    }
    out.extend_from_slice(buf.get(i..).unwrap_or(&[]));
}

/// 10^0 ..= 10^38, every power of ten a `u128` holds.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: an index error would not build
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < t.len() {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The `p` significant decimal digits of `m * 2^e2` (correctly rounded, ties to even) and the
/// decimal exponent of the first digit, computed exactly in 128-bit integers; `None` when the
/// numbers would not fit (then the slower formatter is used).
fn exact_digits(m: u64, e2: i32, p: u32) -> Option<(u64, i32)> {
    if m == 0 {
        return None;
    }
    let bits = 64 - m.leading_zeros() as i32;
    // Decimal exponent estimate of m * 2^e2 (may be one too small).
    // floor(n * log10(2)) for the binary exponent n of the leading bit, in integers (no_std
    // has no `floor`): 78913 / 2^18 is log10(2) to within 2^-20.
    let mut x = ((bits + e2 - 1) * 78913) >> 18;
    let lo = 10u64.checked_pow(p - 1)?;
    let hi = lo.checked_mul(10)?;
    for _ in 0..3 {
        let s = p as i32 - 1 - x; // scale by 10^s
        let mut num = u128::from(m);
        let mut den = 1u128;
        if s >= 0 {
            num = num.checked_mul(*POW10.get(s as usize)?)?;
        } else {
            den = den.checked_mul(*POW10.get((-s) as usize)?)?;
        }
        if e2 >= 0 {
            if num.leading_zeros() as i32 <= e2 {
                return None;
            }
            num <<= e2;
        } else {
            if den.leading_zeros() as i32 <= -e2 + 1 {
                return None;
            }
            den <<= -e2;
        }
        // Values of a few digits either side of the point (nearly all of a trace) divide by a
        // power of two only: a shift, not a 128-bit division.
        let (mut q, r) = if den.is_power_of_two() {
            let k = den.trailing_zeros();
            (num >> k, num & (den - 1))
        } else {
            (num / den, num % den)
        };
        if r * 2 > den || (r * 2 == den && q & 1 == 1) {
            q += 1;
        }
        let q = u64::try_from(q).ok()?;
        if q >= hi {
            if q == hi && num / den < u128::from(hi) {
                // Rounding carried into a new digit: 9.99..5 -> 1.00e+1.
                return Some((lo, x + 1));
            }
            x += 1;
        } else if q < lo {
            x -= 1;
        } else {
            return Some((q, x));
        }
    }
    None
}

/// Appends `v` as C's `printf("%.*g", precision, v)` does (glibc).
pub fn push_g(out: &mut Vec<u8>, scratch: &mut String, v: f64, precision: usize) {
    let p = precision.clamp(1, 17);
    if v.is_nan() {
        out.extend_from_slice(if v.is_sign_negative() {
            b"-nan"
        } else {
            b"nan"
        });
        return;
    }
    if v.is_infinite() {
        out.extend_from_slice(if v < 0.0 { b"-inf" } else { b"inf" });
        return;
    }
    if v.is_sign_negative() {
        out.push(b'-');
    }
    if v == 0.0 {
        out.push(b'0');
        return;
    }
    let bits = v.abs().to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e2) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    };
    // The p significant digits (as ASCII) and the decimal exponent of the first.
    let mut digits = [b'0'; 17];
    let x = match exact_digits(m, e2, p as u32) {
        Some((mut n, x)) => {
            for d in digits.get_mut(..p).unwrap_or(&mut []).iter_mut().rev() {
                *d = b'0' + (n % 10) as u8;
                n /= 10;
            }
            x
        }
        None => {
            scratch.clear();
            let _ = write!(scratch, "{:.*e}", p - 1, v.abs());
            let (mant, e) = scratch.split_once('e').unwrap_or((scratch.as_str(), "0"));
            for (d, b) in digits
                .iter_mut()
                .zip(mant.bytes().filter(u8::is_ascii_digit))
            {
                *d = b;
            }
            e.parse::<i32>().unwrap_or(0)
        }
    };
    let digits = digits.get(..p).unwrap_or(&[]);
    // Significant digits without trailing zeros (at least one).
    let keep = digits.iter().rposition(|&d| d != b'0').map_or(1, |i| i + 1);
    let sig = digits.get(..keep).unwrap_or(&[]);
    if x < -4 || x >= p as i32 {
        let (first, rest) = sig.split_first().unwrap_or((&b'0', &[]));
        out.push(*first);
        if !rest.is_empty() {
            out.push(b'.');
            out.extend_from_slice(rest);
        }
        out.push(b'e');
        out.push(if x < 0 { b'-' } else { b'+' });
        let e = x.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        push_u64(out, u64::from(e));
    } else if x >= 0 {
        let int = x as usize + 1;
        for i in 0..int {
            out.push(sig.get(i).copied().unwrap_or(b'0'));
        }
        if let Some(f) = sig.get(int..) {
            if !f.is_empty() {
                out.push(b'.');
                out.extend_from_slice(f);
            }
        }
    } else {
        out.extend_from_slice(b"0.");
        for _ in 0..(-x - 1) {
            out.push(b'0');
        }
        out.extend_from_slice(sig);
    }
}

fn push_escaped_unit(out: &mut Vec<u8>, c: u32) {
    match c {
        0x22 => out.extend_from_slice(b"\\\""),
        0x5c => out.extend_from_slice(b"\\\\"),
        0x20..=0x7e => out.push(c as u8),
        0x09 => out.push(b'\t'),
        0x0d => {}
        0x0a => out.push(b'\n'),
        _ => {
            let o0 = (c & 7) as u8;
            let o1 = ((c >> 3) & 7) as u8;
            out.push(b'\\');
            if o1 != 0 {
                out.push(b'0' + o1);
                out.push(b'0' + o1);
            }
            out.push(b'0' + o0);
        }
    }
}

/// Appends a string the way apitrace quotes it (stopping at the first NUL).
pub fn push_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &b in s {
        if b == 0 {
            break;
        }
        // `char` is signed on the hosts apitrace runs on: bytes >= 0x80 sign-extend, which only
        // changes bits the escape does not print.
        push_escaped_unit(out, u32::from(b) | if b >= 0x80 { 0xffff_ff00 } else { 0 });
    }
    out.push(b'"');
}

impl Dumper {
    /// A new dumper.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the `// name = "value"` lines apitrace prints for the header properties
    /// (sorted by name, as upstream keeps them in an ordered map; a repeated name keeps its
    /// last value).
    pub fn properties<'p>(
        &mut self,
        out: &mut Vec<u8>,
        props: impl Iterator<Item = (&'p [u8], &'p [u8])>,
    ) {
        let mut v: Vec<(&[u8], &[u8])> = Vec::new();
        for (n, val) in props {
            let n = n.split(|&b| b == 0).next().unwrap_or(&[]);
            let val = val.split(|&b| b == 0).next().unwrap_or(&[]);
            match v.iter_mut().find(|(k, _)| *k == n) {
                Some(slot) => slot.1 = val,
                None => v.push((n, val)),
            }
        }
        v.sort_by(|a, b| a.0.cmp(b.0));
        for (n, val) in v {
            out.extend_from_slice(b"// ");
            out.extend_from_slice(n);
            out.extend_from_slice(b" = ");
            push_string(out, val);
            out.push(b'\n');
        }
    }

    /// Appends one call (and its backtrace lines, and the blank line after a frame end).
    pub fn call(
        &mut self,
        out: &mut Vec<u8>,
        call: &Call<'_>,
        table: &SigTable,
    ) -> Result<(), Error> {
        push_u64(out, u64::from(call.no as u32));
        out.extend_from_slice(b" @");
        push_hex(out, u64::from(call.thread as u32));
        out.push(b' ');
        // The signature's text, rendered at its first call (ids past 2^16: every time).
        let mut text = match self.texts.get_mut(call.sig as usize) {
            Some(t) if call.sig < 1 << 16 && t.ready => core::mem::take(t),
            _ => SigText::new(table, call.sig),
        };
        let r = self.call_with(out, call, table, &text);
        if call.sig < 1 << 16 {
            let i = call.sig as usize;
            if self.texts.len() <= i {
                self.texts.resize_with(i + 1, SigText::default);
            }
            if let Some(slot) = self.texts.get_mut(i) {
                core::mem::swap(slot, &mut text);
            }
        }
        r
    }

    fn call_with(
        &mut self,
        out: &mut Vec<u8>,
        call: &Call<'_>,
        table: &SigTable,
        text: &SigText,
    ) -> Result<(), Error> {
        out.extend_from_slice(&text.head);
        for (i, arg) in call.args.iter().enumerate() {
            match text.label(i) {
                Some(l) => out.extend_from_slice(l),
                // An argument index past the signature's (the trace records one anyway).
                None => {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.extend_from_slice(b" = ");
                }
            }
            match arg {
                Some(v) => self.value(out, v, table)?,
                None => out.push(b'?'),
            }
        }
        out.push(b')');
        if let Some(r) = &call.ret {
            out.extend_from_slice(b" = ");
            self.value(out, r, table)?;
        }
        if call.is_fake() || call.incomplete {
            out.extend_from_slice(b" //");
            if call.is_fake() {
                out.extend_from_slice(b" fake");
            }
            if call.incomplete {
                out.extend_from_slice(b" incomplete");
            }
        }
        out.push(b'\n');
        if let Some(bt) = &call.backtrace {
            out.extend_from_slice(b"Backtrace:\n");
            for id in bt.frames(table) {
                let f = table.frame(id?).unwrap_or_default();
                out.extend_from_slice(f.module.map_or(&b"?"[..], |m| cstr(m)));
                if let Some(func) = f.function {
                    out.extend_from_slice(b": ");
                    out.extend_from_slice(cstr(func));
                }
                if let Some(off) = f.offset.filter(|&o| (o as i64) >= 0) {
                    out.extend_from_slice(b"+0x");
                    push_hex(out, off);
                }
                if let Some(file) = f.filename {
                    out.extend_from_slice(b": ");
                    out.extend_from_slice(cstr(file));
                    if let Some(line) = f.line.filter(|&l| (l as i32) >= 0) {
                        out.push(b':');
                        push_u64(out, u64::from(line as i32 as u32));
                    }
                }
                out.push(b'\n');
            }
        }
        if text.end_frame {
            out.push(b'\n');
        }
        Ok(())
    }

    /// Appends one value.
    pub fn value(
        &mut self,
        out: &mut Vec<u8>,
        v: &Value<'_>,
        table: &SigTable,
    ) -> Result<(), Error> {
        match *v {
            Value::Null => out.extend_from_slice(b"NULL"),
            Value::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            Value::SInt(i) => push_i64(out, i),
            Value::UInt(u) => push_u64(out, u),
            Value::Float(f) => push_g(out, &mut self.scratch, f64::from(f), 7),
            Value::Double(d) => push_g(out, &mut self.scratch, d, 16),
            Value::String(s) => push_string(out, s),
            Value::WString(w) => {
                out.extend_from_slice(b"L\"");
                for u in w.units() {
                    let c = u as u32;
                    if c == 0 {
                        break;
                    }
                    push_escaped_unit(out, c);
                }
                out.push(b'"');
            }
            Value::Blob(b) => {
                out.extend_from_slice(b"blob(");
                push_u64(out, b.len() as u64);
                out.push(b')');
            }
            Value::Pointer(p) => {
                out.extend_from_slice(b"0x");
                push_hex(out, p);
            }
            Value::Enum { sig, value } => match table.enum_sig(sig).and_then(|s| s.lookup(value)) {
                Some(name) => out.extend_from_slice(cstr(name)),
                None => push_i64(out, value),
            },
            Value::Bitmask { sig, value } => {
                let mut value = value;
                let mut first = true;
                if let Some(s) = table.bitmask_sig(sig) {
                    for (name, fv) in s.flags() {
                        if (fv != 0 && value & fv == fv) || (fv == 0 && value == 0) {
                            if !first {
                                out.extend_from_slice(b" | ");
                            }
                            out.extend_from_slice(cstr(name));
                            value &= !fv;
                            first = false;
                        }
                        if value == 0 {
                            break;
                        }
                    }
                }
                if value != 0 || first {
                    if !first {
                        out.extend_from_slice(b" | ");
                    }
                    out.extend_from_slice(b"0x");
                    push_hex(out, value);
                }
            }
            Value::Array(a) => {
                if a.len() == 1 {
                    out.push(b'&');
                    if let Some(e) = a.iter(table).next() {
                        self.value(out, &e?, table)?;
                    }
                } else {
                    out.push(b'{');
                    for (i, e) in a.iter(table).enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        self.value(out, &e?, table)?;
                    }
                    out.push(b'}');
                }
            }
            Value::Struct(s) => match guid(&s, table)? {
                Some(g) => push_guid(out, g),
                None => {
                    out.push(b'{');
                    let mut first = true;
                    self.members(out, &s, table, &mut first)?;
                    out.push(b'}');
                }
            },
            Value::Repr(r) => {
                let h = r.human(table)?;
                self.value(out, &h, table)?;
            }
        }
        Ok(())
    }

    fn members(
        &mut self,
        out: &mut Vec<u8>,
        s: &crate::value::Struct<'_>,
        table: &SigTable,
        first: &mut bool,
    ) -> Result<(), Error> {
        let sig = table.struct_sig(s.sig);
        for (i, m) in s.iter(table).enumerate() {
            let m = m?;
            let name = sig.and_then(|g| g.member_name(i)).map(cstr).unwrap_or(b"");
            if name.is_empty() {
                // An anonymous member: a nested struct's members are printed in line; any
                // other anonymous value is not printed at all (as apitrace 11.1 does).
                if let Value::Struct(inner) = m {
                    self.members(out, &inner, table, first)?;
                }
                continue;
            }
            if !*first {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(name);
            out.extend_from_slice(b" = ");
            self.value(out, &m, table)?;
            *first = false;
        }
        Ok(())
    }
}

/// A struct that apitrace prints as a GUID: named `GUID`, four members, the last an array of
/// eight, all read as unsigned integers; returned as one number (`Data1`, `Data2`, `Data3`,
/// then the `Data4` bytes, most significant first), each part cut to its C width. Shapes that
/// make apitrace 11.1 abort on an assertion (a negative integer, a `Data4` of another length or
/// type) are printed as plain structs instead.
fn guid(s: &crate::value::Struct<'_>, table: &SigTable) -> Result<Option<u128>, Error> {
    let is_guid = s.len() == 4
        && table
            .struct_sig(s.sig)
            .is_some_and(|g| cstr(g.name()) == b"GUID");
    if !is_guid {
        return Ok(None);
    }
    let mut members = s.iter(table);
    let mut g = 0u128;
    for bits in [32, 16, 16] {
        let Some(v) = members.next().transpose()?.and_then(|v| as_uint(&v, table)) else {
            return Ok(None);
        };
        g = g << bits | u128::from(v & ((1 << bits) - 1));
    }
    let Some(Value::Array(data4)) = members.next().transpose()? else {
        return Ok(None);
    };
    if data4.len() != 8 {
        return Ok(None);
    }
    for b in data4.iter(table) {
        let Some(v) = as_uint(&b?, table) else {
            return Ok(None);
        };
        g = g << 8 | u128::from(v as u8);
    }
    Ok(Some(g))
}

/// A value read as apitrace's `toUInt` reads it; `None` where it would abort.
fn as_uint(v: &Value<'_>, table: &SigTable) -> Option<u64> {
    match *v {
        Value::Null => Some(0),
        Value::Bool(b) => Some(u64::from(b)),
        Value::UInt(u) | Value::Pointer(u) | Value::Bitmask { value: u, .. } => Some(u),
        Value::SInt(i) | Value::Enum { value: i, .. } => u64::try_from(i).ok(),
        // C's conversion, defined for values in range (it truncates toward zero).
        Value::Float(f) => float_to_uint(f64::from(f)),
        Value::Double(d) => float_to_uint(d),
        Value::Repr(r) => as_uint(&r.machine(table).ok()?, table),
        _ => None,
    }
}

fn float_to_uint(f: f64) -> Option<u64> {
    (f > -1.0 && f < 18_446_744_073_709_551_616.0).then_some(f as u64)
}

/// A GUID by name when apitrace knows it, else as `uuid(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`.
fn push_guid(out: &mut Vec<u8>, g: u128) {
    if let Some(name) = crate::guids::name(g) {
        out.extend_from_slice(name.as_bytes());
        return;
    }
    out.extend_from_slice(b"uuid(");
    let hex = g.to_be_bytes();
    for (i, b) in hex.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        for nibble in [b >> 4, b & 15] {
            out.push(if nibble < 10 {
                b'0' + nibble
            } else {
                b'a' + nibble - 10
            });
        }
    }
    out.push(b')');
}

/// The bytes before the first NUL (names are C strings upstream).
#[inline]
fn cstr(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == 0) {
        Some(n) => s.get(..n).unwrap_or(s),
        None => s,
    }
}

/// Prints a whole decompressed stream as `apitrace dump --color=never -v --thread-ids=yes`
/// does, handing the text to `sink` in pieces of about 64 KiB.
///
/// On a fault, everything before it is printed first; when the stream is cut inside an event,
/// the calls still open are printed as incomplete (as apitrace does at the end of a file), then
/// the error is returned.
pub fn dump_text(stream: &[u8], mut sink: impl FnMut(&[u8])) -> Result<(), Error> {
    let trace = crate::stream::Stream::parse(stream)?;
    let mut out = Vec::with_capacity(1 << 17);
    let mut d = Dumper::new();
    d.properties(&mut out, trace.header().properties());
    let mut events = trace.events();
    let mut calls = crate::calls::Calls::new();
    let mut fault = None;
    while let Some(ev) = events.next() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                fault = Some(e);
                break;
            }
        };
        match calls.feed(&ev, events.table()) {
            Ok(Some(call)) => {
                d.call(&mut out, call, events.table())?;
                if out.len() >= 1 << 16 {
                    sink(&out);
                    out.clear();
                }
            }
            Ok(None) => {}
            Err(e) => {
                fault = Some(e);
                break;
            }
        }
    }
    if fault.is_none_or(|e| e.is_truncation()) {
        let table = events.table();
        for call in calls.finish() {
            d.call(&mut out, &call, table)?;
            if out.len() >= 1 << 16 {
                sink(&out);
                out.clear();
            }
        }
    }
    sink(&out);
    match fault {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// One line describing an event with everything resolved (names, values, frames): for
/// comparing two parses of the same stream, and for debugging.
pub fn event_text(
    d: &mut Dumper,
    out: &mut Vec<u8>,
    ev: &crate::event::Event<'_>,
    table: &SigTable,
) -> Result<(), Error> {
    use crate::event::{Detail, EventKind};
    out.extend_from_slice(match ev.kind {
        EventKind::Enter => b"enter ",
        EventKind::Leave => b"leave ",
    });
    push_u64(out, ev.call_no);
    out.extend_from_slice(b" @");
    push_u64(out, ev.thread);
    out.extend_from_slice(b" at ");
    push_hex(out, ev.offset);
    if ev.kind == EventKind::Enter {
        out.push(b' ');
        if let Some(f) = table.function(ev.sig) {
            out.extend_from_slice(f.name());
            for a in f.arg_names() {
                out.push(b',');
                out.extend_from_slice(a);
            }
        }
    }
    for det in ev.details().iter(table) {
        match det? {
            Detail::Arg { index, value } => {
                out.extend_from_slice(b" arg");
                push_u64(out, index);
                out.push(b'=');
                d.value(out, &value, table)?;
            }
            Detail::Ret(v) => {
                out.extend_from_slice(b" ret=");
                d.value(out, &v, table)?;
            }
            Detail::Flags(f) => {
                out.extend_from_slice(b" flags=");
                push_u64(out, f);
            }
            Detail::Backtrace(bt) => {
                out.extend_from_slice(b" bt[");
                for id in bt.frames(table) {
                    let f = table.frame(id?).unwrap_or_default();
                    for part in [f.module, f.function, f.filename] {
                        out.extend_from_slice(part.unwrap_or(b"-"));
                        out.push(b'|');
                    }
                    push_u64(out, f.line.unwrap_or(u64::MAX));
                    out.push(b'|');
                    push_u64(out, f.offset.unwrap_or(u64::MAX));
                    out.push(b';');
                }
                out.push(b']');
            }
        }
    }
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64, p: usize) -> String {
        let mut out = Vec::new();
        push_g(&mut out, &mut String::new(), v, p);
        String::from_utf8(out).unwrap() // ok: unit test
    }

    #[test]
    fn percent_g_like_glibc() {
        assert_eq!(g(0.0, 7), "0");
        assert_eq!(g(-0.0, 7), "-0");
        assert_eq!(g(f64::from(0.7f32), 7), "0.7");
        assert_eq!(g(f64::from(0.1f32), 7), "0.1");
        assert_eq!(g(1.5, 16), "1.5");
        assert_eq!(g(123456789.0, 16), "123456789");
        assert_eq!(g(123456789.0, 7), "1.234568e+08");
        assert_eq!(g(1e16, 16), "1e+16");
        assert_eq!(g(1e15, 16), "1000000000000000");
        assert_eq!(g(1e-5, 16), "1e-05");
        assert_eq!(g(0.0001, 16), "0.0001");
        assert_eq!(g(1.0 / 3.0, 16), "0.3333333333333333");
        assert_eq!(g(-2.5e-300, 16), "-2.5e-300");
        assert_eq!(g(f64::NAN, 7), "nan");
        assert_eq!(g(-f64::NAN, 7), "-nan");
        assert_eq!(g(f64::NEG_INFINITY, 7), "-inf");
    }

    /// The straightforward %g: one exact `{:e}` formatting for the exponent, one for fixed.
    fn slow_g(v: f64, p: usize) -> String {
        if v.is_nan() || v.is_infinite() || v == 0.0 {
            return g(v, p);
        }
        let e = format!("{:.*e}", p - 1, v);
        let (m, x) = e.split_once('e').unwrap(); // ok: unit test
        let x: i32 = x.parse().unwrap(); // ok: unit test
        let strip = |s: &str| {
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s.to_string()
            }
        };
        if x < -4 || x >= p as i32 {
            format!(
                "{}e{}{:02}",
                strip(m),
                if x < 0 { '-' } else { '+' },
                x.abs()
            )
        } else {
            strip(&format!("{:.*}", (p as i32 - 1 - x) as usize, v))
        }
    }

    #[test]
    fn fast_percent_g_agrees_with_exact_formatting() {
        let mut state = 0x1234_5678_9abc_def1u64;
        for i in 0..60_000u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (v, p) = match i % 4 {
                0 => (f64::from(f32::from_bits(state as u32)), 7),
                1 => (f64::from_bits(state), 16),
                2 => ((state % 2_000_001) as f64 / 1000.0 - 1000.0, 16),
                _ => (f64::from((state % 20_000_001) as f32 / 1e4 - 1e3), 7),
            };
            assert_eq!(g(v, p), slow_g(v, p), "{v:e} p={p}");
        }
        for v in [
            9.9999995e6f64,
            999999.95,
            0.00099999995,
            1e-5,
            9.5,
            0.5,
            2.5e-7,
            1e22,
            5e-324,
        ] {
            for p in [1, 7, 16] {
                assert_eq!(g(v, p), slow_g(v, p), "{v:e} p={p}");
            }
        }
    }

    #[test]
    fn strings_escape_like_apitrace() {
        let mut out = Vec::new();
        push_string(&mut out, b"a\"b\\c\td\re\nf\xc2\xae\x7f\x01g\0hidden");
        assert_eq!(out, b"\"a\\\"b\\\\c\tde\nf\\2\\556\\777\\1g\"".to_vec());
        let mut out = Vec::new();
        push_u64(&mut out, u64::MAX);
        push_i64(&mut out, i64::MIN);
        push_hex(&mut out, 0xdead_beef);
        push_hex(&mut out, 0);
        assert_eq!(
            out,
            b"18446744073709551615-9223372036854775808deadbeef0".to_vec()
        );
    }
}
