"""Line filters: ``include.lines`` on the node against a ``where`` after ``spark.read.text``."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812

import pyspark_aof as aof
from data import repeat_log, write_log
from throughput import _run_timed, _streaming

QUERY = "count(), 1% of lines with ERROR"


def measure(spark: SparkSession, log: Path, runs: int) -> dict[str, Any]:
    """Median seconds of both ``count()`` queries on ``log``, the ratios, and the rows they kept.

    Both keep the lines holding ``ERROR``; a run that keeps another number of rows fails.
    """
    size_mb = log.stat().st_size / 1e6
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    where = spark.read.text(str(log)).where(F.col("value").contains("ERROR"))
    matches = where.count()

    def text() -> None:
        if where.count() != matches:
            raise RuntimeError("spark.read.text kept another number of rows")

    def source(tmp: str) -> DataFrame:
        return aof.read_stream(
            spark,
            f"{log.parent}/{log.name.replace('.', '[.]')}",
            meta_store=f"/bench/{Path(tmp).name}",
            include_lines="ERROR",
        )

    def count(batch: DataFrame) -> None:
        batch.count()  # the rows themselves are checked by the run: numInputRows

    streamed = _streaming(spark, source, count, matches)
    results: dict[str, Any] = {"file_mb": round(size_mb, 1), "runs": runs, "rows": matches}
    for name, run in (("text", text), ("aof", streamed)):
        run()  # warm-up
        timings = [_run_timed(run) for _ in range(runs)]
        seconds = statistics.median(t for t, _ in timings)
        results[name] = {"seconds": round(seconds, 2), "mb_per_s": round(size_mb / seconds, 1)}
        batches = [b for _, b in timings if b is not None]
        if batches:
            batch = statistics.median(batches)
            results[f"{name} batch"] = {"seconds": round(batch, 2)}
    results["ratio"] = round(results["text"]["seconds"] / results["aof"]["seconds"], 2)
    results["ratio batch"] = round(results["text"]["seconds"] / results["aof batch"]["seconds"], 2)
    return results


def run_in(data: Path, spark: SparkSession, gb: float, runs: int) -> dict[str, Any]:
    """Return the filter's figures on ``gb`` GB of a log with rare errors, kept in ``data``."""
    one = data / "filtering" / "one.log"
    write_log(one, int(1e9), rare_errors=True)
    big = data / "filtering" / "app.log"
    repeat_log(one, big, int(gb * 1e9))
    return measure(spark, big, runs)
