#!/usr/bin/env python3
"""Checks `tracecap export`'s Parquet dataset with engines tracecap did not write: pyarrow, DuckDB, Spark.

Usage:
  tools/check_export.py --tracecap target/debug/tracecap INPUT...
      exports every capture of INPUT... (files and directories, as `tracecap export` takes them)
      into a temporary dataset with one `tracecap export INPUT... -o DIR --quiet`, converts each
      capture with `tracecap convert CAPTURE --to chrome -o - --json`, then checks:
  1. export: exits 0, or 1 exactly when a capture is damaged (2 is a failure);
  2. pyarrow: every Parquet file of every table reads, with the table's schema (the seven shared
     tables spelled out below; a per-format table's files all have the schema of its first file),
     and no temporary file (a name starting with '.') is left;
  3. DuckDB: for every capture, `slices` per name (count, slices with a dur, sum(dur)), `instants`
     per name (count) and the number of `counters` rows equal the Chrome JSON convert wrote (B/E
     paired per (pid, tid), X with their dur, i events, C events; times in integer ns); `captures`
     has one row per capture with its format, path, size, time span, and its fault exactly when
     convert exited 1 (the same message and offset); no table holds rows of a capture `captures`
     does not list, and every slice, instant and counter row names a track of its capture;
  4. Spark (local[2]): `spark.read.parquet(DIR/slices)` grouped by capture and name (count,
     sum(dur)) gives the same rows as DuckDB's read_parquet(DIR/slices/*.parquet),
     `spark.read.parquet(DIR/captures)` has one row per capture, and every other table reads
     with the rows pyarrow read.

  tools/check_export.py --tracecap ... --dataset DIR INPUT...
      checks DIR, an export of INPUT... made from the current directory, instead of exporting.

Needs `pip install duckdb pyarrow pyspark` and Java for Spark (--no-spark skips it).
Exit status 1 when any check fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from decimal import ROUND_HALF_EVEN, Decimal

FAILURES = []

SHARED = ["captures", "tracks", "slices", "instants", "counters", "stack_samples", "stack_frames"]
PER_FORMAT = {
    "easyprofiler_blocks": "easyprofiler",
    "easyprofiler_values": "easyprofiler",
    "syscall_calls": "syscall",
    "apitrace_calls": "apitrace",
    "wtf_events": "wtf",
    "orbit_events": "orbit",
}
LOCK_FILE = ".tracecap-lock"
TABLES = SHARED + list(PER_FORMAT)


def expected_schemas():
    """The seven shared tables as crates/tracecap-arrow/src/table.rs defines them: (name, Arrow
    type, nullable). Dictionary-encoded text columns compare by their value type (string)."""
    import pyarrow as pa

    s, i64, i32, f64, u64 = pa.string(), pa.int64(), pa.int32(), pa.float64(), pa.uint64()
    cap = ("capture", s, False)
    return {
        "captures": [cap, ("path", s, False), ("format", s, False), ("version", s, True),
                     ("bytes", i64, False), ("start_ns", i64, True), ("end_ns", i64, True),
                     ("fault", s, True), ("fault_offset", i64, True)],
        "tracks": [cap, ("track", i64, False), ("parent", i64, True), ("kind", s, False),
                   ("name", s, False), ("pid", i64, True), ("tid", i64, True)],
        "slices": [cap, ("track", i64, False), ("ts", i64, False), ("dur", i64, True),
                   ("depth", i32, False), ("name", s, False), ("category", s, False),
                   ("args", s, True)],
        "instants": [cap, ("track", i64, False), ("ts", i64, False), ("name", s, False),
                     ("category", s, False), ("args", s, True)],
        "counters": [cap, ("track", i64, False), ("ts", i64, False), ("value", f64, False)],
        "stack_samples": [cap, ("track", i64, False), ("ts", i64, False), ("stack", u64, False),
                          ("weight", i64, False), ("kind", s, False), ("call", s, True)],
        "stack_frames": [cap, ("stack", u64, False), ("depth", i32, False), ("function", s, False),
                         ("module", s, False), ("file", s, False), ("line", i64, True),
                         ("address", u64, True)],
    }


SHOWN_PER_CHECK = 40
shown = 0  # failures printed by the check at hand


def fail(where, msg):
    global shown
    FAILURES.append(f"{where}: {msg}")
    shown += 1
    if shown <= SHOWN_PER_CHECK:
        print(f"FAIL {where}: {msg}", flush=True)
    elif shown == SHOWN_PER_CHECK + 1:
        print("FAIL ... (more failures of this check are counted, not shown)", flush=True)


def summary_line(check, failures_before, text):
    global shown
    shown = 0
    n = len(FAILURES) - failures_before
    print(f"{'ok  ' if n == 0 else 'FAIL'} {check}: {text}" + (f" ({n} failure(s))" if n else ""),
          flush=True)


# ---------------------------------------------------------------------------------------------
# The captures of the inputs, and what `tracecap convert --to chrome` writes for each


def candidate_files(inputs):
    """The files `tracecap export` looks at, with the id it gives each: a file input as given, a
    file under a directory input as the directory joined with its path in it (links to files
    followed, links to directories not)."""
    files, seen = [], set()
    for inp in inputs:
        if os.path.isdir(inp):
            found = []
            for root, dirs, names in os.walk(inp):
                for n in names:
                    p = os.path.join(root, n)
                    if os.path.isfile(p):
                        found.append(p)
            for p in sorted(found):
                if p not in seen:
                    seen.add(p)
                    files.append((p, False))
        elif inp not in seen:
            seen.add(inp)
            files.append((inp, True))
    return files


def to_ns(x):
    """A Chrome time (microseconds, with the nanoseconds as a fraction) in integer ns."""
    return int((Decimal(x) * 1000).to_integral_value(ROUND_HALF_EVEN))


OFFSET_RE = re.compile(r"^error: (.*) at offset 0x([0-9a-fA-F]+)$")


def convert_one(tool, path):
    """Runs convert and reduces its Chrome JSON to what the dataset is compared with."""
    res = subprocess.run([tool, "convert", path, "--to", "chrome", "-o", "-", "--json"],
                         capture_output=True)
    err = res.stderr.decode("utf-8", "replace").splitlines()
    out = {"path": path, "rc": res.returncode, "summary": None, "error": None, "notes": [],
           "problems": []}
    try:
        out["summary"] = json.loads(err[0]) if err and err[0].startswith("{") else None
    except json.JSONDecodeError:
        pass
    errors = [line for line in err if line.startswith("error: ")]
    out["error"] = errors[-1] if errors else None
    if out["summary"] is None:
        return out  # not a capture
    try:
        doc = json.loads(res.stdout, parse_float=Decimal)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        out["problems"].append(f"convert's Chrome JSON does not parse: {e}")
        return out
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    slices = defaultdict(lambda: [0, 0, 0])  # name -> [count, with dur, sum(dur) ns]
    instants = defaultdict(int)
    counters = 0
    stacks = defaultdict(list)  # (pid, tid) -> [(name, begin ns)]
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph == "B":
            stacks[(e.get("pid"), e.get("tid"))].append((e.get("name"), to_ns(e["ts"])))
        elif ph == "E":
            stack = stacks[(e.get("pid"), e.get("tid"))]
            if not stack:
                out["problems"].append(f"Chrome event {i}: E without B on {(e.get('pid'), e.get('tid'))}")
                continue
            name, begin = stack.pop()
            s = slices[name]
            s[0] += 1
            s[1] += 1
            s[2] += to_ns(e["ts"]) - begin
        elif ph == "X":
            s = slices[e.get("name")]
            s[0] += 1
            s[1] += 1
            s[2] += to_ns(e["dur"])
        elif ph in ("i", "I"):
            instants[e.get("name")] += 1
        elif ph == "C":
            counters += 1
    # A slice convert left open is a row with a null dur in the export.
    for key, stack in stacks.items():
        for name, _ in stack:
            slices[name][0] += 1
        if stack:
            out["notes"].append(f"{len(stack)} B event(s) without E on {key}")
    out["slices"] = {k: tuple(v) for k, v in slices.items()}
    out["instants"] = dict(instants)
    out["counters"] = counters
    return out


def convert_all(tool, files, jobs):
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(convert_one, [tool] * len(files), [p for p, _ in files]))


# ---------------------------------------------------------------------------------------------
# 1. export


def export(tool, inputs, dataset, expect_rc):
    before = len(FAILURES)
    start = time.monotonic()
    res = subprocess.run([tool, "export", *inputs, "-o", dataset, "--quiet"],
                         capture_output=True, text=True)
    took = time.monotonic() - start
    if res.returncode == 2 or res.returncode not in (0, 1):
        fail("export", f"exited {res.returncode}: {res.stderr.strip()}")
    elif res.returncode != expect_rc:
        fail("export", f"exited {res.returncode}, expected {expect_rc} "
                       f"({'some' if expect_rc else 'no'} capture is damaged): {res.stderr.strip()}")
    warnings = sum(1 for line in res.stderr.splitlines() if line.startswith("warning: "))
    summary_line("export", before, f"exit {res.returncode} in {took:.1f} s, {warnings} warning(s)")
    return res.returncode


# ---------------------------------------------------------------------------------------------
# 2. pyarrow


def plain_type(t):
    import pyarrow as pa

    return t.value_type if pa.types.is_dictionary(t) else t


def describe(fields):
    return ", ".join(f"{n} {t}{'' if nullable else ' not null'}" for n, t, nullable in fields)


def check_pyarrow(dataset):
    import pyarrow.parquet as pq

    before = len(FAILURES)
    expected = expected_schemas()
    rows, files = {}, 0
    # The dataset's lock file (docs/export.md, "One writer at a time") stays at its top.
    entries = sorted(n for n in os.listdir(dataset) if n != LOCK_FILE)
    for name in entries:
        if name not in TABLES:
            fail(dataset, f"unexpected entry {name!r} (not a table of the export)")
    for dirpath, dirnames, names in os.walk(dataset):
        for n in dirnames + names:
            if n.startswith(".") and not (dirpath == dataset and n == LOCK_FILE):
                fail(os.path.join(dirpath, n), "temporary file left in the dataset")
    for table in TABLES:
        folder = os.path.join(dataset, table)
        if not os.path.isdir(folder):
            fail(folder, "missing table folder")
            continue
        parts = sorted(n for n in os.listdir(folder) if n.endswith(".parquet") and not n.startswith("."))
        if not parts:
            fail(folder, "no Parquet file (a table no capture filled must still hold one)")
        for n in sorted(os.listdir(folder)):
            if not n.endswith(".parquet") and not n.startswith("."):
                fail(os.path.join(folder, n), "not a Parquet file")
        want = expected.get(table)
        rows[table] = 0
        for n in parts:
            path = os.path.join(folder, n)
            files += 1
            try:
                t = pq.read_table(path)
            except Exception as e:  # noqa: BLE001 - any reader error is the finding
                fail(path, f"pyarrow cannot read it: {type(e).__name__}: {e}")
                continue
            got = [(f.name, plain_type(f.type), f.nullable) for f in t.schema]
            if not got:
                fail(path, "no columns in the schema")
                continue
            if want is None:  # a per-format table: its first file sets the schema
                if got[0][:2] != expected["captures"][0][:2]:
                    fail(path, f"first column is {got[0][0]} {got[0][1]}, not capture string")
                want = got
                print(f"     {table}: {describe(got)}")
            if got != want:
                fail(path, f"schema differs:\n       got  {describe(got)}\n       want {describe(want)}")
            rows[table] += t.num_rows
    summary_line("pyarrow", before, f"{files} files read; rows: "
                 + ", ".join(f"{t} {rows.get(t, '?')}" for t in TABLES))
    return rows


# ---------------------------------------------------------------------------------------------
# 3. DuckDB


def glob_of(dataset, table):
    return os.path.join(dataset, table, "*.parquet").replace("'", "''")


def check_duckdb(dataset, converted, pyarrow_rows):
    """The DuckDB connection with a view per table, or None when DuckDB cannot read the dataset."""
    import duckdb

    before = len(FAILURES)
    con = duckdb.connect()
    try:
        compare_duckdb(con, dataset, converted, pyarrow_rows, before)
    except duckdb.Error as e:
        fail("duckdb", f"cannot query the dataset: {type(e).__name__}: {e}")
        summary_line("duckdb", before, "stopped")
        return None
    return con


def compare_duckdb(con, dataset, converted, pyarrow_rows, before):
    for t in TABLES:
        con.execute(f"create view {t} as select * from read_parquet('{glob_of(dataset, t)}')")
    captures = {c["path"]: c for c in converted if c["summary"] is not None}
    not_captures = {c["path"] for c in converted if c["summary"] is None}

    # Row counts: DuckDB reads what pyarrow read.
    for t in TABLES:
        n = con.execute(f"select count(*) from {t}").fetchone()[0]
        if t in pyarrow_rows and n != pyarrow_rows[t]:
            fail(t, f"DuckDB counts {n} rows, pyarrow {pyarrow_rows[t]}")

    # captures: one row per capture, nothing else.
    rows = con.execute("select capture, path, format, bytes, start_ns, end_ns, fault, fault_offset "
                       "from captures order by capture").fetchall()
    by_id = defaultdict(list)
    for r in rows:
        by_id[r[0]].append(r)
    for cid, rs in by_id.items():
        if len(rs) > 1:
            fail(cid, f"{len(rs)} rows in captures")
        if cid not in captures:
            what = "a file convert does not take as a capture" if cid in not_captures else "no capture of the inputs"
            fail(cid, f"in captures but {what}")
    for cid, c in captures.items():
        if cid not in by_id:
            fail(cid, f"a {c['summary'].get('format')} capture missing from captures")
            continue
        _, path, fmt, size, start, end, fault, fault_offset = by_id[cid][0]
        s = c["summary"]
        if fmt != s.get("format"):
            fail(cid, f"captures.format {fmt!r}, convert says {s.get('format')!r}")
        real = os.path.getsize(cid)
        if size != real:
            fail(cid, f"captures.bytes {size}, the file has {real}")
        if not (os.path.isabs(path) and os.path.exists(path) and os.path.samefile(path, cid)):
            fail(cid, f"captures.path {path!r} is not this file's absolute path")
        if (start, end) != (s.get("first_ns"), s.get("last_ns")):
            fail(cid, f"captures.start_ns, end_ns = {start}, {end}; convert: first_ns, last_ns = "
                      f"{s.get('first_ns')}, {s.get('last_ns')}")
        damaged = c["rc"] == 1
        if c["rc"] not in (0, 1):
            fail(cid, f"convert exited {c['rc']}: {c['error']}")
        if damaged != (fault is not None) or damaged != (fault_offset is not None):
            fail(cid, f"convert exited {c['rc']} ({c['error']}) but captures.fault = {fault!r}, "
                      f"fault_offset = {fault_offset!r}")
        elif damaged:
            m = OFFSET_RE.match(c["error"] or "")
            if not m:
                fail(cid, f"convert's error names no offset: {c['error']!r}")
            elif (fault, fault_offset) != (m.group(1), int(m.group(2), 16)):
                fail(cid, f"captures.fault = {fault!r} at {fault_offset:#x}; convert: "
                          f"{m.group(1)!r} at {int(m.group(2), 16):#x}")

    # No table holds rows of a capture `captures` does not list; per-format tables hold only
    # captures of their format.
    for t in TABLES[1:]:
        for cid, n in con.execute(f"select capture, count(*) from {t} where capture not in "
                                  "(select capture from captures) group by 1").fetchall():
            fail(cid, f"{n} rows in {t} but no row in captures")
    for t, fmt in PER_FORMAT.items():
        for cid, other, n in con.execute(
                f"select t.capture, c.format, count(*) from {t} t join captures c using (capture) "
                f"where c.format <> '{fmt}' group by 1, 2").fetchall():
            fail(cid, f"{n} rows in {t} for a {other} capture")
    # Every timeline row names a track of its capture.
    for t in ("slices", "instants", "counters", "stack_samples"):
        for cid, n in con.execute(
                f"select x.capture, count(*) from {t} x anti join tracks k "
                "on x.capture = k.capture and x.track = k.track group by 1").fetchall():
            fail(cid, f"{n} rows of {t} on tracks not in tracks")
    for cid, n in con.execute("select capture, count(*) from (select capture, track from tracks "
                              "group by all having count(*) > 1) group by 1").fetchall():
        fail(cid, f"{n} track ids listed more than once in tracks")

    # Every stack sample names a stack of its capture whose frames run from depth 0 without a gap;
    # an Orbit capture without a fault has a stack sample per CallstackSample event.
    for cid, n in con.execute(
            "select s.capture, count(*) from stack_samples s anti join stack_frames f "
            "on s.capture = f.capture and s.stack = f.stack group by 1").fetchall():
        fail(cid, f"{n} stack samples of stacks with no frames in stack_frames")
    for cid, stack, n, lo, hi, depths in con.execute(
            "select capture, stack, count(*), min(depth), max(depth), count(distinct depth) "
            "from stack_frames group by all having min(depth) <> 0 or max(depth) + 1 <> count(*) "
            "or count(distinct depth) <> count(*)").fetchall():
        fail(cid, f"stack {stack}: {n} frames with depths {lo}..{hi} ({depths} distinct)")
    sampled = dict(con.execute("select capture, count(*) from stack_samples group by 1").fetchall())
    for cid, events in con.execute(
            "select o.capture, count(*) from orbit_events o join captures c using (capture) "
            "where o.event = 'callstack_sample' and c.fault is null group by 1").fetchall():
        if sampled.get(cid, 0) != events:
            fail(cid, f"stack_samples: {sampled.get(cid, 0)} rows, orbit_events: {events} "
                      "callstack_sample events")

    # The timeline against convert's Chrome JSON, capture by capture.
    slices = defaultdict(dict)
    for cid, name, n, with_dur, total in con.execute(
            "select capture, name, count(*), count(dur), coalesce(sum(dur), 0) from slices group by all"
    ).fetchall():
        slices[cid][name] = (n, with_dur, int(total))
    instants = defaultdict(dict)
    for cid, name, n in con.execute("select capture, name, count(*) from instants group by all").fetchall():
        instants[cid][name] = n
    counters = dict(con.execute("select capture, count(*) from counters group by all").fetchall())
    totals = defaultdict(int)
    for cid, c in captures.items():
        for p in c["problems"]:
            fail(cid, p)
        for note in c["notes"]:
            print(f"note {cid}: convert's Chrome JSON has {note}")
        if "slices" not in c:
            continue
        s = c["summary"]
        # The parse of the Chrome JSON must agree with convert's own summary.
        mine = {"slices": sum(v[0] for v in c["slices"].values()),
                "instants": sum(c["instants"].values()), "counter_samples": c["counters"]}
        for k, v in mine.items():
            if s.get(k) != v:
                fail(cid, f"convert's summary says {k} {s.get(k)}, its Chrome JSON holds {v}")
        want_s, got_s = c["slices"], slices.get(cid, {})
        for name in sorted(set(want_s) | set(got_s), key=str):
            w, g = want_s.get(name, (0, 0, 0)), got_s.get(name, (0, 0, 0))
            if w != g:
                fail(cid, f"slices named {name!r}: (count, with dur, sum(dur) ns) = {g} in the "
                          f"dataset, {w} in convert's Chrome JSON")
        want_i, got_i = c["instants"], instants.get(cid, {})
        for name in sorted(set(want_i) | set(got_i), key=str):
            if want_i.get(name, 0) != got_i.get(name, 0):
                fail(cid, f"instants named {name!r}: {got_i.get(name, 0)} in the dataset, "
                          f"{want_i.get(name, 0)} in convert's Chrome JSON")
        if counters.get(cid, 0) != c["counters"]:
            fail(cid, f"counters: {counters.get(cid, 0)} rows in the dataset, {c['counters']} C "
                      "events in convert's Chrome JSON")
        totals["slices"] += mine["slices"]
        totals["instants"] += mine["instants"]
        totals["counters"] += mine["counter_samples"]
        totals["names"] += len(want_s)
        totals["damaged"] += c["rc"] == 1
    summary_line("duckdb", before,
                 f"{len(captures)} captures ({totals['damaged']} damaged) against convert: "
                 f"{totals['slices']} slices of {totals['names']} (capture, name) groups, "
                 f"{totals['instants']} instants, {totals['counters']} counter samples, "
                 f"{sum(sampled.values())} stack samples")


# ---------------------------------------------------------------------------------------------
# 4. Spark


def tail(path, lines=40):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def check_spark(dataset, con, n_captures, pyarrow_rows):
    before = len(FAILURES)
    try:
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F
    except ImportError:
        fail("spark", "the `pyspark` package is missing: pip install pyspark")
        return
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        # Quiet: log4j at ERROR (Spark's own "Setting default log level" notice included), no
        # progress bar; the JVM's standard error goes to a file shown only if Spark fails.
        # Quick: no UI, 2 shuffle partitions, the JIT's first tier only (halves the start-up).
        log4j = os.path.join(tmp, "log4j2.properties")
        with open(log4j, "w") as f:
            f.write("rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
                    "logger.spark.name = org.apache.spark\nlogger.spark.level = error\n"
                    "appender.console.type = Console\nappender.console.name = console\n"
                    "appender.console.target = SYSTEM_ERR\n"
                    "appender.console.layout.type = PatternLayout\n"
                    "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n")
        jvm_log = os.path.join(tmp, "spark-stderr.log")
        saved = os.dup(2)
        try:
            with open(jvm_log, "w") as log:
                os.dup2(log.fileno(), 2)  # the JVM, started now, inherits it
                spark = (SparkSession.builder.master("local[2]").appName("check_export")
                         .config("spark.ui.enabled", "false")
                         .config("spark.ui.showConsoleProgress", "false")
                         .config("spark.sql.shuffle.partitions", "2")
                         .config("spark.driver.host", "127.0.0.1")
                         .config("spark.driver.bindAddress", "127.0.0.1")
                         .config("spark.local.dir", tmp)
                         .config("spark.driver.extraJavaOptions",
                                 f"-Dlog4j2.configurationFile=file:{log4j} "
                                 "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
                         .getOrCreate())
        except Exception as e:  # noqa: BLE001 - reported with the JVM's output
            fail("spark", f"no Spark session: {type(e).__name__}: {e}\n{tail(jvm_log)}")
            return
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        try:
            spark.sparkContext.setLogLevel("ERROR")
            started = time.monotonic() - start
            got = {}
            df = spark.read.parquet(os.path.join(dataset, "slices"))
            for r in (df.groupBy("capture", "name")
                      .agg(F.count(F.lit(1)).alias("n"), F.sum("dur").alias("total")).collect()):
                got[(r["capture"], r["name"])] = (r["n"], r["total"])
            want = {(cid, name): (n, None if total is None else int(total))
                    for cid, name, n, total in con.execute(
                        "select capture, name, count(*), sum(dur) from read_parquet("
                        f"'{glob_of(dataset, 'slices')}') group by all").fetchall()}
            for key in sorted(set(got) | set(want), key=str):
                if got.get(key) != want.get(key):
                    fail(key[0], f"slices named {key[1]!r}: (count, sum(dur)) = {got.get(key)} in "
                                 f"Spark, {want.get(key)} in DuckDB")
            n = spark.read.parquet(os.path.join(dataset, "captures")).count()
            if n != n_captures:
                fail("spark", f"captures has {n} rows in Spark, expected {n_captures}")
            # Every table reads in Spark (its types included), with the rows pyarrow read.
            for t in TABLES[1:]:
                try:
                    m = spark.read.parquet(os.path.join(dataset, t)).count()
                except Exception as e:  # noqa: BLE001 - the table Spark cannot read is the finding
                    fail(t, f"Spark cannot read it: {type(e).__name__}: {str(e)[:500]}")
                    continue
                if t in pyarrow_rows and m != pyarrow_rows[t]:
                    fail(t, f"{m} rows in Spark, {pyarrow_rows[t]} read by pyarrow")
        except Exception as e:  # noqa: BLE001 - reported with the JVM's output
            fail("spark", f"{type(e).__name__}: {e}\n{tail(jvm_log)}")
            return
        finally:
            spark.stop()
    summary_line("spark", before, f"{len(got)} (capture, name) groups of slices, DuckDB "
                 f"{len(want)}; {n} captures; every table read (session started in {started:.1f} s, "
                 f"{time.monotonic() - start:.1f} s in all)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="capture files and directories, as export takes them")
    ap.add_argument("--tracecap", required=True, help="the tracecap binary")
    ap.add_argument("--dataset", help="check this dataset (an export of INPUT...) instead of exporting")
    ap.add_argument("--keep", help="export to this folder (must be missing or empty) and keep it")
    ap.add_argument("--no-spark", action="store_true", help="skip the Spark check")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="convert processes")
    args = ap.parse_args()
    tool = os.path.abspath(args.tracecap) if os.sep in args.tracecap else args.tracecap
    start = time.monotonic()

    files = candidate_files(args.inputs)
    converted = convert_all(tool, files, args.jobs)
    captures = [c for c in converted if c["summary"] is not None]
    direct_not_captures = [c["path"] for c, (_, direct) in zip(converted, files)
                           if direct and c["summary"] is None]
    damaged = sum(1 for c in captures if c["rc"] == 1)
    print(f"     {len(files)} files: {len(captures)} captures ({damaged} damaged), "
          f"{len(files) - len(captures)} not captures; converted in {time.monotonic() - start:.1f} s",
          flush=True)
    if not captures:
        sys.exit("no captures in the inputs")

    with tempfile.TemporaryDirectory() as tmp:
        if args.dataset:
            dataset = args.dataset
        else:
            dataset = args.keep or os.path.join(tmp, "dataset")
            rc = export(tool, args.inputs, dataset, 1 if damaged or direct_not_captures else 0)
            if rc not in (0, 1):
                print(f"{len(FAILURES)} failed (export failed: nothing to check)")
                sys.exit(1)
        rows = check_pyarrow(dataset)
        con = check_duckdb(dataset, converted, rows)
        if args.no_spark:
            print("SKIPPED spark: --no-spark")
        elif con is None:
            print("SKIPPED spark: DuckDB, which it is compared with, failed")
        else:
            check_spark(dataset, con, len(captures), rows)
    print(f"     {time.monotonic() - start:.1f} s in all")
    if FAILURES:
        print(f"{len(FAILURES)} failed")
        sys.exit(1)
    print("export ok")


if __name__ == "__main__":
    main()
