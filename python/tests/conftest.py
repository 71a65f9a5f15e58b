"""Fixtures of the tracecap Python tests.

- ``repo_root``: the checkout (the directory holding ``python/``).
- ``corpus_dir``: the corpus of real captures, ``<repo>/../shared/corpus``; the tests that need it
  are skipped with "corpus not found at ..." when it is absent (a user's clone).
- ``corpus_captures``: every file of the corpus whose format ``tracecap.open`` detects.
- ``samples``: the captures bundled in ``<repo>/samples`` (always there).
- ``cli``: runs the ``tracecap`` binary (``$TRACECAP``, else ``target/debug`` or
  ``target/release``); the tests that need it are skipped with a reason when it is absent.
- ``cli_export``: the folder of ``tracecap export CAPTURE``, made once per capture.

The cache of parsed tables that ``query``, ``scan`` and ``diff`` use is a folder of the test
session (``TRACECAP_CACHE_DIR``), never the user's.

Tests take one capture at a time through parameters filled here (``pytest_generate_tests``),
with the capture's path in the corpus as the test id:

- ``capture_path``: every corpus capture;
- ``good_capture_path``: every corpus capture but the damaged ones (``support.KNOWN_DAMAGED``);
- ``table_case``: ``(capture path, table name)`` for every table of every corpus capture;
- ``sample_path``: every bundled sample (these run without the corpus).
"""

import os
import shutil
import subprocess
import tempfile

import pytest

import tracecap
from support import (
    CORPUS,
    KNOWN_DAMAGED,
    NO_CORPUS,
    REPO,
    cli_path,
    corpus_capture_paths,
    rel,
    sample_paths,
)


@pytest.fixture(scope="session", autouse=True)
def session_cache():
    """The cache of parsed tables of this session: a folder of its own, removed at its end."""
    with tempfile.TemporaryDirectory(prefix="tracecap-pytest-cache-") as folder:
        before = os.environ.get("TRACECAP_CACHE_DIR")
        os.environ["TRACECAP_CACHE_DIR"] = folder
        yield folder
        if before is None:
            del os.environ["TRACECAP_CACHE_DIR"]
        else:
            os.environ["TRACECAP_CACHE_DIR"] = before


def _corpus_params(make):
    """`make(path)` -> pytest.params for each corpus capture; one skipped param without corpus."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")]
    return [param for path in corpus_capture_paths() for param in make(path)]


def _tables_of(path):
    return [pytest.param((path, t), id=f"{rel(path)}:{t}") for t in tracecap.open(path).tables]


def pytest_generate_tests(metafunc):
    if "capture_path" in metafunc.fixturenames:
        params = _corpus_params(lambda p: [pytest.param(p, id=rel(p))])
        metafunc.parametrize("capture_path", params)
    if "good_capture_path" in metafunc.fixturenames:
        good = lambda p: [] if rel(p) in KNOWN_DAMAGED else [pytest.param(p, id=rel(p))]
        metafunc.parametrize("good_capture_path", _corpus_params(good))
    if "table_case" in metafunc.fixturenames:
        metafunc.parametrize("table_case", _corpus_params(_tables_of))
    if "sample_path" in metafunc.fixturenames:
        params = [pytest.param(p, id=p.name) for p in sample_paths()]
        metafunc.parametrize("sample_path", params)


@pytest.fixture(scope="session")
def repo_root():
    return REPO


@pytest.fixture(scope="session")
def corpus_dir():
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    return CORPUS


@pytest.fixture(scope="session")
def corpus_captures(corpus_dir):
    return list(corpus_capture_paths())


@pytest.fixture(scope="session")
def samples():
    found = list(sample_paths())
    assert found, "no bundled sample in <repo>/samples"
    return found


class Cli:
    """The `tracecap` binary: `cli("info", path, "--json")` -> CompletedProcess (text); an exit
    code not in `codes` fails the test with the command's standard error."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args, codes=(0,)):
        done = subprocess.run(
            [str(self.path), *map(str, args)], capture_output=True, text=True, timeout=600
        )
        assert done.returncode in codes, (
            f"tracecap {' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr}"
        )
        return done


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if path is None:
        pytest.skip(
            "the tracecap binary was not found (set TRACECAP, or cargo build -p tracecap-cli)"
        )
    return Cli(path)


@pytest.fixture(scope="session")
def cli_export(cli, tmp_path_factory):
    """`cli_export(path)` -> the folder `tracecap export PATH -o DIR` wrote (once per path and
    session). The capture id is the path as given, so pass the path the Python side opens."""
    done = {}

    def export(path):
        if path not in done:
            out = tmp_path_factory.mktemp("export")
            shutil.rmtree(out)  # a new folder, as `export` wants by default
            cli("export", path, "-o", out, "--quiet", "--threads", "1", codes=(0, 1))
            done[path] = out
        return done[path]

    return export
