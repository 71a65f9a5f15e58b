//! Ticks to nanoseconds, exactly as the upstream reader converts them.

/// Converts a raw timestamp to nanoseconds the way upstream's reader does: when `cpu_frequency` is
/// non-zero, `ticks * (1e9 / cpu_frequency)` in double precision, truncated to an integer; when it
/// is zero the value already is in nanoseconds.
///
/// A negative or absurd frequency gives whatever the double arithmetic gives, saturated to
/// `0..=u64::MAX` (Rust's float-to-integer cast), never a panic.
///
/// ```
/// use tracecap_easyprofiler::ticks_to_ns;
/// assert_eq!(ticks_to_ns(2_600_000_000, 2_600_000_000), 1_000_000_000);
/// assert_eq!(ticks_to_ns(12345, 0), 12345);
/// ```
#[inline]
pub fn ticks_to_ns(ticks: u64, cpu_frequency: i64) -> u64 {
    if cpu_frequency == 0 {
        ticks
    } else {
        let factor = 1e9 / cpu_frequency as f64;
        (ticks as f64 * factor) as u64
    }
}
