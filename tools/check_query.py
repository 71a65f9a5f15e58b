#!/usr/bin/env python3
"""Checks `tracecap query` against DuckDB on the exported Parquet of the same captures.

Usage:
  tools/check_query.py --tracecap target/debug/tracecap --dataset DIR INPUT...
      DIR is `tracecap export INPUT... -o DIR` run from the current directory (tools/check_export.py
      --keep DIR writes one). Every query of QUERIES runs three times:
        - `tracecap query SQL INPUT... --format json` (parsing the capture files),
        - `tracecap query SQL DIR --format json` (reading the dataset),
        - DuckDB, on views of DIR/<table>/*.parquet named like the tables;
      the three results must hold the same rows (as multisets; numbers equal to 1e-9 relative, the
      percentiles to 1e-5: see TOLERANCE).
      Then `tracecap diff X X` of a capture against itself must show no change.

Needs `pip install duckdb`. Exit status 1 when any check fails.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time

TABLES = ["captures", "tracks", "slices", "instants", "counters", "stack_samples", "stack_frames",
          "easyprofiler_blocks",
          "easyprofiler_values", "syscall_calls", "apitrace_calls", "wtf_events", "orbit_events"]

# Counts, group-bys, joins of slices with tracks, percentiles, filters on capture, window functions,
# every table. Text columns are cast to VARCHAR so both engines print them as text.
QUERIES = {
    "slices": "SELECT count(*) AS n, count(dur) AS closed, sum(dur) AS total FROM slices",
    "per capture": """SELECT CAST(capture AS VARCHAR) AS capture, count(*) AS n, sum(dur) AS total,
        min(ts) AS first, max(ts + coalesce(dur, 0)) AS last FROM slices GROUP BY 1""",
    "per name": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name,
        CAST(category AS VARCHAR) AS category, count(*) AS n, sum(dur) AS total, max(depth) AS depth
        FROM slices GROUP BY 1, 2, 3""",
    "slices by thread": """SELECT CAST(s.capture AS VARCHAR) AS capture, CAST(t.kind AS VARCHAR) AS kind,
        t.name AS track, t.pid, t.tid, count(*) AS n, sum(s.dur) AS total
        FROM slices s JOIN tracks t ON s.capture = t.capture AND s.track = t.track
        GROUP BY 1, 2, 3, 4, 5""",
    "tracks and parents": """SELECT CAST(c.capture AS VARCHAR) AS capture, c.name AS track, p.name AS parent
        FROM tracks c LEFT JOIN tracks p ON c.capture = p.capture AND c.parent = p.track""",
    "percentiles": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY dur) AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY dur) AS p95, avg(dur) AS mean
        FROM slices WHERE dur IS NOT NULL GROUP BY 1, 2""",
    "top 5 per capture": """SELECT capture, name, total FROM (
        SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name, sum(dur) AS total,
          row_number() OVER (PARTITION BY capture ORDER BY sum(dur) DESC, CAST(name AS VARCHAR)) AS r
        FROM slices WHERE dur IS NOT NULL GROUP BY capture, name) WHERE r <= 5""",
    "instants": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name, count(*) AS n,
        sum(ts) AS ts FROM instants GROUP BY 1, 2""",
    "counters": """SELECT CAST(capture AS VARCHAR) AS capture, track, count(*) AS n, sum(value) AS total,
        min(value) AS low, max(value) AS high FROM counters GROUP BY 1, 2""",
    "captures": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(format AS VARCHAR) AS format, version,
        bytes, start_ns, end_ns, fault, fault_offset FROM captures""",
    "filter on capture": """SELECT count(*) AS n, sum(dur) AS total FROM slices
        WHERE capture LIKE '%wtf%' OR capture LIKE '%.prof'""",
    "folded stacks": """WITH folded AS (
        SELECT capture, stack, string_agg(CAST(function AS VARCHAR), ';' ORDER BY depth DESC) AS frames
        FROM stack_frames GROUP BY capture, stack)
        SELECT CAST(s.capture AS VARCHAR) AS capture, f.frames, sum(s.weight) AS samples
        FROM stack_samples s JOIN folded f ON s.capture = f.capture AND s.stack = f.stack
        GROUP BY 1, 2""",
    "stack frames": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(module AS VARCHAR) AS module,
        count(*) AS n, count(DISTINCT stack) AS stacks, min(address) AS low, max(address) AS high FROM stack_frames
        GROUP BY 1, 2""",
    "easyprofiler_blocks": """SELECT CAST(capture AS VARCHAR) AS capture, count(*) AS n FROM easyprofiler_blocks
        GROUP BY 1""",
    "easyprofiler_values": """SELECT CAST(capture AS VARCHAR) AS capture, count(*) AS n FROM easyprofiler_values
        GROUP BY 1""",
    "syscalls by total time": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name,
        count(*) AS n, sum(duration_ns) AS total FROM syscall_calls GROUP BY 1, 2""",
    "gl calls per frame": """SELECT CAST(capture AS VARCHAR) AS capture, frame, count(*) AS calls
        FROM apitrace_calls GROUP BY 1, 2""",
    "wtf_events": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(name AS VARCHAR) AS name, count(*) AS n
        FROM wtf_events GROUP BY 1, 2""",
    "orbit_events": """SELECT CAST(capture AS VARCHAR) AS capture, CAST(event AS VARCHAR) AS event, count(*) AS n
        FROM orbit_events GROUP BY 1, 2""",
}

# DataFusion's percentile_cont interpolates between the two nearest values with a weight cut to
# millionths (datafusion-functions-aggregate's INTERPOLATION_PRECISION), DuckDB's exactly: their
# results differ by up to a millionth of the gap between those values.
TOLERANCE = {"percentiles": 1e-5}

FAILURES = []


def fail(where, msg):
    FAILURES.append(where)
    print(f"FAIL {where}: {msg}", flush=True)


def tracecap_rows(tool, sql, inputs):
    res = subprocess.run([tool, "query", sql, *inputs, "--format", "json"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        return None, f"exit {res.returncode}: {res.stderr.strip()[-800:]}"
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()], None


def duckdb_rows(con, sql):
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def norm(value):
    """A value as a comparable key: numbers as floats, the rest as text; missing = NULL."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", float(value))
    if hasattr(value, "__float__") and not isinstance(value, str):
        return ("num", float(value))
    return ("text", str(value))


def close(a, b, rel=1e-9):
    if a[0] == "num" and b[0] == "num":
        x, y = a[1], b[1]
        return x == y or math.isclose(x, y, rel_tol=rel, abs_tol=1e-6)
    return a == b


def as_rows(rows, columns):
    # JSON Lines leaves out null values: a missing key is NULL.
    return sorted(tuple(norm(r.get(c)) for c in columns) for r in rows)


def same(left, right, rel):
    return len(left) == len(right) and all(
        len(a) == len(b) and all(close(x, y, rel) for x, y in zip(a, b)) for a, b in zip(left, right))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--tracecap", required=True)
    ap.add_argument("--dataset", required=True)
    args = ap.parse_args()
    tool = os.path.abspath(args.tracecap) if os.sep in args.tracecap else args.tracecap
    import duckdb

    start = time.monotonic()
    con = duckdb.connect()
    for table in TABLES:
        files = glob.glob(os.path.join(args.dataset, table, "*.parquet"))
        if files:
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{args.dataset}/{table}/*.parquet')")
        else:
            # A table no capture fills has no files: an empty table of its columns, taken from
            # tracecap itself (its result's columns are the ones the queries use).
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM (SELECT 1 AS capture) WHERE false")
    for name, sql in QUERIES.items():
        t0 = time.monotonic()
        try:
            want = duckdb_rows(con, sql)
        except Exception as e:  # noqa: BLE001 - any DuckDB failure is a failed check
            fail(name, f"DuckDB: {e}")
            continue
        columns = list(want[0].keys()) if want else None
        ok = True
        for label, inputs in (("captures", args.inputs), ("dataset", [args.dataset])):
            got, err = tracecap_rows(tool, sql, inputs)
            if err:
                fail(f"{name} ({label})", err)
                ok = False
                continue
            cols = columns or (list(got[0].keys()) if got else [])
            rel = TOLERANCE.get(name, 1e-9)
            if not same(as_rows(got, cols), as_rows(want, cols), rel):
                g, w = as_rows(got, cols), as_rows(want, cols)
                diff = [(a, b) for a, b in zip(g, w) if not all(close(x, y, rel) for x, y in zip(a, b))][:3]
                fail(f"{name} ({label})",
                     f"{len(got)} rows against DuckDB's {len(want)}; first differences: {diff}")
                ok = False
        if ok:
            print(f"ok   {name}: {len(want)} rows equal DuckDB's "
                  f"({time.monotonic() - t0:.1f} s)", flush=True)

    # A capture against itself: no change anywhere.
    capture = next((r["capture"] for r in duckdb_rows(
        con, "SELECT CAST(capture AS VARCHAR) AS capture, count(*) AS n FROM slices "
             "WHERE dur IS NOT NULL GROUP BY 1 ORDER BY n DESC LIMIT 1")), None)
    if capture:
        res = subprocess.run([tool, "diff", capture, capture, "--format", "json"],
                             capture_output=True, text=True)
        rows = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
        if res.returncode != 0 or not rows:
            fail("diff of a capture with itself", f"exit {res.returncode}: {res.stderr[-400:]}")
        elif any(r.get("change") != 0 or r.get("status") != "same" for r in rows):
            fail("diff of a capture with itself", f"changes: {[r for r in rows if r.get('change')][:3]}")
        else:
            print(f"ok   diff of {capture} with itself: {len(rows)} names, no change")
    print(f"     {time.monotonic() - start:.1f} s in all")
    if FAILURES:
        print(f"{len(FAILURES)} failed")
        sys.exit(1)
    print("query ok")


if __name__ == "__main__":
    main()
