"""Latency from a write to a Python program in real-time mode, by the sink a Python user picks.

``python bench/python_sinks.py [seconds] [--no-kafka]`` writes ``bench/realtime-python.md``
(newest Spark only, about three minutes). A writer appends 500 lines a second, each holding the
time it was written; each sink's arrivals are noted:

- a Python ``foreach``: each row noted by the function, in Spark's Python worker;
- :func:`pyspark_aof.foreach_json_lines` to a TCP socket this program reads;
- Spark's Kafka sink on a local broker (``kafka_reference``), each record's time in the topic
  (set as the sink sends it) taken for its arrival; left out with ``--no-kafka``.

A line the Python ``foreach`` still holds when the writer stops comes at the batch's end (the
query's stop here): counted, not timed.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import kafka_reference
from pyspark.sql import Row, SparkSession
from pyspark.sql.streaming.readwriter import DataStreamWriter

import pyspark_aof as aof
from pyspark_aof._versions import VERSIONS
from session import local_session

HERE = Path(__file__).parent
RATE = 500
GRACE = 30  # seconds after the last write that lines may still arrive in and be timed

Arrivals = Callable[[], list[tuple[int, str]]]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _python_foreach(out: Path) -> tuple[Callable[[DataStreamWriter], DataStreamWriter], Arrivals]:
    out.mkdir()

    def note(row: Row) -> None:
        with open(out / str(os.getpid()), "a") as f:
            f.write(f"{time.time_ns()} {row.value}\n")

    def arrivals() -> list[tuple[int, str]]:
        lines = [line for part in out.iterdir() for line in part.read_text().splitlines(True)]
        # A line a worker is writing as it is read is not whole yet.
        whole = (line.rstrip("\n").split(" ", 1) for line in lines if line.endswith("\n"))
        return [(int(at), value) for at, value in whole]

    return (lambda writer: writer.foreach(note)), arrivals


def _json_lines() -> tuple[Callable[[DataStreamWriter], DataStreamWriter], Arrivals]:
    server = socket.create_server(("127.0.0.1", 0))
    noted: list[tuple[int, str]] = []

    def read(connection: socket.socket) -> None:
        with connection, connection.makefile("rb") as lines:
            for line in lines:
                noted.append((time.time_ns(), json.loads(line)["value"]))

    def accept() -> None:
        while True:
            connection, _ = server.accept()
            threading.Thread(target=read, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    target = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    return (lambda writer: aof.foreach_json_lines(writer, target)), (lambda: list(noted))


def _kafka(
    spark: SparkSession, address: str, topic: str
) -> tuple[Callable[[DataStreamWriter], DataStreamWriter], Arrivals]:
    def attach(writer: DataStreamWriter) -> DataStreamWriter:
        return (
            writer.format("kafka")
            .option("kafka.bootstrap.servers", address)
            .option("kafka.linger.ms", "0")
            .option("topic", topic)
        )

    def arrivals() -> list[tuple[int, str]]:
        records = (
            spark.read.format("kafka")
            .option("kafka.bootstrap.servers", address)
            .option("subscribe", topic)
            .load()
            .selectExpr("unix_micros(timestamp) AS at", "CAST(value AS STRING) AS value")
            .collect()
        )
        return [(row.at * 1000, row.value) for row in records]

    return attach, arrivals


def measure(spark: SparkSession, directory: Path, sink: str, seconds: int) -> str:
    """One table row: lines written, timed arrivals' p50, p95 and p99, lines held to the end."""
    logs = directory / "logs"
    logs.mkdir(parents=True)
    log = logs / "app.log"
    log.write_text("0 warm\n")
    if sink == "foreach":
        attach, arrivals = _python_foreach(directory / "arrived")
    elif sink == "json":
        attach, arrivals = _json_lines()
    else:
        attach, arrivals = _kafka(spark, sink, f"arrivals-{directory.name}")
    lines = aof.read_stream(spark, f"{logs}/app\\.log").select("value")
    writer = lines.writeStream.outputMode("update")
    query = (
        attach(writer)
        .option("checkpointLocation", str(directory / "checkpoint"))
        .trigger(realTime="5 minutes")  # type: ignore[call-overload]
        .start()
    )
    try:
        time.sleep(10)  # the query's start; the warm line may wait in a Python worker's buffer
        written = 0
        started = time.monotonic()
        with log.open("ab") as out:
            while written < RATE * seconds:
                time.sleep(max(0.0, started + written / RATE - time.monotonic()))
                out.write(f"{time.time_ns()} line-{written}\n".encode())
                out.flush()
                written += 1
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and len(_timed(arrivals())) < written:
            time.sleep(0.2)
        timed = _timed(arrivals())
    finally:
        query.stop()
    late = [(at - int(value.split()[0])) / 1e6 for at, value in timed]
    figures = " | ".join(f"{_percentile(late, q):.1f} ms" for q in (0.5, 0.95, 0.99))
    return f"{written} | {figures} | {written - len(timed)}"


def _timed(arrived: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [(at, value) for at, value in arrived if value.endswith(tuple("0123456789"))]


def main() -> None:
    """Measure both sinks, one after the other in one session, and write the table."""
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    seconds = int(numbers[0]) if numbers else 30
    # Spark's Kafka sink of the newest Spark Maven has (it may follow a release later).
    kafka = f"org.apache.spark:spark-sql-kafka-0-10_2.13:{VERSIONS['spark4.kafka.reference']}"
    with_kafka = "--no-kafka" not in sys.argv
    spark = local_session(packages=(kafka,) if with_kafka else ())
    sinks = [
        ("foreach", "a Python `foreach` function"),
        ("json", '`aof.foreach_json_lines(writer, "tcp://...")`, read by Python'),
    ]
    rows = []
    with ExitStack() as stack:
        if with_kafka:
            home = HERE / "data" / "kafka-no-topic"
            address = stack.enter_context(kafka_reference.broker(home, None))
            name = f"Spark's Kafka sink {VERSIONS['spark4.kafka.reference']} (the record's time)"
            sinks.append((address, name))
        for sink, name in sinks:
            with tempfile.TemporaryDirectory(prefix="aof-python-sinks-") as directory:
                row = measure(spark, Path(directory), sink, seconds)
            print(f"{name}: {row}")
            rows.append(f"| {name} | {row} |\n")
    version = spark.version
    spark.stop()
    (HERE / "realtime-python.md").write_text(
        "# Latency from a write to Python, in real-time mode\n\n"
        "Written by `make bench` (`bench/python_sinks.py`); do not edit by hand. A writer appends "
        f"{RATE} lines a second for {seconds} s, each line a write of its own holding the time "
        "it was written; Python notes each arrival (for Kafka, the time the sink gave the record). "
        f'Spark {version}, `local[2]`, `trigger(realTime="5 minutes")`, one sink after the '
        f"other in one session. A line not arrived {GRACE} s after the last write is held to "
        "the batch's end (here, the query's stop): counted as held, not timed.\n\n"
        "| sink | lines | p50 | p95 | p99 | held to the batch's end |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n" + "".join(rows)
    )


if __name__ == "__main__":
    main()
