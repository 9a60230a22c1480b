"""A real local Spark session with the connector, shared by the Python suites."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.testing import ZooKeeperServer


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    session = (
        aof.configure(SparkSession.builder.master("local[2]").appName("pyspark-aof tests"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """A real ZooKeeper server in a process of its own, for the tests of one module."""
    with ZooKeeperServer(tmp_path_factory.mktemp("zookeeper")) as server:
        yield server
