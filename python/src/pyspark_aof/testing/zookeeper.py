"""A real ZooKeeper server in a process of its own, from the JARs PySpark ships."""

from __future__ import annotations

from pathlib import Path

from pyspark_aof.testing import _process


class ZooKeeperServer(_process.ServerProcess):
    """A standalone ZooKeeper server that can be stopped and started again on its data.

    Parameters
    ----------
    root : Path
        Directory for its configuration, data and log.
    tick_ms : int
        ZooKeeper's tick; sessions may last from 2 to 20 ticks.

    Examples
    --------
    >>> with ZooKeeperServer(tmp_path) as zk:  # doctest: +SKIP
    ...     print(zk.address)
    127.0.0.1:40123

    """

    def __init__(self, root: Path, tick_ms: int = 1000) -> None:
        super().__init__(root, "ZooKeeper")
        self.address = f"127.0.0.1:{self.port}"
        (root / "data").mkdir(parents=True, exist_ok=True)
        (root / "zoo.cfg").write_text(
            f"tickTime={tick_ms}\n"
            f"dataDir={root / 'data'}\n"
            f"clientPort={self.port}\n"
            "clientPortAddress=127.0.0.1\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
        )

    def start(self) -> ZooKeeperServer:
        """Start the server (again) and wait until it listens."""
        jars = _process.spark_home() / "jars" / "*"
        self.launch(
            [
                "java",
                "-Xmx256m",
                "-cp",
                str(jars),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                str(self.root / "zoo.cfg"),
            ],
            60,
        )
        return self
