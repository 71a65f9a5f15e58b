"""Benchmark baselines: the pure-Python routes a user has today for reading captures.

    python3 python/bench/baseline.py easyprofiler FILE [--repeat N]
    python3 python/bench/baseline.py syscall FILE [--repeat N]
    python3 python/bench/baseline.py apitrace FILE [--repeat N]

prints one JSON line: ``{"format", "file", "bytes", "rows", "seconds"}``, where ``seconds`` is
the best of N runs (``time.perf_counter``) of reading the whole file into rows:
  - easyprofiler: ``pure_easyprofiler.read_slices``; rows = block and event records;
  - syscall: ``pure_syscall.read_calls``; rows = syscall records;
  - apitrace: ``apitrace pickle FILE`` piped into the ``Unpickler`` of the ``unpickle.py``
    that apitrace ships (``/usr/lib/apitrace/scripts`` on Debian, or ``$APITRACE_SCRIPTS``),
    which builds a ``Call`` object per call; rows = calls. The time covers both processes.
    Without that script the stream is read by ``pickle.Unpickler`` with ``unpickle.Pointer``
    mapped to ``int``, and the output says so (``"unpickler": "fallback"``).
When a reader stops at a damaged part of the file (a cut file, a stale tail), ``rows`` counts
the rows read before it and ``error`` says where it stopped.

This module does not import ``tracecap``: it measures the other side only.
"""

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pure_easyprofiler  # noqa: E402
import pure_syscall  # noqa: E402

APITRACE_SCRIPTS = os.environ.get("APITRACE_SCRIPTS", "/usr/lib/apitrace/scripts")


def easyprofiler_rows(path):
    """Read ``path`` with the pure-Python EasyProfiler reader; returns ``(rows, error)``."""
    try:
        columns = pure_easyprofiler.read_slices(path)
        return len(columns["thread"]), None
    except pure_easyprofiler.EasyProfilerError as e:
        return len(e.columns["thread"]) if e.columns else 0, str(e)


def syscall_rows(path):
    """Read ``path`` with the pure-Python syscall_capture reader; returns ``(rows, error)``."""
    try:
        columns = pure_syscall.read_calls(path)
        return len(columns["number"]), None
    except pure_syscall.SyscallFormatError as e:
        return len(e.columns["number"]) if e.columns else 0, str(e)


def load_apitrace_unpickle():
    """Import apitrace's own ``unpickle`` module; returns None when it is not installed.

    It is imported under its own name: the pickle stream refers to ``unpickle.Pointer``.
    """
    if not os.path.exists(os.path.join(APITRACE_SCRIPTS, "unpickle.py")):
        return None
    if APITRACE_SCRIPTS not in sys.path:
        sys.path.append(APITRACE_SCRIPTS)
    import unpickle

    return unpickle


class _Pointer(int):
    """Stands in for ``unpickle.Pointer`` when apitrace's script is not installed."""


class _FallbackUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("unpickle", "Pointer"):
            return _Pointer
        return super().find_class(module, name)


def _count_calls(stream, unpickle):
    """Count the calls of an ``apitrace pickle`` stream."""
    if unpickle is not None:
        class CallCounter(unpickle.Unpickler):
            calls = 0

            def handleCall(self, call):
                self.calls += 1

        counter = CallCounter(stream)
        counter.parse()
        return counter.calls
    calls = 0
    unpickler = _FallbackUnpickler(stream)
    while True:
        try:
            unpickler.load()
        except EOFError:
            return calls
        calls += 1


def apitrace_rows(path, unpickle):
    """Run ``apitrace pickle path`` and read its output; returns ``(rows, error)``."""
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(["apitrace", "pickle", path], stdout=subprocess.PIPE,
                                stderr=stderr)
        with proc.stdout:
            calls = _count_calls(proc.stdout, unpickle)
        status = proc.wait()
        error = None
        if status != 0:
            stderr.seek(0)
            message = stderr.read().decode("utf-8", "replace").strip()
            error = f"apitrace pickle exited with {status}: {message}"
    return calls, error


def measure(fmt, path, repeat=1):
    """Read ``path`` ``repeat`` times with the baseline for ``fmt``; returns the result dict."""
    extra = {}
    if fmt == "easyprofiler":
        run = easyprofiler_rows
    elif fmt == "syscall":
        run = syscall_rows
    elif fmt == "apitrace":
        unpickle = load_apitrace_unpickle()
        extra["unpickler"] = unpickle.__file__ if unpickle is not None else "fallback"

        def run(p):
            return apitrace_rows(p, unpickle)
    else:
        raise ValueError(f"unknown format {fmt!r}")

    best = None
    rows = error = None
    for _ in range(repeat):
        start = time.perf_counter()
        rows, error = run(path)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)

    result = {"format": fmt, "file": path, "bytes": os.path.getsize(path), "rows": rows,
              "seconds": best}
    if error is not None:
        result["error"] = error
    result.update(extra)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("format", choices=["easyprofiler", "syscall", "apitrace"])
    parser.add_argument("file")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="runs to take the best time of (default 1)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    print(json.dumps(measure(args.format, args.file, args.repeat)))


if __name__ == "__main__":
    main()
