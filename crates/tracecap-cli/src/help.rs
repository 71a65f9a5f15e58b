//! The text after each command's options in `--help`: examples, exit codes, formats.

/// What every command shares: the formats, how they are detected, and the exit codes.
macro_rules! common {
    () => {
        "Formats (detected from the file's first bytes, whatever its name):
  EasyProfiler     .prof        signature 79 73 61 45 (u32 0x45617379)
  syscall_capture  .dat         magic 78 06 17 a5
  apitrace         .trace       container: snappy 'at', gzip 1f 8b,
                                zstd 28 b5 2f fd, or brotli (decodes to a header)
  WTF              .wtf-trace   chunked (format 10) or legacy (format 3) magic
  Orbit            .orbit       'ORBT' header (and the pre-2021 layout)

Input: a file (memory-mapped), or '-' for standard input (held in memory up to
16 MiB; a longer stream is kept in an unnamed file in $TMPDIR, else /tmp).

Exit codes:
  0  success
  1  the file is not a good capture: 'error: ... at offset 0x...' names where
  2  usage or I/O error (a missing file, a full disk, output = input)"
    };
}

/// `tracecap --help`.
pub const TOOL: &str = concat!(
    "Examples:
  tracecap info capture.prof
  tracecap validate trace.trace && echo good
  tracecap convert capture.orbit -o capture.pftrace

",
    common!()
);

/// `tracecap info --help`.
pub const INFO: &str = concat!(
    "Examples:
  tracecap info capture.prof             (long lists show their first items)
  tracecap info --verbose capture.orbit  (every thread, section and name)
  tracecap info --json trace.trace | jq .format

",
    common!()
);

/// `tracecap validate --help`.
pub const VALIDATE: &str = concat!(
    "validate is the strictest command: a file it accepts, info, dump and convert
accept too, and a fault it reports, they report at the same offset.

Examples:
  tracecap validate capture.prof
  for f in captures/*; do tracecap validate \"$f\" || echo \"bad: $f\"; done
  curl -s https://example.com/t.trace | tracecap validate -

",
    common!()
);

/// `tracecap dump --help`.
pub const DUMP: &str = concat!(
    "Records before a fault are printed, then the fault (exit 1).

Examples:
  tracecap dump capture.dat | less
  tracecap dump --json capture.wtf-trace | jq -c 'select(.offset > 4096)'
  tracecap dump --apitrace app.trace > app.txt   (the text of 'apitrace dump')
  tracecap dump --follow calls.dat   (records as the tracer writes them)

With --follow (and from a pipe), records are printed as they complete:
syscall_capture and WTF records, snappy apitrace calls, EasyProfiler threads;
an Orbit capture is dumped once following stops (at the format's end, after
--idle seconds without growth, or at Ctrl-C), from the file as it then is.
A file that shrinks or is replaced while followed is an error (exit 2).

",
    common!()
);

/// `tracecap convert --help`.
pub const CONVERT: &str = concat!(
    "The output is written under a temporary name beside it and renamed when
complete: a run that fails or is interrupted leaves an existing output as it
was. A damaged capture still gives what was read before the fault (exit 1).
The output may not be the input. The summary and the progress line go to
standard error.

Examples:
  tracecap convert capture.prof -o capture.pftrace   (open in ui.perfetto.dev)
  tracecap convert capture.orbit -o capture.json     (Chrome Trace Event JSON)
  tracecap convert capture.orbit -o cpu.pb.gz        (pprof: go tool pprof, speedscope)
  cat trace.trace | tracecap convert - -o - --to chrome | gzip > trace.json.gz
  tracecap convert --follow --idle 5 live.orbit -o live.pftrace
                             (waits for the capture to end, or 5 s without growth)

",
    common!()
);

/// `tracecap export --help`.
pub const EXPORT: &str = concat!(
    "Writes DIR/<table>/*.parquet for the tables captures, tracks, slices,
instants, counters and one per format (easyprofiler_blocks,
easyprofiler_values, syscall_calls, apitrace_calls, wtf_events, orbit_events);
see docs/export.md. A capture's id (the `capture` column of every table) is its
path as given, or for a file found in a directory, that directory joined with
the file's path in it. Files of no known format in a directory are skipped and
counted. A damaged capture gives its rows before the fault, the fault is in
`captures`, and the export goes on (exit 1 at the end). Files are written under
temporary names and renamed when complete.

Examples:
  tracecap export captures/ -o dataset
  tracecap export a.prof b.trace -o dataset --append
  duckdb -c \"select name, sum(dur) from 'dataset/slices/*.parquet' group by 1\"

",
    common!()
);

/// What `query`, `diff` and `flamegraph` share: their inputs and exit codes.
macro_rules! query_common {
    () => {
        "Inputs: capture files, directories (searched recursively for captures) and
datasets written by `tracecap export` (a directory holding captures/, slices/,
...), in any mix. A capture is parsed when the query reaches it, on every core.
A damaged capture is queried up to its fault (the fault is in the `captures`
table) with a warning; files of no known format are skipped with a warning.

Exit codes:
  0  success (damaged inputs only warn, unless --strict)
  1  --strict and an input was damaged or no capture; or no input held a
     capture or a dataset
  2  the SQL is wrong (DataFusion's message), a dataset's Parquet file is
     damaged (the message names it), usage or I/O error"
    };
}

/// `tracecap query --help`.
pub const QUERY: &str = concat!(
    "Tables: captures, tracks, slices, instants, counters, easyprofiler_blocks,
easyprofiler_values, syscall_calls, apitrace_calls, wtf_events, orbit_events
(`tracecap query --schema` lists their columns; docs/query.md has examples).
Times are nanoseconds. The SQL is Apache DataFusion's (PostgreSQL-like).

Examples:
  tracecap query 'select name, count(*), sum(dur) from slices
      group by name order by 3 desc limit 10' captures/
  tracecap query 'select * from captures' a.prof b.trace --format csv
  tracecap query 'select ...' dataset/ --format parquet -o result.parquet

",
    query_common!()
);

/// `tracecap diff --help`.
pub const DIFF: &str = concat!(
    "For each slice name (or --by track,name or --by category): the count and the
total duration per capture, the mean, p50 and p95 duration on each side, and
the change of the total (ns and %), largest change first. With groups of
captures (--a X --a Y --b Z ...), totals are means per capture, a_sd and b_sd
their standard deviations, and t Welch's t statistic: status `noise` marks a
change smaller than twice its standard error. Only closed slices count.
The table shows counts, totals (with a unit), change_pct and status, cut to
the terminal's width; --wide shows every column (csv, json and parquet always
do). `--sql` prints the query, which runs on `tracecap query` inputs a.*, b.*.

Examples:
  tracecap diff before.prof after.prof
  tracecap diff --a runs/old/ --b runs/new/ --by track,name --format csv
  tracecap diff old.orbit new.orbit --flamegraph diff.svg
  tracecap diff old.orbit new.orbit --flamegraph calls.svg --from calls

",
    query_common!()
);

/// `tracecap flamegraph --help`.
pub const FLAMEGRAPH: &str = concat!(
    "Folds the call stacks of the inputs and draws an interactive SVG flame graph
(open it in a browser: click to zoom, Ctrl-F to search). --from chooses the
stacks: samples (sampled call stacks, as in an Orbit capture; weights are
samples), calls (nested calls on each thread, by nesting; the weight of a stack
is the self time of its top frame, in ns; thread states, scheduling slices and
counters are never calls), or auto (the default: the samples when the inputs
have any, else the calls). --folded prints the folded stacks, root first
(`a;b;c 1234`), for other tools.

Examples:
  tracecap flamegraph capture.prof -o flame.svg
  tracecap flamegraph captures/ --per-track -o flame.svg
  tracecap flamegraph capture.orbit --from calls -o calls.svg
  tracecap flamegraph trace.wtf-trace --folded | sort -k2 -n | tail

",
    query_common!()
);

/// `tracecap cache --help`.
pub const CACHE: &str =
    "`tracecap query` and `tracecap diff` keep the tables they parse from a capture
file in a cache, and read them from it while the file is unchanged (same device,
inode, size, modification and change times, and the same tracecap build): a
question asked again of the same captures skips the parse. Only the columns a
query read are kept; a later query that reads more parses the capture again
and keeps both. A damaged capture keeps its rows before the fault, and the
fault, reported again when it is read from the cache. Files changed in the
last two seconds and captures a scan did not finish (LIMIT, an error, Ctrl-C)
are not kept. An entry is a capture's table; the entries of one query are
stored together, in a few Parquet files (packs).

Where: TRACECAP_CACHE_DIR, else $XDG_CACHE_HOME/tracecap, else
~/.cache/tracecap (created readable by you alone). Its size is kept under
TRACECAP_CACHE_SIZE (bytes, or 512M, 4G...; default 2G), the packs used
least recently removed first. --no-cache on query and diff parses every
capture and leaves the cache alone.

Examples:
  tracecap cache            (same as tracecap cache info)
  tracecap cache clear

Exit codes:
  0  success
  2  no cache folder can be named, or an I/O error
";
