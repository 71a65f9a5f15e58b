"""The native part of the package `tracecap`: captures as Arrow streams, SQL, diffs, conversion and export."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, final

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

# A file path, as Python's `open` takes it: `str`, `bytes` or `os.PathLike` (`pathlib.Path`).
_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
# Inputs: one path, or a list (any iterable) of paths of capture files, directories and datasets.
_Inputs = Union[_Path, Iterable[_Path]]

__all__ = [
    "CaptureError",
    "Capture",
    "Stream",
    "open",
    "scan",
    "query",
    "diff",
    "convert",
    "export",
    "TABLES",
    "__version__",
]

__version__: str
"""The package's version."""

TABLES: list[str]
"""The names of the tables, in order: the five shared ones, then one or two per format."""

class CaptureError(ValueError):
    """A file that is no capture, or a damaged one: `path`, `format` and `offset` of the fault."""

    path: str
    """The file, as it was named."""
    format: str | None
    """The format's name, or None when it is unknown."""
    offset: int
    """The absolute offset of the fault in the file."""

@final
class Capture:
    """One capture file, memory-mapped. Made by `tracecap.open(path)`."""

    @property
    def path(self) -> Path:
        """The path the capture was opened with (also its id: the `capture` column of its tables)."""
    @property
    def format(self) -> str:
        """The format's name: `easyprofiler`, `syscall`, `apitrace`, `wtf` or `orbit`."""
    @property
    def size(self) -> int:
        """The file's size in bytes."""
    @property
    def tables(self) -> list[str]:
        """The names of the tables this capture has rows in: the five shared ones and its format's."""
    def info(self) -> dict[str, Any]:
        """What `tracecap info FILE --json` prints, as a dict (its keys differ between formats)."""
    def validate(self) -> None:
        """Reads the whole capture; raises `CaptureError` at its first fault, returns None when it is good."""
    def table(
        self, name: str, *, args: bool = True, batch_rows: int = 65536, cache: bool = True
    ) -> Stream:
        """The table `name` (see `tracecap.TABLES`) as a `Stream` of Arrow batches, read from the cache of parsed tables or walked when it is read."""
    def __repr__(self) -> str:
        """`<tracecap.Capture PATH (FORMAT, SIZE bytes)>`."""

@final
class Stream:
    """An Arrow table read batch by batch through the Arrow PyCapsule interface."""

    def __arrow_c_schema__(self) -> object:
        """The Arrow schema, as a PyCapsule named `arrow_schema`."""
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """A new stream of the batches, as a PyCapsule named `arrow_array_stream` (`requested_schema` is not used)."""
    def to_pyarrow(self) -> pyarrow.Table:
        """The whole table as a `pyarrow.Table` (imports pyarrow)."""
    def to_pandas(self) -> pandas.DataFrame:
        """The whole table as a `pandas.DataFrame` (through pyarrow)."""
    def to_polars(self) -> polars.DataFrame:
        """The whole table as a `polars.DataFrame` (imports polars)."""
    @property
    def columns(self) -> list[str]:
        """The column names."""
    def __repr__(self) -> str:
        """`<tracecap.Stream WHAT: N columns>`."""

def open(path: _Path) -> Capture:
    """Opens the capture at `path` (memory-mapped; the format is detected from its bytes)."""

def cache_info() -> dict[str, Any] | None:
    """The cache of parsed tables: `dir`, `entries`, `packs`, `bytes`, `limit`, and this process's `hits` and `misses` (None when no folder can be named)."""

def scan(
    inputs: _Inputs,
    table: str,
    *,
    strict: bool = False,
    threads: int | None = None,
    cache: bool = True,
) -> Stream:
    """The table `table` of every capture and dataset in `inputs`, parsed as it is read on `threads` threads (or read from the cache of parsed tables)."""

def query(
    sql: str,
    inputs: _Inputs,
    *,
    strict: bool = False,
    threads: int | None = None,
    cache: bool = True,
) -> Stream:
    """Runs the SQL `sql` over `inputs` (captures, directories, datasets) and returns its result."""

def diff(
    a: _Inputs,
    b: _Inputs,
    *,
    by: str = "name",
    strict: bool = False,
    threads: int | None = None,
    cache: bool = True,
) -> Stream:
    """Compares the slices of `a` and `b` grouped `by` `name`, `track,name` or `category`."""

def convert(
    path: _Path,
    out: _Path,
    *,
    to: Literal["perfetto", "chrome"] | None = None,
) -> dict[str, Any]:
    """Converts the capture at `path` to a Perfetto trace or Chrome JSON at `out`; returns the counts."""

def export(
    inputs: _Inputs,
    out_dir: _Path,
    *,
    mode: Literal["new", "append", "overwrite"] = "new",
    threads: int | None = None,
    strict: bool = False,
) -> dict[str, Any]:
    """Exports the captures in `inputs` to a Parquet dataset in the folder `out_dir`; returns a report."""
