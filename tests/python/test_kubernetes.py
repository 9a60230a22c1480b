"""A pod's log as Kubernetes leaves it on a node, read with ``format`` and ``path.columns``: each
line the container printed once, whole, with its stream, its time and the pod's names, through
the kubelet's rotations and a restart."""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.functions import expr
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof
from kubelet import Container, Runtime

# The columns a runtime's lines add are Spark's own types, built by the source on each line.
pytestmark = pytest.mark.both_lines

Row = tuple[str, str | None, int | None]  # value, stream, time in microseconds

KUBELET_LAYOUT = r"/pods/(?<namespace>[^_/]+)_(?<pod>[^_/]+)_(?<pod_uid>[^/]+)/(?<container>[^/]+)/"


def _start(spark: SparkSession, pods: Path, tmp: Path, fmt: str) -> StreamingQuery:
    lines = aof.read_stream(
        spark,
        f"{pods}/*/*/.*\\.log.*",
        format=fmt,
        path_columns=str(pods.parent) + KUBELET_LAYOUT,
    )
    return (
        lines.withColumn("time_us", expr("unix_micros(time)"))
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp / "checkpoint"))
        .start(str(tmp / "out"))
    )


def _short(rows: Counter[Row]) -> list[tuple[object, ...]]:
    """Rows as a failure shows them: a long value by its start and length."""
    return [(v[:30], len(v), s, t, n) for (v, s, t), n in rows.items()]


def _stop_once_committed(spark: SparkSession, query: StreamingQuery, tmp: Path, rows: int) -> None:
    """Stop ``query`` once its sink holds ``rows`` rows, or after a minute."""

    def committed() -> int:
        if not any((tmp / "out").glob("*.parquet")):
            return 0
        return spark.read.parquet(str(tmp / "out")).count()

    deadline = time.monotonic() + 60
    while committed() < rows and time.monotonic() < deadline:
        query.processAllAvailable()
        time.sleep(0.2)  # the poll's interval: a file's quiet time passes meanwhile
    query.stop()


def _print(container: Container, rng: random.Random, n: int) -> None:
    """A line on each stream that is free: every eighth longer than two chunks."""
    for stream in ("stdout", "stderr"):
        if not container._open.get(stream):
            body = "x" * (40_000 if n % 8 == 0 else rng.randrange(0, 200))
            container.print(stream, f"{stream}-{n} café {body} end")


def _write(container: Container, rng: random.Random, messages: int, rotate_every: int) -> None:
    first = len(container.written)
    n = first
    while len(container.written) < first + messages:
        _print(container, rng, n)
        n += 1
        container.write(rng.randrange(1, 4))
        if n % rotate_every == 0:
            container.rotate(reopen_after=rng.randrange(0, 3))
    while container.busy():
        container.write(1)


@pytest.mark.parametrize("fmt", ["cri", "docker"])
def test_each_line_once_whole_with_its_stream_time_and_pod_through_rotations_and_a_restart(
    spark: SparkSession, tmp_path: Path, fmt: str
) -> None:
    pods = tmp_path / "pods"
    uid = "0f1e2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7"
    container = Container(pods / f"shop_web-7d9f_{uid}" / "nginx", fmt, seed=7)
    rng = random.Random(11)
    query = _start(spark, pods, tmp_path, fmt)
    for _ in range(4):  # three rotations between reads: none deleted before it is read
        _write(container, rng, 60, rotate_every=20)
        query.processAllAvailable()
    with (container.directory / "0.log").open("a") as log:
        log.write("not a runtime's line\n")
    query.processAllAvailable()
    progress = query.lastProgress
    query.stop()
    assert progress is not None
    assert int(progress["sources"][0]["metrics"]["linesMalformed"]) == 1

    _write(container, rng, 50, rotate_every=25)  # rotated and gzipped while stopped
    restarted = _start(spark, pods, tmp_path, fmt)
    _write(container, rng, 40, rotate_every=15)
    container.close()
    _stop_once_committed(spark, restarted, tmp_path, len(container.written) + 1)

    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    expected: Counter[Row] = Counter(
        (m.text, m.stream, (m.time - epoch) // timedelta(microseconds=1)) for m in container.written
    )
    expected[("not a runtime's line", None, None)] += 1
    got: Counter[Row] = Counter((r["value"], r["stream"], r["time_us"]) for r in rows)
    assert got == expected, (sorted(_short(got - expected)), sorted(_short(expected - got)))
    assert {(r["namespace"], r["pod"], r["pod_uid"], r["container"]) for r in rows} == {
        ("shop", "web-7d9f", uid, "nginx")
    }
    assert len({(r["host"], r["file_id"], r["offset"]) for r in rows}) == len(rows)


# A Python service: log records on stderr (logging's default), some with a traceback and some
# longer than a runtime's chunk, and access lines on stdout, from two threads. It writes each
# record as it formatted it to a file of its own: what must come out, row for row.
APP = r"""
import json, logging, sys, threading
records = open(sys.argv[1], "w")
class Kept(logging.Formatter):
    def format(self, record):
        text = super().format(record)
        records.write(json.dumps(["stderr", text]) + "\n")
        return text
handler = logging.StreamHandler()
handler.setFormatter(Kept("%(asctime)s %(levelname)s %(message)s"))
log = logging.getLogger("shop")
log.addHandler(handler)
log.setLevel(logging.INFO)
lock = threading.Lock()
def access():
    for n in range(300):
        line = f"2026-11-28 10:00:00,000 GET /items/{n} 200"
        with lock:
            records.write(json.dumps(["stdout", line]) + "\n")
        print(line, flush=True)
t = threading.Thread(target=access)
t.start()
for n in range(300):
    if n % 25 == 0:
        try:
            {}["missing-" + "x" * (20000 if n % 50 == 0 else 10)]
        except KeyError:
            with lock:
                log.exception("order %d failed", n)
    else:
        with lock:
            log.info("order %d placed", n)
t.join()
records.close()
"""


def test_a_python_services_records_and_tracebacks_are_one_row_each(
    spark: SparkSession, tmp_path: Path
) -> None:
    pods = tmp_path / "pods"
    expected_file = tmp_path / "records.jsonl"
    runtime = Runtime(
        pods / "shop_api-5c6d_9a8b7c6d" / "api",
        [sys.executable, "-c", APP, str(expected_file)],
    )
    runtime.wait(timeout=60)
    lines = aof.read_stream(
        spark,
        f"{pods}/*/*/[0-9]+\\.log.*",
        format="cri",
        multiline_start=r"^\d{4}-\d{2}-\d{2} ",
    )
    query = (
        lines.writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(tmp_path / "out"))
    )
    # Each stream's last record is complete once the file is quiet for the flush timeout.
    _stop_once_committed(spark, query, tmp_path, len(expected_file.read_text().splitlines()))
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    expected = Counter(tuple(json.loads(line)) for line in expected_file.read_text().splitlines())
    got: Counter[tuple[str, str]] = Counter((r["stream"], r["value"]) for r in rows)
    assert got == expected, (sorted(got - expected)[:3], sorted(expected - got)[:3])
    assert sum(1 for s, v in got if s == "stderr" and "Traceback" in v) == 12
