"""The source on a real YARN cluster (Hadoop's MiniYARNCluster), submitted with --master yarn."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import pyspark_aof as aof
from pyspark_aof.testing import ZooKeeperServer
from pyspark_aof.testing._process import spark_home
from pyspark_aof.testing.yarn import YarnCluster
from sink import committed_rows, line_ids
from writers import append

APP = Path(__file__).with_name("yarn_app.py")

# On the newest line only, for the time of the suites: its minicluster is Hadoop 3.5.0, what
# PySpark 4.3 ships; nothing in the source differs by cluster manager or Spark line here.
pytestmark = pytest.mark.spark4_only


@pytest.fixture(scope="module")
def yarn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[YarnCluster]:
    with YarnCluster(tmp_path_factory.mktemp("yarn")) as cluster:
        yield cluster


def submit(yarn: YarnCluster, work: Path, zookeeper: ZooKeeperServer) -> None:
    """Run the application on YARN to its end: it reads what the logs hold now."""
    command = [
        str(spark_home() / "bin" / "spark-submit"),
        "--master",
        "yarn",
        "--deploy-mode",
        "client",
        "--jars",
        aof.jar_path(),
        "--num-executors",
        "1",
        "--executor-memory",
        "512m",
        "--driver-memory",
        "512m",
        # The node managers run here: Spark's JARs are where PySpark put them, not uploaded.
        "--conf",
        f"spark.yarn.jars=local:{spark_home() / 'jars'}/*",
        "--conf",
        f"spark.pyspark.python={sys.executable}",
        "--conf",
        "spark.ui.enabled=false",
        str(APP),
        f"{work}/logs/app\\.log.*",
        zookeeper.address,
        str(work / "checkpoint"),
        str(work / "out"),
    ]
    done = subprocess.run(
        command, env=yarn.environment(), capture_output=True, text=True, timeout=600
    )
    said = [line for line in (done.stdout + done.stderr).splitlines() if " INFO " not in line]
    assert done.returncode == 0, "\n".join(said[-80:])


def test_a_log_is_read_exactly_once_through_a_rotation_on_yarn(
    yarn: YarnCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    written = append(logs / "app.log", [f"a-{n}" for n in range(1000)])
    submit(yarn, tmp_path, zookeeper)
    # Between two runs: more lines, a rotation by renaming, lines in the new file.
    written += append(logs / "app.log", [f"b-{n}" for n in range(500)])
    (logs / "app.log").rename(logs / "app.log.1")
    written += append(logs / "app.log", [f"c-{n}" for n in range(500)])
    submit(yarn, tmp_path, zookeeper)
    rows = committed_rows(tmp_path / "out")
    assert line_ids(rows) == {i: 1 for i in written}
    assert len({(r["host"], r["file_id"], r["offset"]) for r in rows}) == len(written)
