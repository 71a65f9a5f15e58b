//! The stream header: version number, and from version 6 the semantic version and properties.

use tracecap_wire::Reader;

use crate::cursor::{Cur, Span};
use crate::error::Error;

/// The newest stream version apitrace writes (and the newest this crate reads).
pub const MAX_VERSION: u64 = 6;

/// The parsed stream header.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    /// `version_no`: the grammar version (0..=6).
    pub version: u64,
    /// Semantic version (version 6+: how retrace should interpret calls; else = `version`).
    pub semantic_version: u64,
    properties: Properties<'a>,
    /// Stream bytes the header takes (events start here).
    pub len: u64,
}

impl<'a> Header<'a> {
    /// Parses the header at the start of the decompressed stream `r`.
    pub fn parse(r: &mut Reader<'a>) -> Result<Header<'a>, Error> {
        let mut c = Cur::new(r.rest(), r.offset());
        let header = Self::parse_cur(&mut c)?;
        r.skip(c.pos())?;
        Ok(header)
    }

    fn parse_cur(r: &mut Cur<'a>) -> Result<Header<'a>, Error> {
        let at = r.offset();
        let version = r.uint("version number")?;
        if version > MAX_VERSION {
            return Err(Error::unsupported_version(version, "0 to 6", at));
        }
        let mut semantic_version = version;
        let mut body = Span::empty(r.offset());
        if version >= 6 {
            semantic_version = r.uint("semantic version")?;
            let start = r.pos();
            loop {
                let name = r.string("property name")?;
                if name.is_empty() {
                    break;
                }
                r.string("property value")?;
            }
            // Everything up to and including the empty name.
            body = r.since(start);
        }
        Ok(Header {
            version,
            semantic_version,
            properties: Properties { body: body.cur() },
            len: r.pos() as u64,
        })
    }

    /// The properties (`process.name`, `process.commandLine`, ...), in stream order.
    pub fn properties(&self) -> Properties<'a> {
        self.properties
    }
}

/// Iterator over the header's (name, value) properties.
#[derive(Clone, Copy, Debug)]
pub struct Properties<'a> {
    body: Cur<'a>,
}

impl<'a> Iterator for Properties<'a> {
    type Item = (&'a [u8], &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        let name = self.body.string("").ok()?;
        if name.is_empty() {
            return None;
        }
        let value = self.body.string("").ok()?;
        Some((name, value))
    }
}
