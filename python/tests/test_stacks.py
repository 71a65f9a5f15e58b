"""Call stacks from Python: `Capture.table("stack_samples")` and `table("stack_frames")` of the
corpus's Orbit captures (a sample per CallstackSample event, as the format's own `orbit_events`
table counts them; every sampled stack's frames, depth 0 the innermost), and
`convert(..., to="pprof")` (the same profile bytes and counts as `tracecap convert --to pprof`)."""

import gzip
import json
from collections import defaultdict

import pyarrow as pa
import pytest

import tracecap
from support import CORPUS, NO_CORPUS


def cli_json(done):
    """The JSON object `tracecap convert --json` printed."""
    for line in (done.stdout + "\n" + done.stderr).splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON in tracecap's output:\n{done.stdout}\n{done.stderr}")


def orbit_captures():
    """The whole ORBT captures of the corpus (the legacy pre-ORBT file has no samples)."""
    real = CORPUS / "orbit" / "real"
    if not real.is_dir():
        return []
    return sorted(p for p in real.glob("*.orbit") if p.read_bytes()[:4] == b"ORBT")


def params():
    found = orbit_captures()
    if not found:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")]
    return [pytest.param(p, id=p.name) for p in found]


@pytest.mark.parametrize("path", params())
def test_stack_tables_hold_every_sample(path):
    capture = tracecap.open(path)
    assert "stack_samples" in capture.tables and "stack_frames" in capture.tables
    samples = pa.table(capture.table("stack_samples")).to_pylist()
    frames = pa.table(capture.table("stack_frames")).to_pylist()
    events = pa.table(capture.table("orbit_events")).column("event").to_pylist()
    assert len(samples) == events.count("callstack_sample") > 0
    assert all(s["kind"] == "sample" and s["weight"] == 1 and s["call"] is None for s in samples)
    by_stack = defaultdict(list)
    for f in frames:
        by_stack[f["stack"]].append(f["depth"])
        assert f["function"] and f["address"] is not None
        if f["function"].startswith("0x"):
            assert f["function"] == hex(f["address"])
    for stack, depths in by_stack.items():
        assert sorted(depths) == list(range(len(depths))), stack
    assert {s["stack"] for s in samples} <= set(by_stack)


@pytest.mark.parametrize("path", params())
def test_convert_to_pprof_equals_the_cli(path, cli, tmp_path):
    ours, theirs = tmp_path / "ours.pb.gz", tmp_path / "theirs.pb.gz"
    report = tracecap.convert(path, ours)  # the format follows the extension
    assert report["to"] == "pprof"
    assert report["stack_samples"] == pa.table(tracecap.open(path).table("stack_samples")).num_rows
    assert report["stacks"] > 0
    done = cli("convert", path, "-o", theirs, "--json")
    assert gzip.decompress(ours.read_bytes()) == gzip.decompress(theirs.read_bytes())
    assert tracecap.convert(path, tmp_path / "named.bin", to="pprof")["stack_samples"] == (
        report["stack_samples"]
    )
    want = cli_json(done)
    assert {k: v for k, v in report.items() if k != "output"} == {
        k: v for k, v in want.items() if k != "output"
    }


def test_convert_to_pprof_without_stacks(sample_path, tmp_path):
    out = tmp_path / "calls.pprof"
    report = tracecap.convert(sample_path, out)
    assert report["to"] == "pprof" and report["stack_samples"] == 0
    assert gzip.decompress(out.read_bytes())  # a profile of the calls' self time


def test_convert_names_pprof_among_the_targets(sample_path, tmp_path):
    with pytest.raises(ValueError, match="pprof"):
        tracecap.convert(sample_path, tmp_path / "out.bin", to="svg")
