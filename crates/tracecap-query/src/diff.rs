//! Two sets of captures compared slice by slice: the SQL of `tracecap diff`.
//!
//! The two sides are the schemas `a` and `b` of an [`crate::Engine`] (each registered over its
//! inputs). Slices are grouped by a key (their name, their track's name and name, their category,
//! ...); for each key and side the query gives the count and total duration per capture, the
//! mean, median and 95th percentile duration, and the spread of the per-capture totals; then the
//! change from `a` to `b`, sorted by the largest absolute change of the total.
//!
//! Only closed slices (with a duration) are compared. Each side is scanned once.

use std::fmt::Write as _;

/// A column slices are grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// The slice's name.
    Name,
    /// The name of the slice's track (thread, process, ...).
    Track,
    /// The slice's category.
    Category,
}

impl Key {
    /// The key named `name` (`name`, `track`, `category`).
    pub fn from_name(name: &str) -> Option<Key> {
        match name.trim() {
            "name" => Some(Key::Name),
            "track" => Some(Key::Track),
            "category" => Some(Key::Category),
            _ => None,
        }
    }

    /// Its name: a column of the diff's result.
    pub fn name(self) -> &'static str {
        match self {
            Key::Name => "name",
            Key::Track => "track",
            Key::Category => "category",
        }
    }

    /// The expression of the key over `slices s` (and `tracks t`).
    fn expr(self) -> &'static str {
        match self {
            Key::Name => "CAST(s.name AS VARCHAR)",
            Key::Track => "t.name",
            Key::Category => "CAST(s.category AS VARCHAR)",
        }
    }
}

/// The keys of a `--by` list (`name`, `track,name`, `category`): each at most once, at least
/// one; `None` if a name is unknown or repeated.
pub fn keys(by: &str) -> Option<Vec<Key>> {
    let mut keys = Vec::new();
    for part in by.split(',') {
        let key = Key::from_name(part)?;
        if keys.contains(&key) {
            return None;
        }
        keys.push(key);
    }
    (!keys.is_empty()).then_some(keys)
}

/// The columns of the diff's result after the keys, in order.
pub const COLUMNS: [&str; 16] = [
    "a_count",
    "b_count",
    "a_total",
    "b_total",
    "a_mean",
    "b_mean",
    "a_p50",
    "b_p50",
    "a_p95",
    "b_p95",
    "change",
    "change_pct",
    "a_sd",
    "b_sd",
    "t",
    "status",
];

/// The diff query of the schemas `a` and `b`, by `keys`.
///
/// Its columns: the keys, then
/// - `a_count`, `b_count`: slices per capture (the mean over the side's captures, a capture
///   without the key counting 0, rounded to an integer);
/// - `a_total`, `b_total`: total duration per capture, ns (the same mean, rounded);
/// - `a_mean`, `b_mean`, `a_p50`, `b_p50`, `a_p95`, `b_p95`: the mean, median and 95th
///   percentile of the slices' durations, ns, over all slices of the side;
/// - `change`: `b_total - a_total`, ns; `change_pct`: it in percent of `a_total`;
/// - `a_sd`, `b_sd`: the standard deviation of the per-capture totals (null with one capture);
/// - `t`: Welch's t statistic of the change (null unless both sides have two captures or more
///   and some spread);
/// - `status`: `added` (not in `a`), `removed` (not in `b`), `same` (no change), `noise`
///   (|t| < 2), `slower` or `faster`.
pub fn sql(keys: &[Key]) -> String {
    let names: Vec<&str> = keys.iter().map(|k| k.name()).collect();
    let list = names.join(", ");
    let mut q = String::from("WITH\nsets(k) AS (VALUES (0), (1)),\n");
    for side in ["a", "b"] {
        side_sql(&mut q, side, keys, &list);
    }
    let on: Vec<String> = names.iter().map(|k| format!("a.{k} = b.{k}")).collect();
    let key_out: Vec<String> = names
        .iter()
        .map(|k| format!("coalesce(a.{k}, b.{k}) AS {k}"))
        .collect();
    let _ = write!(
        q,
        "both AS (
  SELECT {keys},
    coalesce(a.cnt, 0) AS a_cnt, coalesce(b.cnt, 0) AS b_cnt,
    coalesce(a.total, 0) AS a_sum, coalesce(b.total, 0) AS b_sum,
    a.total_sq AS a_sq, b.total_sq AS b_sq, a.p50 AS a_p50, b.p50 AS b_p50,
    a.p95 AS a_p95, b.p95 AS b_p95,
    max(a.n) OVER () AS a_n, max(b.n) OVER () AS b_n
  FROM a_side a FULL OUTER JOIN b_side b ON {on}
),
per_capture AS (
  SELECT *,
    CAST(a_sum AS DOUBLE) / a_n AS a_tot, CAST(b_sum AS DOUBLE) / b_n AS b_tot,
    CASE WHEN a_n > 1 THEN sqrt(greatest(0.0,
      (a_sq - CAST(a_sum AS DOUBLE) * a_sum / a_n) / (a_n - 1))) END AS a_sd,
    CASE WHEN b_n > 1 THEN sqrt(greatest(0.0,
      (b_sq - CAST(b_sum AS DOUBLE) * b_sum / b_n) / (b_n - 1))) END AS b_sd
  FROM both
),
tested AS (
  SELECT *, b_tot - a_tot AS delta,
    CASE WHEN a_n > 1 AND b_n > 1 AND (a_sd > 0 OR b_sd > 0) THEN
      (b_tot - a_tot) / sqrt(a_sd * a_sd / a_n + b_sd * b_sd / b_n) END AS t
  FROM per_capture
)
SELECT {list},
  CAST(round(CAST(a_cnt AS DOUBLE) / a_n) AS BIGINT) AS a_count,
  CAST(round(CAST(b_cnt AS DOUBLE) / b_n) AS BIGINT) AS b_count,
  CAST(round(a_tot) AS BIGINT) AS a_total, CAST(round(b_tot) AS BIGINT) AS b_total,
  CAST(round(CAST(a_sum AS DOUBLE) / nullif(a_cnt, 0)) AS BIGINT) AS a_mean,
  CAST(round(CAST(b_sum AS DOUBLE) / nullif(b_cnt, 0)) AS BIGINT) AS b_mean,
  CAST(round(a_p50) AS BIGINT) AS a_p50, CAST(round(b_p50) AS BIGINT) AS b_p50,
  CAST(round(a_p95) AS BIGINT) AS a_p95, CAST(round(b_p95) AS BIGINT) AS b_p95,
  CAST(round(delta) AS BIGINT) AS change,
  round(100.0 * delta / nullif(a_tot, 0), 2) AS change_pct,
  CAST(round(a_sd) AS BIGINT) AS a_sd, CAST(round(b_sd) AS BIGINT) AS b_sd,
  round(t, 2) AS t,
  CASE
    WHEN a_cnt = 0 THEN 'added'
    WHEN b_cnt = 0 THEN 'removed'
    WHEN delta = 0 THEN 'same'
    WHEN t IS NOT NULL AND abs(t) < 2 THEN 'noise'
    WHEN delta > 0 THEN 'slower'
    ELSE 'faster'
  END AS status
FROM tested
ORDER BY abs(delta) DESC, {list}",
        keys = key_out.join(", "),
        on = on.join(" AND "),
    );
    q
}

/// The CTEs `<side>_side`: per key, the side's slice count, total, sum of squared per-capture
/// totals, percentiles, and its number of captures, from one scan of its slices.
fn side_sql(q: &mut String, side: &str, keys: &[Key], list: &str) {
    let exprs: Vec<String> = keys
        .iter()
        .map(|k| format!("{} AS {}", k.expr(), k.name()))
        .collect();
    let join = if keys.contains(&Key::Track) {
        format!(" JOIN {side}.tracks t ON t.capture = s.capture AND t.track = s.track")
    } else {
        String::new()
    };
    // One scan, each row counted twice (`sets`): under set 0 per key, with the percentiles, and
    // under set 1 per key and capture, for the spread of the per-capture totals (the
    // percentiles are not computed there: exact percentiles hold every duration of their group).
    // The two-row `sets` comes first, so that it is what the cross join holds, and the side's
    // rows stream through it in their partitions. A capture's rank among the side's captures
    // gives their number on the key of the last one.
    let _ = write!(
        q,
        "{side}_rows AS (
  SELECT s.capture AS capture, {exprs}, s.dur AS dur
  FROM {side}.slices s{join}
  WHERE s.dur IS NOT NULL
),
{side}_groups AS (
  SELECT sets.k AS k, {list}, CASE WHEN sets.k = 1 THEN capture END AS capture,
    count(*) AS cnt, sum(dur) AS total,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY dur) FILTER (WHERE sets.k = 0) AS p50,
    percentile_cont(0.95) WITHIN GROUP (ORDER BY dur) FILTER (WHERE sets.k = 0) AS p95
  FROM sets CROSS JOIN {side}_rows
  GROUP BY sets.k, {list}, CASE WHEN sets.k = 1 THEN capture END
),
{side}_ranked AS (
  SELECT *, dense_rank() OVER (PARTITION BY k ORDER BY capture) AS capture_rank
  FROM {side}_groups
),
{side}_side AS (
  SELECT {list},
    max(CASE WHEN k = 0 THEN cnt END) AS cnt,
    max(CASE WHEN k = 0 THEN total END) AS total,
    sum(CASE WHEN k = 1 THEN CAST(total AS DOUBLE) * CAST(total AS DOUBLE) END) AS total_sq,
    max(p50) AS p50,
    max(p95) AS p95,
    max(CASE WHEN k = 1 THEN capture_rank END) AS n
  FROM {side}_ranked
  GROUP BY {list}
),
",
        exprs = exprs.join(", "),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_lists() {
        assert_eq!(keys("name"), Some(vec![Key::Name]));
        assert_eq!(keys("track,name"), Some(vec![Key::Track, Key::Name]));
        assert_eq!(keys("category"), Some(vec![Key::Category]));
        assert_eq!(keys("name,name"), None);
        assert_eq!(keys("thread"), None);
        assert_eq!(keys(""), None);
    }
}
