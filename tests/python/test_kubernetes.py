"""A pod's log as Kubernetes leaves it on a node, read with ``format`` and ``path.columns``: each
line the container printed once, whole, with its stream, its time and the pod's names, through
the kubelet's rotations and a restart."""

from __future__ import annotations

import random
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.functions import expr
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof
from kubelet import Container

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


def _committed(spark: SparkSession, tmp: Path) -> int:
    return spark.read.parquet(str(tmp / "out")).count()


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
    # A rotated file's last chunks are a row once it has been quiet for the flush timeout.
    expected_rows = len(container.written) + 1
    deadline = time.monotonic() + 60
    while _committed(spark, tmp_path) < expected_rows and time.monotonic() < deadline:
        restarted.processAllAvailable()
        time.sleep(0.2)
    restarted.stop()

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
