"""``cleanup``: rotations removed once every byte of them is in a committed batch, never before."""

from __future__ import annotations

import gzip
import logging
import logging.handlers
import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming.query import StreamingQuery
from test_read_stream import assert_exactly_once

import pyspark_aof as aof
from pyspark_aof.testing._process import wait_until
from writers import append


def _rotate(config: Path, state: Path) -> None:
    subprocess.run(["logrotate", "-f", "-s", str(state), str(config)], check=True)


def _quiet_for(directory: Path, seconds: float) -> bool:
    """Whether every file there went ``seconds`` without a write or a rename (its change time)."""
    now = time.time()
    return all(
        now - max(p.stat().st_mtime, p.stat().st_ctime) > seconds for p in directory.iterdir()
    )


# When Spark tells a source that a batch is committed is Spark's: each line may differ.
@pytest.mark.both_lines
def test_rotations_go_once_committed_not_after_a_failed_batch_and_none_is_lost(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "service.log"
    config = tmp_path / "logrotate.conf"
    config.write_text(f"{log} {{\n  rotate 10\n  create\n  compress\n}}\n")
    state = tmp_path / "state"
    written = append(log, [f"first-{n}" for n in range(200)])
    _rotate(config, state)
    written += append(log, [f"second-{n}" for n in range(200)])
    _rotate(config, state)
    written += append(log, [f"live-{n}" for n in range(10)])
    out = tmp_path / "out"

    def start(sink: Callable[[DataFrame, int], None]) -> StreamingQuery:
        return (
            aof.read_stream(spark, f"{logs}/service\\.log.*", cleanup="delete", cleanup_after="1s")
            .writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )

    def fail(batch: DataFrame, batch_id: int) -> None:
        raise RuntimeError("the sink is down")

    def keep(batch: DataFrame, batch_id: int) -> None:
        batch.write.mode("append").parquet(str(out))

    # A batch that fails before its commit removes nothing, however long the files wait.
    failing = start(fail)
    with pytest.raises(Exception, match="the sink is down"):
        failing.awaitTermination(120)
    wait_until(lambda: _quiet_for(logs, 1.5), 60, "every file quiet past cleanup.after")
    assert sorted(p.name for p in logs.iterdir()) == [
        "service.log",
        "service.log.1.gz",
        "service.log.2.gz",
    ]

    # Restarted: the batch is replayed and committed (Spark says so when it plans the next one),
    # and only then are the rotations removed.
    query = start(keep)
    query.processAllAvailable()
    written += append(log, [f"after-{n}" for n in range(50)])
    query.processAllAvailable()
    wait_until(
        lambda: [p.name for p in logs.iterdir()] == ["service.log"], 60, "the rotations removed"
    )
    written += append(log, [f"last-{n}" for n in range(50)])
    query.processAllAvailable()
    metrics = query.lastProgress["sources"][0]["metrics"] if query.lastProgress else {}
    query.stop()
    assert_exactly_once(spark, out, written)
    assert metrics["bytesLost"] == "0"
    assert int(metrics["filesRemoved"]) == 2
    assert metrics["filesNotRemoved"] == "0"
    assert log.exists(), "the live file is never removed"


def _ids(directory: Path) -> list[str]:
    """The id of every line of every file under ``directory``, a ``.gz`` decompressed."""
    ids = []
    for p in sorted(directory.rglob("*")):
        if p.is_file():
            data = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
            ids += [line.split(" ", 1)[0] for line in data.decode().splitlines()]
    return ids


@pytest.mark.both_lines
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "compressed"])
def test_archive_keeps_each_file_logrotate_gave_the_same_name(
    spark: SparkSession, tmp_path: Path, compress: bool
) -> None:
    """Logrotate gives ``service.log.1`` to another file at each rotation; archived, none of them
    replaces one archived before: the later ones get the time they were archived."""
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "service.log"
    archive = tmp_path / "archive"
    config = tmp_path / "logrotate.conf"
    config.write_text(f"{log} {{\n  rotate 10\n  create\n{'  compress' if compress else ''}\n}}\n")
    state = tmp_path / "state"
    out = tmp_path / "out"

    def keep(batch: DataFrame, batch_id: int) -> None:
        batch.write.mode("append").parquet(str(out))

    query = (
        aof.read_stream(
            spark,
            f"{logs}/service\\.log.*",
            cleanup="archive",
            cleanup_archive_dir=str(archive),
            cleanup_after="1s",
        )
        .writeStream.foreachBatch(keep)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    written: list[str] = []
    for rotation in range(3):
        written += append(log, [f"rotation{rotation}-{n}" for n in range(100)])
        query.processAllAvailable()
        _rotate(config, state)
        # Two later batches: the first finds what the rotation left (a compressed copy is new
        # there), the second has Spark commit the first.
        for batch in range(2):
            written += append(log, [f"after{rotation}.{batch}-{n}" for n in range(10)])
            query.processAllAvailable()
        wait_until(
            lambda: [p.name for p in logs.iterdir()] == ["service.log"], 60, "the rotation archived"
        )
    written += append(log, [f"last-{n}" for n in range(10)])  # a batch since: its metrics
    query.processAllAvailable()
    metrics = query.lastProgress["sources"][0]["metrics"] if query.lastProgress else {}
    query.stop()

    assert_exactly_once(spark, out, written)
    assert metrics["bytesLost"] == "0"
    archived = archive / logs.relative_to("/")
    extension = ".gz" if compress else ""
    names = sorted(p.name for p in archived.iterdir())
    first = f"service.log.1{extension}"
    time = r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z"
    later = rf"service\.log\.1\.{time}{re.escape(extension)}"
    assert len(names) == 3 and first in names, names
    assert all(re.fullmatch(later, n) for n in names if n != first), names
    # Every line written: those of the rotations in the archive, once, the others in the log.
    assert sorted(_ids(archived) + _ids(logs)) == sorted(written)


class _NumberedRotation(threading.Thread):
    """A busy log rotated to numbered names about twice a second, each rotation renaming every
    backup (``.1`` to ``.2``, ...): by Python's ``RotatingFileHandler``, or by ``logrotate``'s
    ``rotate N`` with a writer that opens the file for each write."""

    def __init__(self, log: Path, by: str, seconds: float) -> None:
        super().__init__(name=f"rotation-{by}", daemon=True)
        self.log, self.by, self.seconds = log, by, seconds
        self.ids: list[str] = []

    def run(self) -> None:
        write: Callable[[str], None]
        if self.by == "RotatingFileHandler":
            handler = logging.handlers.RotatingFileHandler(
                self.log, maxBytes=14_000, backupCount=1000
            )
            logger = logging.getLogger(f"numbered-{id(self)}")
            logger.propagate = False
            logger.addHandler(handler)
            write = logger.warning
        else:
            config = self.log.parent.parent / "logrotate.conf"
            config.write_text(f"{self.log} {{\n  rotate 1000\n  create\n}}\n")
            state = config.with_suffix(".state")

            def write(line: str) -> None:
                append(self.log, [line])

        began = time.monotonic()
        rotated = began
        while time.monotonic() - began < self.seconds:
            for _ in range(20):
                self.ids.append(f"numbered-{len(self.ids)}")
                write(f"{self.ids[-1]} {'x' * 50} end")
            time.sleep(0.05)
            if self.by == "logrotate" and time.monotonic() - rotated > 0.5:
                _rotate(config, state)
                rotated = time.monotonic()
        if self.by == "RotatingFileHandler":
            logger.removeHandler(handler)
            handler.close()


@pytest.mark.parametrize("by", ["RotatingFileHandler", "logrotate"])
def test_a_busy_logs_numbered_backups_go_while_it_is_written(
    spark: SparkSession, tmp_path: Path, by: str
) -> None:
    """Each rotation renames every backup; a rename is not a write, so each goes
    ``cleanup.after`` after it was rotated away, not once the log falls quiet."""
    logs = tmp_path / "logs"
    logs.mkdir()
    out = tmp_path / "out"
    writer = _NumberedRotation(logs / "service.log", by, seconds=15)
    query = (
        aof.read_stream(spark, f"{logs}/service\\.log.*", cleanup="delete", cleanup_after="2s")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(out))
    )
    writer.start()
    writer.join(timeout=120)
    while_written = [p.name for p in logs.iterdir()]
    progress = query.lastProgress
    removed = int(progress["sources"][0]["metrics"]["filesRemoved"]) if progress else 0
    query.processAllAvailable()
    query.stop()

    assert_exactly_once(spark, out, writer.ids)
    # About 30 rotations in 15 s; a backup goes 2 s after it was rotated away, once committed,
    # not once the log is quiet (none would have gone by now).
    assert removed >= 10, (removed, sorted(while_written))
