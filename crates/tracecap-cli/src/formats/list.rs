//! Long lists in `info`'s text: the first few items and a count, or all of them with `--verbose`.

use std::fmt::Display;
use std::io::Write;

/// How many items of a list `info` shows without `--verbose`.
pub const SHOWN: usize = 8;

/// Writes `label: N` and then one indented line per item: all of them when `verbose`, else the
/// first [`SHOWN`] and a last line saying how many more there are.
pub fn write_list<T: Display>(
    out: &mut dyn Write,
    label: &str,
    items: impl ExactSizeIterator<Item = T>,
    verbose: bool,
) -> std::io::Result<()> {
    let total = items.len();
    writeln!(out, "{label}: {total}")?;
    let shown = if verbose { total } else { total.min(SHOWN) };
    for item in items.take(shown) {
        writeln!(out, "  {item}")?;
    }
    if shown < total {
        writeln!(
            out,
            "  ... and {} more (--verbose or --json for all)",
            total - shown
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize, verbose: bool) -> String {
        let mut out = Vec::new();
        write_list(
            &mut out,
            "threads",
            (0..n).map(|i| format!("t{i}")),
            verbose,
        )
        .expect("writing to a Vec cannot fail"); // ok: test-only
        String::from_utf8(out).expect("the list is UTF-8") // ok: test-only
    }

    #[test]
    fn short_lists_are_whole() {
        assert_eq!(text(2, false), "threads: 2\n  t0\n  t1\n");
    }

    #[test]
    fn long_lists_show_the_first_few_and_a_count() {
        let t = text(20, false);
        assert_eq!(t.lines().count(), 1 + SHOWN + 1);
        assert!(t.ends_with("  t7\n  ... and 12 more (--verbose or --json for all)\n"));
        assert_eq!(text(20, true).lines().count(), 21);
    }
}
