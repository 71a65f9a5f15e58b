"""`tracecap.open` and `Capture`: format detection, `info()`, `validate()` and the tables, checked
against the `tracecap` CLI (info --json, validate, export) on every capture of the corpus, against
the corpus READMEs (which files are damaged), on captures cut short, and on files that are no
capture."""

import json
import os
import re
from unittest.mock import ANY

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tracecap
from support import (
    KNOWN_DAMAGED,
    KNOWN_NOT_CAPTURES,
    corpus_capture_paths,
    corpus_files,
    plain,
    rel,
    sorted_rows,
)

SHARED_TABLES = ["captures", "tracks", "slices", "instants", "counters", "stack_samples", "stack_frames"]
PER_FORMAT_TABLES = {
    "easyprofiler": ["easyprofiler_blocks", "easyprofiler_values"],
    "syscall": ["syscall_calls"],
    "apitrace": ["apitrace_calls"],
    "wtf": ["wtf_events"],
    "orbit": ["orbit_events"],
}
CAPTURE_SUFFIXES = (".prof", ".dat", ".trace", ".wtf-trace", ".orbit")


def cli_fault_offset(stderr):
    """The offset in `tracecap validate`'s message: '... at offset 0x1f2 ...'."""
    found = re.search(r"at offset (0x[0-9a-fA-F]+)", stderr)
    assert found, f"no 'at offset 0x...' in tracecap validate's output:\n{stderr}"
    return int(found.group(1), 16)


# -- opening -------------------------------------------------------------------------------------


def test_tables_constant():
    assert tracecap.TABLES == SHARED_TABLES + sum(PER_FORMAT_TABLES.values(), [])


def test_every_corpus_capture_is_detected(corpus_dir):
    # The parametrized tests run over the files `open` accepts; this one makes sure that list
    # does not shrink silently: every file with a capture's extension opens, but the two that
    # are no capture.
    named = {rel(p) for p in corpus_files() if p.name.endswith(CAPTURE_SUFFIXES)}
    opened = {rel(p) for p in corpus_capture_paths()}
    assert named - opened == KNOWN_NOT_CAPTURES
    assert opened <= named


def test_opens_with_the_format_of_its_directory(capture_path):
    capture = tracecap.open(capture_path)
    assert capture.format == rel(capture_path).split("/")[0]
    assert capture.size == os.path.getsize(capture_path)
    assert str(capture.path) == str(capture_path)
    assert capture.tables == SHARED_TABLES + PER_FORMAT_TABLES[capture.format]


def test_sample_opens(sample_path):
    capture = tracecap.open(str(sample_path))
    assert capture.format == "easyprofiler"
    assert capture.validate() is None
    assert capture.info()["error"] is None
    slices = pa.table(capture.table("slices"))
    assert slices.num_rows > 0
    # The capture id is the path as given.
    assert set(plain(slices).column("capture").to_pylist()) == {str(sample_path)}


def test_table_of_another_format_is_empty(sample_path):
    capture = tracecap.open(sample_path)
    table = pa.table(capture.table("syscall_calls"))
    assert table.num_rows == 0
    assert table.column_names == capture.table("syscall_calls").columns


def test_unknown_table_is_a_value_error(sample_path):
    with pytest.raises(ValueError, match="no table"):
        tracecap.open(sample_path).table("slice")


@pytest.mark.parametrize(
    "content",
    [b"", b"this is a text file, not a profiler capture\n" * 20],
    ids=["empty", "text"],
)
def test_not_a_capture(tmp_path, content):
    path = tmp_path / "file.prof"
    path.write_bytes(content)
    with pytest.raises(tracecap.CaptureError) as caught:
        tracecap.open(path)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.offset == 0
    assert error.format is None
    assert error.path == str(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        tracecap.open("/nonexistent/capture.prof")


def test_paths_as_bytes_and_names_that_are_not_utf8(samples, tmp_path):
    """Every function takes a path as `str`, `bytes` or `os.PathLike`, as Python's `open` does,
    and a file whose name is not UTF-8 is found by each of them."""
    sample = samples[0]
    odd = os.path.join(os.fsencode(tmp_path), b"run-\xff.prof")
    with open(odd, "wb") as f:
        f.write(sample.read_bytes())
    # Compared as values: a table read from the cache of parsed tables (the sample's, on a
    # second run) holds the same values with dictionaries of its own.
    want = plain(tracecap.open(sample).table("slices").to_pyarrow().drop_columns(["capture"]))
    for path in (odd, os.fsdecode(odd)):
        capture = tracecap.open(path)
        assert os.fsencode(capture.path) == odd
        assert plain(capture.table("slices").to_pyarrow().drop_columns(["capture"])).equals(want)
    assert tracecap.scan([odd], "slices").to_pyarrow().num_rows == want.num_rows
    out = os.path.join(os.fsencode(tmp_path), b"out-\xfe.json")
    tracecap.convert(odd, out)
    assert open(out, "rb").read(1) == b"{"
    report = tracecap.export(odd, os.path.join(os.fsencode(tmp_path), b"dataset"))
    assert report["exported"] == 1
    with pytest.raises(TypeError):
        tracecap.open(42)
    with pytest.raises(TypeError):
        tracecap.scan([sample, 42], "slices")


# -- info and validate, against the CLI and the READMEs ------------------------------------------


def test_info_equals_cli(capture_path, cli):
    # `tracecap info --json` exits 1 on a damaged capture and still prints the JSON, unless the
    # fault leaves nothing to describe (a bad header): then it prints only the error, and
    # `info()` raises it.
    done = cli("info", capture_path, "--json", codes=(0, 1))
    capture = tracecap.open(capture_path)
    if done.stdout.strip():
        assert capture.info() == json.loads(done.stdout)
    else:
        assert done.returncode == 1
        with pytest.raises(tracecap.CaptureError) as caught:
            capture.info()
        assert caught.value.offset == cli_fault_offset(done.stderr)


def test_validate_equals_cli(capture_path, cli):
    capture = tracecap.open(capture_path)
    done = cli("validate", capture_path, codes=(0, 1))
    if done.returncode == 0:
        assert capture.validate() is None
    else:
        with pytest.raises(tracecap.CaptureError) as caught:
            capture.validate()
        assert caught.value.offset == cli_fault_offset(done.stderr + done.stdout)


def test_sample_info_and_validate_equal_cli(sample_path, cli):
    capture = tracecap.open(sample_path)
    assert capture.info() == json.loads(cli("info", sample_path, "--json").stdout)
    cli("validate", sample_path)  # exit 0
    assert capture.validate() is None


def test_validate_finds_the_damaged_files_of_the_readmes(capture_path):
    capture = tracecap.open(capture_path)
    if rel(capture_path) not in KNOWN_DAMAGED:
        assert capture.validate() is None
        return
    with pytest.raises(tracecap.CaptureError) as caught:
        capture.validate()
    error = caught.value
    assert error.path == str(capture_path)
    assert error.format == capture.format
    assert 0 <= error.offset <= capture.size
    assert f"at offset {error.offset:#x}" in str(error)


def test_fault_is_in_captures_table(capture_path):
    capture = tracecap.open(capture_path)
    rows = pa.table(capture.table("captures")).to_pylist()
    assert len(rows) == 1
    row = rows[0]
    try:
        capture.validate()
    except tracecap.CaptureError as error:
        assert row["fault_offset"] == error.offset
        assert row["fault"]
    else:
        assert row["fault"] is None and row["fault_offset"] is None


@pytest.mark.parametrize("format", list(PER_FORMAT_TABLES))
def test_info_error_key(format, corpus_captures, tmp_path):
    # Capture.info's docstring: "`error` (None, or the fault's `what` and `offset`)". Checked on
    # the format's good corpus captures, and on the first of them cut in half.
    good = [
        p
        for p in corpus_captures
        if rel(p).startswith(format + "/") and rel(p) not in KNOWN_DAMAGED
    ]
    for path in good:
        assert tracecap.open(path).info().get("error", "missing") is None, rel(path)
    cut = tmp_path / "cut"
    data = good[0].read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    capture = tracecap.open(cut)
    with pytest.raises(tracecap.CaptureError) as caught:
        capture.validate()
    error = capture.info().get("error", "missing")
    assert error == {"what": ANY, "offset": caught.value.offset}


# -- every table equals the CLI's export ---------------------------------------------------------


def test_table_equals_cli_export(table_case, cli_export):
    path, name = table_case
    ours = pa.table(tracecap.open(path).table(name))
    theirs = pq.read_table(cli_export(path) / name)
    # The Parquet files embed the Arrow schema: the same columns, types and dictionaries.
    assert theirs.schema.remove_metadata() == ours.schema.remove_metadata()
    assert ours.num_rows == theirs.num_rows
    pd.testing.assert_frame_equal(sorted_rows(ours), sorted_rows(theirs))


def test_sample_table_equals_export(sample_path, tmp_path):
    # The same comparison without the CLI (tracecap.export), so that it runs on a user's clone.
    tracecap.export(str(sample_path), tmp_path / "ds")
    capture = tracecap.open(str(sample_path))
    for name in capture.tables:
        ours = pa.table(capture.table(name))
        theirs = pq.read_table(tmp_path / "ds" / name)
        pd.testing.assert_frame_equal(sorted_rows(ours), sorted_rows(theirs), obj=name)


# -- captures cut short --------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.25, 0.5, 0.9])
def test_cut_capture(good_capture_path, fraction, tmp_path):
    capture_path = good_capture_path
    data = capture_path.read_bytes()
    cut = int(len(data) * fraction)
    path = tmp_path / capture_path.name
    path.write_bytes(data[:cut])
    whole = tracecap.open(capture_path)
    capture = tracecap.open(path)
    assert capture.format == whole.format

    with pytest.raises(tracecap.CaptureError) as caught:
        capture.validate()
    assert caught.value.offset <= cut
    assert caught.value.format == whole.format

    # Every table still reads: the rows before the fault, never more than the whole file's.
    for name in capture.tables:
        rows = pa.table(capture.table(name)).num_rows
        assert rows <= pa.table(whole.table(name)).num_rows, name
    fault = pa.table(capture.table("captures")).column("fault_offset").to_pylist()
    assert fault == [caught.value.offset]


# -- streams -------------------------------------------------------------------------------------


def test_stream_reads_twice(sample_path):
    stream = tracecap.open(sample_path).table("slices")
    first = pa.table(stream)
    second = pa.table(stream)
    assert first.num_rows > 0
    assert first.equals(second)


def test_stream_schema_capsule(sample_path):
    stream = tracecap.open(sample_path).table("slices")
    schema = pa.schema(stream)
    assert schema.names == stream.columns
    assert schema == pa.table(stream).schema


def test_args_false_gives_null_args(sample_path):
    capture = tracecap.open(sample_path)
    for name in ("slices", "instants"):
        with_args = pa.table(capture.table(name))
        without = pa.table(capture.table(name, args=False))
        assert with_args.column("args").null_count < with_args.num_rows, f"{name}: no args at all"
        assert without.column("args").null_count == without.num_rows
        # Compared as values: either may come from the cache of parsed tables, whose
        # dictionaries list the same values in an order of their own.
        assert plain(without.drop_columns("args")).equals(plain(with_args.drop_columns("args")))


def test_batch_rows(sample_path):
    capture = tracecap.open(sample_path)
    batches = list(pa.RecordBatchReader.from_stream(capture.table("slices", batch_rows=7)))
    assert len(batches) > 1
    assert max(b.num_rows for b in batches) <= 7
    assert sum(b.num_rows for b in batches) == pa.table(capture.table("slices")).num_rows
    # Each batch is full but the last.
    assert all(b.num_rows == 7 for b in batches[:-1])


def test_to_pyarrow_pandas_polars_agree(sample_path):
    stream = tracecap.open(sample_path).table("slices")
    table = stream.to_pyarrow()
    assert isinstance(table, pa.Table)
    assert len(stream.to_pandas()) == table.num_rows == stream.to_polars().height


def test_stream_outlives_its_capture(sample_path):
    stream = tracecap.open(sample_path).table("slices")  # the Capture object is dropped at once
    import gc

    gc.collect()
    assert pa.table(stream).equals(pa.table(tracecap.open(sample_path).table("slices")))
