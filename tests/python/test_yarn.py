"""The source on a real YARN cluster (Hadoop's MiniYARNCluster), submitted with --master yarn."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.testing import ZooKeeperServer
from pyspark_aof.testing._process import spark_home, wait_until
from pyspark_aof.testing.yarn import YarnCluster
from sink import committed_rows, line_ids
from writers import append

APP = Path(__file__).with_name("yarn_app.py")

# On the newest line only: its minicluster is Hadoop 3.5.0, what PySpark 4.3 ships.


@pytest.fixture(scope="module")
def yarn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[YarnCluster]:
    # Two node managers, the first labelled: what `nodes = yarn` is asked to find.
    with YarnCluster(tmp_path_factory.mktemp("yarn"), node_managers=2, labels={0: "logs"}) as c:
        yield c


def run(
    yarn: YarnCluster,
    work: Path,
    zookeeper: ZooKeeperServer,
    conf: dict[str, str] | None = None,
    options: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the application on YARN to its end: it reads what the logs hold now."""
    settings = {"spark.executor.instances": "1", **(conf or {})}
    command = [
        str(spark_home() / "bin" / "spark-submit"),
        "--master",
        "yarn",
        "--deploy-mode",
        "client",
        "--jars",
        aof.jar_path(),
        *(a for k, v in settings.items() for a in ("--conf", f"{k}={v}")),
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
        *(f"{k}={v}" for k, v in (options or {}).items()),
    ]
    return subprocess.run(
        command, env=yarn.environment(), capture_output=True, text=True, timeout=600
    )


def said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the driver printed, Spark's INFO lines left out."""
    return [line for line in (done.stdout + done.stderr).splitlines() if " INFO " not in line]


def submit(yarn: YarnCluster, work: Path, zookeeper: ZooKeeperServer) -> None:
    """Run the application to its end, which must succeed."""
    done = run(yarn, work, zookeeper)
    assert done.returncode == 0, "\n".join(said(done)[-80:])


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


def test_the_nodes_to_read_are_the_resource_managers_running_node_managers(
    yarn: YarnCluster, zookeeper: ZooKeeperServer, spark: SparkSession, tmp_path: Path
) -> None:
    # The session finds YARN as a YARN application does: from yarn-site.xml.
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    site = jvm.org.apache.hadoop.fs.Path(str(yarn.conf_dir / "yarn-site.xml"))
    spark.sparkContext._jsc.hadoopConfiguration().addResource(site)
    (tmp_path / "logs").mkdir()

    def expected(selector: str | None) -> str:
        options = aof.AofOptions(
            nodes="yarn", nodes_selector=selector, zookeeper_address=zookeeper.address
        )
        lines = aof.read_stream(spark, f"{tmp_path}/logs/app\\.log", options=options)
        query = lines.writeStream.format("noop").trigger(processingTime="100 milliseconds").start()
        try:

            def metrics() -> dict[str, str]:
                progress = query.lastProgress
                return progress["sources"][0]["metrics"] if progress else {}

            wait_until(lambda: "nodesExpected" in metrics(), 120, "the nodes YARN names")
            return metrics()["nodesExpected"]
        finally:
            query.stop()

    # Two node managers on this one machine: one host. Only the first has the label.
    assert expected(None) == "1"
    assert expected("logs") == "1"
    assert expected("gpu") == "0"


def test_under_dynamic_allocation_yarn_is_asked_for_a_container_on_a_node_unread(
    yarn: YarnCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    (tmp_path / "logs").mkdir()
    append(tmp_path / "logs" / "app.log", ["a-1"])
    nowhere = "127.0.0.9"  # no node manager runs there
    conf = {
        "spark.dynamicAllocation.enabled": "true",
        "spark.dynamicAllocation.shuffleTracking.enabled": "true",
        "spark.dynamicAllocation.initialExecutors": "0",
        "spark.dynamicAllocation.minExecutors": "0",
        "spark.dynamicAllocation.maxExecutors": "2",
        "spark.executor.instances": "0",
    }
    options = {"nodes": f'["{nowhere}"]', "nodes.await.timeout": "15000"}
    done = run(yarn, tmp_path, zookeeper, conf, options)
    failure = "\n".join(said(done))
    assert done.returncode != 0, failure[-3000:]
    assert f"aof: {nowhere} of 'nodes' did not answer within 15000 ms" in failure, failure[-3000:]
    requests = [
        line
        for log in yarn.container_logs()
        for line in log.read_text(errors="replace").splitlines()
        if "Submitted container request for host" in line
    ]
    assert any(nowhere in line for line in requests), requests
