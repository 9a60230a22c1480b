"""Throughput: the source under ``Trigger.AvailableNow`` against ``spark.read.text``."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kafka_reference
from flight_recorder import top_frames
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812

import pyspark_aof as aof

OCTETS = "sum(octet_length(value))"
# Every column of the source's schema: what a user who keeps the row id (host, file_id, offset)
# selects, timed beside `value` alone.
ALL_COLUMNS = ("value", "host", "path", "offset", "file_id")
ALL = "noop, all columns"
VALUE = "noop, value alone"

# A run returns the seconds its batches took to read and write (Spark's `addBatch`), when known.
Run = Callable[[], float | None]


def _streaming(
    spark: SparkSession,
    source: Callable[[str], DataFrame],
    sink: Callable[[DataFrame], None] | None,
    lines: int,
) -> Run:
    """Run a new query under ``Trigger.AvailableNow`` each time, with its own checkpoint.

    ``source`` gets the run's scratch directory; ``sink`` None is Spark's streaming ``noop``
    sink, otherwise it runs in ``foreachBatch``. A run that reads other than ``lines`` rows fails.
    """

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
            writer = source(tmp).writeStream.option("checkpointLocation", tmp)
            if sink is None:
                writer = writer.format("noop")
            else:
                batch_sink = sink
                writer = writer.foreachBatch(lambda batch, _: batch_sink(batch))
            query = writer.trigger(availableNow=True).start()
            query.awaitTermination()
            rows = sum(p["numInputRows"] for p in query.recentProgress)
            if rows != lines:
                raise RuntimeError(f"{query.name or 'the query'} read {rows} of {lines} lines")
            return float(sum(p["durationMs"]["addBatch"] for p in query.recentProgress)) / 1000

    return run


def _aof(
    spark: SparkSession, log: Path, columns: tuple[str, ...] = ("value",)
) -> Callable[[str], DataFrame]:
    """Read ``log`` with the source, on a store of its own per run (each reads from the start)."""
    return lambda tmp: aof.read_stream(
        spark,
        f"{log.parent}/{log.name.replace('.', '[.]')}",
        meta_store=f"/bench/{Path(tmp).name}",
    ).select(*columns)


def _kafka(spark: SparkSession, address: str) -> Callable[[str], DataFrame]:
    """Read the topic holding the log's lines with Spark's Kafka source, from its first record."""
    return lambda _: (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", address)
        .option("subscribe", kafka_reference.TOPIC)
        .option("startingOffsets", "earliest")
        .load()
        .selectExpr("CAST(value AS STRING) AS value")
    )


def _text(spark: SparkSession, log: Path, sink: Callable[[DataFrame], None] | None) -> Run:
    batch_sink = sink or _noop

    def run() -> None:
        batch_sink(spark.read.text(str(log)))

    return run


def _noop(frame: DataFrame) -> None:
    frame.write.format("noop").mode("overwrite").save()


def _sum_length(frame: DataFrame) -> None:
    frame.agg(F.sum(F.length("value"))).collect()


def _sum_octets(frame: DataFrame) -> None:
    """``sum(length(value))`` counting bytes: the same reading without Spark's character count."""
    frame.agg(F.sum(F.octet_length("value"))).collect()


def _run_timed(run: Run) -> tuple[float, float | None]:
    started = time.perf_counter()
    batch = run()
    return time.perf_counter() - started, batch


def measure(
    spark: SparkSession, log: Path, runs: int, kafka_address: str | None = None
) -> dict[str, Any]:
    """Median seconds and MB/s of each reader and query, the ratios, and ``wc -l``'s figure.

    With ``kafka_address``, Spark's Kafka source on the same lines is measured too.
    """
    size_mb = log.stat().st_size / 1e6
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    wc = [_timed_output(["wc", "-l", str(log)]) for _ in range(runs)]
    lines = int(wc[0][1].split()[0])
    results: dict[str, Any] = {"file_mb": round(size_mb, 1), "runs": runs, "lines": lines}
    readers: list[tuple[str, Callable[[Callable[[DataFrame], None] | None], Run]]] = [
        ("text", lambda sink: _text(spark, log, sink)),
        ("aof", lambda sink: _streaming(spark, _aof(spark, log), sink, lines)),
    ]
    if kafka_address is not None:
        address = kafka_address
        readers.append(
            ("kafka", lambda sink: _streaming(spark, _kafka(spark, address), sink, lines))
        )
    for query, sink in (("noop", None), ("sum(length(value))", _sum_length)):
        for reader, make in readers:
            run = make(sink)
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
            if reader != "kafka":
                # One more run, recorded: where the time goes, for the report's misses.
                results[f"{reader} {query} profile"] = top_frames(spark, run)
        aof_seconds = results[f"aof {query}"]["seconds"]
        results[f"ratio {query}"] = round(results[f"text {query}"]["seconds"] / aof_seconds, 2)
        results[f"ratio {query} batch"] = round(
            results[f"text {query}"]["seconds"] / results[f"aof {query} batch"]["seconds"], 2
        )
        if kafka_address is not None:
            kafka_seconds = results[f"kafka {query}"]["seconds"]
            results[f"ratio {query} kafka"] = round(kafka_seconds / aof_seconds, 2)
    results.update(_all_columns(spark, log, lines, max(runs, 7), size_mb))
    for reader, make in readers:
        if reader == "kafka":
            continue
        run = make(_sum_octets)
        run()
        seconds = statistics.median(_run_timed(run)[0] for _ in range(runs))
        results[f"{reader} {OCTETS}"] = {"seconds": round(seconds, 2)}
    seconds = statistics.median(t for t, _ in wc)
    results["wc -l"] = {"seconds": round(seconds, 2), "mb_per_s": round(size_mb / seconds, 1)}
    return results


def _all_columns(
    spark: SparkSession, log: Path, lines: int, runs: int, size_mb: float
) -> dict[str, Any]:
    """Every column against ``value`` alone under ``noop``, the queries run in turns.

    In turns, so that none gains from running later in the session (a warmer JIT, a quieter
    machine); the ratio is the median time of every column over that of ``value`` alone. Spark's
    reference is ``spark.read.text`` of the same log carrying the same columns, the source's
    values as constants: what Spark itself pays to put them in every row it hands on.
    """
    every = _constants(spark, log, lines)
    queries: dict[str, Run] = {
        f"aof {VALUE}": _streaming(spark, _aof(spark, log), None, lines),
        f"aof {ALL}": _streaming(spark, _aof(spark, log, ALL_COLUMNS), None, lines),
        f"text {VALUE}": _text(spark, log, None),
        f"text {ALL}": _text(spark, log, lambda frame: _noop(frame.select("value", *every))),
    }
    for run in queries.values():
        run()  # warm-up
    timings: dict[str, list[tuple[float, float | None]]] = {name: [] for name in queries}
    for _ in range(runs):
        for name, run in queries.items():
            timings[name].append(_run_timed(run))
    results: dict[str, Any] = {}
    for name, pairs in timings.items():
        medians = {name: statistics.median(t for t, _ in pairs)}
        if any(b is not None for _, b in pairs):
            medians[f"{name} batch"] = statistics.median(b for _, b in pairs if b is not None)
        for key, seconds in medians.items():
            results[key] = {"seconds": round(seconds, 2), "mb_per_s": round(size_mb / seconds, 1)}
    for key, of in (("", "aof {}"), (" batch", "aof {} batch"), (" text", "text {}")):
        every_column, value_alone = (results[of.format(n)]["seconds"] for n in (ALL, VALUE))
        results[f"ratio {ALL}{key}"] = round(every_column / value_alone, 2)
    return results


def _constants(spark: SparkSession, log: Path, lines: int) -> list[Column]:
    """Read ``host``, ``path``, ``offset`` and ``file_id`` of a line of ``log``, as literals.

    The offset too: a constant long costs Spark as much to put in a row as one that varies.
    """
    columns = ALL_COLUMNS[1:]
    rows: list[Any] = []

    def keep(batch: DataFrame) -> None:
        rows.extend(batch.agg(*(F.first(c).alias(c) for c in columns)).collect())

    _streaming(spark, _aof(spark, log, ALL_COLUMNS), keep, lines)()
    return [
        F.lit(rows[0][c]).cast("bigint" if c == "offset" else "string").alias(c) for c in columns
    ]


def _timed_output(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, output
