"""Profiler and tracer captures as Arrow tables.

tracecap reads the capture files of EasyProfiler (``.prof``), syscall_capture (``.dat``),
apitrace (``.trace``), the Web Tracing Framework (``.wtf-trace``) and Orbit (``.orbit``)
without copying them (they are memory-mapped), and hands their tables to pyarrow, pandas,
Polars and DuckDB through the Arrow PyCapsule interface::

    import pyarrow as pa
    import tracecap

    capture = tracecap.open("game.prof")
    slices = pa.table(capture.table("slices"))

    top = tracecap.query(
        "SELECT name, sum(dur) AS total FROM slices GROUP BY name ORDER BY total DESC LIMIT 10",
        ["captures/"],
    ).to_pandas()

The tables (``tracecap.TABLES``) are those of ``tracecap export``: ``captures``, ``tracks``,
``slices``, ``instants``, ``counters`` and one per format; docs/export.md in the repository
describes every column, and docs/python.md this package.
"""

from ._native import (
    TABLES,
    Capture,
    CaptureError,
    Stream,
    __version__,
    cache_info,
    convert,
    diff,
    export,
    open,
    query,
    scan,
)

__all__ = [
    "TABLES",
    "Capture",
    "CaptureError",
    "Stream",
    "__version__",
    "cache_info",
    "convert",
    "diff",
    "export",
    "open",
    "query",
    "scan",
]
