"""Throughput: the source under ``Trigger.AvailableNow`` against ``spark.read.text``."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flight_recorder import top_frames
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812

import pyspark_aof as aof

# A run returns the seconds its batches took to read and write (Spark's `addBatch`), when known.
Run = Callable[[], float | None]


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _aof(spark: SparkSession, log: Path, sink: Callable[[DataFrame], None] | None) -> Run:
    """Run a new query on the same bytes each time, with its own checkpoint and store.

    ``sink`` None is Spark's streaming ``noop`` sink; otherwise it runs in ``foreachBatch``.
    """

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
            lines = aof.read_stream(
                spark,
                f"{log.parent}/{log.name.replace('.', '[.]')}",
                meta_store=f"/bench/{Path(tmp).name}",
            ).select("value")
            writer = lines.writeStream.option("checkpointLocation", tmp)
            if sink is None:
                writer = writer.format("noop")
            else:
                batch_sink = sink
                writer = writer.foreachBatch(lambda batch, _: batch_sink(batch))
            query = writer.trigger(availableNow=True).start()
            query.awaitTermination()
            return float(sum(p["durationMs"]["addBatch"] for p in query.recentProgress)) / 1000

    return run


def _text(spark: SparkSession, log: Path, sink: Callable[[DataFrame], None] | None) -> Run:
    batch_sink = sink or _noop

    def run() -> None:
        batch_sink(spark.read.text(str(log)))

    return run


def _noop(frame: DataFrame) -> None:
    frame.write.format("noop").mode("overwrite").save()


def _sum_length(frame: DataFrame) -> None:
    frame.agg(F.sum(F.length("value"))).collect()


def _run_timed(run: Run) -> tuple[float, float | None]:
    started = time.perf_counter()
    batch = run()
    return time.perf_counter() - started, batch


def measure(spark: SparkSession, log: Path, runs: int) -> dict[str, Any]:
    """Median seconds and MB/s of each reader and query, the ratios, and ``wc -l``'s figure."""
    size_mb = log.stat().st_size / 1e6
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    results: dict[str, Any] = {"file_mb": round(size_mb, 1), "runs": runs}
    for query, sink in (("noop", None), ("sum(length(value))", _sum_length)):
        for reader, make in (("text", _text), ("aof", _aof)):
            run = make(spark, log, sink)
            run()  # warm-up: JIT, classes, the embedded ZooKeeper
            timings = [_run_timed(run) for _ in range(runs)]
            seconds = statistics.median(t for t, _ in timings)
            results[f"{reader} {query}"] = {
                "seconds": round(seconds, 2),
                "mb_per_s": round(size_mb / seconds, 1),
            }
            batches = [b for _, b in timings if b is not None]
            if batches:
                # The query's fixed costs (start, planning, checkpoint, stop) left out.
                batch = statistics.median(batches)
                results[f"{reader} {query} batch"] = {
                    "seconds": round(batch, 2),
                    "mb_per_s": round(size_mb / batch, 1),
                }
            # One more run, recorded: where the time goes, for the report's misses.
            results[f"{reader} {query} profile"] = top_frames(spark, run)
        text = results[f"text {query}"]["seconds"]
        results[f"ratio {query}"] = round(text / results[f"aof {query}"]["seconds"], 2)
        results[f"ratio {query} batch"] = round(text / results[f"aof {query} batch"]["seconds"], 2)
    wc = statistics.median(
        _timed(lambda: subprocess.run(["wc", "-l", str(log)], capture_output=True, check=True))
        for _ in range(runs)
    )
    results["wc -l"] = {"seconds": round(wc, 2), "mb_per_s": round(size_mb / wc, 1)}
    return results
