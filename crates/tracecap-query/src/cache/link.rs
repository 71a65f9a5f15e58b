//! Links: where captures' rows of a table are kept. A fill writes one file of links for the
//! captures it kept, `links/TABLE.ID.links`, a line per capture: its entry's key, the pack
//! holding its rows and the pack's row groups that are its own, the table's columns kept, and
//! its fault when it is damaged. The file ends with a line counting the links, so that a file
//! cut anywhere is refused whole.
//!
//! ```text
//! tracecap cache links 1
//! 0f3a...e1.slices slices.4711-0-1765090000000000000.parquet 12 1 2,5
//! 77c0...9b.slices slices.4711-0-1765090000000000000.parquet 13 2 2,5 4096 the block's size runs past the end of the file
//! 5d21...04.slices - 0 0 2,5
//! end 3
//! ```
//!
//! A capture with no row of the table has `-` for its pack and no row group.

use std::ops::Range;

use crate::faults::Damage;

/// The first line of every file of links.
const MAGIC: &str = "tracecap cache links 1";

/// Where a capture's rows of a table are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// The pack's file name in the packs folder; `None` when the capture has no row.
    pub(crate) pack: Option<String>,
    /// The capture's row groups in the pack.
    pub(crate) row_groups: Range<usize>,
    /// The columns kept (indices in the table's schema), ascending.
    pub(crate) columns: Vec<usize>,
    /// Where the capture is damaged: its rows are those before.
    pub(crate) fault: Option<Damage>,
}

/// The text of a file holding `links`, each with its entry's key.
pub(crate) fn to_text(links: &[(String, Link)]) -> String {
    let mut text = format!("{MAGIC}\n");
    for (key, link) in links {
        let Range { start, end } = link.row_groups;
        let columns: Vec<String> = link.columns.iter().map(usize::to_string).collect();
        let pack = link.pack.as_deref().unwrap_or("-");
        text.push_str(&format!(
            "{key} {pack} {start} {} {}",
            end - start,
            columns.join(",")
        ));
        if let Some(fault) = &link.fault {
            // One line: a fault's text never holds a line break, but it is made sure of.
            let what = fault.what().replace(['\n', '\r'], " ");
            text.push_str(&format!(" {} {what}", fault.offset()));
        }
        text.push('\n');
    }
    text.push_str(&format!("end {}\n", links.len()));
    text
}

/// The links in `text`, each with its entry's key; why not when it is no whole file of links.
pub(crate) fn parse(text: &str) -> Result<Vec<(String, Link)>, String> {
    if !text.ends_with('\n') {
        return Err("cut short".into());
    }
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err("not a file of links of this layout".into());
    }
    let mut links = Vec::new();
    for line in lines {
        if let Some(count) = line.strip_prefix("end ") {
            if count.parse() != Ok(links.len()) {
                return Err(format!("{} links where the end says {count}", links.len()));
            }
            return Ok(links);
        }
        links.push(parse_line(line)?);
    }
    Err("cut short".into())
}

/// One link and its key.
fn parse_line(line: &str) -> Result<(String, Link), String> {
    let bad = || format!("bad link {line:?}");
    let mut fields = line.splitn(6, ' ');
    let mut next = || fields.next().ok_or_else(bad);
    let key = next()?;
    let pack = next()?;
    let first: usize = next()?.parse().map_err(|_| bad())?;
    let count: usize = next()?.parse().map_err(|_| bad())?;
    let columns = next()?
        .split(',')
        .map(|s| s.parse().map_err(|_| bad()))
        .collect::<Result<Vec<usize>, _>>()?;
    let fault = match fields.next() {
        None => None,
        Some(fault) => {
            let (offset, what) = fault.split_once(' ').unwrap_or((fault, ""));
            Some(Damage::new(what, offset.parse().map_err(|_| bad())?))
        }
    };
    let end = first.checked_add(count).ok_or_else(bad)?;
    let pack = match pack {
        "-" if count == 0 => None,
        "-" => return Err("row groups without a pack".into()),
        name if is_file_name(name) => Some(name.to_string()),
        _ => return Err(bad()),
    };
    if !is_file_name(key) || columns.is_empty() {
        return Err(bad());
    }
    let link = Link {
        pack,
        row_groups: first..end,
        columns,
        fault,
    };
    Ok((key.to_string(), link))
}

/// Whether `name` is a plain file name (no folder, nothing hidden): a link cannot point
/// outside the packs folder.
fn is_file_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> Vec<(String, Link)> {
        vec![
            (
                "k1.slices".into(),
                Link {
                    pack: Some("slices.1-0-2.parquet".into()),
                    row_groups: 3..5,
                    columns: vec![0, 4, 7],
                    fault: None,
                },
            ),
            (
                "k2.slices".into(),
                Link {
                    pack: None,
                    row_groups: 0..0,
                    columns: vec![0],
                    fault: Some(Damage::new("the block runs past the end", 4096)),
                },
            ),
        ]
    }

    #[test]
    fn links_read_back_as_written() {
        assert_eq!(parse(&to_text(&links())), Ok(links()));
        assert_eq!(parse(&to_text(&[])), Ok(Vec::new()));
    }

    #[test]
    fn links_cut_anywhere_or_pointing_elsewhere_are_refused() {
        let whole = to_text(&links());
        for cut in 0..whole.len() {
            assert!(parse(&whole[..cut]).is_err(), "cut at {cut}");
        }
        let head = format!("{MAGIC}\n");
        for bad in [
            "k ../x 0 1 1",
            "k - 0 2 1",
            "k p.parquet 1 18446744073709551615 1",
            "k p.parquet 0 1 ",
            ".k p.parquet 0 1 1",
            "k p.parquet 0 1 1 x fault",
        ] {
            assert!(parse(&format!("{head}{bad}\nend 1\n")).is_err(), "{bad}");
        }
        assert!(parse(&format!("{head}k p.parquet 0 1 1\nend 2\n")).is_err());
    }
}
