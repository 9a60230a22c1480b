"""A real YARN cluster in a process of its own: Hadoop's ``MiniYARNCluster``.

Its classes come from ``org.apache.hadoop:hadoop-client-minicluster`` at the Hadoop version
PySpark ships, fetched by Spark's own ``--packages`` resolution (Maven) on first use; PySpark
ships ``spark-yarn``. The cluster runs in a JVM started the way PySpark starts its own, driven
through py4j, so no compiled code is needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pyspark import SparkConf
from pyspark.java_gateway import launch_gateway

from pyspark_aof.testing import _process

_CONFIG = "yarn-site.xml"
_CLIENT = "org.apache.hadoop:hadoop-client-api,org.apache.hadoop:hadoop-client-runtime"


def hadoop_version() -> str:
    """Return the Hadoop version of the JARs that PySpark ships (``3.5.0`` for PySpark 4.3)."""
    (api,) = (_process.spark_home() / "jars").glob("hadoop-client-api-*.jar")
    return api.name.removeprefix("hadoop-client-api-").removesuffix(".jar")


class YarnCluster(_process.Managed):
    """One resource manager and ``node_managers`` node managers, on this machine.

    Submit to it with ``spark-submit --master yarn`` and ``HADOOP_CONF_DIR`` set to
    :attr:`conf_dir`: :meth:`environment` gives both.

    Parameters
    ----------
    root : Path
        Directory for its configuration, its log and its nodes' working directories.
    node_managers : int
        Node managers, each offering ``memory_mb`` to containers.
    memory_mb : int
        Memory of each node manager.
    labels : dict of int to str, optional
        Node labels, by node manager index (non-exclusive: they take any application too).

    Examples
    --------
    >>> with YarnCluster(tmp_path) as yarn:  # doctest: +SKIP
    ...     subprocess.run(["spark-submit", "--master", "yarn", "app.py"], env=yarn.environment())

    """

    def __init__(
        self,
        root: Path,
        node_managers: int = 1,
        memory_mb: int = 4096,
        labels: dict[int, str] | None = None,
    ) -> None:
        self.root = root
        self.conf_dir = root / "conf"
        self.node_managers = node_managers
        self.memory_mb = memory_mb
        self.labels = labels or {}
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> YarnCluster:
        """Start the cluster and wait until its configuration is written (up to 5 minutes).

        The first start fetches the minicluster JARs with Maven.
        """
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "pyspark_aof.testing.yarn",
            str(self.conf_dir),
            str(self.node_managers),
            str(self.memory_mb),
            *(f"{i}={label}" for i, label in self.labels.items()),
        ]
        # Its working directory holds the nodes' directories, the containers' logs among them.
        self._process = _process.start(
            command, self.root / "yarn.log", env=_java_home(), cwd=self.root
        )
        _process.wait_until(self._ready, 300, "the YARN cluster")
        return self

    def stop(self) -> None:
        """Stop the cluster (its containers with it)."""
        if self._process is not None:
            _process.stop(self._process)
            self._process = None

    def container_logs(self, name: str = "stderr") -> list[Path]:
        """Return the log ``name`` of every container run so far, the application masters' too."""
        return sorted(self.root.glob(f"target/**/container_*/{name}"))

    def environment(self) -> dict[str, str]:
        """Return the environment for ``spark-submit --master yarn`` to this cluster."""
        return {**os.environ, "HADOOP_CONF_DIR": str(self.conf_dir), **_java_home()}

    def _ready(self) -> bool:
        if self._process is not None and self._process.poll() is not None:
            log = (self.root / "yarn.log").read_text(errors="replace")
            raise RuntimeError(f"the YARN cluster exited:\n{log[-3000:]}")
        return (self.conf_dir / _CONFIG).exists()


def _java_home() -> dict[str, str]:
    """``JAVA_HOME``, which node managers need to launch containers."""
    if "JAVA_HOME" in os.environ:
        return {"JAVA_HOME": os.environ["JAVA_HOME"]}
    java = shutil.which("java")
    if java is None:
        return {}
    return {"JAVA_HOME": str(Path(java).resolve().parents[1])}


def _minicluster_classpath() -> str:
    """Fetch the minicluster's JARs with Spark's ``--packages`` resolution; return their paths.

    They go on the JVM's own class path: the YARN classes PySpark ships there refer to classes
    that only the minicluster JAR holds, which a JAR added later would not show them.
    """
    # What the minicluster calls and does not bring: JUnit 5's assertions (Hadoop 3.4 and newer
    # test with it) and Bouncy Castle (its web apps' certificates). PySpark has Hadoop's client.
    packages = ",".join(
        [
            f"org.apache.hadoop:hadoop-client-minicluster:{hadoop_version()}",
            "org.junit.jupiter:junit-jupiter-api:5.10.1",
            "org.bouncycastle:bcpkix-jdk18on:1.78.1",
        ]
    )
    conf = SparkConf().set("spark.jars.packages", packages).set("spark.jars.excludes", _CLIENT)
    gateway = launch_gateway(conf)  # type: ignore[no-untyped-call]
    try:
        jars = str(gateway.jvm.java.lang.System.getProperty("spark.jars"))
    finally:
        gateway.shutdown()
        gateway.proc.kill()
    return ":".join(urlparse(j).path for j in jars.split(","))


def _serve(conf_dir: Path, node_managers: int, memory_mb: int, labels: dict[int, str]) -> None:
    """Run the cluster until this process is stopped; write its configuration once it runs."""
    gateway = launch_gateway(  # type: ignore[no-untyped-call]
        SparkConf().set("spark.driver.extraClassPath", _minicluster_classpath())
    )
    jvm = gateway.jvm
    yarn = jvm.org.apache.hadoop.yarn.conf.YarnConfiguration()
    settings = {
        # The minicluster JAR has no capacity-scheduler.xml: one queue that takes everything.
        "yarn.scheduler.capacity.root.queues": "default",
        "yarn.scheduler.capacity.root.default.capacity": "100",
        "yarn.scheduler.capacity.root.default.maximum-capacity": "100",
        "yarn.scheduler.capacity.root.default.user-limit-factor": "1",
        "yarn.scheduler.capacity.root.default.state": "RUNNING",
        "yarn.scheduler.capacity.root.default.acl_submit_applications": "*",
        "yarn.resourcemanager.hostname": "127.0.0.1",
        "yarn.nodemanager.resource.memory-mb": str(memory_mb),
        "yarn.scheduler.minimum-allocation-mb": "256",
        # A full disk or the containers' virtual memory would stop the nodes for reasons of this
        # machine, not of what runs on them.
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "100.0",
        "yarn.nodemanager.vmem-check-enabled": "false",
        "yarn.nodemanager.pmem-check-enabled": "false",
        # Labels kept by the resource manager, given to nodes once they run (see below).
        "yarn.node-labels.enabled": "true",
        "yarn.node-labels.fs-store.root-dir": (conf_dir.parent / "node-labels").as_uri(),
    }
    for key, value in settings.items():
        yarn.set(key, value)
    cluster = jvm.org.apache.hadoop.yarn.server.MiniYARNCluster("aof", node_managers, 1, 1)
    cluster.init(yarn)
    cluster.start()
    _label(jvm, cluster, labels)
    config = cluster.getConfig()
    # start() may return before the resource manager has put its port in the configuration.
    _process.wait_until(
        lambda: not str(config.get("yarn.resourcemanager.address")).endswith(":0"),
        60,
        "the resource manager's address",
    )
    written = conf_dir / f".{_CONFIG}"
    out = jvm.java.io.FileOutputStream(str(written))
    config.writeXml(out)
    out.close()
    written.rename(conf_dir / _CONFIG)
    threading.Event().wait()  # until stopped: the JVM goes with this process's group


def _label(jvm: Any, cluster: Any, labels: dict[int, str]) -> None:
    """Give node manager ``i`` the label ``labels[i]``, as ``yarn rmadmin`` would."""
    manager = cluster.getResourceManager().getRMContext().getNodeLabelManager()
    known = jvm.java.util.ArrayList()
    for label in sorted(set(labels.values())):
        known.add(jvm.org.apache.hadoop.yarn.api.records.NodeLabel.newInstance(label, False))
    manager.addToCluserNodeLabels(known)  # Hadoop's spelling
    placed = jvm.java.util.HashMap()
    for i, label in labels.items():
        names = jvm.java.util.HashSet()
        names.add(label)
        placed.put(cluster.getNodeManager(i).getNMContext().getNodeId(), names)
    if labels:
        manager.replaceLabelsOnNode(placed)


if __name__ == "__main__":
    _serve(
        Path(sys.argv[1]),
        int(sys.argv[2]),
        int(sys.argv[3]),
        dict((int(i), label) for i, label in (a.split("=", 1) for a in sys.argv[4:])),
    )
