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
        scale(ticks, 1e9 / cpu_frequency as f64)
    }
}

/// Compares raw timestamps as upstream compares them *after* conversion to nanoseconds, without
/// converting in the common case.
///
/// Conversion is monotonic, so `a >= b` in ticks means `ns(a) >= ns(b)`; and when `a < b` by more
/// than the ticks of two nanoseconds, `ns(a) < ns(b)` for certain. Only nearly equal timestamps
/// (where two tick values can land on the same nanosecond) are converted and compared exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    ns_per_tick: f64,
    /// A tick distance beyond which the nanosecond values surely differ; 0 = timestamps are ns.
    sure_gap: u64,
    /// The greatest `b` for which `b - a >= sure_gap` settles `lt` (beyond 2^52 ticks `f64`
    /// loses whole ticks, and for slow clocks the nanoseconds saturate sooner); `u64::MAX` for
    /// nanoseconds.
    sure_max: u64,
    /// Whether conversion never decreases (a positive factor), so `a >= b` settles `lt`.
    increasing: bool,
}

impl Clock {
    /// Timestamps that already are nanoseconds.
    pub const NS: Clock = Clock {
        ns_per_tick: 1.0,
        sure_gap: 0,
        sure_max: u64::MAX,
        increasing: true,
    };

    /// The clock of a file with this `cpu_frequency` (0 = nanoseconds).
    pub fn new(cpu_frequency: i64) -> Clock {
        if cpu_frequency == 0 {
            return Clock::NS;
        }
        let ns_per_tick = 1e9 / cpu_frequency as f64;
        let sure_gap = if ns_per_tick.is_finite() && ns_per_tick > 1e-6 {
            // ticks per ns (truncated, +1 covers rounding up), plus a margin of 2; at least 3
            ((1.0 / ns_per_tick) as u64).saturating_add(3).max(3)
        } else {
            u64::MAX // negative, zero-ish or NaN factors: always convert
        };
        // Up to 2^52 ticks convert exactly to `f64`; and the nanoseconds must stay below 2^63,
        // where the conversion saturates (to the same value for different ticks).
        let unsaturated = if ns_per_tick > 1.0 {
            (4_611_686_018_427_387_904.0 / ns_per_tick) as u64 // 2^62 / ns_per_tick
        } else {
            u64::MAX
        };
        Clock {
            ns_per_tick,
            sure_gap,
            sure_max: ((1 << 52) - 1).min(unsaturated),
            increasing: ns_per_tick > 0.0,
        }
    }

    /// `t` in nanoseconds (upstream's conversion).
    #[inline]
    pub fn ns(&self, t: u64) -> u64 {
        if self.sure_gap == 0 {
            t
        } else {
            scale(t, self.ns_per_tick)
        }
    }

    /// `ns(a) < ns(b)`.
    #[inline]
    pub fn lt(&self, a: u64, b: u64) -> bool {
        if a < b {
            if b - a >= self.sure_gap && b <= self.sure_max {
                return true;
            }
        } else if self.increasing {
            // A non-decreasing conversion keeps `a >= b` (at any size).
            return false;
        }
        // Never reached for nanosecond clocks: every comparison is settled above.
        lt_exact(self.ns_per_tick, a, b)
    }
}

/// `ns(a) < ns(b)` for a clock of `ns_per_tick`, converting both. Kept out of line: the compiler
/// would otherwise compute the conversion ahead, on every comparison, for a case that is rare.
#[cold]
#[inline(never)]
fn lt_exact(ns_per_tick: f64, a: u64, b: u64) -> bool {
    scale(a, ns_per_tick) < scale(b, ns_per_tick)
}

/// `(t as f64 * factor) as u64`, with signed conversions on the common path (values below 2^63),
/// which x86-64 does in one instruction each. Same result for every input.
#[inline(always)]
pub(crate) fn scale(t: u64, factor: f64) -> u64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    let Ok(small) = i64::try_from(t) else {
        return scale_wide(t, factor);
    };
    let y = small as f64 * factor;
    if (0.0..LIMIT).contains(&y) {
        y as i64 as u64
    } else {
        saturate(y)
    }
}

/// [`scale`] of a timestamp of 2^63 ticks or more.
#[cold]
#[inline(never)]
fn scale_wide(t: u64, factor: f64) -> u64 {
    saturate(t as f64 * factor)
}

/// `y as u64` (negative and NaN give 0, beyond `u64::MAX` gives `u64::MAX`): the rare results
/// of [`scale`], kept out of line so that the common path is two conversions and a multiply.
#[cold]
#[inline(never)]
fn saturate(y: f64) -> u64 {
    y as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_equals_plain_conversion() {
        let factors = [
            0.3846,
            1.0,
            2.5,
            1e9 / 2_599_958_000.0,
            -1.0,
            1e12,
            f64::NAN,
        ];
        let ticks = [
            0,
            1,
            12345,
            1 << 40,
            (1 << 63) - 1,
            1 << 63,
            u64::MAX - 5,
            u64::MAX,
        ];
        for f in factors {
            for t in ticks {
                assert_eq!(scale(t, f), (t as f64 * f) as u64, "{t} * {f}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn scale_matches(t: u64, freq in 1i64..i64::MAX) {
            let f = 1e9 / freq as f64;
            proptest::prop_assert_eq!(scale(t, f), (t as f64 * f) as u64);
        }
    }

    proptest::proptest! {
        #[test]
        fn clock_lt_is_ns_lt(a in 0u64..1 << 53, d in 0u64..20, back: bool, freq in prop_freq()) {
            let c = Clock::new(freq);
            let b = if back { a.saturating_sub(d) } else { a.saturating_add(d) };
            proptest::prop_assert_eq!(c.lt(a, b), c.ns(a) < c.ns(b));
            proptest::prop_assert_eq!(c.lt(b, a), c.ns(b) < c.ns(a));
            proptest::prop_assert_eq!(c.ns(a), ticks_to_ns(a, freq));
        }
    }

    fn prop_freq() -> impl proptest::strategy::Strategy<Value = i64> {
        proptest::prop_oneof![
            proptest::strategy::Just(0i64),
            proptest::strategy::Just(2_599_958_000i64),
            proptest::strategy::Just(1_000_000_000i64),
            proptest::strategy::Just(1_000_000i64),
            1i64..10_000_000_000,
            1i64..1_000_000,
            proptest::strategy::Just(-5i64),
        ]
    }

    #[test]
    fn huge_and_odd() {
        for freq in [0, 3, 7, 2_599_958_000, -7, i64::MAX, i64::MIN] {
            let c = Clock::new(freq);
            for (a, b) in [
                (u64::MAX, u64::MAX - 1),
                (1 << 60, (1 << 60) + 1),
                (0, 1),
                (5, 5),
                // at 7 Hz both saturate: the same nanosecond value
                ((1 << 52) - 20, (1 << 52) - 10),
                (1 << 40, (1 << 40) + 5),
            ] {
                assert_eq!(c.lt(a, b), c.ns(a) < c.ns(b), "{freq} {a} {b}");
                assert_eq!(c.lt(b, a), c.ns(b) < c.ns(a), "{freq} {a} {b}");
            }
        }
    }
}
