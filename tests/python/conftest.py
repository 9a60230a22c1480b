"""What the Python suites share: a real local Spark session with the connector, a standalone
cluster, a real ZooKeeper server, a client of it, and the cleanup of the drivers the cluster
suites start."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pyspark
import pytest
from kazoo.client import KazooClient
from pyspark.sql import SparkSession

import pyspark_aof as aof
from apps import App
from pyspark_aof.testing import LocalCluster, ZooKeeperServer

SPARK_4 = pyspark.__version__.startswith("4")

# The JVMs the suites start (drivers, executors, the cluster's daemons) live for seconds: with
# the client compiler alone and one collector thread they take half the CPU they take at the
# JVM's defaults, which on a CI runner of two cores is half the suites' time. What they do is
# the same; the benchmarks, and the local session (`spark`), run at the defaults.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ["AOF_TEST_JVM_OPTIONS"] = JVM_OPTIONS  # executors: cluster_app.py passes it on
os.environ["SPARK_SUBMIT_OPTS"] = JVM_OPTIONS
os.environ["SPARK_DAEMON_JAVA_OPTS"] = JVM_OPTIONS


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "both_lines: a test whose outcome the Spark line can change (the Spark or PySpark API, "
        "the scheduler, checkpoints, the client libraries Spark ships): it runs on Spark 3 too. "
        "Every other test runs on the newest line only.",
    )
    config.addinivalue_line(
        "markers",
        "alone: a test that holds a duration to milliseconds; `make test` runs it after the "
        "other suites, with the machine to itself.",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On Spark 3, leave out (not skip) what the line cannot change."""
    if SPARK_4:
        return
    left_out = [i for i in items if not i.get_closest_marker("both_lines")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [i for i in items if i.get_closest_marker("both_lines")]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail a run in which a test was skipped: a test that did not run proved nothing."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = getattr(reporter, "stats", {})
    not_run = [r.nodeid for key in ("skipped", "xfailed", "xpassed") for r in stats.get(key, [])]
    if not_run and session.exitstatus == pytest.ExitCode.OK:
        print("\nnot run, which fails the run:\n" + "\n".join(sorted(set(not_run))))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def spark(request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    """The local session. Its JVM runs at the JVM's defaults, as a user's does, in a run that
    measures real-time latency in it (the test marked ``alone``); in other runs with the suites'
    options, which save a quarter of the CPU the local tests take."""
    fast_start = os.environ["SPARK_SUBMIT_OPTS"]
    if any(item.get_closest_marker("alone") for item in request.session.items):
        del os.environ["SPARK_SUBMIT_OPTS"]
    session = (
        aof.configure(SparkSession.builder.master("local[2]").appName("pyspark-aof tests"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    os.environ["SPARK_SUBMIT_OPTS"] = fast_start
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A standalone cluster of two hosts of two cores, shared by the modules that take it: each
    test runs an application of its own on it, in directories of its own."""
    with LocalCluster(tmp_path_factory.mktemp("cluster"), hosts=2, cores=2) as c:
        yield c


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """A real ZooKeeper server in a process of its own, for the tests of one module."""
    with ZooKeeperServer(tmp_path_factory.mktemp("zookeeper")) as server:
        yield server


@pytest.fixture
def kazoo(zookeeper: ZooKeeperServer) -> Iterator[KazooClient]:
    """A client of the module's ZooKeeper server, to look at the znodes the source keeps."""
    client = KazooClient(hosts=zookeeper.address)
    client.start()
    yield client
    client.stop()
    client.close()


@pytest.fixture(autouse=True)
def no_driver_left_behind() -> Iterator[None]:
    """A failed test's driver would keep a cluster's cores from the tests after it."""
    yield
    for app in App.started:
        app.kill()
    App.started.clear()
