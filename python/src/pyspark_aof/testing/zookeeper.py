"""A real ZooKeeper server in a process of its own, from the JARs PySpark ships."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pyspark_aof.testing import _process


class ZooKeeperServer(_process.Managed):
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
        self.root = root
        self.port = _process.free_port()
        self.address = f"127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
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
        self._process = _process.start(
            [
                "java",
                "-Xmx256m",
                "-cp",
                str(jars),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                str(self.root / "zoo.cfg"),
            ],
            self.root / "server.log",
        )
        _process.wait_until(self._listening, 60, f"ZooKeeper on {self.address}")
        return self

    def stop(self) -> None:
        """Stop the server; its data stays for the next start."""
        if self._process is not None:
            _process.stop(self._process)
            self._process = None

    def _listening(self) -> bool:
        if self._process is not None and self._process.poll() is not None:
            log = (self.root / "server.log").read_text(errors="replace")
            raise RuntimeError(f"ZooKeeper exited:\n{log[-3000:]}")
        return _process.accepts("127.0.0.1", self.port)
