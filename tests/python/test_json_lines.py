"""The JVM ``foreach`` sink Python attaches: rows as JSON lines, as they come."""

from __future__ import annotations

import json
import re
import socket
import statistics
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.testing._process import wait_until
from writers import append

LINES = 1500
WARM_UP = 1500  # the lines written, 3 s of them, before lines are timed


class _Arrivals(threading.Thread):
    """A TCP server noting when each JSON line of each connection arrives."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.target = f"tcp://127.0.0.1:{self.server.getsockname()[1]}"
        self.rows: list[tuple[int, dict[str, object]]] = []

    def run(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._read, args=(connection,), daemon=True).start()

    def _read(self, connection: socket.socket) -> None:
        with connection, connection.makefile("rb") as lines:
            for line in lines:
                self.rows.append((time.time_ns(), json.loads(line)))


@pytest.mark.alone
def test_real_time_rows_reach_a_socket_within_milliseconds_of_their_write(
    spark: SparkSession, tmp_path: Path
) -> None:
    """From PySpark, with the docs' trigger, at 500 lines a second: the p50 within 10 ms.

    Timed once the query has run for a few seconds: a new JVM spends its first seconds compiling
    the path a row takes, and the first lines of a new session arrive up to 20 ms late. A Python
    ``foreach`` got the same lines seconds late, or at the batch's end
    (``bench/realtime-python.md``).
    """
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app.log"
    append(log, ["warm-up"])
    arrivals = _Arrivals()
    arrivals.start()
    writer = aof.read_stream(spark, f"{logs}/app\\.log").writeStream.outputMode("update")
    query = (
        aof.foreach_json_lines(writer, arrivals.target)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(realTime="5 minutes")  # type: ignore[call-overload]
        .start()
    )
    try:
        wait_until(lambda: len(arrivals.rows) == 1, 60, "the first line")
        started = time.monotonic()
        with log.open("ab") as out:
            for n in range(WARM_UP + LINES):  # 500 a second, each written and flushed on its own
                time.sleep(max(0.0, started + n / 500 - time.monotonic()))
                out.write(f"{time.time_ns()} line-{n}\n".encode())
                out.flush()
        wait_until(lambda: len(arrivals.rows) == 1 + WARM_UP + LINES, 60, "every line")
    finally:
        query.stop()
        arrivals.server.close()
    assert [str(row["value"]).split()[1] for _, row in arrivals.rows[1:]] == [
        f"line-{n}" for n in range(WARM_UP + LINES)
    ]
    timed = arrivals.rows[1 + WARM_UP :]
    late = [(at - int(str(row["value"]).split()[0])) / 1e6 for at, row in timed]
    assert statistics.median(late) <= 10, sorted(late)[:: LINES // 10]


@pytest.mark.both_lines
def test_micro_batch_rows_are_appended_to_a_file_as_json_lines(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs, out = tmp_path / "logs", tmp_path / "out.jsonl"
    logs.mkdir()
    append(logs / "app.log", ["a", "b"])
    lines = aof.read_stream(spark, f"{logs}/app\\.log")
    writer = lines.select("value", "offset", "timestamp").writeStream
    before = datetime.now(UTC)
    query = (
        aof.foreach_json_lines(writer, str(out))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    times = [row.pop("timestamp") for row in rows]
    assert rows == [{"value": "a whole end", "offset": 0}, {"value": "b whole end", "offset": 12}]
    # As to_json writes a time: ISO 8601 with milliseconds and its zone.
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", t) for t in times), times
    first_planned = datetime.fromisoformat(times[0])
    assert before - timedelta(seconds=1) <= first_planned <= datetime.now(UTC)


@pytest.mark.both_lines
@pytest.mark.parametrize("target", ["out.jsonl", "tcp://no-port", "http://host:9000"])
def test_a_target_neither_a_socket_nor_an_absolute_path_is_refused(
    spark: SparkSession, target: str
) -> None:
    writer = spark.readStream.format("rate").load().writeStream
    with pytest.raises(ValueError, match=f"json lines target '{target}'.*tcp://host:port"):
        aof.foreach_json_lines(writer, target)
