"""A user's script at Spark's defaults: the docs' Python blocks, then queries stopped mid-run.

Run by ``test_docs.py`` as ``python user_session.py PAGE ...``, whose standard error is what a
user sees. Python blocks of a page run in order in one namespace holding ``spark`` and ``aof``,
each page in a directory of its own. Prints ``FAILED <what>: <why>`` for each failure, then
``ran <n> blocks``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import DataFrame, SparkSession
from test_docs import blocks

import pyspark_aof as aof
from pyspark_aof.testing._process import wait_until


def run_pages(spark: SparkSession, pages: list[Path]) -> int:
    ran = 0
    for page in pages:
        os.chdir(tempfile.mkdtemp())
        namespace: dict[str, Any] = {"spark": spark, "aof": aof, "__name__": "__docs__"}
        for block in blocks(page):
            if block.runs and block.language == "python":
                try:
                    exec(compile(block.code, str(block), "exec"), namespace)
                    ran += 1
                except Exception as e:
                    print(f"FAILED {block}: {type(e).__name__}: {e}")
        for query in spark.streams.active:
            query.stop()
            print(f"FAILED {page.name} left a query running")
    return ran


def stop_while_running(spark: SparkSession, real_time: bool, jvm_sink: bool = False) -> None:
    """A query stopped while its lines are read: micro-batches, or one real-time batch.

    In real-time mode, to a Python ``foreach`` or (``jvm_sink``) the package's JSON lines.
    """
    work = Path(tempfile.mkdtemp())
    log = work / "app.log"
    log.write_text("first\n")
    lines = aof.read_stream(spark, f"{work}/app\\.log")
    if real_time:
        writer = lines.writeStream.outputMode("update")
        if jvm_sink:
            writer = aof.foreach_json_lines(writer, str(work / "out.jsonl"))
        else:
            writer = writer.foreach(lambda row: None)
        # PySpark 4.3's overloads of `trigger` leave `realTime` out; the method takes it.
        writer = writer.trigger(realTime="5 minutes")  # type: ignore[call-overload]
    else:
        writer = lines.writeStream.format("noop")
    query = writer.option("checkpointLocation", str(work / "checkpoint")).start()
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 120
    # A real-time batch's stage runs for minutes; after a micro-batch, the next one may run.
    while not (tracker.getActiveStageIds() if real_time else query.lastProgress):
        if time.monotonic() > deadline or query.exception():
            print(f"FAILED the query read nothing: {query.exception()}")
            break
        with log.open("a") as f:
            f.write("more\n")
        time.sleep(0.2)
    query.stop()


def stop_in_python_batch(spark: SparkSession) -> None:
    """A query stopped while its Python ``foreachBatch`` runs the batch's job.

    The job cancelled, the function fails with Py4J's error, and Spark 4's stream thread dies of
    a stack overflow in its own match of that error's text: said in one line at INFO, not
    printed.
    """
    work = Path(tempfile.mkdtemp())
    (work / "app.log").write_text("first\n")
    stopped = str(work / "stopped")
    in_batch = threading.Event()

    def until_stopped(_: object) -> None:
        """A task that runs until the stop cancels it (or, at worst, the query has stopped)."""
        wait_until(lambda: os.path.exists(stopped), 120, "the query's stop")

    def each(batch: DataFrame, batch_id: int) -> None:
        in_batch.set()
        batch.rdd.foreach(until_stopped)

    lines = aof.read_stream(spark, f"{work}/app\\.log")
    checkpoint = str(work / "checkpoint")
    query = lines.writeStream.foreachBatch(each).option("checkpointLocation", checkpoint).start()
    if not in_batch.wait(120):
        print(f"FAILED no batch began: {query.exception()}")
    query.stop()
    Path(stopped).touch()


def main() -> None:
    spark = aof.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    ran = run_pages(spark, [Path(p) for p in sys.argv[1:]])
    stop_while_running(spark, real_time=False)
    stop_in_python_batch(spark)
    if tuple(map(int, pyspark.__version__.split(".")[:2])) >= (4, 1):
        stop_while_running(spark, real_time=True)
        stop_while_running(spark, real_time=True, jvm_sink=True)
    spark.stop()
    print(f"ran {ran} blocks")


if __name__ == "__main__":
    main()
