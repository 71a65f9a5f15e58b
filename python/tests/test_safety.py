"""Threads, and capture files changed under an open Capture.

What happens in each case (what these tests pin down):

- **Threads.** Parsing runs with the GIL released (the Rust code needs no Python object), so
  Python threads parse different captures at once, and several threads may read the same
  `Stream` or `Capture`: each read walks the memory map anew, and every thread gets the same
  table as a sequential read.
- **A file truncated while a Capture is open** (another program cuts it, e.g. a profiler that
  rewrites its output): the capture's pages past the new end no longer exist, and touching them
  would be a SIGBUS that kills the interpreter. The module maps zero pages over them instead and
  marks the capture as shrunk: reading a table raises through pyarrow (an `OSError` whose message
  says "the file shrank while it was being read"), and `info()`, `validate()` and `table()`
  raise `OSError` with the same words. A read already under way ends with that error rather than
  with batches parsed from zeros. The interpreter survives; this runs in a subprocess so that a
  crash would show as a signal in its return code instead of ending pytest. With more captures
  open than the guard has slots (1024), the ones beyond are read into memory instead of mapped:
  cutting the file leaves those copies whole.
- **A file deleted while a Capture is open** (`os.remove`): the mapping keeps the inode alive,
  so the capture reads whole, as before the deletion.
"""

import os
import shutil
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pytest

import tracecap
from support import CORPUS, NO_CORPUS, corpus_capture_paths, plain, sample_paths

BIG_CAPTURE = Path("/tmp/perf/easyprofiler.prof")  # 62 MB, made for the benchmarks


def capture_sets():
    """The sets of captures the thread tests run over: the samples, and the corpus."""
    corpus = [] if CORPUS.is_dir() else [pytest.mark.skip(reason=NO_CORPUS)]
    return [
        pytest.param(sample_paths, id="samples"),
        pytest.param(corpus_capture_paths, id="corpus", marks=corpus),
    ]


def slices_of(path):
    return pa.table(tracecap.open(path).table("slices"))


# -- threads -------------------------------------------------------------------------------------


@pytest.mark.parametrize("paths", capture_sets())
def test_threads_parse_different_captures(paths):
    paths = list(paths())
    sequential = [slices_of(p) for p in paths]
    with ThreadPoolExecutor(4) as pool:
        # Each capture twice, so that threads also parse the same file at once.
        threaded = list(pool.map(slices_of, paths + paths))
    for path, want, got, again in zip(paths, sequential, threaded, threaded[len(paths):]):
        assert got.equals(want), path
        assert again.equals(want), path


def test_threads_read_one_stream(sample_path):
    stream = tracecap.open(sample_path).table("slices", batch_rows=50)
    want = pa.table(stream)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: pa.table(stream), range(16)))
    assert all(t.equals(want) for t in got)


def test_threads_query(samples):
    sql = "select name, count(*) as n, sum(dur) as total from slices group by name order by name"
    # Compared decoded: each run may build the `name` dictionary in another order.
    want = plain(pa.table(tracecap.query(sql, samples)))
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: pa.table(tracecap.query(sql, samples, threads=1)), range(8)))
    assert all(plain(t).equals(want) for t in got)


def test_threads_time(capsys):
    # Two parses of a big capture on two threads vs one after the other. The ratio is recorded,
    # not asserted tightly: the machine may be shared (2 cores, other jobs). Threads must not
    # be much slower than sequential (which they would be if they fought over a lock).
    if not BIG_CAPTURE.is_file():
        pytest.skip(f"no big capture at {BIG_CAPTURE}")
    slices_of(BIG_CAPTURE)  # warm the page cache

    def timed(run):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        return time.perf_counter() - wall, time.process_time() - cpu

    seq, seq_cpu = timed(lambda: [slices_of(BIG_CAPTURE) for _ in range(2)])
    with ThreadPoolExecutor(2) as pool:
        thr, thr_cpu = timed(lambda: list(pool.map(slices_of, [BIG_CAPTURE] * 2)))
    with capsys.disabled():
        print(
            f"\n[threads] 2 parses of {BIG_CAPTURE.name}: sequential {seq:.2f} s "
            f"(cpu {seq_cpu:.2f} s), 2 threads {thr:.2f} s (cpu {thr_cpu:.2f} s), "
            f"threads/sequential = {thr / seq:.2f}, load {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} cores"
        )
    assert thr < 1.5 * seq


# -- files changed under an open Capture ---------------------------------------------------------

TRUNCATED = textwrap.dedent(
    """
    import os, sys
    import pyarrow as pa
    import tracecap

    first, second = sys.argv[1], sys.argv[2]

    def attempt(what, run):
        try:
            run()
        except Exception as e:
            print(f"{what}: {type(e).__name__}: {e}", flush=True)
        else:
            print(f"{what}: no error", flush=True)

    # Opened, its stream made, then the file cut to 4096 bytes before anything is read.
    capture = tracecap.open(first)
    stream = capture.table("slices")
    os.truncate(first, 4096)
    attempt("stream", lambda: pa.table(stream))
    attempt("table", lambda: capture.table("slices"))
    attempt("info", capture.info)
    attempt("validate", capture.validate)
    print(f"size: {capture.size}", flush=True)

    # Cut in the middle of a read: one batch read, then the file cut, then the rest.
    other = tracecap.open(second)
    reader = pa.RecordBatchReader.from_stream(other.table("slices", batch_rows=100))
    print(f"first batch: {reader.read_next_batch().num_rows} rows", flush=True)
    os.truncate(second, 4096)
    attempt("rest", reader.read_all)
    print("alive", flush=True)
    """
)


def truncation_inputs():
    """A corpus capture over 200 KB (many pages past the cut), and the largest bundled sample
    (which runs without the corpus)."""
    big = [p for p in corpus_capture_paths() if p.suffix == ".prof" and p.stat().st_size > 200_000]
    corpus = [pytest.param(big[0], id="corpus-" + big[0].name)] if big else [
        pytest.param(None, id="corpus", marks=pytest.mark.skip(reason=NO_CORPUS))
    ]
    largest = max(sample_paths(), key=lambda p: p.stat().st_size)
    return corpus + [pytest.param(largest, id="sample-" + largest.name)]


@pytest.mark.parametrize("capture", truncation_inputs())
def test_truncated_while_open(capture, tmp_path):
    first, second = tmp_path / "first.prof", tmp_path / "second.prof"
    shutil.copy(capture, first)
    shutil.copy(capture, second)
    size = first.stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", TRUNCATED, str(first), str(second)],
        capture_output=True, text=True, timeout=300,
    )
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    report = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, report  # a signal (SIGBUS) would be negative
    assert "alive" in done.stdout, report
    # pyarrow raises the stream's error as an OSError (ArrowIOError).
    assert lines["stream"].startswith("OSError: ") and "shrank" in lines["stream"], report
    for what in ("table", "info", "validate"):
        assert lines[what].startswith("OSError: "), report
        assert "the file shrank while it was being read" in lines[what], report
    assert lines["size"] == str(size)  # the mapping keeps its length
    assert lines["first batch"] == "100 rows", report
    assert lines["rest"].startswith("OSError: ") and "shrank" in lines["rest"], report


def test_deleted_while_open(tmp_path, sample_path):
    path = tmp_path / "capture.prof"
    shutil.copy(sample_path, path)
    capture = tracecap.open(path)
    stream = capture.table("slices")
    want = slices_of(sample_path)
    os.remove(path)
    assert not path.exists()
    assert plain_equal(pa.table(stream), want)
    assert plain_equal(pa.table(capture.table("slices")), want)
    assert capture.validate() is None
    assert capture.info() == tracecap.open(sample_path).info()


def plain_equal(ours, want):
    """Equal but for the capture id (the copy has another path), value by value (`want`, of a
    file left alone, may come from the cache of parsed tables, whose dictionaries list the same
    values in an order of their own)."""
    return plain(ours.drop_columns("capture")).equals(plain(want.drop_columns("capture")))


MANY_OPEN = textwrap.dedent(
    """
    import os, sys
    import pyarrow as pa
    import tracecap

    path, n = sys.argv[1], int(sys.argv[2])
    whole = pa.table(tracecap.open(path).table("slices")).num_rows
    captures = [tracecap.open(path) for _ in range(n)]
    os.truncate(path, 4096)
    print("opened", n, flush=True)
    for which, capture in (("first", captures[0]), ("last", captures[-1])):
        try:
            rows = pa.table(capture.table("slices")).num_rows
            print(which, "whole" if rows == whole else f"rows {rows} of {whole}", flush=True)
        except OSError as e:
            print(which, "error:", e, flush=True)
    """
)


@pytest.mark.parametrize("n", [10, 1100])
def test_truncated_with_many_captures_open(n, tmp_path, samples):
    # A program that keeps every capture of a large directory open (a list of Capture objects)
    # holds one memory map each, and the guard has 1024 slots. A capture it cannot guard is read
    # into memory instead of mapped: cutting the file then leaves that copy whole, while a mapped
    # capture reports that the file shrank. Neither kills the interpreter.
    path = tmp_path / "capture.prof"
    shutil.copy(samples[-1], path)
    done = subprocess.run(
        [sys.executable, "-c", MANY_OPEN, str(path), str(n)],
        capture_output=True, text=True, timeout=300,
    )
    report = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, report  # -7 (SIGBUS): the interpreter was killed
    lines = done.stdout.splitlines()
    assert lines[1].startswith("first error:") and "shrank" in lines[1], report
    if n > 1024:
        assert lines[2] == "last whole", report
    else:
        assert lines[2].startswith("last error:") and "shrank" in lines[2], report


SCAN_TRUNCATED = textwrap.dedent(
    """
    import os, sys, warnings
    import pyarrow as pa
    import tracecap

    warnings.simplefilter("always")
    path = sys.argv[1]
    reader = pa.RecordBatchReader.from_stream(tracecap.scan(path, "slices", threads=1))
    print("first batch:", reader.read_next_batch().num_rows, flush=True)
    os.truncate(path, 4096)
    with warnings.catch_warnings(record=True) as caught:
        try:
            rest = reader.read_all()
        except Exception as e:
            print("error:", type(e).__name__, e, flush=True)
        else:
            print("rest:", rest.num_rows, "rows", flush=True)
    for w in caught:
        print("warning:", w.category.__name__, w.message, flush=True)
    total = pa.table(tracecap.open(sys.argv[2]).table("slices")).num_rows
    print("whole file:", total, "rows", flush=True)
    """
)


def test_scan_of_a_file_truncated_mid_read(tmp_path):
    # scan() reads captures on the engine's threads: a file cut while it is read must not give
    # a silently shorter table (Capture.table raises "shrank" in that case).
    if not BIG_CAPTURE.is_file():
        pytest.skip(f"no big capture at {BIG_CAPTURE} (scan's batches are of 65,536 rows)")
    path = tmp_path / BIG_CAPTURE.name
    shutil.copy(BIG_CAPTURE, path)
    done = subprocess.run(
        [sys.executable, "-c", SCAN_TRUNCATED, str(path), str(BIG_CAPTURE)],
        capture_output=True, text=True, timeout=300,
    )
    report = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, report
    told = [line for line in done.stdout.splitlines() if line.startswith(("error:", "warning:"))]
    assert any("shrank" in line for line in told), report
