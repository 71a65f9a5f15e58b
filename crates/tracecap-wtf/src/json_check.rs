//! A JSON syntax check that needs no allocation, for the file-header part: [`is_object`] accepts
//! exactly the texts serde_json parses into an object, so that every reader of the crate (with or
//! without the `json` feature) gives a file the same verdict.
//!
//! serde_json's rules, beyond RFC 8259's grammar: at most 127 nested arrays and objects, `\u`
//! escapes that pair surrogates (a lone one is an error), and numbers that fit an `f64` (a
//! number so large it would round to infinity is an error).

/// Most arrays and objects open at once (serde_json's recursion limit).
const MAX_DEPTH: u32 = 127;

/// True when `text` is one JSON object, with only whitespace around it.
pub(crate) fn is_object(text: &str) -> bool {
    let mut p = Parser {
        b: text.as_bytes(),
        i: 0,
    };
    p.ws();
    if p.peek() != Some(b'{') || p.value(0).is_none() {
        return false;
    }
    p.ws();
    p.i == p.b.len()
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    /// One value at the current position (after whitespace); `depth` containers are open.
    fn value(&mut self, depth: u32) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'{' => self.container(depth, b'}', true),
            b'[' => self.container(depth, b']', false),
            b'"' => self.string(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object (`keys`) or an array, its opening bracket at the current position.
    fn container(&mut self, depth: u32, close: u8, keys: bool) -> Option<()> {
        let depth = depth + 1;
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            if keys {
                self.ws();
                self.string()?;
                self.ws();
                self.eat(b':')?;
            }
            self.value(depth)?;
            self.ws();
            match self.next()? {
                b',' => {}
                c if c == close => return Some(()),
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i.checked_add(word.len())?;
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut n = 0;
        for _ in 0..4 {
            let d = char::from(self.next()?).to_digit(16)?;
            n = n * 16 + d;
        }
        Some(n)
    }

    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => match self.next()? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        let n = self.hex4()?;
                        if (0xDC00..=0xDFFF).contains(&n) {
                            return None;
                        }
                        if (0xD800..=0xDBFF).contains(&n) {
                            self.eat(b'\\')?;
                            self.eat(b'u')?;
                            if !(0xDC00..=0xDFFF).contains(&self.hex4()?) {
                                return None;
                            }
                        }
                    }
                    _ => return None,
                },
                c if c < 0x20 => return None,
                _ => {}
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<()> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.next()? {
            b'0' => {
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        let text = core::str::from_utf8(self.b.get(start..self.i)?).ok()?;
        text.parse::<f64>().ok()?.is_finite().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::is_object;

    fn serde_says(text: &str) -> bool {
        matches!(
            serde_json::from_str::<serde_json::Value>(text),
            Ok(serde_json::Value::Object(_))
        )
    }

    #[test]
    fn agrees_with_serde_json() {
        let cases = [
            r#"{}"#,
            r#" {"a":1} "#,
            r#"{"type":"file_header","flags":["has_high_resolution_times"],"timebase":1.5e3,"contextInfo":{"args":[],"icon":null},"metadata":{"nowTimeNs":-0}}"#,
            r#"[]"#,
            r#""x""#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e}"#,
            r#"{"a":-}"#,
            r#"{"a":1e400}"#,
            r#"{"a":-1e400}"#,
            r#"{"a":0e99999999999999999999}"#,
            r#"{"a":1e-99999}"#,
            r#"{"a":18446744073709551616}"#,
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\ud83d"}"#,
            r#"{"a":"\ude00"}"#,
            r#"{"a":"\ud83d\u0041"}"#,
            r#"{"a":"\x"}"#,
            "{\"a\":\"\t\"}",
            "{\"a\":\"\u{7f}é\"}",
            r#"{"a":tru}"#,
            r#"{"a":true}x"#,
            r#"{"a":[1,[2,{"b":null}]]}"#,
            r#"{"a":[1 2]}"#,
            "{\"a\":1}\u{0b}",
            "",
            "{",
        ];
        for c in cases {
            assert_eq!(is_object(c), serde_says(c), "{c:?}");
        }
        let deep = |n: usize| {
            let mut s = String::from("{\"a\":");
            s.push_str(&"[".repeat(n - 1));
            s.push_str(&"]".repeat(n - 1));
            s.push('}');
            s
        };
        for n in [126, 127, 128, 200] {
            assert_eq!(is_object(&deep(n)), serde_says(&deep(n)), "depth {n}");
        }
    }

    #[test]
    fn agrees_with_serde_json_on_mutations() {
        let base = r#"{"type":"file_header","flags":["has_high_resolution_times"],"timebase":1436947200000.25,"contextInfo":{"contextType":"script","title":"t\u00e9\"\\","args":[1,-2.5e-3,true,false,null]}}"#;
        let alphabet = b"{}[]\",:0123456789-+.eE \\u\tdtrue";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let mut b = base.as_bytes().to_vec();
            for _ in 0..1 + rand() % 3 {
                let at = (rand() % b.len() as u64) as usize;
                let c = alphabet[(rand() % alphabet.len() as u64) as usize];
                match rand() % 3 {
                    0 => b[at] = c,
                    1 => b.insert(at, c),
                    _ => {
                        b.remove(at);
                    }
                }
            }
            if let Ok(text) = std::str::from_utf8(&b) {
                assert_eq!(is_object(text), serde_says(text), "{text}");
            }
        }
    }
}
