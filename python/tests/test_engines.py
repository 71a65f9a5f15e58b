"""The tables in other engines (pandas, Polars, DuckDB), and the functions over many captures:
`query`, `diff`, `scan`, `convert` and `export`, checked against each other, against a group-by
computed in plain Python, and against the `tracecap` CLI."""

import hashlib
import json
import math
import re
import shutil
import warnings

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import tracecap
from support import (
    CORPUS,
    KNOWN_DAMAGED,
    NO_CORPUS,
    SAMPLES,
    corpus_capture_paths,
    plain,
    rel,
    sample_paths,
    sorted_rows,
)

GROUP_BY = "select name, count(*) as n, sum(dur) as total from {} group by name"

# A corpus capture with slices that never closed (null dur): the group-bys must agree on them.
OPEN_SLICES = CORPUS / "apitrace" / "apitrace-tests" / "glthreads.trace"


def engine_inputs():
    params = [pytest.param(p, id=p.name) for p in sample_paths()]
    marks = [] if OPEN_SLICES.is_file() else [pytest.mark.skip(reason=NO_CORPUS)]
    params.append(pytest.param(OPEN_SLICES, id="corpus-glthreads.trace", marks=marks))
    return params


@pytest.fixture(params=engine_inputs())
def capture(request):
    return tracecap.open(request.param)


def number(x):
    """An integer, or None for a null / NaN (pandas turns an int column with nulls into floats)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    assert x == int(x)
    return int(x)


def groups(rows):
    """{name: (count, total)} from (name, count, total) rows, of any engine."""
    return {str(name): (number(n), number(total)) for name, n, total in rows}


def expected_groups(stream):
    """slices per name: count and sum(dur) (None when no slice of the name has a dur), computed
    in plain Python from the rows: the reference every engine is compared with."""
    out = {}
    for row in pa.table(stream).to_pylist():
        n, total = out.get(row["name"], (0, None))
        if row["dur"] is not None:
            total = (total or 0) + row["dur"]
        out[row["name"]] = (n + 1, total)
    return out


def pandas_groups(df):
    df = df.assign(name=df["name"].astype(str))
    g = df.groupby("name").agg(n=("ts", "size"), total=("dur", lambda s: s.sum(min_count=1)))
    return groups(g.reset_index().itertuples(index=False))


def polars_groups(df):
    g = df.group_by(pl.col("name").cast(pl.String)).agg(
        pl.len().alias("n"), pl.col("dur").sum().alias("total"), pl.col("dur").count().alias("c")
    )
    # Polars sums an all-null group to 0; SQL and the reference say null.
    rows = g.iter_rows(named=True)
    return groups((r["name"], r["n"], r["total"] if r["c"] else None) for r in rows)


# -- each engine consumes a table ----------------------------------------------------------------


def test_reference_has_groups(capture):
    assert len(expected_groups(capture.table("slices"))) > 1


def test_pandas(capture):
    stream = capture.table("slices")
    want = expected_groups(stream)
    assert pandas_groups(stream.to_pandas()) == want
    assert pandas_groups(pa.table(stream).to_pandas()) == want


def test_polars(capture):
    stream = capture.table("slices")
    want = expected_groups(stream)
    assert polars_groups(pl.DataFrame(stream)) == want
    assert polars_groups(pl.from_arrow(pa.table(stream))) == want
    assert pl.DataFrame(stream).height == pa.table(stream).num_rows


def test_duckdb(capture):
    t = capture.table("slices")  # DuckDB finds the local variable `t` by its name
    assert duckdb.sql("select count(*) from t").fetchall() == [(pa.table(t).num_rows,)]
    assert groups(duckdb.sql(GROUP_BY.format("t")).fetchall()) == expected_groups(t)


def test_query_equals_duckdb(capture):
    t = capture.table("slices")  # noqa: F841 - read by DuckDB, by its name
    ours = pa.table(tracecap.query(GROUP_BY.format("slices"), capture.path))
    theirs = duckdb.sql(GROUP_BY.format("t")).fetchall()
    assert groups(tuple(r.values()) for r in ours.to_pylist()) == groups(theirs)
    assert len(theirs) > 1


def test_query_bad_sql():
    with pytest.raises(ValueError):
        tracecap.query("select nothing from nowhere", SAMPLES)
    with pytest.raises(ValueError):
        tracecap.query("selec 1", SAMPLES)


def test_query_empty_directory(tmp_path):
    with pytest.raises(ValueError, match="no capture"):
        tracecap.query("select count(*) from slices", tmp_path)


def test_query_answers_again_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACECAP_CACHE_DIR", str(tmp_path / "cache"))
    sql = "select capture, name, ts, dur from slices order by capture, ts, name, dur"
    parsed = pa.table(tracecap.query(sql, SAMPLES, cache=False))
    assert not (tmp_path / "cache").exists()
    first = pa.table(tracecap.query(sql, SAMPLES))
    # A link per capture, in a file of links per partition that parsed some; their rows in
    # that partition's pack.
    files = list((tmp_path / "cache" / "v4" / "links").glob("slices.*.links"))
    assert 1 <= len(files) <= len(sample_paths())
    lines = [l for f in files for l in f.read_text().splitlines()[1:-1]]
    assert len(lines) == len(sample_paths())
    assert list((tmp_path / "cache" / "v4" / "packs").glob("slices.*.parquet"))
    second = pa.table(tracecap.query(sql, SAMPLES))
    assert first.equals(parsed) and second.equals(parsed)
    scanned = pa.table(tracecap.scan(SAMPLES, "slices"))
    assert scanned.num_rows == parsed.num_rows


# -- diff ----------------------------------------------------------------------------------------


def test_diff_with_itself_shows_no_change(sample_path):
    df = tracecap.diff(sample_path, sample_path).to_pandas()
    assert len(df) > 0
    assert (df["change"] == 0).all()
    assert (df["status"] == "same").all()
    for side in ("count", "total", "mean", "p50", "p95"):
        assert (df[f"a_{side}"] == df[f"b_{side}"]).all(), side
    assert df["change_pct"].fillna(0).eq(0).all()


def test_diff_of_two_captures_equals_their_totals(samples):
    a, b = samples[0], samples[1]
    df = tracecap.diff(a, b).to_pandas()

    def totals(path):
        # Only closed slices count in a diff.
        return {k: v for k, (_, v) in expected_groups(tracecap.open(path).table("slices")).items()
                if v is not None}

    ta, tb = totals(a), totals(b)
    assert set(df["name"]) == set(ta) | set(tb)
    for row in df.itertuples():
        assert row.a_total == ta.get(row.name, 0), row.name
        assert row.b_total == tb.get(row.name, 0), row.name
        assert row.change == row.b_total - row.a_total
        want = ("added" if row.name not in ta else "removed" if row.name not in tb
                else "same" if row.change == 0 else "slower" if row.change > 0 else "faster")
        assert row.status == want, row.name
    # Sorted by the largest change first.
    changes = df["change"].abs().tolist()
    assert changes == sorted(changes, reverse=True)


def test_diff_bad_by(sample_path):
    with pytest.raises(ValueError):
        tracecap.diff(sample_path, sample_path, by="colour")


# -- scan ----------------------------------------------------------------------------------------


def rows_per_capture(table):
    counts = plain(table).group_by("capture").aggregate([("capture", "count")])
    return dict(zip(counts["capture"].to_pylist(), counts["capture_count"].to_pylist()))


@pytest.mark.parametrize("table", ["slices", "counters"])
def test_scan_samples(table):
    want = {str(p): pa.table(tracecap.open(p).table(table)).num_rows for p in sample_paths()}
    scanned = pa.table(tracecap.scan(str(SAMPLES), table))
    assert scanned.schema == pa.schema(tracecap.open(sample_paths()[0]).table(table))
    assert rows_per_capture(scanned) == {k: v for k, v in want.items() if v}


def test_scan_corpus_equals_each_capture(corpus_dir):
    # The ids of captures found under a directory are the directory as given joined with their
    # path in it: the paths os.walk gives.
    scanned = pa.table(tracecap.scan(str(corpus_dir), "slices", threads=2))
    want = {}
    for path in corpus_capture_paths():
        n = pa.table(tracecap.open(str(path)).table("slices")).num_rows
        if n:
            want[str(path)] = n
    assert rows_per_capture(scanned) == want
    # And the rows themselves, for one capture.
    one = str(corpus_dir / "easyprofiler" / "sample_small.prof")
    mine = scanned.filter(pc.equal(plain(scanned)["capture"], one))
    pd.testing.assert_frame_equal(
        sorted_rows(mine), sorted_rows(pa.table(tracecap.open(one).table("slices")))
    )


# -- convert -------------------------------------------------------------------------------------


def cli_json(done):
    """The JSON object `tracecap convert --json` printed (on standard error)."""
    for line in (done.stdout + "\n" + done.stderr).splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON in tracecap's output:\n{done.stdout}\n{done.stderr}")


@pytest.mark.parametrize("to,suffix,magic", [("perfetto", ".pftrace", b"\x0a"),
                                             ("chrome", ".json", b'{"')])
def test_convert_sample(sample_path, tmp_path, to, suffix, magic):
    out = tmp_path / f"out{suffix}"
    report = tracecap.convert(sample_path, out)  # the format follows the extension
    assert out.is_file() and out.read_bytes().startswith(magic)
    assert report["to"] == to and report["format"] == "easyprofiler"
    assert report["slices"] == pa.table(tracecap.open(sample_path).table("slices")).num_rows
    assert report["instants"] == pa.table(tracecap.open(sample_path).table("instants")).num_rows
    if to == "chrome":
        events = json.loads(out.read_text())["traceEvents"]
        assert sum(e["ph"] in ("X", "B") for e in events) == report["slices"]
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left


def test_convert_equals_cli(capture_path, cli, tmp_path):
    ours, theirs = tmp_path / "ours.pftrace", tmp_path / "theirs.pftrace"
    done = cli("convert", capture_path, "-o", theirs, "--json", codes=(0, 1))
    if done.returncode == 0:
        report = tracecap.convert(capture_path, ours)
    else:
        # A damaged capture: converted up to the fault, put in place, then the error.
        with pytest.raises(tracecap.CaptureError):
            tracecap.convert(capture_path, ours)
    if not theirs.exists():  # nothing converted: no output either way
        assert not ours.exists()
        return
    assert ours.read_bytes() == theirs.read_bytes()
    if done.returncode == 0:
        want = cli_json(done)
        assert {k: v for k, v in report.items() if k != "output"} == {
            k: v for k, v in want.items() if k != "output"
        }


def test_convert_refuses_its_input(tmp_path, sample_path):
    path = tmp_path / "capture.prof"
    shutil.copy(sample_path, path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ValueError, match="input"):
        tracecap.convert(path, path, to="perfetto")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["capture.prof"]


def test_convert_needs_a_known_output_format(tmp_path, sample_path):
    with pytest.raises(ValueError, match="output format"):
        tracecap.convert(sample_path, tmp_path / "out.bin")
    assert list(tmp_path.iterdir()) == []


# -- export --------------------------------------------------------------------------------------


def test_export_samples(tmp_path):
    report = tracecap.export(str(SAMPLES), tmp_path / "ds")
    assert report["exported"] == len(sample_paths())
    assert report["faults"] == []
    for name in tracecap.TABLES:
        table = pq.read_table(tmp_path / "ds" / name)
        assert table.num_rows == report["rows"][name], name
    # Each capture's rows are its tables'.
    slices = pq.read_table(tmp_path / "ds" / "slices")
    want = {str(p): pa.table(tracecap.open(str(p)).table("slices")).num_rows
            for p in sample_paths()}
    assert rows_per_capture(slices) == want


def test_export_refuses_a_folder_with_files(tmp_path, sample_path):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "notes.txt").write_text("mine")
    with pytest.raises((ValueError, OSError)):
        tracecap.export(sample_path, tmp_path / "ds")
    assert [p.name for p in (tmp_path / "ds").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("damage", ["cut", "pages"])
def test_query_names_a_damaged_dataset_file(tmp_path, damage):
    tracecap.export(str(SAMPLES), tmp_path / "ds")
    part = sorted((tmp_path / "ds" / "slices").glob("*.parquet"))[0]
    data = bytearray(part.read_bytes())
    if damage == "cut":
        del data[100:]
    else:
        # The footer intact: the reader fails decoding the pages, after it read them.
        for i in range(200, min(1200, len(data) // 2)):
            data[i] ^= 0x5A
    part.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged Parquet file " + re.escape(str(part))):
        pa.table(tracecap.query("select * from slices", tmp_path / "ds"))


@pytest.mark.parametrize("format", ["easyprofiler", "syscall", "apitrace", "wtf", "orbit"])
def test_export_equals_cli(format, corpus_dir, cli, tmp_path):
    inputs = str(corpus_dir / format)
    cli("export", inputs, "-o", tmp_path / "cli", "--quiet", codes=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the damaged captures
        report = tracecap.export(inputs, tmp_path / "py")
    for name in tracecap.TABLES:
        ours = pq.read_table(tmp_path / "py" / name)
        theirs = pq.read_table(tmp_path / "cli" / name)
        assert ours.num_rows == report["rows"][name], name
        pd.testing.assert_frame_equal(sorted_rows(ours), sorted_rows(theirs), obj=name)


def test_export_reports_damaged_captures(corpus_dir, tmp_path):
    damaged = [corpus_dir / r for r in sorted(KNOWN_DAMAGED)]
    with pytest.warns(RuntimeWarning) as caught:
        report = tracecap.export([str(p) for p in damaged], tmp_path / "ds")
    assert {path for path, _what, _offset in report["faults"]} == {str(p) for p in damaged}
    for path, _what, offset in report["faults"]:
        with pytest.raises(tracecap.CaptureError) as error:
            tracecap.open(path).validate()
        assert offset == error.value.offset
    assert len(caught) == len(damaged)


# -- damaged captures in a query -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(KNOWN_DAMAGED))
def test_query_damaged_warns(name, corpus_dir):
    path = str(corpus_dir / name)
    with pytest.raises(tracecap.CaptureError) as fault:
        tracecap.open(path).validate()
    sql = "select count(*) as n from slices"
    with pytest.warns(RuntimeWarning, match=f"offset {fault.value.offset:#x}"):
        result = pa.table(tracecap.query(sql, path))
    assert result["n"].to_pylist() == [pa.table(tracecap.open(path).table("slices")).num_rows]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # strict: an exception, no warning
        with pytest.raises(tracecap.CaptureError) as strict:
            tracecap.query(sql, path, strict=True)
    assert strict.value.offset == fault.value.offset
    assert strict.value.path == path
    assert strict.value.format == rel(path).split("/")[0]


def test_query_good_capture_does_not_warn(sample_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tracecap.query("select count(*) from slices", sample_path, strict=True)


def test_query_warns_of_a_file_that_is_no_capture(tmp_path, sample_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a capture")
    with pytest.warns(RuntimeWarning, match="not a capture"):
        tracecap.query("select count(*) from slices", [sample_path, bad])
    with pytest.raises(tracecap.CaptureError) as caught:
        tracecap.query("select count(*) from slices", [sample_path, bad], strict=True)
    assert caught.value.offset == 0 and caught.value.format is None
