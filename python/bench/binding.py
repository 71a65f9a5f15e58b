"""What the Python binding costs, and what it saves.

    python python/bench/binding.py FILE [--tracecap PATH] [--repeat N] [--table slices]

measures, on one capture, in one run (best of N, ``time.perf_counter``):
  - ``pyarrow.table(tracecap.open(FILE).table(TABLE))``: the binding;
  - ``tracecap export FILE -o DIR``: the command-line export of the same capture (all its
    tables, to Parquet), the reference the binding is held to;
  - the pure-Python route for the format (``baseline.py``), when there is one;
and the binding's peak memory: the process's anonymous resident memory (``RssAnon``: the heap,
not the mapped file's pages, which are the page cache's) sampled every millisecond, minus its
value before the call, against the table's own Arrow size (``pyarrow.Table.nbytes``).

Prints one JSON object.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pyarrow as pa

import tracecap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import baseline  # noqa: E402


def rss_anon():
    """The process's anonymous resident memory in bytes (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


def best(fn, repeat):
    """The best time of ``repeat`` calls of ``fn``, and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def peak_while(fn):
    """Runs ``fn``; returns (its result, peak RssAnon growth in bytes while it ran)."""
    base = rss_anon()
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_anon())
            time.sleep(0.001)

    t = threading.Thread(target=sample)
    t.start()
    try:
        result = fn()
    finally:
        done.set()
        t.join()
    peak[0] = max(peak[0], rss_anon())
    return result, peak[0] - base


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--tracecap", default=os.environ.get("TRACECAP", "target/release/tracecap"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--table", default="slices")
    args = ap.parse_args()

    capture = tracecap.open(args.file)
    table, grew = peak_while(lambda: pa.table(capture.table(args.table)))
    out = {
        "file": args.file,
        "format": capture.format,
        "bytes": capture.size,
        "table": args.table,
        "rows": table.num_rows,
        "arrow_bytes": table.nbytes,
        "peak_rss_anon_growth": grew,
        "over_table": grew - table.nbytes,
    }
    del table

    binding, _ = best(lambda: pa.table(tracecap.open(args.file).table(args.table)), args.repeat)
    out["binding_s"] = round(binding, 4)

    def export():
        d = tempfile.mkdtemp()
        try:
            subprocess.run([args.tracecap, "export", args.file, "-o", os.path.join(d, "ds"),
                            "--quiet"], check=True)
        finally:
            shutil.rmtree(d)

    exported, _ = best(export, args.repeat)
    out["export_s"] = round(exported, 4)
    out["binding_over_export"] = round(binding / exported, 3)

    if capture.format in ("easyprofiler", "syscall", "apitrace"):
        pure = baseline.measure(capture.format, args.file)
        out["pure_python_s"] = round(pure["seconds"], 3)
        out["pure_python_rows"] = pure["rows"]
        out["pure_over_binding"] = round(pure["seconds"] / binding, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
