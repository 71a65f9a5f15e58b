"""Spark parsing captures with tracecap in `mapInArrow` (python/examples/spark_parse.py), checked
against `tracecap.query` on the same captures. Skipped without pyspark or Java."""

import importlib.util
import os
import shutil
import sys
import warnings

import pyarrow as pa
import pytest

import tracecap
from support import REPO, SAMPLES, corpus_capture_paths, plain, sample_paths

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("Java is not installed (Spark needs it)", allow_module_level=True)

# pyspark 4 warns that it does not fully support pandas 3 (mapInArrow does not use pandas).
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")

BY_NAME = (
    "select capture, name, count(*) as n, sum(dur) as total from slices group by capture, name"
)


def load_example():
    path = REPO / "python" / "examples" / "spark_parse.py"
    spec = importlib.util.spec_from_file_location("spark_parse", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = load_example()


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    """A quiet local[2] session: log4j at ERROR, no UI or progress bar, the JVM's own standard
    error in a file (shown if the session cannot start), the JIT's first tier only (faster to
    start), and the executors' Python = this interpreter (the one with tracecap)."""
    from pyspark.sql import SparkSession

    tmp = tmp_path_factory.mktemp("spark")
    log4j = tmp / "log4j2.properties"
    log4j.write_text(
        "rootLogger.level = error\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n"
    )
    os.environ["PYSPARK_PYTHON"] = sys.executable
    jvm_log = tmp / "jvm-stderr.log"
    saved = os.dup(2)
    try:
        with open(jvm_log, "w") as log:
            os.dup2(log.fileno(), 2)  # the JVM, started now, inherits it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)  # pyspark about pandas 3
                session = (
                    SparkSession.builder.master("local[2]")
                    .appName("tracecap-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.ui.showConsoleProgress", "false")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.local.dir", str(tmp))
                    .config(
                        "spark.driver.extraJavaOptions",
                        f"-Dlog4j2.configurationFile=file:{log4j} "
                        "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
                    )
                    .getOrCreate()
                )
    except Exception as e:  # noqa: BLE001 - shown with the JVM's output
        pytest.fail(f"no Spark session: {e}\n{jvm_log.read_text()[-3000:]}")
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_groups(frame):
    from pyspark.sql import functions as F

    rows = frame.groupBy("capture", "name").agg(
        F.count(F.lit(1)).alias("n"), F.sum("dur").alias("total")
    )
    return {(r["capture"], r["name"]): (r["n"], r["total"]) for r in rows.collect()}


def query_groups(inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the damaged captures of the corpus
        table = plain(pa.table(tracecap.query(BY_NAME, inputs)))
    return {(r["capture"], r["name"]): (r["n"], r["total"]) for r in table.to_pylist()}


def test_example_finds_the_captures(corpus_dir):
    assert example.capture_paths(str(corpus_dir)) == [str(p) for p in corpus_capture_paths()]
    assert example.capture_paths(str(SAMPLES)) == [str(p) for p in sample_paths()]


def test_frame_schema(spark):
    frame = example.slices_frame(spark, [str(sample_paths()[0])])
    assert frame.schema.simpleString() == (
        "struct<capture:string,track:bigint,ts:bigint,dur:bigint,depth:int,name:string,"
        "category:string>"
    )
    assert frame.count() == pa.table(tracecap.open(sample_paths()[0]).table("slices")).num_rows


def test_samples_in_spark_equal_query(spark):
    paths = example.capture_paths(str(SAMPLES))
    got = spark_groups(example.slices_frame(spark, paths))
    assert len(got) > 10
    assert got == query_groups(str(SAMPLES))


def test_corpus_in_spark_equals_query(spark, corpus_dir):
    paths = example.capture_paths(str(corpus_dir))
    got = spark_groups(example.slices_frame(spark, paths))
    want = query_groups(str(corpus_dir))
    assert len({capture for capture, _ in want}) > 20
    assert got == want
