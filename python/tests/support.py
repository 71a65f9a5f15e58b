"""Paths and helpers shared by the tests (imported by conftest.py and the test modules)."""

import functools
import os
from pathlib import Path

import tracecap

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLES = REPO / "samples"
NO_CORPUS = f"corpus not found at {CORPUS}"

# The corpus captures that are damaged, as the corpus READMEs describe them (an oracle that does
# not come from tracecap): a truncated gzip stream, a stale tail left by a writer without O_TRUNC,
# Orbit files that Orbit itself rejects, and a legacy pre-ORBT Orbit file.
KNOWN_DAMAGED = {
    "apitrace/apitrace-tests/zlib-no-eof.trace",
    "syscall/stale_tail_no_otrunc.dat",
    "orbit/generated/bad_message_too_big.orbit",
    "orbit/generated/bad_no_capture_finished.orbit",
    "orbit/generated/bad_section_count.orbit",
    "orbit/generated/bad_truncated_header.orbit",
    "orbit/generated/bad_version_2.orbit",
    "orbit/real/legacy_pre_orbt_OrbitTest_1-64.orbit",
}

# Corpus files of a capture directory that are no capture at all (`open` refuses them): an empty
# file, and an Orbit file whose magic bytes are wrong.
KNOWN_NOT_CAPTURES = {
    "syscall/py_thread_crash_empty.dat",
    "orbit/generated/bad_signature.orbit",
}

FORMAT_OF_DIR = {d: d for d in ("easyprofiler", "syscall", "apitrace", "wtf", "orbit")}


def rel(path):
    """A corpus file's path in the corpus (the test id)."""
    return Path(path).relative_to(CORPUS).as_posix()


@functools.lru_cache(maxsize=None)
def corpus_files():
    """Every file in the corpus (captures, oracle dumps, READMEs), sorted."""
    if not CORPUS.is_dir():
        return ()
    found = []
    for root, _dirs, names in os.walk(CORPUS):
        found += [Path(root) / n for n in names]
    return tuple(sorted(found))


@functools.lru_cache(maxsize=None)
def corpus_capture_paths():
    """The corpus files `tracecap.open` accepts (the others raise CaptureError)."""
    kept = []
    for path in corpus_files():
        try:
            tracecap.open(path)
        except tracecap.CaptureError:
            continue
        kept.append(path)
    return tuple(kept)


def sample_paths():
    """The captures bundled in <repo>/samples (every file but the README)."""
    return tuple(sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".md"))


def cli_path():
    """The `tracecap` binary: $TRACECAP, else target/debug or target/release; or None."""
    candidates = [os.environ["TRACECAP"]] if os.environ.get("TRACECAP") else []
    candidates += [REPO / "target" / "debug" / "tracecap", REPO / "target" / "release" / "tracecap"]
    for c in candidates:
        if Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    return None


def plain(table):
    """`table` with its dictionary columns decoded to plain strings, so that tables compare by
    their values whatever their dictionaries."""
    import pyarrow as pa

    columns = []
    for column in table.columns:
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names)


def sorted_rows(table):
    """`table` decoded (`plain`), its rows sorted by every column, as a pandas DataFrame with a
    fresh index: two tables with the same rows in any order give equal frames."""
    t = plain(table)
    t = t.sort_by([(name, "ascending") for name in t.column_names])
    return t.to_pandas().reset_index(drop=True)
