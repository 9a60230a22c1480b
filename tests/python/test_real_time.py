"""Real-time mode from Python (Spark 4.1 and newer), from the JAR the package bundles.

Python's ``foreach`` gets its rows through a buffered pipe, flushed when full or when the task
ends: here lines arrive by the end of each batch. How soon a line reaches a JVM sink while its
batch runs is ``test_json_lines``'s, the Scala suite's (``RealTimeModeSuite``) and the latency
benchmarks'.
"""

from __future__ import annotations

import os
from pathlib import Path

from pyspark.sql import Row, SparkSession

import pyspark_aof as aof
from pyspark_aof.testing._process import wait_until
from writers import append


def _delivered(out: Path) -> list[tuple[str, str, int]]:
    rows = []
    for part in out.glob("*.tsv"):
        for line in part.read_text().splitlines():
            value, file_id, offset = line.split("\t")
            rows.append((value, file_id, int(offset)))
    return sorted(rows, key=lambda r: (r[1], r[2]))


def test_real_time_mode_reads_every_line_once_across_batches(
    spark: SparkSession, tmp_path: Path
) -> None:
    spark.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "1000")
    logs, out = tmp_path / "logs", tmp_path / "out"
    logs.mkdir()
    out.mkdir()
    log = logs / "app.log"
    append(log, ["rt-0"])

    def keep(row: Row) -> None:
        with open(out / f"{os.getpid()}.tsv", "a") as f:
            f.write(f"{row.value}\t{row.file_id}\t{row.offset}\n")

    query = (
        aof.read_stream(spark, f"{logs}/app\\.log")
        .writeStream.outputMode("update")
        .foreach(keep)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        # PySpark 4.3's overloads of `trigger` leave `realTime` out; the method takes it.
        .trigger(realTime="2 seconds")  # type: ignore[call-overload]
        .start()
    )
    try:
        wait_until(lambda: len(_delivered(out)) == 1, 60, "the first line")
        for i in (1, 2, 3):
            append(log, [f"rt-{i}"])
            count = i + 1
            wait_until(lambda: len(_delivered(out)) == count, 60, f"line {i}")  # noqa: B023
        wait_until(lambda: len(query.recentProgress) > 0, 60, "a batch ended")
    finally:
        query.stop()
    assert [r[0] for r in _delivered(out)] == [f"rt-{i} whole end" for i in range(4)]
