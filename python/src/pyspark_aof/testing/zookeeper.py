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
    secure : bool
        Whether its one port is a ``secureClientPort`` (TLS, on Netty) instead of a plain one.
    settings : dict of str to str, optional
        More lines of ``zoo.cfg`` (``ssl.keyStore.location``, ``authProvider.sasl``, ...).
    jvm_options : list of str, optional
        Options of the server's JVM (``-Djava.security.auth.login.config=...``).

    Examples
    --------
    >>> with ZooKeeperServer(tmp_path) as zk:  # doctest: +SKIP
    ...     print(zk.address)
    127.0.0.1:40123

    """

    def __init__(
        self,
        root: Path,
        tick_ms: int = 1000,
        secure: bool = False,
        settings: dict[str, str] | None = None,
        jvm_options: list[str] | None = None,
    ) -> None:
        super().__init__(root, "ZooKeeper")
        self.address = f"127.0.0.1:{self.port}"
        self._jvm_options = jvm_options or []
        (root / "data").mkdir(parents=True, exist_ok=True)
        port = (
            f"secureClientPort={self.port}\nsecureClientPortAddress=127.0.0.1\n"
            "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
            if secure
            else f"clientPort={self.port}\nclientPortAddress=127.0.0.1\n"
        )
        (root / "zoo.cfg").write_text(
            f"tickTime={tick_ms}\n"
            f"dataDir={root / 'data'}\n"
            f"{port}"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            + "".join(f"{k}={v}\n" for k, v in (settings or {}).items())
        )

    def start(self) -> ZooKeeperServer:
        """Start the server (again) and wait until it listens."""
        jars = _process.spark_home() / "jars" / "*"
        self.launch(
            [
                "java",
                "-Xmx256m",
                *self._jvm_options,
                "-cp",
                str(jars),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                str(self.root / "zoo.cfg"),
            ],
            60,
        )
        return self
