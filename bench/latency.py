"""Latency from a line's append to its arrival in ``foreachBatch``, default trigger."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def measure(
    spark: SparkSession, directory: Path, seconds: float = 20, rate: int = 1000
) -> dict[str, Any]:
    """Measure: a steady writer stamps each line with the time it appends it, batches read them."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / "app.log"
    log.write_text("")
    latencies: list[float] = []

    def arrived(batch: DataFrame, _: int) -> None:
        now = time.time_ns()
        for row in batch.select("value").collect():
            latencies.append((now - int(row["value"].split(" ", 1)[0])) / 1e6)

    def write() -> None:
        with log.open("a") as out:
            started = time.monotonic()
            n = 0
            while time.monotonic() - started < seconds:
                due = int((time.monotonic() - started) * rate)
                while n < due:
                    out.write(f"{time.time_ns()} line {n}\n")
                    n += 1
                out.flush()
                time.sleep(0.001)

    with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
        query = (
            aof.read_stream(spark, f"{directory}/app[.]log", meta_store=f"/bench/{Path(tmp).name}")
            .writeStream.foreachBatch(arrived)
            .option("checkpointLocation", tmp)
            .start()
        )
        writer = threading.Thread(target=write)
        writer.start()
        writer.join()
        query.processAllAvailable()
        query.stop()
    return {
        "lines": len(latencies),
        "rate_per_s": rate,
        "p50_ms": round(_percentile(latencies, 0.50), 1),
        "p95_ms": round(_percentile(latencies, 0.95), 1),
        "p99_ms": round(_percentile(latencies, 0.99), 1),
    }
