"""``read_stream`` on a Spark Connect session (Spark 4), against a real local Connect server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.testing import ConnectServer
from writers import append


@pytest.fixture(autouse=True)
def environment_kept() -> Iterator[None]:
    """Undo the variables a Connect session sets, which make later sessions Connect ones too."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_read_stream_on_a_connect_server_with_the_connector(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    written = append(logs / "app.log", [f"line-{n}" for n in range(300)])
    with ConnectServer(tmp_path / "server", [aof.jar_path()]) as server:
        spark = SparkSession.builder.remote(server.url).create()
        try:
            query = (
                aof.read_stream(spark, f"{logs}/app\\.log")
                .writeStream.format("memory")
                .queryName("lines")
                .option("checkpointLocation", str(tmp_path / "checkpoint"))
                .trigger(availableNow=True)
                .start()
            )
            assert query.awaitTermination(120)
            rows = spark.sql("SELECT value, host, file_id, offset FROM lines").collect()
        finally:
            spark.stop()
    assert sorted(r["value"].split(" ")[0] for r in rows) == sorted(written)
    assert len({(r["host"], r["file_id"], r["offset"]) for r in rows}) == len(rows)


def test_a_connect_server_without_the_connector_is_named_with_the_fix(tmp_path: Path) -> None:
    with ConnectServer(tmp_path / "server") as server:
        spark = SparkSession.builder.remote(server.url).create()
        try:
            with pytest.raises(RuntimeError, match="Spark Connect server cannot find") as caught:
                aof.read_stream(spark, f"{tmp_path}/app\\.log")
        finally:
            spark.stop()
    assert "--packages com.hx.spark:spark-aof_2.13:" in str(caught.value)
