#!/usr/bin/env python3
"""The read / query / convert benchmark of docs/performance.md ("Answers against the read").

For each format, a folder of copies of one real capture of the corpus (100-200 MB), then, per
folder and per tracecap binary given, best of N wall-clock times of:

- read:    `tracecap validate` of every file, two at a time;
- query:   `tracecap query 'SELECT name, count(*), sum(dur) FROM slices GROUP BY name' FOLDER`;
- convert: `tracecap convert FILE -o OUT.pftrace` of every file, two at a time.

Several binaries are timed in turns (A, B, A, B, ...), so that a baseline and a candidate see the
same state of the machine. Usage:

    python3 benches/speed_folders.py --corpus ../shared/corpus --dir /tmp/tc-folders \\
        [--runs 3] [--formats easyprofiler,wtf,...] BIN [BIN ...]

The EasyProfiler folder is made with the crate's `synthetic` example (the corpus's
`sample_medium.prof` repeated to 66 MB, three copies): build it first with
`cargo build --release -p tracecap-easyprofiler --features write --example synthetic`.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# format: (corpus file, copies)
SETS = {
    "easyprofiler": ("easyprofiler/sample_medium.prof", 3),
    "wtf": ("wtf/cff-cpp/cpp-big.wtf-trace", 250),
    "orbit": ("orbit/real/orbit168_OrbitTest_capture.orbit", 150),
    "syscall": ("syscall/py_big_filler_zerogap.dat", 80),
    "apitrace": ("apitrace/produced-apitrace-11.1/glxgears_backtrace.trace", 200),
}
QUERY = "SELECT name, count(*), sum(dur) FROM slices GROUP BY name"


def make_folder(corpus, root, fmt, target_dir):
    rel, copies = SETS[fmt]
    src = os.path.join(corpus, rel)
    folder = os.path.join(root, fmt)
    ext = os.path.splitext(rel)[1]
    if os.path.isdir(folder) and len(os.listdir(folder)) == copies:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if fmt == "easyprofiler":
        # The corpus's sample repeated to 66 MB (its records, renumbered), then copied.
        synthetic = os.path.join(target_dir, "release", "examples", "synthetic")
        first = os.path.join(folder, "run0.prof")
        subprocess.run([synthetic, first, "63", src], check=True, stdout=subprocess.DEVNULL)
        for i in range(1, copies):
            shutil.copyfile(first, os.path.join(folder, f"run{i}.prof"))
    else:
        for i in range(copies):
            shutil.copyfile(src, os.path.join(folder, f"c{i:04}{ext}"))
    return folder


def files_of(folder):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder))


def two_at_a_time(commands):
    """Runs the commands on two threads; exit status 0 or 1 (a damaged capture) are both fine."""

    def one(cmd):
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.decode()[-400:]}")

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, commands))


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def jobs(binary, folder, out_dir):
    files = files_of(folder)
    return {
        "read": lambda: two_at_a_time([[binary, "validate", f] for f in files]),
        "query": lambda: subprocess.run(
            [binary, "query", QUERY, folder, "--format", "csv", "-o", os.devnull],
            check=True,
            stderr=subprocess.DEVNULL,
        ),
        "convert": lambda: two_at_a_time(
            [
                [binary, "convert", f, "-o", os.path.join(out_dir, f"{i}.pftrace"), "--quiet"]
                for i, f in enumerate(files)
            ]
        ),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--corpus", default="../shared/corpus")
    ap.add_argument("--dir", default="/tmp/tc-folders")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--formats", default=",".join(SETS))
    ap.add_argument("--target-dir", default="target")
    a = ap.parse_args()
    out_dir = tempfile.mkdtemp(prefix="tc-speed-")
    print(f"| format | bytes | binary | read | query | convert | query / read | convert / read |")
    print("|---|---|---|---|---|---|---|---|")
    for fmt in a.formats.split(","):
        folder = make_folder(a.corpus, a.dir, fmt, a.target_dir)
        size = sum(os.path.getsize(f) for f in files_of(folder))
        best = {b: {} for b in a.binaries}
        for _ in range(a.runs):
            for b in a.binaries:
                for name, job in jobs(b, folder, out_dir).items():
                    t = timed(job)
                    best[b][name] = min(best[b].get(name, t), t)
        for b in a.binaries:
            r = best[b]
            print(
                f"| {fmt} | {size / 1e6:.0f} MB | {b} | {r['read']:.2f} s | {r['query']:.2f} s | "
                f"{r['convert']:.2f} s | {r['query'] / r['read']:.2f} | {r['convert'] / r['read']:.2f} |",
                flush=True,
            )
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
    shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
