"""The demo: a growing, rotating log streamed through the source, checked for exactly once."""

from __future__ import annotations

import collections
import os
import tempfile
import threading
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

from pyspark_aof._local_session import local_session
from pyspark_aof._stream import read_stream
from pyspark_aof.status import command_for


class RotatingWriter(threading.Thread):
    """Appends numbered lines to ``service.log`` and rotates it by renaming, like logrotate."""

    def __init__(self, directory: Path, seconds: float, rate: int, rotations: int = 2) -> None:
        super().__init__(name="demo-writer", daemon=True)
        self.directory = directory
        self.seconds = seconds
        self.rate = rate
        self.rotate_at = {round(seconds * (i + 1) / (rotations + 1), 1) for i in range(rotations)}
        self.written = 0

    def run(self) -> None:
        """Write at the given rate until the time is up."""
        log = self.directory / "service.log"
        started = time.monotonic()
        out = log.open("ab")
        try:
            while (elapsed := time.monotonic() - started) < self.seconds:
                due = int(elapsed * self.rate) + 1
                while self.written < due:
                    self.written += 1
                    out.write(f"id-{self.written} demo line {time.time():.3f}\n".encode())
                out.flush()
                if self.rotate_at and round(elapsed, 1) >= min(self.rotate_at):
                    self.rotate_at.discard(min(self.rotate_at))
                    out.close()
                    self._rotate(log)
                    out = log.open("ab")
                time.sleep(0.01)
        finally:
            out.close()

    def _rotate(self, log: Path) -> None:
        for n in range(8, 0, -1):
            older = self.directory / f"service.log.{n}"
            if older.exists():
                older.rename(self.directory / f"service.log.{n + 1}")
        log.rename(self.directory / "service.log.1")
        print(f"demo: rotated service.log after {self.written} lines", flush=True)


# Spark's "Current batch is falling behind" warnings, by Spark line: a command's trigger is its
# own choice, not the user's, and a batch longer than it is no news to them.
_TRIGGER_LOGGERS = (
    "org.apache.spark.sql.execution.streaming.ProcessingTimeExecutor",
    "org.apache.spark.sql.execution.streaming.runtime.ProcessingTimeExecutor",
)


def quiet_zookeeper(spark: SparkSession) -> None:
    """Silence what a command's user need not read, even with ``--verbose``.

    The ZooKeeper client's warnings about sessions closing normally at the end, and Spark's
    that a batch took longer than the command's trigger.
    """
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    level = jvm.org.apache.logging.log4j.Level.ERROR
    for name in ("org.apache.zookeeper", "org.apache.curator", *_TRIGGER_LOGGERS):
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, level)


def run(seconds: float = 15.0, rate: int = 2000, verbose: bool = False) -> int:
    """Run the demo and print a summary line.

    Parameters
    ----------
    seconds : float
        How long the writer appends.
    rate : int
        Lines written per second.
    verbose : bool
        Show Spark's own warnings and progress bars too, and the ``status`` command that shows
        the demo's files.

    Returns
    -------
    int
        0 when every line written was read exactly once, 1 otherwise.

    """
    counts: collections.Counter[str] = collections.Counter()

    def show(batch: DataFrame, batch_id: int) -> None:
        rows = batch.select("value", "path").collect()
        counts.update(r["value"].split(" ", 1)[0] for r in rows)
        files = sorted({os.path.basename(r["path"]) for r in rows})
        sources = ", ".join(files) or "-"
        print(f"batch {batch_id:>3}: {len(rows):>6} lines from {sources}", flush=True)

    with (
        local_session("demo", verbose) as spark,
        tempfile.TemporaryDirectory(prefix="aof-demo-") as tmp,
    ):
        quiet_zookeeper(spark)
        logs = Path(tmp) / "logs"
        logs.mkdir()
        writer = RotatingWriter(logs, seconds, rate)
        writer.start()
        query = (
            read_stream(spark, f"{logs}/service\\.log.*")
            .writeStream.foreachBatch(show)
            .option("checkpointLocation", f"{tmp}/checkpoint")
            .trigger(processingTime="500 milliseconds")
            .start()
        )
        if verbose:  # once it has planned a batch: only its progress knows the server's port
            while query.lastProgress is None and writer.is_alive():
                time.sleep(0.1)
            if query.lastProgress is None:
                query.processAllAvailable()
            print(f"demo: its state: {command_for(query.lastProgress)}", flush=True)
        writer.join()
        query.processAllAvailable()
        query.stop()
    once = writer.written > 0 and len(counts) == writer.written and set(counts.values()) == {1}
    print(
        f"demo: wrote {writer.written} lines, read {sum(counts.values())}, "
        f"each exactly once: {'yes' if once else 'no'}",
        flush=True,
    )
    return 0 if once else 1
