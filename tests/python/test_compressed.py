"""Rotations compressed by logrotate with every compressor, read as the lines they hold."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from test_read_stream import assert_exactly_once

import pyspark_aof as aof
from writers import append


def _rotate(config: Path, state: Path) -> None:
    subprocess.run(["logrotate", "-f", "-s", str(state), str(config)], check=True)


@pytest.mark.parametrize("compressor", ["gzip", "bzip2", "xz", "zstd", "lz4"])
def test_a_rotation_compressed_at_once_is_read_on_from_where_its_file_was(
    spark: SparkSession, tmp_path: Path, compressor: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "service.log"
    written = append(log, [f"before-{n}" for n in range(100)])
    # logrotate's `compresscmd`, no `delaycompress`: the last lines are only in the compressed file.
    command = shutil.which(compressor)
    assert command is not None, f"{compressor} is needed: apt-get install {compressor}"
    config = tmp_path / "logrotate.conf"
    config.write_text(
        f"{log} {{\n  rotate 5\n  create\n  compress\n  compresscmd {command}\n"
        f"  compressext .{compressor}\n  compressoptions -q\n}}\n"
    )
    query = (
        aof.read_stream(spark, f"{logs}/service\\.log.*")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(tmp_path / "out"))
    )
    query.processAllAvailable()
    written += append(log, [f"unread-{n}" for n in range(100)])
    _rotate(config, tmp_path / "state")
    written += append(log, [f"after-{n}" for n in range(100)])
    _rotate(config, tmp_path / "state")  # the file read from its start, compressed unread
    query.processAllAvailable()
    progress = query.lastProgress
    query.stop()
    assert sorted(p.name for p in logs.iterdir()) == [
        "service.log",
        f"service.log.1.{compressor}",
        f"service.log.2.{compressor}",
    ]
    assert_exactly_once(spark, tmp_path / "out", written)
    assert progress is not None
    assert progress["sources"][0]["metrics"]["bytesLost"] == "0"
