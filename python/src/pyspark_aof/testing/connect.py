"""A Spark Connect server in a process of its own, from PySpark's own distribution (Spark 4)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pyspark_aof.testing import _process


class ConnectServer(_process.ServerProcess):
    """A local Spark Connect server, with the given JARs on its classpath.

    Parameters
    ----------
    root : Path
        Directory for its log.
    jars : sequence of str
        JARs for the server's classpath, the connector's for example.

    Examples
    --------
    >>> with ConnectServer(tmp_path, [pyspark_aof.jar_path()]) as server:  # doctest: +SKIP
    ...     spark = SparkSession.builder.remote(server.url).create()

    """

    def __init__(self, root: Path, jars: Sequence[str] = ()) -> None:
        super().__init__(root, "Spark Connect")
        self.jars = list(jars)
        self.url = f"sc://127.0.0.1:{self.port}"

    def start(self) -> ConnectServer:
        """Start the server and wait until it listens."""
        command = [
            str(_process.spark_home() / "bin" / "spark-submit"),
            "--class",
            "org.apache.spark.sql.connect.service.SparkConnectServer",
            "--master",
            "local[2]",
            "--conf",
            f"spark.connect.grpc.binding.port={self.port}",
            "--conf",
            "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
        ]
        if self.jars:
            command += ["--jars", ",".join(self.jars)]
        self.launch([*command, "spark-internal"], 120)
        return self
