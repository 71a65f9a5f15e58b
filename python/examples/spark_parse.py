"""Parse a directory of captures in Spark, with tracecap on the executors.

    python python/examples/spark_parse.py CAPTURE_DIR

Builds a DataFrame with one row per capture file, parses each file where its row lands
(`mapInArrow`: the executors' Python workers open the file with tracecap and hand Spark the
Arrow batches of its `slices` table), then prints the 10 slice names with the most time.

Needs `pip install tracecap pyspark pyarrow` and Java. The files must be readable by the
executors at the same path (a shared file system when Spark runs on a cluster).
"""

import os
import sys

import pyarrow as pa

import tracecap

# The columns of `slices` this example keeps, as Spark types. The Arrow table has the same
# columns, but its text columns (`capture`, `name`, `category`) are dictionary-encoded, which
# Spark does not read: they are cast to plain strings. docs/export.md lists every column.
SCHEMA = "capture string, track long, ts long, dur long, depth int, name string, category string"
ARROW_SCHEMA = pa.schema(
    [
        ("capture", pa.string()),
        ("track", pa.int64()),
        ("ts", pa.int64()),
        ("dur", pa.int64()),  # null for a slice that never ended
        ("depth", pa.int32()),
        ("name", pa.string()),
        ("category", pa.string()),
    ]
)


def capture_paths(directory):
    """Every file under `directory` that tracecap recognises as a capture, sorted."""
    found = []
    for root, _dirs, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            try:
                tracecap.open(path)  # cheap: maps the file and checks its first bytes
            except (tracecap.CaptureError, OSError):
                continue  # not a capture (or unreadable)
            found.append(path)
    return sorted(found)


def parse(batches):
    """mapInArrow's function: Arrow batches of paths in, Arrow batches of slices out."""
    for batch in batches:
        for path in batch.column("path").to_pylist():
            # args=False: the JSON `args` column is not needed here, and is costly to build.
            # A damaged capture gives the slices before its fault.
            slices = tracecap.open(path).table("slices", args=False)
            for b in pa.RecordBatchReader.from_stream(slices):
                columns = [b.column(f.name).cast(f.type) for f in ARROW_SCHEMA]
                yield pa.RecordBatch.from_arrays(columns, schema=ARROW_SCHEMA)


def slices_frame(spark, paths):
    """A Spark DataFrame of the slices of every capture in `paths` (one task per capture)."""
    files = spark.createDataFrame([(p,) for p in paths], "path string")
    # One partition per file (at most 1000): the files are parsed in parallel.
    files = files.repartition(max(1, min(len(paths), 1000)))
    return files.mapInArrow(parse, SCHEMA)


def main(directory):
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    # The executors' Python must be this one (the one with tracecap installed).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.appName("tracecap").getOrCreate()
    try:
        paths = capture_paths(directory)
        print(f"{len(paths)} captures under {directory}")
        slices = slices_frame(spark, paths)
        top = (
            slices.groupBy("name")
            .agg(F.count(F.lit(1)).alias("slices"), F.sum("dur").alias("total_ns"))
            .orderBy(F.desc("total_ns"))
            .limit(10)
        )
        top.show(truncate=60)
    finally:
        spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
