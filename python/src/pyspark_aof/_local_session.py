"""The command line's own local Spark session, which shows the command's output only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_aof._jar import configure


def local_session(command: str, verbose: bool = False) -> SparkSession:
    """Start a local session for ``command``; without ``verbose``, Spark's output goes to a log.

    Spark's JVM writes its start-up notes (a loopback host name, native libraries, log level
    hints, the JVM's own module warnings), its log and its progress bars to the standard error
    it inherits. Unless ``verbose``, it inherits a log file instead:
    ``pyspark-aof-<command>-<pid>.log`` in the temporary directory.

    Parameters
    ----------
    command : str
        The command's name, for the application's name and the log's.
    verbose : bool
        Show Spark's warnings and progress bars on standard error.

    Returns
    -------
    SparkSession
        A ``local[2]`` session with the connector on its classpath.

    """
    builder = (
        configure(SparkSession.builder.master("local[2]").appName(f"pyspark-aof {command}"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", str(verbose).lower())
    )
    if verbose:
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("WARN")
        return spark
    log = Path(tempfile.gettempdir()) / f"pyspark-aof-{command}-{os.getpid()}.log"
    saved = os.dup(2)
    try:
        with log.open("ab") as out:
            os.dup2(out.fileno(), 2)  # the JVM started now keeps this as its standard error
        return builder.getOrCreate()
    finally:
        os.dup2(saved, 2)
        os.close(saved)

