"""The node-cost benchmark's queries: the source into Spark's ``noop`` sink, and ``rate``.

Each query runs alone on the cluster of ``node_cost.py``: started, let warm up, then the CPU of
the executor's and the driver's JVMs taken over a phase (``proc_stats``). The source's lines are
counted where they land: the progress's ``numInputRows`` summed in a micro-batch, the JVM's
JSON-lines sink's file in real-time mode (``noop`` is not a real-time sink).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

import proc_stats
import pyspark_aof as aof
from node_writer import LINE_BYTES, line_id, tally

REAL_TIME_BATCH = "5 minutes"  # the docs' example: longer than a phase, so no batch ends in one
CATCH_UP = 90.0  # seconds a query may take, after the writer stops, to count every line
# Triggers of warm-up at least: a query's first looks describe every file under the driver's
# first questions, then keep the answers; at a 10 s trigger, a 10 s warm-up held one of them.
WARMUP_TRIGGERS = 3


@dataclass(frozen=True)
class Trigger:
    """A trigger of the benchmark: ``name`` on the command line, ``label`` in the tables."""

    name: str
    label: str
    interval: float = 0.0  # ProcessingTime's, in seconds; 0 for none
    real_time: bool = False

    def warmup(self, least: float) -> float:
        """Return the seconds before a phase: ``least``, or :data:`WARMUP_TRIGGERS` triggers."""
        return max(least, WARMUP_TRIGGERS * self.interval)

    def set(self, writer: DataStreamWriter) -> DataStreamWriter:
        """``writer`` with this trigger."""
        if self.real_time:
            real_time: DataStreamWriter = writer.trigger(
                realTime=REAL_TIME_BATCH  # type: ignore[call-overload]
            )
            return real_time
        if self.interval:
            return writer.trigger(processingTime=f"{self.interval:g} seconds")
        return writer


@dataclass(frozen=True)
class Node:
    """What a query runs against: the session, the node's executor and where its files are."""

    spark: SparkSession
    executor_pid: Callable[[], int]
    driver_pid: int
    work: Path  # checkpoints and real-time sinks, outside the node's mount

    def pids(self) -> dict[str, int]:
        """Return the JVMs whose CPU a phase takes, by name."""
        return {"executor": self.executor_pid(), "driver": self.driver_pid}


def source(
    node: Node,
    name: str,
    path: str,
    trigger: Trigger,
    warmup: float,
    seconds: float,
    expected: Callable[[], set[str]],
    started_writing: Callable[[], Callable[[], int] | None],
) -> dict[str, Any]:
    """One phase of the source under ``trigger``, reading ``path``; its figures.

    ``started_writing`` starts the phase's writer, if it has one, and returns what stops it and
    tells the lines it wrote; ``expected`` then gives the ids of every line the files hold.
    """
    lines = aof.read_stream(node.spark, path, meta_store=f"/bench/node-cost/{name}")
    sink = node.work / "sinks" / f"{name}.jsonl"
    sink.parent.mkdir(parents=True, exist_ok=True)
    if trigger.real_time:
        writer = aof.foreach_json_lines(
            lines.select("value").writeStream.outputMode("update"), str(sink)
        )
    else:
        writer = lines.writeStream.format("noop")
    writer = trigger.set(writer).option("checkpointLocation", str(node.work / "checkpoints" / name))
    started = time.time()
    query = writer.start()
    try:
        stop_writing = started_writing()

        def counted() -> int:
            if trigger.real_time:
                return sink.read_bytes().count(b"\n") if sink.exists() else 0
            return sum(int(p["numInputRows"]) for p in query.recentProgress)

        figures: dict[str, Any] = {}
        if stop_writing is None:  # the quiet files: the time to read what they hold
            total = len(expected())
            _wait(query, lambda: counted() >= total, 600, f"{total} lines counted")
            figures["first_batch"] = _first_batch(query, started, trigger)
        else:
            _wait(query, lambda: counted() > 0, 120, "the first line counted")
        time.sleep(trigger.warmup(warmup))
        figures.update(_phase(node, seconds, None if trigger.real_time else query))
        if stop_writing:
            stop_writing()
        ids = expected()
        deadline = time.monotonic() + CATCH_UP + 2 * trigger.interval
        while counted() < len(ids) and time.monotonic() < deadline:
            query.awaitTermination(1)
    finally:
        query.stop()
    if trigger.real_time:
        values = (json.loads(v)["value"] for v in sink.read_text().splitlines() if v.endswith("}"))
        figures["lines"] = tally((line_id(v) for v in values), ids)
    else:
        figures["lines"] = {"written": len(ids), "counted": counted(), **_said_lost(query)}
    return figures


def _said_lost(query: StreamingQuery) -> dict[str, int]:
    """Return the lines the source said went before they were read, from its ``bytesLost``."""
    last = query.recentProgress[-1] if query.recentProgress else None
    lost = int(last["sources"][0]["metrics"].get("bytesLost", 0)) if last else 0
    return {"said_lost": lost // LINE_BYTES} if lost else {}


def rate(
    node: Node, name: str, trigger: Trigger, rows: int, warmup: float, seconds: float
) -> dict[str, Any]:
    """Spark's ``rate`` source, ``rows`` a second in one partition, into ``noop``.

    At the default trigger, ``rate-micro-batch``, ``rows`` a tenth a batch: ``rate`` moves its
    offset once a second, so Spark runs it a batch a second there, where a source with news each
    trigger (a written file's) runs batches back to back, as ``rate-micro-batch`` does.
    """
    back_to_back = not trigger.interval and not trigger.real_time
    reader = node.spark.readStream.option("numPartitions", 1)
    if back_to_back:
        reader = reader.format("rate-micro-batch").option("rowsPerBatch", max(1, rows // 10))
    else:
        reader = reader.format("rate").option("rowsPerSecond", rows)
    query = (
        trigger.set(reader.load().writeStream.format("noop"))
        .option("checkpointLocation", str(node.work / "checkpoints" / f"rate-{name}"))
        .start()
    )
    try:
        _wait(query, lambda: len(query.recentProgress) > 0, 120, "rate's first batch")
        time.sleep(trigger.warmup(warmup))
        return _phase(node, seconds, query)
    finally:
        query.stop()


def alone(node: Node, seconds: float) -> dict[str, Any]:
    """Take Spark's JVMs' CPU with no query running: the floor of every idle figure."""
    return _phase(node, seconds, None)


def _phase(node: Node, seconds: float, query: StreamingQuery | None) -> dict[str, Any]:
    """Take the JVMs' CPU over ``seconds``; with a micro-batch ``query``, its batches a second."""
    pids = node.pids()
    batches = len(query.recentProgress) if query else 0
    cpu = proc_stats.Phase(pids)
    time.sleep(seconds)
    usage = cpu.end()
    figures: dict[str, Any] = {
        **{name: u.figures() for name, u in usage.items()},
        "executor_end": proc_stats.snapshot(pids["executor"]),
    }
    if query:
        # Spark reports a trigger that read nothing only every 10 s: these are those that read.
        figures["batches_per_s"] = round((len(query.recentProgress) - batches) / seconds, 2)
    return figures


def _first_batch(query: StreamingQuery, started: float, trigger: Trigger) -> dict[str, Any]:
    """From the query's start to its first batch's end, and the rows it read."""
    if trigger.real_time:  # no batch ends: until the files' lines were all in the sink
        return {"seconds": round(time.time() - started, 2), "rows": None}
    first = next(p for p in query.recentProgress if int(p["numInputRows"]) > 0)
    began = datetime.fromisoformat(first["timestamp"]).timestamp()
    ended = began + first["durationMs"]["triggerExecution"] / 1000
    return {"seconds": round(ended - started, 2), "rows": int(first["numInputRows"])}


def _wait(query: StreamingQuery, condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait until ``condition``, raising the query's error if it fails on the way."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        if not query.isActive:
            raise RuntimeError(f"the query stopped waiting for {what}: {query.exception()}")
        time.sleep(0.2)
