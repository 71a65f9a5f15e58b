//! The stream header: version number, and from version 6 the semantic version and properties.

use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind};
use crate::sig::{string, uint};

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
        let start = r.offset();
        let at = r.offset();
        let version = uint(r, "version number")?;
        if version > MAX_VERSION {
            return Err(Error::stream(ErrorKind::UnsupportedVersion(version), at));
        }
        let mut semantic_version = version;
        let mut properties = Properties {
            body: Reader::at(&[], r.offset()),
        };
        if version >= 6 {
            semantic_version = uint(r, "semantic version")?;
            let pstart = *r;
            loop {
                let name = string(r, "property name")?;
                if name.is_empty() {
                    break;
                }
                string(r, "property value")?;
            }
            let mut s = pstart;
            // Everything up to and including the empty name.
            if let Ok(body) = s.sub((r.position() - pstart.position()) as u64) {
                properties = Properties { body };
            }
        }
        Ok(Header {
            version,
            semantic_version,
            properties,
            len: r.offset().saturating_sub(start),
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
    body: Reader<'a>,
}

impl<'a> Iterator for Properties<'a> {
    type Item = (&'a [u8], &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        let name = string(&mut self.body, "").ok()?;
        if name.is_empty() {
            return None;
        }
        let value = string(&mut self.body, "").ok()?;
        Some((name, value))
    }
}
