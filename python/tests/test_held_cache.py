"""`Capture.table` and the cache of parsed tables.

A `Capture` reads the file it mapped when it was opened; the cache is keyed by that file's
identity taken then (device, inode, size, modification and status change times). These tests
pin down that a second read of an unchanged capture comes from the cache (counted by
`tracecap.cache_info()`), that `cache=False` leaves the cache alone, and that a file deleted,
replaced, rewritten or cut after `open` is answered from the map, never from an entry of the
file as it was or of the file the path names now.

The cache keeps no file changed in the last two seconds: the tests copy their captures, then
wait that long before opening them.
"""

import os
import shutil
import subprocess
import sys
import textwrap
import time

import pyarrow as pa
import pytest

import tracecap
from support import plain, sample_paths

SETTLE = 2.1  # seconds: the cache's two, and a margin


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TRACECAP_CACHE_DIR", str(folder))
    return folder


def settled_copy(source, path):
    shutil.copy(source, path)
    time.sleep(SETTLE)
    return path


def counts():
    info = tracecap.cache_info()
    return info["hits"], info["misses"]


def read(stream):
    return plain(pa.table(stream))


def test_second_table_comes_from_the_cache(cache_dir):
    path = max(sample_paths(), key=lambda p: p.stat().st_size)
    capture = tracecap.open(path)
    want = read(capture.table("slices", cache=False))
    hits, misses = counts()
    first = read(capture.table("slices"))
    assert counts() == (hits, misses + 1)  # parsed, and kept
    info = tracecap.cache_info()
    assert info["entries"] == 1 and info["packs"] == 1 and info["bytes"] > 0
    second = read(capture.table("slices"))
    assert counts() == (hits + 1, misses + 1)  # from the cache
    assert first.equals(want) and second.equals(want)
    # Another Capture of the same file finds the same entry.
    again = read(tracecap.open(path).table("slices"))
    assert counts() == (hits + 2, misses + 1) and again.equals(want)
    # Batches of `batch_rows` rows from the cache too.
    batches = list(pa.RecordBatchReader.from_stream(capture.table("slices", batch_rows=100)))
    assert counts() == (hits + 3, misses + 1)
    assert [b.num_rows for b in batches[:-1]] == [100] * (len(batches) - 1)
    assert plain(pa.Table.from_batches(batches)).equals(want)
    # `args=False` gives other rows (null args): an entry of its own.
    no_args = read(capture.table("slices", args=False))
    assert counts() == (hits + 3, misses + 2)
    assert read(capture.table("slices", args=False)).equals(no_args)
    assert counts() == (hits + 4, misses + 2)
    assert no_args.column("args").null_count == no_args.num_rows


def test_every_table_reads_back_as_parsed(cache_dir):
    path = max(sample_paths(), key=lambda p: p.stat().st_size)
    capture = tracecap.open(path)
    for name in tracecap.TABLES:
        want = read(capture.table(name, cache=False))
        read(capture.table(name))
        hits, _ = counts()
        assert read(capture.table(name)).equals(want), name
        assert counts()[0] == hits + 1, name


def test_no_cache_leaves_it_alone(cache_dir):
    path = max(sample_paths(), key=lambda p: p.stat().st_size)
    capture = tracecap.open(path)
    before = counts()
    for _ in range(2):
        read(capture.table("slices", cache=False))
    assert counts() == before
    assert not cache_dir.exists()


def test_a_stream_read_in_part_keeps_nothing(cache_dir):
    path = max(sample_paths(), key=lambda p: p.stat().st_size)
    capture = tracecap.open(path)
    assert pa.table(capture.table("slices", cache=False)).num_rows > 10
    # One row a batch: the walk waits for the reader after the channel's few batches.
    reader = pa.RecordBatchReader.from_stream(capture.table("slices", batch_rows=1))
    reader.read_next_batch()
    del reader
    time.sleep(0.5)  # the walk's thread sees the reader gone at its next batch
    assert tracecap.cache_info()["entries"] == 0


def test_replaced_after_open_answers_from_its_map(cache_dir, tmp_path):
    # The path names a new file, and the cache holds that new file's entry: the Capture still
    # answers with the rows of the file it mapped.
    old, new = sorted(sample_paths(), key=lambda p: p.stat().st_size)[-2:]
    path = settled_copy(new, tmp_path / "capture.prof")
    capture = tracecap.open(path)
    want = read(capture.table("slices", cache=False))
    assert read(capture.table("slices")).equals(want)  # its own entry, kept
    os.replace(settled_copy(old, tmp_path / "other.prof"), path)
    time.sleep(SETTLE)
    newer = tracecap.open(path)
    theirs = read(newer.table("slices"))
    hits, _ = counts()
    assert read(newer.table("slices")).equals(theirs)
    assert counts()[0] == hits + 1  # the new file's entry is in the cache
    assert not theirs.equals(want)
    ours = read(capture.table("slices"))
    assert ours.equals(want)
    assert pa.table(capture.table("captures")).column("capture").to_pylist() == [str(path)]


def test_deleted_after_open_answers_from_its_map(cache_dir, tmp_path):
    path = settled_copy(sample_paths()[-1], tmp_path / "capture.prof")
    capture = tracecap.open(path)
    want = read(capture.table("slices"))  # kept
    os.remove(path)
    assert read(capture.table("slices")).equals(want)


def test_rewritten_in_place_after_open_answers_from_its_map(cache_dir, tmp_path):
    # Same file, same size, modification time set back: the map shows the new bytes, and the
    # entry of the old ones is not used.
    path = settled_copy(max(sample_paths(), key=lambda p: p.stat().st_size), tmp_path / "c.prof")
    capture = tracecap.open(path)
    old = read(capture.table("slices"))  # kept
    stat = path.stat()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    with open(path, "r+b") as f:  # in place: the same inode
        f.write(data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    time.sleep(SETTLE)
    now = read(capture.table("slices", cache=False))
    assert not now.equals(old)  # the map shows the new bytes
    assert read(capture.table("slices")).equals(now)


CUT = textwrap.dedent(
    """
    import os, sys, time
    import pyarrow as pa
    import tracecap

    path = sys.argv[1]
    capture = tracecap.open(path)
    print("rows:", pa.table(capture.table("slices")).num_rows, flush=True)  # kept
    print("entries:", tracecap.cache_info()["entries"], flush=True)
    os.truncate(path, 4096)
    try:
        rows = pa.table(capture.table("slices")).num_rows
        print("after the cut: rows", rows, flush=True)
    except OSError as e:
        print("after the cut: OSError", e, flush=True)
    print("hits:", tracecap.cache_info()["hits"], flush=True)
    """
)


def test_cut_after_open_is_not_answered_from_the_cache(cache_dir, tmp_path):
    path = settled_copy(max(sample_paths(), key=lambda p: p.stat().st_size), tmp_path / "c.prof")
    done = subprocess.run(
        [sys.executable, "-c", CUT, str(path)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "TRACECAP_CACHE_DIR": str(cache_dir)},
    )
    report = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, report
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert lines["entries"] == "1", report
    assert lines["after the cut"].startswith("OSError") and "shrank" in lines["after the cut"], report
    assert lines["hits"] == "0", report
