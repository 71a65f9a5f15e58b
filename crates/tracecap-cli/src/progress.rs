//! The progress line of `convert` on a terminal: one line on standard error, never wider than the
//! terminal, with a rate and an ETA only once they mean something, cleared when the work ends.

use std::io::Write;
use std::time::{Duration, Instant};

/// The least time between two draws.
const TICK: Duration = Duration::from_millis(100);
/// Nothing is drawn before this much time has passed (a quick job shows no bar at all).
const FIRST_DRAW: Duration = Duration::from_millis(200);
/// The ETA is shown once this much time has passed and [`ETA_MIN_FRACTION`] of the work is done.
const ETA_AFTER: Duration = Duration::from_secs(2);
const ETA_MIN_FRACTION: f64 = 0.05;
/// Width used when the terminal does not say.
const DEFAULT_WIDTH: usize = 80;

/// A progress line over `total` bytes of input, drawn on standard error.
pub struct Progress {
    label: String,
    total: u64,
    start: Instant,
    last: Option<Instant>,
    width: usize,
}

impl Progress {
    /// A progress line for `total` bytes, sized to the terminal on standard error.
    pub fn new(total: u64) -> Progress {
        let width = console::Term::stderr()
            .size_checked()
            .map(|(_rows, cols)| usize::from(cols))
            .filter(|&w| w > 0)
            .unwrap_or(DEFAULT_WIDTH);
        Progress {
            label: "converting".to_owned(),
            total,
            start: Instant::now(),
            last: None,
            width,
        }
    }

    /// The word before the percentage (`converting` unless set).
    pub fn set_label(&mut self, label: String) {
        self.label = label;
    }

    /// `done` bytes of the input are processed; redraws at most every [`TICK`].
    pub fn set(&mut self, done: u64) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.start);
        let due = match self.last {
            None => elapsed >= FIRST_DRAW,
            Some(last) => now.duration_since(last) >= TICK,
        };
        if !due {
            return;
        }
        self.last = Some(now);
        let line = render(&self.label, done, self.total, elapsed, self.width);
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a failed draw is not worth stopping the conversion for.
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
    }

    /// Clears the line, if anything was drawn.
    pub fn clear(&mut self) {
        if self.last.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Bytes in a short human unit (`812 B`, `3.4 MiB`).
fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("B");
    if unit == 0 {
        format!("{v:.0} {name}")
    } else {
        format!("{v:.1} {name}")
    }
}

fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The progress line for `done` of `total` bytes after `elapsed`, headed by `label`, at most
/// `width - 1` columns (the last column is left free so that no terminal wraps).
pub fn render(label: &str, done: u64, total: u64, elapsed: Duration, width: usize) -> String {
    let fraction = if total == 0 {
        1.0
    } else {
        (done.min(total) as f64) / (total as f64)
    };
    let secs = elapsed.as_secs_f64();
    let left = format!("{label} {:>3}% ", (fraction * 100.0).floor() as u64);
    let mut right = format!(" {}/{}", bytes(done as f64), bytes(total as f64));
    if secs >= 0.5 {
        right.push_str(&format!(" {}/s", bytes(done as f64 / secs)));
    }
    if secs >= ETA_AFTER.as_secs_f64() && (ETA_MIN_FRACTION..1.0).contains(&fraction) {
        right.push_str(&format!(" ETA {}", duration(secs / fraction - secs)));
    }
    let room = width.saturating_sub(1);
    let fixed = left.len() + right.len() + 2;
    let line = if room >= fixed + 10 {
        let bar = room - fixed;
        let filled = ((bar as f64) * fraction).floor() as usize;
        format!(
            "{left}[{}{}]{right}",
            "=".repeat(filled),
            " ".repeat(bar - filled)
        )
    } else if room >= left.len() + right.len() {
        format!("{left}{right}")
    } else {
        left
    };
    line.chars().take(room).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_never_reaches_the_last_column() {
        for width in [0, 1, 10, 20, 40, 79, 80, 81, 120, 200] {
            for (done, total, secs) in [
                (0, 0, 0.0),
                (1, 1 << 40, 0.1),
                (123 << 20, 456 << 20, 3.0),
                (456 << 20, 456 << 20, 9.0),
            ] {
                let line = render(
                    "converting",
                    done,
                    total,
                    Duration::from_secs_f64(secs),
                    width,
                );
                assert!(
                    line.chars().count() < width.max(1),
                    "{width}: {line:?} is {} columns",
                    line.chars().count()
                );
            }
        }
    }

    #[test]
    fn the_bar_fills_an_80_column_terminal() {
        let line = render("converting", 1 << 20, 4 << 20, Duration::from_secs(1), 80);
        assert_eq!(line.chars().count(), 79, "{line:?}");
        assert!(line.starts_with("converting  25% [====="), "{line:?}");
    }

    #[test]
    fn no_eta_until_it_can_be_trusted() {
        // Early in a job, or with too little done, the ETA would be a guess.
        assert!(!render("converting", 1, 100, Duration::from_millis(300), 120).contains("ETA"));
        assert!(!render("converting", 1, 100, Duration::from_secs(5), 120).contains("ETA"));
        assert!(!render("converting", 50, 100, Duration::from_secs(1), 120).contains("ETA"));
        let line = render("converting", 50, 100, Duration::from_secs(4), 120);
        assert!(line.ends_with("ETA 4s"), "{line:?}");
    }
}
