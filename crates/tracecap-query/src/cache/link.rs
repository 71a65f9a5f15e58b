//! A link: the small file that says where a capture's rows of a table are kept. It names the
//! pack holding them and the pack's row groups that are the capture's, lists the table's
//! columns kept, and holds the capture's fault when it is damaged.
//!
//! ```text
//! tracecap cache link 1
//! pack slices.4711-0-1765090000000000000.parquet
//! row_groups 12 1
//! columns 2,5
//! fault 4096 the block's size runs past the end of the file
//! ```
//!
//! A capture with no row of the table has no `pack` line and no row group.

use std::ops::Range;

use crate::faults::Damage;

/// The first line of every link.
const MAGIC: &str = "tracecap cache link 1";

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

impl Link {
    /// The link as its file holds it.
    pub(crate) fn to_text(&self) -> String {
        let mut text = format!("{MAGIC}\n");
        if let Some(pack) = &self.pack {
            text.push_str(&format!("pack {pack}\n"));
        }
        let Range { start, end } = self.row_groups;
        text.push_str(&format!("row_groups {start} {}\n", end - start));
        let columns: Vec<String> = self.columns.iter().map(usize::to_string).collect();
        text.push_str(&format!("columns {}\n", columns.join(",")));
        if let Some(fault) = &self.fault {
            // One line: a fault's text never holds a line break, but it is made sure of.
            let what = fault.what().replace(['\n', '\r'], " ");
            text.push_str(&format!("fault {} {what}\n", fault.offset()));
        }
        text
    }

    /// The link in `text`; why not when it is no whole link.
    pub(crate) fn parse(text: &str) -> Result<Link, String> {
        if !text.ends_with('\n') {
            return Err("cut short".into());
        }
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err("not a link of this layout".into());
        }
        let mut link = Link {
            pack: None,
            row_groups: 0..0,
            columns: Vec::new(),
            fault: None,
        };
        let mut seen_columns = false;
        for line in lines {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "pack" if is_file_name(value) => link.pack = Some(value.to_string()),
                "row_groups" => {
                    let (first, count) = value
                        .split_once(' ')
                        .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse().ok()?)))
                        .ok_or_else(|| format!("bad row groups {value:?}"))?;
                    let end = first
                        .checked_add(count)
                        .ok_or_else(|| format!("bad row groups {value:?}"))?;
                    link.row_groups = first..end;
                }
                "columns" => {
                    link.columns = value
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().map_err(|_| format!("bad columns {value:?}")))
                        .collect::<Result<_, _>>()?;
                    seen_columns = true;
                }
                "fault" => {
                    let (offset, what) = value.split_once(' ').unwrap_or((value, ""));
                    let offset = offset
                        .parse()
                        .map_err(|_| format!("bad fault offset {offset:?}"))?;
                    link.fault = Some(Damage::new(what, offset));
                }
                _ => return Err(format!("unexpected line {line:?}")),
            }
        }
        // An entry keeps one column at least.
        if !seen_columns || link.columns.is_empty() {
            return Err("cut short".into());
        }
        if link.pack.is_none() && !link.row_groups.is_empty() {
            return Err("row groups without a pack".into());
        }
        Ok(link)
    }
}

/// Whether `name` is a plain file name (no folder, nothing hidden): a link cannot point
/// outside the packs folder.
fn is_file_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_reads_back_as_written() {
        let links = [
            Link {
                pack: Some("slices.1-0-2.parquet".into()),
                row_groups: 3..5,
                columns: vec![0, 4, 7],
                fault: None,
            },
            Link {
                pack: None,
                row_groups: 0..0,
                columns: vec![0],
                fault: Some(Damage::new("the block runs past the end", 4096)),
            },
        ];
        for link in links {
            assert_eq!(Link::parse(&link.to_text()), Ok(link));
        }
    }

    #[test]
    fn a_link_cut_or_pointing_elsewhere_is_refused() {
        let whole = "tracecap cache link 1\npack p.parquet\nrow_groups 0 1\ncolumns 1\n";
        assert!(Link::parse(whole).is_ok());
        for cut in 0..whole.len() {
            assert!(Link::parse(&whole[..cut]).is_err(), "cut at {cut}");
        }
        assert!(Link::parse("tracecap cache link 1\npack ../x\ncolumns 1\n").is_err());
        assert!(Link::parse("tracecap cache link 1\nrow_groups 0 2\ncolumns 1\n").is_err());
        assert!(Link::parse(
            "tracecap cache link 1\nrow_groups 1 18446744073709551615\ncolumns 1\n"
        )
        .is_err());
    }
}
