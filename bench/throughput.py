"""Throughput: the source under ``Trigger.AvailableNow`` against ``spark.read.text``."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812

import pyspark_aof as aof


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _aof(spark: SparkSession, log: Path, sink: Callable[[DataFrame], None]) -> Callable[[], None]:
    def run() -> None:
        with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
            # Each run is a new query on the same bytes: its own checkpoint and ZooKeeper store.
            lines = aof.read_stream(
                spark,
                f"{log.parent}/{log.name.replace('.', '[.]')}",
                meta_store=f"/bench/{Path(tmp).name}",
            ).select("value")
            query = (
                lines.writeStream.foreachBatch(lambda batch, _: sink(batch))
                .option("checkpointLocation", tmp)
                .trigger(availableNow=True)
                .start()
            )
            query.awaitTermination()

    return run


def _text(spark: SparkSession, log: Path, sink: Callable[[DataFrame], None]) -> Callable[[], None]:
    return lambda: sink(spark.read.text(str(log)))


def _noop(frame: DataFrame) -> None:
    frame.write.format("noop").mode("overwrite").save()


def _sum_length(frame: DataFrame) -> None:
    frame.agg(F.sum(F.length("value"))).collect()


def measure(spark: SparkSession, log: Path, runs: int) -> dict[str, Any]:
    """Median seconds and MB/s of each reader and query, the ratios, and ``wc -l``'s figure."""
    size_mb = log.stat().st_size / 1e6
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    results: dict[str, Any] = {"file_mb": round(size_mb, 1), "runs": runs}
    for query, sink in (("noop", _noop), ("sum(length(value))", _sum_length)):
        for reader, make in (("text", _text), ("aof", _aof)):
            run = make(spark, log, sink)
            run()  # warm-up: JIT, classes, the embedded ZooKeeper
            seconds = statistics.median(_timed(run) for _ in range(runs))
            results[f"{reader} {query}"] = {
                "seconds": round(seconds, 2),
                "mb_per_s": round(size_mb / seconds, 1),
            }
        text = results[f"text {query}"]["seconds"]
        results[f"ratio {query}"] = round(text / results[f"aof {query}"]["seconds"], 2)
    wc = statistics.median(
        _timed(lambda: subprocess.run(["wc", "-l", str(log)], capture_output=True, check=True))
        for _ in range(runs)
    )
    results["wc -l"] = {"seconds": round(wc, 2), "mb_per_s": round(size_mb / wc, 1)}
    return results
